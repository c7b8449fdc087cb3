"""Client-compatibility defects found with real clients (issue 19): peer forms Telegram
accepts, catch-up limits and states clients start from, the acting session's pts after
its own deletes, pinned messages, channels it cannot see. Every answer the clients get
here is also checked for ids it names without carrying (tests/e2e/referenced.py)."""

from __future__ import annotations

import pytest

from tests.e2e.test_update_delivery import (
    count_requests,
    input_user,
    kurigram_login,
    new_user,
    stop_kurigrams,
    telethon_login,
    wait_for,
)

pytestmark = pytest.mark.django_db(transaction=True)


async def megagroup(a, creator, members, title="Compat"):
    from telethon import functions, types

    created = await a(
        functions.messages.CreateChatRequest(users=[input_user(creator, u) for u in members], title=title)
    )
    channel = created.updates.chats[1]
    return channel, types.InputChannel(channel.id, channel.access_hash)


async def test_state_and_channel_difference_clients_start_from(edge_server, edge_db, clients):
    """A new account's getState is never pts 0; getChannelDifference takes Kurigram's
    limit of 10000 (clamped), from both libraries."""
    from pyrogram import raw
    from telethon import functions, types

    kurigrams: list = []
    try:
        alice, a = await telethon_login(edge_server, "Alice", clients)
        state = await a(functions.updates.GetStateRequest())
        assert state.pts >= 1
        diff = await a(functions.updates.GetDifferenceRequest(pts=state.pts, date=state.date, qts=state.qts))
        assert isinstance(diff, types.updates.DifferenceEmpty)

        carol, c = await kurigram_login(edge_server, "Carol", kurigrams)
        channel, ic = await megagroup(a, alice, [carol])
        # A bare PeerChannel resolves through what the dialog list cached (the
        # invitation's updates reach Telethon's cache only later, on its update loop).
        await a.get_dialogs()
        for i in range(3):
            await a.send_message(types.PeerChannel(channel.id), f"m{i}")
        d = await a(
            functions.updates.GetChannelDifferenceRequest(ic, types.ChannelMessagesFilterEmpty(), 1, 10000)
        )
        assert [m.message for m in d.new_messages][-3:] == ["m0", "m1", "m2"]
        async for _ in c.get_dialogs():
            pass
        peer = await c.resolve_peer(-1000000000000 - channel.id)
        kd = await c.invoke(
            raw.functions.updates.GetChannelDifference(
                channel=raw.types.InputChannel(channel_id=peer.channel_id, access_hash=peer.access_hash),
                filter=raw.types.ChannelMessagesFilterEmpty(), pts=1, limit=10000,
            )
        )  # fmt: skip
        assert isinstance(kd, raw.types.updates.ChannelDifference) and kd.final
    finally:
        await stop_kurigrams(kurigrams)


async def test_own_deletes_keep_the_acting_telethon_session_continuous(edge_server, edge_db, clients):
    """The session that deletes gets updateDeleteChannelMessages pushed (its answer,
    affectedMessages, names no channel), so a later delete by someone else is no gap."""
    from telethon import events, types

    alice, a = await telethon_login(edge_server, "Alice", clients)
    bob, b = await telethon_login(edge_server, "Bob", clients)
    channel, _ = await megagroup(a, alice, [bob])
    deleted: list = []

    async def on_deleted(event):
        deleted.append(list(event.deleted_ids))

    a.add_event_handler(on_deleted, events.MessageDeleted())
    differences = count_requests(a, "GetChannelDifference")
    await a.get_dialogs()
    await b.get_dialogs()
    group_a = await a.get_input_entity(types.PeerChannel(channel.id))
    group_b = await b.get_input_entity(types.PeerChannel(channel.id))
    mine = await a.send_message(group_a, "mine")
    theirs = await b.send_message(group_b, "theirs")
    await a.delete_messages(group_a, [mine.id])
    await b.delete_messages(group_b, [theirs.id])
    await wait_for(lambda: [theirs.id] in deleted)
    assert differences == []  # received live, in order: no gap to recover


async def test_pinned_messages_are_marked_and_resolvable(edge_server, edge_db, clients):
    from telethon import functions, types

    kurigrams: list = []
    try:
        alice, a = await telethon_login(edge_server, "Alice", clients)
        carol, c = await kurigram_login(edge_server, "Carol", kurigrams)
        channel, ic = await megagroup(a, alice, [carol])
        group = types.InputPeerChannel(channel.id, channel.access_hash)
        first = await a.send_message(group, "pin me")
        reply = await a.send_message(group, "a reply", reply_to=first.id)
        await a(functions.messages.UpdatePinnedMessageRequest(group, first.id))

        hist = await a(functions.messages.GetHistoryRequest(group, 0, 0, 0, 10, 0, 0, 0))
        by_id = {m.id: m for m in hist.messages}
        assert by_id[first.id].pinned and not by_id[reply.id].pinned
        got = await a(functions.channels.GetMessagesRequest(ic, [types.InputMessagePinned()]))
        assert got.messages[0].id == first.id and got.messages[0].pinned
        got = await a(functions.channels.GetMessagesRequest(ic, [types.InputMessageReplyTo(reply.id)]))
        assert got.messages[0].id == first.id
        log = await a(functions.channels.GetAdminLogRequest(ic, "", 0, 0, 10))
        pin = next(
            e for e in log.events if isinstance(e.action, types.ChannelAdminLogEventActionUpdatePinned)
        )
        assert pin.action.message.pinned

        async for _ in c.get_dialogs():
            pass
        chat = await c.get_chat(-1000000000000 - channel.id)
        assert chat.pinned_message is not None and chat.pinned_message.id == first.id
    finally:
        await stop_kurigrams(kurigrams)


