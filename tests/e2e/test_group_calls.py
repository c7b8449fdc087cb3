"""Voice chats (group calls) at the signalling level with unmodified Telethon and
Kurigram clients: create / get / participants paging, the chat's flags, channelFull.call
and the service messages (started, scheduled, invited, ended with its duration), the
rights (manage_call, bans, join_muted), join-as a channel, raising a hand seen by
another member, an admin's mute. Joins go through the real SFU adapter
(``calls_app.sfu``, the session's Janus node): a join the node refuses fails the test.
Media with real call stacks: the SFU's own tests."""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import time

import pytest

from accounts_app.access import user_access_hash
from tests.e2e.test_channels import logged_in, make_live_kurigram, new_user, wait_for

pytestmark = pytest.mark.django_db(transaction=True)

NO_SFU = "the SFU node refused the join (is Janus installed? make sfu; the session warned why)"


@contextlib.contextmanager
def refused(message: str):
    from telethon.errors import RPCError
    from telethon.errors.rpcerrorlist import rpc_errors_dict

    with pytest.raises(RPCError) as info:
        yield
    # Telethon raises its own class for the errors it knows, with its own message.
    known = rpc_errors_dict.get(message)
    assert isinstance(info.value, known) if known else info.value.message == message, info.value


def iu(viewer, target):
    from telethon import types

    return types.InputUser(user_id=target.id, access_hash=user_access_hash(viewer.id, target.id))


def ip(viewer, target):
    from telethon import types

    return types.InputPeerUser(user_id=target.id, access_hash=user_access_hash(viewer.id, target.id))


async def make_group(a, alice, members, title="Voice"):
    from telethon import functions, types

    created = await a(
        functions.messages.CreateChatRequest(users=[iu(alice, m) for m in members], title=title)
    )
    channel = created.updates.chats[1]
    return channel, types.InputPeerChannel(channel.id, channel.access_hash)


def join_params(ssrc: int | None = None, video: bool = False) -> str:
    """A call stack's join JSON (ntgcalls' shape): ICE credentials, a DTLS fingerprint,
    the audio SSRC and, with video, its source groups."""
    ssrc = ssrc or secrets.randbelow(2**31 - 2) + 1
    fp = ":".join(f"{b:02X}" for b in secrets.token_bytes(32))
    params = {
        "ufrag": secrets.token_hex(4), "pwd": secrets.token_hex(12),
        "fingerprints": [{"hash": "sha-256", "setup": "active", "fingerprint": fp}], "ssrc": ssrc,
    }  # fmt: skip
    if video:
        params["ssrc-groups"] = [{"semantics": "FID", "sources": [ssrc + 1, ssrc + 2]}]
    return json.dumps(params)


async def join(client, call, join_as, *, muted=False, ssrc=None):
    """phone.joinGroupCall through the session's SFU node."""
    from telethon import functions, types
    from telethon.errors.rpcerrorlist import rpc_errors_dict

    try:
        return await client(
            functions.phone.JoinGroupCallRequest(
                call=call, join_as=join_as, params=types.DataJSON(join_params(ssrc)), muted=muted
            )
        )
    except rpc_errors_dict["GROUPCALL_ADD_PARTICIPANTS_FAILED"]:
        pytest.fail(NO_SFU)


def of_type(updates, kind):
    return [u for u in updates.updates if isinstance(u, kind)]


def input_call(call):
    from telethon import types

    return types.InputGroupCall(id=call.id, access_hash=call.access_hash)


async def create(a, peer, **kw):
    from telethon import functions, types

    answer = await a(functions.phone.CreateGroupCallRequest(peer=peer, random_id=secrets.randbits(31), **kw))
    (update,) = of_type(answer, types.UpdateGroupCall)
    assert update.peer.channel_id == peer.channel_id
    return answer, update.call


