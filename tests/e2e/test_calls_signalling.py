"""Private calls at the signalling level with unmodified Telethon clients: the DH
exchange relayed without the server learning the key, every updatePhoneCall state on
the right devices (the callee's other device stops ringing when one answers),
signalling data in order, the server-measured duration in both histories, and the
rules: missed by the ring timeout, declined, busy, privacy, blocks, p2p privacy,
protocol agreement. Media with real call stacks: tests/e2e/test_calls_media.py."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import secrets

import pytest

from tests.e2e.test_channels import logged_in, make_live_telethon, wait_for
from tests.e2e.test_operations import get, health_url, sample

pytestmark = pytest.mark.django_db(transaction=True)

NTGCALLS_VERSIONS = ["8.0.0", "9.0.0", "12.0.0", "13.0.0"]  # what ntgcalls announces (layer 92)


def _protocol(versions=None):
    from telethon import types

    return types.PhoneCallProtocol(
        min_layer=65,
        max_layer=92,
        library_versions=versions or NTGCALLS_VERSIONS,
        udp_p2p=True,
        udp_reflector=True,
    )


def _input_user(viewer, target):
    from telethon import types

    from accounts_app.access import user_access_hash

    return types.InputUser(user_id=target.id, access_hash=user_access_hash(viewer.id, target.id))


class Side:
    """One device's half of the key exchange (the secret never leaves it)."""

    def __init__(self, dh):
        self.p = int.from_bytes(dh.p, "big")
        self.g = dh.g
        self.secret = int.from_bytes(secrets.token_bytes(256), "big") % (self.p - 1) or 2
        self.public = pow(self.g, self.secret, self.p).to_bytes(256, "big")

    def fingerprint(self, other: bytes) -> int:
        key = pow(int.from_bytes(other, "big"), self.secret, self.p).to_bytes(256, "big")
        return int.from_bytes(hashlib.sha1(key).digest()[-8:], "little", signed=True)


def _calls(into: list):
    from telethon import types

    async def handler(update):
        if isinstance(update, types.UpdatePhoneCall | types.UpdatePhoneCallSignalingData):
            into.append(update)

    return handler


def _states(got: list, call_id: int, kind) -> list:
    from telethon import types

    return [
        u.phone_call
        for u in got
        if isinstance(u, types.UpdatePhoneCall)
        and u.phone_call.id == call_id
        and isinstance(u.phone_call, kind)
    ]


async def _device(edge_server, phone, code, clients):
    c = make_live_telethon(edge_server)
    clients.append(c)
    await c.connect()
    sent = await c.send_code_request(phone)
    await c.sign_in(phone, code=code, phone_code_hash=sent.phone_code_hash)
    return c


async def _listen(*clients_) -> list[list]:
    from telethon import events

    boxes = []
    for c in clients_:
        box: list = []
        c.add_event_handler(_calls(box), events.Raw())
        await c.get_dialogs()  # the update state starts here
        boxes.append(box)
    return boxes


async def _request(a, alice, bob, *, video=False, versions=None):
    from telethon import functions

    dh = await a(functions.messages.GetDhConfigRequest(version=0, random_length=256))
    side = Side(dh)
    answer = await a(
        functions.phone.RequestCallRequest(
            user_id=_input_user(alice, bob), random_id=secrets.randbits(31), video=video,
            g_a_hash=hashlib.sha256(side.public).digest(), protocol=_protocol(versions),
        )
    )  # fmt: skip
    return side, answer.phone_call


@contextlib.contextmanager
def _refused(message: str):
    from telethon.errors import RPCError
    from telethon.errors.rpcerrorlist import rpc_errors_dict

    with pytest.raises(RPCError) as caught:
        yield
    # Telethon raises its own class for the errors it knows, with its own message.
    known = rpc_errors_dict.get(message)
    assert isinstance(caught.value, known) if known else caught.value.message == message


async def _metrics(server) -> str:
    return (await asyncio.to_thread(get, health_url(server, "/metrics")))[1]


def _peer(call):
    from telethon import types

    return types.InputPhoneCall(id=call.id, access_hash=call.access_hash)


async def _call_messages(client, peer_id: int) -> list:
    from telethon import types

    history = await client.get_messages(peer_id, limit=20)
    return [m.action for m in history if isinstance(getattr(m, "action", None), types.MessageActionPhoneCall)]


