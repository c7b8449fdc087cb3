"""Private calls with real call stacks: py-tgcalls (over Telethon) and ntgcalls (WebRTC)
call each other through telesrv, and the media go through coturn on 127.0.0.1.

The callee's "peer-to-peer" privacy is "nobody", so ``p2p_allowed`` is false and both
stacks use relay candidates only: media never leave 127.0.0.0/8 (WebRTC would otherwise
offer host candidates on every interface of the machine). Each side plays a generated
tone and records what it receives; the received audio must be loud and at the other
side's frequency. coturn's log shows the allocations with these calls' credentials and
the bytes it relayed."""

from __future__ import annotations

import asyncio
import os
import re
import secrets
import shutil
import subprocess
import sys

import pytest

from tests.e2e import harness
from tests.e2e.test_calls_signalling import _call_messages, _input_user
from tests.e2e.test_channels import logged_in, wait_for

pytestmark = [pytest.mark.django_db(transaction=True)]

RATE = 48_000
TONE_A, TONE_B = 440, 1000  # Hz


def _ffmpeg(*args: str) -> None:
    """ffmpeg (make calls-media) writes the raw media ntgcalls plays from a file as is."""
    subprocess.run(["ffmpeg", "-loglevel", "error", "-y", *args], check=True, timeout=120)


def _tone(path, freq: int, seconds: int) -> None:
    """A sine tone as raw s16le mono PCM."""
    _ffmpeg("-f", "lavfi", "-i", f"sine=frequency={freq}:sample_rate={RATE}:duration={seconds}",
            "-af", "volume=4", "-f", "s16le", "-ac", "1", "-ar", str(RATE), str(path))  # fmt: skip


def _frames_yuv(path, seconds: int, width=320, height=240, fps=15) -> None:
    """ffmpeg's moving test pattern as raw I420 frames."""
    _ffmpeg("-f", "lavfi", "-i", f"testsrc=size={width}x{height}:rate={fps}", "-t", str(seconds),
            "-pix_fmt", "yuv420p", "-f", "rawvideo", str(path))  # fmt: skip


