"""Group calls' media plane with real call stacks: ntgcalls (Telegram's group-call
WebRTC stack, as py-tgcalls drives it) against the session's Janus SFU node
(tests/e2e/sfu_node.py, calls_app.sfu).

The first tests drive the adapter directly (``calls_app.sfu.join`` with the join JSON
ntgcalls made, its answer fed to ntgcalls' ``connect``): they prove the media plane
apart from signalling. The others go through telesrv's phone.* handlers with py-tgcalls
over Telethon, as a Telegram user would.

Media: see tests/e2e/sfu_node.py for why they use an address on an interface the
session makes instead of 127.0.0.1."""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets

import pytest

from tests.e2e.test_calls_media import RATE, _peak_frequency, _tone
from tests.e2e.test_channels import wait_for

pytestmark = [pytest.mark.django_db(transaction=True)]

TONE = 440  # Hz
# Opus through a mixer and the receivers' jitter buffers (time-stretching on a loaded
# machine) moves the spectrum's peak a little: 440 Hz came out at up to 457.


def _silent(pcm: bytes) -> bool:
    return _peak_frequency(pcm)[1] < 100 if len(pcm) > 1000 else True


class Member:
    """One ntgcalls instance in one group call, recording what it receives."""

    def __init__(self, call_id: int):
        from ntgcalls import NTgCalls

        self.call_id = call_id
        self.ntg = NTgCalls()
        self.heard = bytearray()
        self.states: list = []
        self.ntg.on_frames(self._frames)
        self.ntg.on_connection_change(lambda _chat, info: self.states.append(info.state))
        self.source = 0

    def _frames(self, _chat, _mode, _device, frames):
        for f in frames:
            self.heard.extend(f.data)

    async def join(self, tone_path=None, *, muted=False) -> None:
        from ntgcalls import AudioDescription, MediaDescription, MediaSource, StreamMode

        from calls_app import sfu

        def audio(source, path):
            return AudioDescription(
                media_source=source, input=str(path), sample_rate=RATE, channel_count=1, keep_open=False
            )

        payload = json.loads(await self.ntg.create_call(self.call_id))
        mic = audio(MediaSource.FILE, tone_path) if tone_path else None
        await self.ntg.set_stream_sources(
            self.call_id,
            StreamMode.CAPTURE,
            MediaDescription(microphone=mic, speaker=None, camera=None, screen=None),
        )
        self.source = payload["ssrc"]
        node = sfu.node_for_call(self.call_id)
        answer = await sfu.join(node, self.call_id, self.source, payload, muted=muted, video=False)
        await self.ntg.connect(self.call_id, json.dumps(answer), False)
        await self.ntg.set_stream_sources(
            self.call_id,
            StreamMode.PLAYBACK,
            MediaDescription(
                microphone=audio(MediaSource.EXTERNAL, ""), speaker=None, camera=None, screen=None
            ),
        )

    async def stop(self) -> None:
        with contextlib.suppress(Exception):
            await self.ntg.stop(self.call_id)


@pytest.fixture
def sfu_settings(sfu_node, settings):
    """This process's calls_app.sfu talks to the session's node."""
    assert sfu_node is not None, "no Janus (make sfu; the session warned why)"
    settings.SFU_NODES = [f"test={sfu_node.url}"]
    return sfu_node


@pytest.fixture
async def members():
    started: list[Member] = []
    yield started
    for m in started:
        await m.stop()
    await asyncio.sleep(0.5)  # the stopped calls' last callbacks land on this loop


async def _room_ids(call_id: int) -> set[int]:
    from calls_app.sfu import rooms

    return {p["id"] for p in await rooms._participants("test", call_id)}