async def test_call_answered_on_second_device_relays_keys_signalling_and_history(
    edge_server, start_edge_server, edge_db, clients
):
    from telethon import functions, types

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bob, b1, bob_phone, bob_code = await logged_in(edge_server, "Bob", clients)
    # Bob's second device is on another listener: call updates cross listeners.
    b2 = await _device(start_edge_server(), bob_phone, bob_code, clients)
    got_a, got_b1, got_b2 = await _listen(a, b1, b2)

    # DH config: always the full one (call stacks ask with version 0 and keep no copy).
    dh = await a(functions.messages.GetDhConfigRequest(version=0, random_length=256))
    again = await a(functions.messages.GetDhConfigRequest(version=dh.version, random_length=16))
    assert isinstance(dh, types.messages.DhConfig) and isinstance(again, types.messages.DhConfig)
    assert dh.g == 3 and len(dh.p) == 256 and len(dh.random) == 256 and again.p == dh.p
    config = await a(functions.phone.GetCallConfigRequest())
    assert "call_ring_timeout_ms" in config.data

    caller, waiting = await _request(a, alice, bob)
    assert isinstance(waiting, types.PhoneCallWaiting) and waiting.receive_date is None
    assert waiting.admin_id == alice.id and waiting.participant_id == bob.id

    # Both of Bob's devices ring; the first to ring tells Alice.
    for got in (got_b1, got_b2):
        await wait_for(lambda got=got: _states(got, waiting.id, types.PhoneCallRequested))
    requested = _states(got_b1, waiting.id, types.PhoneCallRequested)[0]
    assert requested.g_a_hash == hashlib.sha256(caller.public).digest()
    assert await b1(functions.phone.ReceivedCallRequest(peer=_peer(requested)))
    await wait_for(lambda: [w for w in _states(got_a, waiting.id, types.PhoneCallWaiting) if w.receive_date])

    # Bob answers on the second device: the first stops ringing, Alice gets g_b.
    callee = Side(dh)
    accepted = await b2(
        functions.phone.AcceptCallRequest(peer=_peer(requested), g_b=callee.public, protocol=_protocol())
    )
    assert isinstance(accepted.phone_call, types.PhoneCallWaiting)
    await wait_for(lambda: _states(got_a, waiting.id, types.PhoneCallAccepted))
    await wait_for(lambda: _states(got_b1, waiting.id, types.PhoneCallDiscarded))
    gone = _states(got_b1, waiting.id, types.PhoneCallDiscarded)[0]
    assert gone.reason is None and not gone.need_rating
    got_accept = _states(got_a, waiting.id, types.PhoneCallAccepted)[0]
    assert got_accept.g_b == callee.public
    # One library version both sides run (ntgcalls announces four).
    assert got_accept.protocol.library_versions == ["13.0.0"] and got_accept.protocol.max_layer == 92
    # The first device can no longer take the call.
    with _refused("CALL_ALREADY_ACCEPTED"):
        await b1(
            functions.phone.AcceptCallRequest(
                peer=_peer(requested), g_b=Side(dh).public, protocol=_protocol()
            )
        )

    # A g_a that does not match the committed hash is refused; the real one goes through.
    with _refused("DH_G_A_INVALID"):
        await a(
            functions.phone.ConfirmCallRequest(
                peer=_peer(waiting), g_a=Side(dh).public, key_fingerprint=1, protocol=_protocol()
            )
        )
    fingerprint = caller.fingerprint(callee.public)
    confirmed = await a(
        functions.phone.ConfirmCallRequest(
            peer=_peer(waiting), g_a=caller.public, key_fingerprint=fingerprint, protocol=_protocol()
        )
    )
    active = confirmed.phone_call
    assert isinstance(active, types.PhoneCall) and active.g_a_or_b == callee.public and active.p2p_allowed
    await wait_for(lambda: _states(got_b2, waiting.id, types.PhoneCall))
    theirs = _states(got_b2, waiting.id, types.PhoneCall)[0]
    # Bob derives the same key from g_a alone: the fingerprint Alice sent matches.
    assert theirs.g_a_or_b == caller.public and theirs.key_fingerprint == callee.fingerprint(caller.public)
    assert theirs.key_fingerprint == fingerprint

    # Signalling data reach the answering device only, in order, both ways.
    chunks = [f"chunk {i}".encode() * 20 for i in range(25)]
    for chunk in chunks:
        assert await a(functions.phone.SendSignalingDataRequest(peer=_peer(waiting), data=chunk))
    assert await b2(functions.phone.SendSignalingDataRequest(peer=_peer(waiting), data=b"answer"))

    def signals(got):
        return [u.data for u in got if isinstance(u, types.UpdatePhoneCallSignalingData)]

    await wait_for(lambda: len(signals(got_b2)) == len(chunks))
    assert signals(got_b2) == chunks
    await wait_for(lambda: signals(got_a) == [b"answer"])
    assert not signals(got_b1)

    await asyncio.sleep(2.2)
    # py-tgcalls hangs up with duration=0: the server measures it.
    ended = await a(
        functions.phone.DiscardCallRequest(
            peer=_peer(waiting), duration=0, reason=types.PhoneCallDiscardReasonHangup(), connection_id=0
        )
    )
    mine = next(u.phone_call for u in ended.updates if isinstance(u, types.UpdatePhoneCall))
    assert isinstance(mine, types.PhoneCallDiscarded) and mine.duration >= 2 and mine.need_rating
    await wait_for(lambda: _states(got_b2, waiting.id, types.PhoneCallDiscarded))
    bob_end = _states(got_b2, waiting.id, types.PhoneCallDiscarded)[0]
    assert (
        isinstance(bob_end.reason, types.PhoneCallDiscardReasonHangup) and bob_end.duration == mine.duration
    )
    assert await a(functions.phone.SetCallRatingRequest(peer=_peer(waiting), rating=5, comment="clear"))
    assert await b2(
        functions.phone.SaveCallDebugRequest(peer=_peer(waiting), debug=types.DataJSON(data="{}"))
    )

    # Both histories show the call with its duration.
    for client, other in ((a, bob.id), (b2, alice.id)):
        actions = await _call_messages(client, other)
        assert len(actions) == 1 and actions[0].call_id == waiting.id
        assert actions[0].duration == mine.duration and not actions[0].video
        assert isinstance(actions[0].reason, types.PhoneCallDiscardReasonHangup)

    from calls_app.models import PhoneCall

    row = await PhoneCall.objects.aget(id=waiting.id)
    assert (row.outcome, row.rating, row.duration) == ("completed", 5, mine.duration)