async def all_participants(client, call) -> list:
    """The call stacks' loop: limit=0 while next_offset is non-empty."""
    from telethon import functions

    out, offset = [], ""
    for _ in range(100):
        page = await client(
            functions.phone.GetGroupParticipantsRequest(call=call, ids=[], sources=[], offset=offset, limit=0)
        )
        out += page.participants
        offset = page.next_offset
        if not offset:
            return out
    raise AssertionError("next_offset never became empty")


async def test_create_view_rights_invite_and_discard(edge_server, edge_db, clients):
    from telethon import functions, types

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bob, b, _, _ = await logged_in(edge_server, "Bob", clients)
    channel, peer = await make_group(a, alice, [bob])
    pc = types.PeerChannel(channel.id)

    # A plain member may not start one.
    with refused("CHAT_ADMIN_REQUIRED"):
        await b(functions.phone.CreateGroupCallRequest(peer=peer, random_id=1))
    answer, call = await create(a, peer, title="Weekly")
    assert isinstance(call, types.GroupCall) and call.title == "Weekly" and call.can_change_join_muted
    started = [u for u in answer.updates if isinstance(u, types.UpdateNewChannelMessage)]
    assert isinstance(started[0].message.action, types.MessageActionGroupCall)
    assert started[0].message.action.duration is None
    ref = input_call(call)

    # The chat shows it: flags on the chat, the call in channelFull, for members.
    full = await b(
        functions.channels.GetFullChannelRequest(types.InputChannel(channel.id, channel.access_hash))
    )
    assert full.full_chat.call.id == call.id
    chat = next(c for c in full.chats if c.id == channel.id)
    assert chat.call_active and not chat.call_not_empty

    # Call stacks ask limit=-1; the participant loop ends with an empty next_offset.
    got = await b(functions.phone.GetGroupCallRequest(call=ref, limit=-1))
    assert got.call.id == call.id and got.participants == [] and got.participants_next_offset == ""
    assert not got.call.can_change_join_muted
    assert await all_participants(b, ref) == []

    # Settings and the end are the admins'.
    with refused("CHAT_ADMIN_REQUIRED"):
        await b(functions.phone.ToggleGroupCallSettingsRequest(call=ref, join_muted=True))
    with refused("CHAT_ADMIN_REQUIRED"):
        await b(functions.phone.DiscardGroupCallRequest(call=ref))
    toggled = await a(functions.phone.ToggleGroupCallSettingsRequest(call=ref, join_muted=True))
    assert of_type(toggled, types.UpdateGroupCall)[0].call.join_muted
    with refused("GROUPCALL_NOT_MODIFIED"):
        await a(functions.phone.ToggleGroupCallSettingsRequest(call=ref, join_muted=True))

    invited = await a(functions.phone.InviteToGroupCallRequest(call=ref, users=[iu(alice, bob)]))
    msg = of_type(invited, types.UpdateNewChannelMessage)[0].message
    assert isinstance(msg.action, types.MessageActionInviteToGroupCall) and msg.action.users == [bob.id]
    assert bob.id in {u.id for u in invited.users}
    link = await a(functions.phone.ExportGroupCallInviteRequest(call=ref))
    assert "voicechat" in link.link

    await asyncio.sleep(1.1)  # a duration of at least a second
    ended = await a(functions.phone.DiscardGroupCallRequest(call=ref))
    assert isinstance(of_type(ended, types.UpdateGroupCall)[0].call, types.GroupCallDiscarded)
    with refused("GROUPCALL_ALREADY_DISCARDED"):
        await a(functions.phone.DiscardGroupCallRequest(call=ref))

    history = await b.get_messages(pc, limit=10)
    actions = [m.action for m in history if isinstance(m, types.MessageService)]
    end = next(x for x in actions if isinstance(x, types.MessageActionGroupCall) and x.duration is not None)
    assert end.call.id == call.id and end.duration >= 1
    assert any(isinstance(x, types.MessageActionInviteToGroupCall) for x in actions)
    full = await b(
        functions.channels.GetFullChannelRequest(types.InputChannel(channel.id, channel.access_hash))
    )
    assert full.full_chat.call is None
    assert not next(c for c in full.chats if c.id == channel.id).call_active