async def test_sfu_carries_a_speakers_tone_to_two_listeners_and_mute_silences_it(
    sfu_settings, members, tmp_path
):
    from ntgcalls import ConnectionState

    from calls_app import sfu

    call_id = secrets.randbelow(2**40) + 1
    tone = tmp_path / "tone.pcm"
    _tone(tone, TONE, 40)
    speaker, a, b = Member(call_id), Member(call_id), Member(call_id)
    members += [speaker, a, b]
    await speaker.join(tone)
    await a.join()
    await b.join()
    await wait_for(lambda: all(ConnectionState.CONNECTED in m.states for m in members), timeout=30)
    assert await _room_ids(call_id) == {m.source & 0xFFFFFFFF for m in members}

    # Both listeners hear the speaker's tone, loud; the speaker hears the others' silence.
    start = {m: len(m.heard) for m in members}
    await wait_for(lambda: all(len(m.heard) - start[m] > RATE * 2 * 3 for m in (a, b)), timeout=30)
    for m in (a, b):
        freq, rms = _peak_frequency(bytes(m.heard[start[m] + RATE :]))
        assert abs(freq - TONE) < 25 and rms > 1000, (freq, rms)
    assert _silent(bytes(speaker.heard[start[speaker] + RATE :]))

    # Muted by the SFU (an admin's editGroupCallParticipant): the listeners get silence.
    await sfu.set_muted("test", call_id, speaker.source, True)
    await asyncio.sleep(1)
    start = {m: len(m.heard) for m in members}
    await asyncio.sleep(3)
    for m in (a, b):
        assert _silent(bytes(m.heard[start[m] :])), _peak_frequency(bytes(m.heard[start[m] :]))

    # Unmuted, the tone is back.
    await sfu.set_muted("test", call_id, speaker.source, False)
    await asyncio.sleep(1)
    start = {m: len(m.heard) for m in members}
    await wait_for(lambda: len(a.heard) - start[a] > RATE * 2 * 2, timeout=30)
    freq, rms = _peak_frequency(bytes(a.heard[start[a] :]))
    assert abs(freq - TONE) < 25 and rms > 1000, (freq, rms)

    # Leave takes the member out of the room and ends its Janus session; end_call
    # empties and removes the room.
    from calls_app.sfu import janus_api, rooms

    def session(m):
        return rooms._session_id(call_id, m.source & 0xFFFFFFFF)

    assert await janus_api.session_exists(sfu_settings.url, session(b))
    await sfu.leave("test", call_id, b.source)
    assert await _room_ids(call_id) == {speaker.source & 0xFFFFFFFF, a.source & 0xFFFFFFFF}
    assert not await janus_api.session_exists(sfu_settings.url, session(b))
    await sfu.end_call("test", call_id)
    assert await _room_ids(call_id) == set()
    for m in (speaker, a):
        assert not await janus_api.session_exists(sfu_settings.url, session(m))


async def test_node_for_call_is_stable_and_spreads_calls(settings):
    from calls_app import sfu

    settings.SFU_NODES = [
        "a=http://127.0.0.1:1/janus",
        "b=http://127.0.0.1:2/janus",
        "c=http://127.0.0.1:3/janus",
    ]
    picks = {call_id: sfu.node_for_call(call_id) for call_id in range(1, 3001)}
    assert {call_id: sfu.node_for_call(call_id) for call_id in picks} == picks
    counts = {n: list(picks.values()).count(n) for n in "abc"}
    assert all(800 < c < 1200 for c in counts.values()), counts
    # A fourth node takes about a quarter of the calls, and only from the others.
    settings.SFU_NODES = [*settings.SFU_NODES, "d=http://127.0.0.1:4/janus"]
    moved = {c for c in picks if sfu.node_for_call(c) != picks[c]}
    assert all(sfu.node_for_call(c) == "d" for c in moved) and 500 < len(moved) < 1000
    settings.SFU_NODES = []
    with pytest.raises(sfu.SfuUnavailable):
        sfu.node_for_call(1)


async def test_unreachable_node_is_sfu_unavailable(settings):
    from calls_app import sfu
    from tests.e2e import harness

    settings.SFU_NODES = [f"down=http://127.0.0.1:{harness.free_port()}/janus"]
    params = {"ufrag": "u", "pwd": "p" * 22, "fingerprints": [{"hash": "sha-256", "setup": "passive",
              "fingerprint": "AA:" * 31 + "AA"}], "ssrc": 1, "ssrc-groups": []}  # fmt: skip
    with pytest.raises(sfu.SfuUnavailable):
        await sfu.join("down", 1, 1, params, muted=False, video=False)


# ---- Through telesrv's signalling: py-tgcalls over Telethon, as a Telegram user would ----


async def _stack(client, stacks: list, heard: bytearray | None = None):
    from pytgcalls import PyTgCalls, filters
    from pytgcalls.pytgcalls_session import PyTgCallsSession
    from pytgcalls.types import Device, Direction

    PyTgCallsSession.notice_displayed = True  # no version check against GitHub from here
    app = PyTgCalls(client)
    await app.start()
    stacks.append(app)
    if heard is not None:

        @app.on_update(filters.stream_frame(Direction.INCOMING, Device.MICROPHONE))
        async def frames(_, update):
            for f in update.frames:
                heard.extend(f.frame)

    return app


def _tone_stream(path):
    from ntgcalls import MediaSource
    from pytgcalls.types.raw import AudioParameters, AudioStream, Stream

    return Stream(microphone=AudioStream(MediaSource.FILE, str(path), AudioParameters(RATE, 1)))


async def _listen(app, chat_id: int) -> None:
    from pytgcalls.types import RecordStream
    from pytgcalls.types.raw import AudioParameters

    await app.play(chat_id)
    await app.record(chat_id, RecordStream(audio=True, audio_parameters=AudioParameters(RATE, 1)))