async def test_call_rules_missed_declined_busy_privacy_blocked(edge_server, edge_db, clients):
    from telethon import functions, types

    from calls_app.models import PhoneCall

    before = await _metrics(edge_server)
    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bob, b, _, _ = await logged_in(edge_server, "Bob", clients)
    carol, c, _, _ = await logged_in(edge_server, "Carol", clients)
    got_a, got_b, got_c = await _listen(a, b, c)

    # Missed: nobody answers; the ring timeout (moved into the past here) ends it.
    _, missed = await _request(a, alice, bob, video=True)
    await wait_for(lambda: _states(got_b, missed.id, types.PhoneCallRequested))
    await b(functions.phone.ReceivedCallRequest(peer=_peer(missed)))
    await PhoneCall.objects.filter(id=missed.id).aupdate(date=int(missed.date.timestamp()) - 3600)
    await wait_for(lambda: _states(got_a, missed.id, types.PhoneCallDiscarded), timeout=20)
    await wait_for(lambda: _states(got_b, missed.id, types.PhoneCallDiscarded))
    end = _states(got_a, missed.id, types.PhoneCallDiscarded)[0]
    assert isinstance(end.reason, types.PhoneCallDiscardReasonMissed) and end.video and not end.duration
    await wait_for(lambda: PhoneCall.objects.filter(id=missed.id, outcome="missed").exists())

    # Declined: Bob hangs up while it rings (Telegram's apps send "busy" then).
    _, declined = await _request(a, alice, bob)
    await wait_for(lambda: _states(got_b, declined.id, types.PhoneCallRequested))
    await b(
        functions.phone.DiscardCallRequest(
            peer=_peer(declined), duration=0, reason=types.PhoneCallDiscardReasonBusy(), connection_id=0
        )
    )
    await wait_for(lambda: _states(got_a, declined.id, types.PhoneCallDiscarded))
    assert isinstance(
        _states(got_a, declined.id, types.PhoneCallDiscarded)[0].reason, types.PhoneCallDiscardReasonBusy
    )
    assert (await PhoneCall.objects.aget(id=declined.id)).outcome == "declined"

    # Busy: Bob is in a call with Alice when Carol calls; Carol's call ends at once.
    dh = await a(functions.messages.GetDhConfigRequest(version=0, random_length=0))
    side, ongoing = await _request(a, alice, bob)
    await wait_for(lambda: _states(got_b, ongoing.id, types.PhoneCallRequested))
    callee = Side(dh)
    await b(functions.phone.AcceptCallRequest(peer=_peer(ongoing), g_b=callee.public, protocol=_protocol()))
    _, busy = await _request(c, carol, bob)
    await wait_for(lambda: _states(got_c, busy.id, types.PhoneCallDiscarded))
    assert isinstance(
        _states(got_c, busy.id, types.PhoneCallDiscarded)[0].reason, types.PhoneCallDiscardReasonBusy
    )
    assert not _states(got_b, busy.id, types.PhoneCallRequested)
    assert (await PhoneCall.objects.aget(id=busy.id)).outcome == "busy"
    await a(
        functions.phone.DiscardCallRequest(
            peer=_peer(ongoing), duration=0, reason=types.PhoneCallDiscardReasonHangup(), connection_id=0
        )
    )
    await wait_for(lambda: _states(got_b, ongoing.id, types.PhoneCallDiscarded))

    # The callee's p2p privacy decides p2p_allowed.
    await b(
        functions.account.SetPrivacyRequest(
            key=types.InputPrivacyKeyPhoneP2P(), rules=[types.InputPrivacyValueDisallowAll()]
        )
    )
    side, relayed = await _request(a, alice, bob)
    await wait_for(lambda: _states(got_b, relayed.id, types.PhoneCallRequested))
    callee = Side(dh)
    await b(functions.phone.AcceptCallRequest(peer=_peer(relayed), g_b=callee.public, protocol=_protocol()))
    confirmed = await a(
        functions.phone.ConfirmCallRequest(
            peer=_peer(relayed),
            g_a=side.public,
            key_fingerprint=side.fingerprint(callee.public),
            protocol=_protocol(),
        )
    )
    assert not confirmed.phone_call.p2p_allowed
    await a(
        functions.phone.DiscardCallRequest(
            peer=_peer(relayed), duration=0, reason=types.PhoneCallDiscardReasonDisconnect(), connection_id=0
        )
    )

    # Protocols with no library version in common cannot be agreed.
    _, odd = await _request(a, alice, bob, versions=["2.4.4"])
    with _refused("CALL_PROTOCOL_COMPAT_LAYER_INVALID"):
        await b(functions.phone.AcceptCallRequest(peer=_peer(odd), g_b=Side(dh).public, protocol=_protocol()))
    await a(
        functions.phone.DiscardCallRequest(
            peer=_peer(odd), duration=0, reason=types.PhoneCallDiscardReasonMissed(), connection_id=0
        )
    )
    assert (await PhoneCall.objects.aget(id=odd.id)).outcome == "cancelled"

    # Bob's "calls" privacy refuses Alice; then a block refuses Carol.
    await b(
        functions.account.SetPrivacyRequest(
            key=types.InputPrivacyKeyPhoneCall(),
            rules=[
                types.InputPrivacyValueDisallowUsers(users=[_input_user(bob, alice)]),
                types.InputPrivacyValueAllowAll(),
            ],
        )
    )
    with _refused("USER_PRIVACY_RESTRICTED"):
        await _request(a, alice, bob)
    await b(functions.contacts.BlockRequest(id=_input_user(bob, carol)))
    with _refused("USER_IS_BLOCKED"):
        await _request(c, carol, bob)

    # Every ended call is in both histories, newest first, with how it ended.
    actions = await _call_messages(a, bob.id)
    reasons = [type(x.reason).__name__ for x in actions]
    assert reasons == [
        "PhoneCallDiscardReasonMissed", "PhoneCallDiscardReasonDisconnect", "PhoneCallDiscardReasonHangup",
        "PhoneCallDiscardReasonBusy", "PhoneCallDiscardReasonMissed",
    ]  # fmt: skip
    assert actions[-1].video
    assert len(await _call_messages(b, alice.id)) == 5
    assert [type(x.reason).__name__ for x in await _call_messages(c, bob.id)] == [
        "PhoneCallDiscardReasonBusy"
    ]

    # /metrics counts the calls by how they ended, and the refusals by rule.
    after = await _metrics(edge_server)

    def delta(name, **labels):
        return (sample(after, name, **labels) or 0) - (sample(before, name, **labels) or 0)

    ended = "telesrv_calls_ended_total"
    assert delta(ended, outcome="missed", kind="video") == 1
    assert delta(ended, outcome="declined", kind="voice") == 1
    assert delta(ended, outcome="busy", kind="voice") == 1
    assert delta(ended, outcome="cancelled", kind="voice") == 2
    assert delta(ended, outcome="disconnected", kind="voice") == 1
    assert delta("telesrv_calls_refused_total", rule="privacy") == 1
    assert delta("telesrv_calls_refused_total", rule="blocked") == 1