async def test_scheduled_call_subscription_and_start(edge_server, edge_db, clients):
    from telethon import events, functions, types

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bob, b, _, _ = await logged_in(edge_server, "Bob", clients)
    _, peer = await make_group(a, alice, [bob], "Later")
    with refused("SCHEDULE_DATE_INVALID"):
        await a(
            functions.phone.CreateGroupCallRequest(peer=peer, random_id=1, schedule_date=int(time.time()) - 5)
        )
    at = int(time.time()) + 3600
    answer, call = await create(a, peer, schedule_date=at)
    assert call.schedule_date.timestamp() == at
    msg = of_type(answer, types.UpdateNewChannelMessage)[0].message
    assert (
        isinstance(msg.action, types.MessageActionGroupCallScheduled)
        and msg.action.schedule_date.timestamp() == at
    )
    ref = input_call(call)

    seen: list = []

    async def on_raw(update):
        if isinstance(update, types.UpdateGroupCall):
            seen.append(update.call)

    b.add_event_handler(on_raw, events.Raw())
    await b.get_dialogs()
    sub = await b(functions.phone.ToggleGroupCallStartSubscriptionRequest(call=ref, subscribed=True))
    assert of_type(sub, types.UpdateGroupCall)[0].call.schedule_start_subscribed
    with refused("CHAT_ADMIN_REQUIRED"):
        await b(functions.phone.StartScheduledGroupCallRequest(call=ref))
    await a(functions.phone.StartScheduledGroupCallRequest(call=ref))
    # Bob's devices hear it start, on their own.
    await wait_for(lambda: any(c.id == call.id and c.schedule_date is None for c in seen))
    with refused("GROUPCALL_ALREADY_STARTED"):
        await a(functions.phone.StartScheduledGroupCallRequest(call=ref))
    with refused("GROUPCALL_ALREADY_STARTED"):
        await b(functions.phone.ToggleGroupCallStartSubscriptionRequest(call=ref, subscribed=False))
    await a(functions.phone.DiscardGroupCallRequest(call=ref))


async def test_banned_member_cannot_see_or_join(edge_server, edge_db, clients):
    from telethon import functions, types

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bob, b, _, _ = await logged_in(edge_server, "Bob", clients)
    channel, peer = await make_group(a, alice, [bob], "Strict")
    _, call = await create(a, peer)
    ref = input_call(call)
    await a(
        functions.channels.EditBannedRequest(
            types.InputChannel(channel.id, channel.access_hash), ip(alice, bob),
            types.ChatBannedRights(0, view_messages=True),
        )
    )  # fmt: skip
    with refused("CHANNEL_PRIVATE"):
        await b(functions.phone.GetGroupCallRequest(call=ref, limit=-1))
    with refused("CHANNEL_PRIVATE"):
        await b(
            functions.phone.JoinGroupCallRequest(
                call=ref, join_as=types.InputPeerSelf(), params=types.DataJSON(join_params())
            )
        )
    await a(functions.phone.DiscardGroupCallRequest(call=ref))


async def test_join_muted_raise_hand_admin_mute_and_leave(edge_server, edge_db, clients):
    """Alice (Telethon, admin) runs a join-muted voice chat; Bob (Kurigram) joins muted
    without the right to unmute, raises his hand, Alice sees it, lets him speak, mutes
    him again; each change reaches the other with a higher version."""
    from telethon import events, functions, types

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bob, b_phone, b_code = await new_user("Bob")
    channel, peer = await make_group(a, alice, [bob], "Stage")
    _, call = await create(a, peer)
    ref = input_call(call)
    await a(functions.phone.ToggleGroupCallSettingsRequest(call=ref, join_muted=True))

    seen_a: list = []

    async def on_a(update):
        if isinstance(update, types.UpdateGroupCallParticipants):
            seen_a.append(update)

    a.add_event_handler(on_a, events.Raw())
    await a.get_dialogs()
    admin_join = await join(a, ref, types.InputPeerSelf())
    conn = of_type(admin_join, types.UpdateGroupCallConnection)[0]
    assert "transport" in json.loads(conn.params.data)
    me = of_type(admin_join, types.UpdateGroupCallParticipants)[0].participants[0]
    assert me.is_self and me.can_self_unmute and not me.muted

    kb = make_live_kurigram(edge_server, "bob-voice")
    try:
        await _bob_in_the_call(kb, a, alice, bob, b_phone, b_code, channel, call, ref, seen_a)
    finally:
        await kb.stop() if kb.is_initialized else await kb.disconnect()