async def test_kurigram_manages_admins_and_join_requests_with_input_peers(edge_server, edge_db, clients):
    """Kurigram sends inputPeerUser where the schema says InputUser (editAdmin,
    getChatInviteImporters, hideChatJoinRequest): Telegram takes it, so does the server."""
    from pyrogram.types import ChatPrivileges
    from telethon import functions
    from telethon.errors import InviteRequestSentError

    kurigrams: list = []
    try:
        _karl, k = await kurigram_login(edge_server, "Karl", kurigrams)
        bob, b = await telethon_login(edge_server, "Bob", clients)
        carol, c = await telethon_login(edge_server, "Carol", clients)
        group = await k.create_supergroup("Managed")
        link = await k.export_chat_invite_link(group.id)
        await b(functions.messages.ImportChatInviteRequest(link.rsplit("/", 1)[-1].lstrip("+")))
        members = [m.user.id async for m in k.get_chat_members(group.id)]
        assert bob.id in members
        assert await k.promote_chat_member(group.id, bob.id, ChatPrivileges(can_pin_messages=True))
        promoted = await k.get_chat_member(group.id, bob.id)
        assert promoted.privileges is not None and promoted.privileges.can_pin_messages

        asking = await k.create_chat_invite_link(group.id, creates_join_request=True)
        with pytest.raises(InviteRequestSentError):
            await c(
                functions.messages.ImportChatInviteRequest(asking.invite_link.rsplit("/", 1)[-1].lstrip("+"))
            )
        requests = [r.user.id async for r in k.get_chat_join_requests(group.id)]
        assert requests == [carol.id]
        assert await k.approve_chat_join_request(group.id, carol.id)
        members = [m.user.id async for m in k.get_chat_members(group.id)]
        assert carol.id in members
    finally:
        await stop_kurigrams(kurigrams)


async def test_participant_lists_carry_who_banned_promoted_and_invited(edge_server, edge_db, clients):
    from telethon import functions, types

    alice, a = await telethon_login(edge_server, "Alice", clients)
    bob, *_ = await new_user("Bob")
    carol, *_ = await new_user("Carol")
    _channel, ic = await megagroup(a, alice, [bob, carol])
    rights = types.ChatAdminRights(ban_users=True)
    await a(functions.channels.EditAdminRequest(ic, input_user(alice, bob), rights, ""))
    banned = types.ChatBannedRights(until_date=None, view_messages=True)
    carol_peer = types.InputPeerUser(carol.id, input_user(alice, carol).access_hash)
    await a(functions.channels.EditBannedRequest(ic, carol_peer, banned))
    # kicked_by names the banning admin, who is not among the listed participants
    res = await a(
        functions.channels.GetParticipantsRequest(ic, types.ChannelParticipantsKicked(""), 0, 10, 0)
    )
    assert res.participants and all(p.kicked_by in {u.id for u in res.users} for p in res.participants)
    bob_peer = types.InputPeerUser(bob.id, input_user(alice, bob).access_hash)
    one = await a(functions.channels.GetParticipantRequest(ic, bob_peer))
    assert one.participant.promoted_by in {u.id for u in one.users}


async def test_get_channels_for_a_channel_the_user_cannot_see(edge_server, edge_db, clients):
    from telethon import functions, types
    from telethon.errors import ChannelInvalidError, ChannelPrivateError

    alice, a = await telethon_login(edge_server, "Alice", clients)
    bob, *_ = await new_user("Bob")
    _carol, c = await telethon_login(edge_server, "Carol", clients)
    channel, ic = await megagroup(a, alice, [bob])
    with pytest.raises(ChannelPrivateError):
        await c(
            functions.channels.GetChannelsRequest([types.InputChannel(channel.id, channel.access_hash ^ 1)])
        )
    with pytest.raises(ChannelInvalidError):  # a zero hash from a client (issue 22)
        await c(functions.channels.GetChannelsRequest([types.InputChannel(channel.id, 0)]))
    with pytest.raises(ChannelInvalidError):
        await c(functions.channels.GetChannelsRequest([types.InputChannel(channel.id + 100_000, 0)]))
    # Telethon's own lookup fails with an error, not an IndexError on an empty list
    with pytest.raises((ValueError, ChannelPrivateError)):
        await c.get_input_entity(types.PeerChannel(channel.id))
    got = await a(functions.channels.GetChannelsRequest([ic]))
    assert [ch.id for ch in got.chats] == [channel.id]