async def _hears_tone(heard: bytearray, seconds: float = 3) -> tuple[float, float]:
    start = len(heard)
    await wait_for(lambda: len(heard) - start > RATE * 2 * (seconds + 1), timeout=40)
    return _peak_frequency(bytes(heard[start + RATE * 2 :]))


async def test_supergroup_voice_chat_tone_reaches_two_members_and_admin_mute_silences(
    edge_server, edge_db, clients, stacks, tmp_path, sfu_node
):
    from telethon import functions, utils

    from tests.e2e.test_channels import input_user, logged_in

    assert sfu_node is not None, "no Janus (make sfu; the session warned why)"
    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bob, b, _, _ = await logged_in(edge_server, "Bob", clients)
    carol, c, _, _ = await logged_in(edge_server, "Carol", clients)
    created = await a(
        functions.messages.CreateChatRequest(
            users=[input_user(alice, bob), input_user(alice, carol)], title="Voice"
        )
    )
    channel = created.updates.chats[1]
    chat_id = utils.get_peer_id(channel)
    for client in (a, b, c):
        await client.get_dialogs()  # each learns the supergroup's access hash
    await a(functions.phone.CreateGroupCallRequest(peer=await a.get_input_entity(chat_id), random_id=7))

    tone = tmp_path / "tone.pcm"
    _tone(tone, TONE, 60)
    heard_a, heard_c = bytearray(), bytearray()
    app_a, app_b, app_c = (
        await _stack(a, stacks, heard_a),
        await _stack(b, stacks),
        await _stack(c, stacks, heard_c),
    )
    # Bob speaks (a generated tone); Alice (the admin) and Carol listen.
    await app_b.play(chat_id, _tone_stream(tone))
    await _listen(app_a, chat_id)
    await _listen(app_c, chat_id)

    full = await a(functions.channels.GetFullChannelRequest(await a.get_input_entity(chat_id)))
    call = full.full_chat.call
    got = await a(functions.phone.GetGroupParticipantsRequest(call, [], [], "", 10))
    assert {p.peer.user_id for p in got.participants} == {alice.id, bob.id, carol.id}

    for heard in (heard_a, heard_c):
        freq, rms = await _hears_tone(heard)
        assert abs(freq - TONE) < 25 and rms > 1000, (freq, rms)

    # The admin mutes Bob: the others then receive silence (or nothing).
    await a(
        functions.phone.EditGroupCallParticipantRequest(call, await a.get_input_entity(bob.id), muted=True)
    )
    await asyncio.sleep(1.5)
    for heard in (heard_a, heard_c):
        start = len(heard)
        await asyncio.sleep(3)
        assert _silent(bytes(heard[start:])), _peak_frequency(bytes(heard[start:]))

    # Unmuted by the admin (allowed to speak) and unmuting himself, Bob is heard again.
    await a(
        functions.phone.EditGroupCallParticipantRequest(call, await a.get_input_entity(bob.id), muted=False)
    )
    await asyncio.sleep(1.5)
    freq, rms = await _hears_tone(heard_c, 2)
    assert abs(freq - TONE) < 25 and rms > 1000, (freq, rms)


async def test_channel_live_stream_reaches_a_subscriber(
    edge_server, edge_db, clients, stacks, tmp_path, sfu_node
):
    from telethon import functions, types, utils

    from tests.e2e.test_channels import logged_in

    assert sfu_node is not None, "no Janus (make sfu; the session warned why)"
    _, o, _, _ = await logged_in(edge_server, "Host", clients)
    _, f, _, _ = await logged_in(edge_server, "Fan", clients)
    made = await o(functions.channels.CreateChannelRequest(title="Live", about="", broadcast=True))
    channel = made.chats[0]
    await o(functions.channels.UpdateUsernameRequest(channel, f"live{secrets.token_hex(4)}"))
    chat_id = utils.get_peer_id(channel)
    username = (await o(functions.channels.GetChannelsRequest([channel]))).chats[0].username
    await f(functions.channels.JoinChannelRequest(await f.get_input_entity(username)))
    await f.get_dialogs()
    await o(functions.phone.CreateGroupCallRequest(peer=await o.get_input_entity(chat_id), random_id=9))

    tone = tmp_path / "tone.pcm"
    _tone(tone, TONE, 60)
    heard = bytearray()
    app_o, app_f = await _stack(o, stacks), await _stack(f, stacks, heard)
    await app_o.play(chat_id, _tone_stream(tone))
    await _listen(app_f, chat_id)
    freq, rms = await _hears_tone(heard)
    assert abs(freq - TONE) < 25 and rms > 1000, (freq, rms)
    full = await f(functions.channels.GetFullChannelRequest(await f.get_input_entity(chat_id)))
    assert isinstance(full.full_chat.call, types.InputGroupCall)