async def _bob_in_the_call(kb, a, alice, bob, b_phone, b_code, channel, call, ref, seen_a):
    from pyrogram import raw
    from pyrogram.handlers import RawUpdateHandler
    from telethon import functions, types

    await kb.connect()
    sent = await kb.send_code(b_phone)
    await kb.sign_in(b_phone, sent.phone_code_hash, b_code)
    seen_b: list = []

    async def on_b(_client, update, _users, _chats):
        if isinstance(update, raw.types.UpdateGroupCallParticipants):
            seen_b.append(update)

    kb.add_handler(RawUpdateHandler(on_b))
    await kb.initialize()
    b_ref = raw.types.InputGroupCall(id=call.id, access_hash=call.access_hash)
    got = await kb.invoke(raw.functions.phone.GetGroupCall(call=b_ref, limit=-1))
    assert got.call.participants_count == 1
    ssrc = secrets.randbelow(2**30) + 1
    answer = await kb.invoke(
        raw.functions.phone.JoinGroupCall(
            call=b_ref, join_as=raw.types.InputPeerSelf(), params=raw.types.DataJSON(data=join_params(ssrc))
        )
    )
    kinds = {type(u).__name__ for u in answer.updates}
    assert {"UpdateGroupCallConnection", "UpdateGroupCallParticipants", "UpdateGroupCall"} <= kinds
    bob_p = next(
        u for u in answer.updates if isinstance(u, raw.types.UpdateGroupCallParticipants)
    ).participants[0]
    assert bob_p.muted and not bob_p.can_self_unmute and bob_p.source == ssrc
    with pytest.raises(Exception, match="GROUPCALL_FORBIDDEN"):
        await kb.invoke(
            raw.functions.phone.EditGroupCallParticipant(
                call=b_ref, participant=raw.types.InputPeerSelf(), muted=False
            )
        )
    # Bob raises his hand: Alice sees it.
    await kb.invoke(
        raw.functions.phone.EditGroupCallParticipant(
            call=b_ref, participant=raw.types.InputPeerSelf(), raise_hand=True
        )
    )
    await wait_for(
        lambda: any(p.raise_hand_rating for u in seen_a for p in u.participants if p.peer.user_id == bob.id)
    )
    v_raised = max(u.version for u in seen_a)
    # Bob may not mute Alice; Alice lets Bob speak, then mutes him again.
    with pytest.raises(Exception, match="CHAT_ADMIN_REQUIRED"):
        await kb.invoke(
            raw.functions.phone.EditGroupCallParticipant(
                call=b_ref, participant=await kb.resolve_peer(alice.id), muted=True
            )
        )
    allow = await a(
        functions.phone.EditGroupCallParticipantRequest(call=ref, participant=ip(alice, bob), muted=False)
    )
    p = of_type(allow, types.UpdateGroupCallParticipants)[0].participants[0]
    assert p.can_self_unmute and p.muted and not p.raise_hand_rating
    await kb.invoke(
        raw.functions.phone.EditGroupCallParticipant(
            call=b_ref, participant=raw.types.InputPeerSelf(), muted=False
        )
    )
    mute = await a(
        functions.phone.EditGroupCallParticipantRequest(call=ref, participant=ip(alice, bob), muted=True)
    )
    p = of_type(mute, types.UpdateGroupCallParticipants)[0]
    assert p.participants[0].muted and not p.participants[0].can_self_unmute and p.version > v_raised
    await wait_for(
        lambda: any(not q.can_self_unmute for u in seen_b for q in u.participants if q.source == ssrc)
    )

    # Both are listed; checkGroupCall answers the sources still there; the chat is "not empty".
    listed = await all_participants(a, ref)
    assert {x.peer.user_id for x in listed} == {alice.id, bob.id}
    assert await kb.invoke(raw.functions.phone.CheckGroupCall(call=b_ref, sources=[ssrc, 12345])) == [ssrc]
    full = await a(
        functions.channels.GetFullChannelRequest(types.InputChannel(channel.id, channel.access_hash))
    )
    assert next(c for c in full.chats if c.id == channel.id).call_not_empty
    left = await kb.invoke(raw.functions.phone.LeaveGroupCall(call=b_ref, source=ssrc))
    assert any(
        isinstance(u, raw.types.UpdateGroupCallParticipants) and u.participants[0].left for u in left.updates
    )
    await wait_for(lambda: any(p.left for u in seen_a for p in u.participants if p.peer.user_id == bob.id))
    with pytest.raises(Exception, match="GROUPCALL_JOIN_MISSING"):
        await kb.invoke(raw.functions.phone.CheckGroupCall(call=b_ref, sources=[ssrc]))
    await a(functions.phone.DiscardGroupCallRequest(call=ref))