def _peak_frequency(pcm: bytes) -> tuple[float, float]:
    """(dominant frequency, RMS) of s16le mono audio."""
    import numpy as np

    x = np.frombuffer(pcm[: len(pcm) // 2 * 2], dtype="<i2").astype(float)
    rms = float(np.sqrt(np.mean(x**2))) if len(x) else 0.0
    spectrum = np.abs(np.fft.rfft(x * np.hanning(len(x))))
    freqs = np.fft.rfftfreq(len(x), 1 / RATE)
    return float(freqs[int(np.argmax(spectrum[1:]) + 1)]), rms


@pytest.fixture(scope="module")
def coturn(tmp_path_factory):
    """coturn (make coturn) run by ``manage.py runcoturn``, on 127.0.0.1 only."""
    assert shutil.which("turnserver") or os.path.exists("/usr/bin/turnserver"), "make coturn"
    state = tmp_path_factory.mktemp("coturn")
    port = harness.free_port()
    secret = secrets.token_hex(16)
    env = dict(os.environ)
    env.update({
        "TELESRV_CALL_TURN_SECRET": secret, "TELESRV_CALL_TURN_LISTEN": f"127.0.0.1:{port}",
        "TELESRV_CALL_TURN_RELAY_PORTS": "49160-49300", "TELESRV_STATE_DIR": str(state),
    })  # fmt: skip
    log = state / "turn.log"
    proc = subprocess.Popen(
        [sys.executable, "manage.py", "runcoturn", "--log-traffic", "--allow-loopback-peers", "--log-file", str(log)],
        cwd=harness.ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        deadline = 30
        while deadline > 0 and not (log.exists() and "listener opened on" in log.read_text(errors="replace")):
            assert proc.poll() is None, log.read_text(errors="replace") if log.exists() else "coturn exited"
            deadline -= 0.2
            import time

            time.sleep(0.2)
        yield {"port": port, "secret": secret, "log": log}
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.fixture(scope="module")
def turn_edge(coturn, edge_env, edge_rsa_key, tmp_path_factory):
    """A listener whose calls list the coturn above (TURN with REST credentials, STUN)."""
    env = {
        **edge_env,
        "TELESRV_CALL_TURN_SERVERS": f"127.0.0.1:{coturn['port']}",
        "TELESRV_CALL_TURN_SECRET": coturn["secret"],
    }
    server = harness.start_edge(env, edge_rsa_key, tmp_path_factory.mktemp("turn-edge") / "runmtproto.log")
    yield server
    server.stop()


async def _stack(client, stacks: list):
    from pytgcalls import PyTgCalls
    from pytgcalls.pytgcalls_session import PyTgCallsSession

    # Its start() asks GitHub for the newest version once per process: nothing outside
    # this machine is reachable here.
    PyTgCallsSession.notice_displayed = True
    app = PyTgCalls(client)
    await app.start()
    stacks.append(app)
    return app


async def _relay_only(b):
    from telethon import functions, types

    await b(
        functions.account.SetPrivacyRequest(
            key=types.InputPrivacyKeyPhoneP2P(), rules=[types.InputPrivacyValueDisallowAll()]
        )
    )


async def _meet(a, alice, b, bob):
    from telethon import functions

    # Each client learns the other's access hash (py-tgcalls resolves users by id).
    await a(functions.users.GetUsersRequest([_input_user(alice, bob)]))
    await b(functions.users.GetUsersRequest([_input_user(bob, alice)]))


def _relayed_bytes(log_text: str, secret_user: int) -> int:
    """Bytes coturn relayed for allocations of ``secret_user``'s credentials."""
    total = 0
    for m in re.finditer(
        r"usage: realm=<[^>]*>, username=<\d+:(\d+)>, rp=(\d+), rb=(\d+), sp=(\d+), sb=(\d+)", log_text
    ):
        if int(m.group(1)) == secret_user:
            total += int(m.group(3)) + int(m.group(5))
    return total


async def _call(turn_edge, clients, stacks, tmp_path, *, video: bool):
    from ntgcalls import MediaSource
    from pytgcalls import filters
    from pytgcalls.types import ChatUpdate, Device, Direction, RecordStream
    from pytgcalls.types.raw import AudioParameters, AudioStream, Stream, VideoParameters, VideoStream

    alice, a, _, _ = await logged_in(turn_edge, "Alice", clients)
    bob, b, _, _ = await logged_in(turn_edge, "Bob", clients)
    await _relay_only(b)
    await _meet(a, alice, b, bob)
    tone_a, tone_b = tmp_path / "a.pcm", tmp_path / "b.pcm"
    _tone(tone_a, TONE_A, 30)
    _tone(tone_b, TONE_B, 30)
    camera = None
    if video:
        camera = tmp_path / "cam.yuv"
        _frames_yuv(camera, 30)

    def stream(tone):
        return Stream(
            microphone=AudioStream(MediaSource.FILE, str(tone), AudioParameters(RATE, 1)),
            camera=VideoStream(MediaSource.FILE, str(camera), VideoParameters(320, 240, 15))
            if video
            else None,
        )

    call_a, call_b = await _stack(a, stacks), await _stack(b, stacks)
    heard = {"a": bytearray(), "b": bytearray()}
    frames = {"a": 0, "b": 0}
    incoming = asyncio.Event()

    def on_frames(side):
        async def handler(_, update):
            for f in update.frames:
                if update.device == Device.CAMERA:
                    frames[side] += 1
                else:
                    heard[side].extend(f.frame)

        return handler

    call_a.on_update(filters.stream_frame(Direction.INCOMING, Device.MICROPHONE | Device.CAMERA))(
        on_frames("a")
    )
    call_b.on_update(filters.stream_frame(Direction.INCOMING, Device.MICROPHONE | Device.CAMERA))(
        on_frames("b")
    )

    @call_b.on_update(filters.chat_update(ChatUpdate.Status.INCOMING_CALL))
    async def ring(_, update):
        incoming.set()

    dialing = asyncio.ensure_future(call_a.play(bob.id, stream(tone_a)))
    await asyncio.wait_for(incoming.wait(), 60)
    await call_b.play(alice.id, stream(tone_b))
    await asyncio.wait_for(dialing, 60)
    record = RecordStream(audio=True, audio_parameters=AudioParameters(RATE, 1), camera=video)
    await call_a.record(bob.id, record)
    await call_b.record(alice.id, record)
    await wait_for(lambda: len(heard["a"]) > RATE * 2 * 3 and len(heard["b"]) > RATE * 2 * 3, timeout=60)
    if video:
        await wait_for(lambda: frames["a"] > 10 and frames["b"] > 10, timeout=60)
    await asyncio.sleep(1)
    await call_a.leave_call(bob.id)
    return alice, a, bob, b, heard, frames


async def test_voice_call_through_coturn_tones_both_ways(
    turn_edge, coturn, edge_db, clients, stacks, tmp_path
):
    from calls_app.models import PhoneCall

    alice, a, bob, b, heard, _ = await _call(turn_edge, clients, stacks, tmp_path, video=False)
    # Each side hears the other's tone, loud (a second in, past the jitter buffer's start).
    for side, tone in (("a", TONE_B), ("b", TONE_A)):
        freq, rms = _peak_frequency(bytes(heard[side][RATE * 2 :]))
        assert abs(freq - tone) < 15 and rms > 1000, (side, freq, rms)

    # Both histories show the call with the duration the server measured.
    await wait_for(
        lambda: PhoneCall.objects.filter(admin_id=alice.id, state="discarded").exists(), timeout=30
    )
    row = await PhoneCall.objects.aget(admin_id=alice.id)
    assert not row.p2p_allowed and row.duration >= 3 and row.outcome == "completed"
    for client, other in ((a, bob.id), (b, alice.id)):
        actions = await _call_messages(client, other)
        assert len(actions) == 1 and actions[0].duration == row.duration

    # The media went through coturn: allocations with both users' credentials relayed bytes.
    await asyncio.sleep(2)  # coturn logs an allocation's usage when it is refreshed or closed
    text = coturn["log"].read_text(errors="replace")
    assert re.search(rf"username=<\d+:{alice.id}>", text) and re.search(rf"username=<\d+:{bob.id}>", text)
    assert _relayed_bytes(text, alice.id) > 50_000 and _relayed_bytes(text, bob.id) > 50_000


async def test_video_call_carries_frames_both_ways(turn_edge, coturn, edge_db, clients, stacks, tmp_path):
    from calls_app.models import PhoneCall

    alice, _, bob, _, _, frames = await _call(turn_edge, clients, stacks, tmp_path, video=True)
    assert frames["a"] > 10 and frames["b"] > 10
    await wait_for(
        lambda: PhoneCall.objects.filter(admin_id=alice.id, state="discarded").exists(), timeout=30
    )
    row = await PhoneCall.objects.aget(admin_id=alice.id)
    assert row.video and row.participant_id == bob.id