async def test_join_as_channel(edge_server, edge_db, clients):
    from telethon import functions, types

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bob, b, _, _ = await logged_in(edge_server, "Bob", clients)
    channel, peer = await make_group(a, alice, [bob], "Hall")
    own = await b(functions.channels.CreateChannelRequest(title="Bob's station", about="", broadcast=True))
    station = own.chats[0]
    _, call = await create(a, peer)
    ref = input_call(call)

    choices = await b(functions.phone.GetGroupCallJoinAsRequest(peer=peer))
    ids = [getattr(x, "user_id", None) or x.channel_id for x in choices.peers]
    assert ids[0] == bob.id and station.id in ids and station.id in {c.id for c in choices.chats}
    as_station = types.InputPeerChannel(station.id, station.access_hash)
    assert await b(functions.phone.SaveDefaultGroupCallJoinAsRequest(peer=peer, join_as=as_station))
    full = await b(
        functions.channels.GetFullChannelRequest(types.InputChannel(channel.id, channel.access_hash))
    )
    assert full.full_chat.groupcall_default_join_as.channel_id == station.id
    # A channel one does not run is no one to speak as.
    with refused("JOIN_AS_PEER_INVALID"):
        await a(
            functions.phone.JoinGroupCallRequest(
                call=ref, join_as=as_station, params=types.DataJSON(join_params())
            )
        )

    joined = await join(b, ref, as_station)
    p = of_type(joined, types.UpdateGroupCallParticipants)[0].participants[0]
    assert isinstance(p.peer, types.PeerChannel) and p.peer.channel_id == station.id
    assert station.id in {c.id for c in joined.chats}
    listed = await all_participants(a, ref)
    assert [x.peer.channel_id for x in listed] == [station.id]

    # Screen sharing: a second connection, its transport in the answer alone.
    shared = await b(
        functions.phone.JoinGroupCallPresentationRequest(
            call=ref, params=types.DataJSON(join_params(video=True))
        )
    )
    conn = of_type(shared, types.UpdateGroupCallConnection)[0]
    assert conn.presentation and "transport" in json.loads(conn.params.data)
    p = of_type(shared, types.UpdateGroupCallParticipants)[0].participants[0]
    assert p.presentation is not None and p.presentation.source_groups
    stopped = await b(functions.phone.LeaveGroupCallPresentationRequest(call=ref))
    assert of_type(stopped, types.UpdateGroupCallParticipants)[0].participants[0].presentation is None
    with refused("PARTICIPANT_JOIN_MISSING"):
        await b(functions.phone.LeaveGroupCallPresentationRequest(call=ref))
    await a(functions.phone.DiscardGroupCallRequest(call=ref))
