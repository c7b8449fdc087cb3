"""Channel administration with unmodified Telethon against the real listener: promoted
admins' rights, ban / kick / unban, slow mode, default rights, invite links with a usage
limit under concurrent imports, request-needed links, the admin log."""

from __future__ import annotations

import asyncio

import pytest
from telethon import errors, functions, types

from accounts_app.access import user_access_hash

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def clean_server_log(edge_server):
    """Every test here must leave no traceback or error in the server's log."""
    start = len(edge_server.log())
    yield
    new = edge_server.log()[start:]
    trouble = [line for line in new.splitlines() if "Traceback" in line or " ERROR " in line]
    assert not trouble, new[-3000:]


def iu(viewer, target):
    return types.InputUser(target.id, user_access_hash(viewer.id, target.id))


def ip(viewer, target):
    return types.InputPeerUser(target.id, user_access_hash(viewer.id, target.id))


async def make_group(client, title: str, invitees=()):
    res = await client(functions.channels.CreateChannelRequest(title=title, about="", megagroup=True))
    channel = res.chats[0]
    ic = types.InputChannel(channel.id, channel.access_hash)
    if invitees:
        await client(functions.channels.InviteToChannelRequest(ic, list(invitees)))
    return channel, ic


async def dialog_channel_ids(client) -> set[int]:
    res = await client(
        functions.messages.GetDialogsRequest(
            offset_date=None, offset_id=0, offset_peer=types.InputPeerEmpty(), limit=100, hash=0
        )
    )
    return {c.id for c in res.chats if isinstance(c, types.Channel) and not c.left}


async def test_promoted_admin_has_only_granted_rights(edge_db, telethon_user):
    a, alice, _ = await telethon_user("Alice")
    b, bob, _ = await telethon_user("Bob")
    c, carol, _ = await telethon_user("Carol")
    channel, ic = await make_group(a, "Mods", [iu(alice, bob), iu(alice, carol)])
    res = await a(
        functions.channels.EditAdminRequest(
            ic, iu(alice, bob), types.ChatAdminRights(ban_users=True, pin_messages=True), rank="mod"
        )
    )
    (part,) = [u for u in res.updates if isinstance(u, types.UpdateChannelParticipant)]
    assert (
        isinstance(part.new_participant, types.ChannelParticipantAdmin) and part.new_participant.rank == "mod"
    )
    ic_b = types.InputChannel(channel.id, channel.access_hash)
    # Allowed: restrict Carol, pin a message.
    await b(
        functions.channels.EditBannedRequest(
            ic_b, ip(bob, carol), types.ChatBannedRights(0, send_messages=True)
        )
    )
    await c.get_dialogs()  # Carol learns the group's access hash, as a real client would
    with pytest.raises(errors.ChatWriteForbiddenError):
        await c.send_message(types.PeerChannel(channel.id), "muted?")
    sent = await a.send_message(types.PeerChannel(channel.id), "pin me")
    pin = await b(
        functions.messages.UpdatePinnedMessageRequest(
            types.InputPeerChannel(channel.id, channel.access_hash), sent.id
        )
    )
    assert any(
        isinstance(u, types.UpdatePinnedChannelMessages) and u.messages == [sent.id] for u in pin.updates
    )
    # Not granted: title, admins, slow mode, invite links.
    with pytest.raises(errors.ChatAdminRequiredError):
        await b(functions.channels.EditTitleRequest(ic_b, "mine now"))
    with pytest.raises(errors.ChatAdminRequiredError):
        await b(
            functions.channels.EditAdminRequest(
                ic_b, iu(bob, carol), types.ChatAdminRights(pin_messages=True), ""
            )
        )
    with pytest.raises(errors.ChatAdminRequiredError):
        await b(functions.channels.ToggleSlowModeRequest(ic_b, 10))
    # Granting more than you hold is RIGHT_FORBIDDEN.
    await a(
        functions.channels.EditAdminRequest(ic, iu(alice, bob), types.ChatAdminRights(add_admins=True), "")
    )
    with pytest.raises(errors.RightForbiddenError):
        await b(
            functions.channels.EditAdminRequest(
                ic_b, iu(bob, carol), types.ChatAdminRights(change_info=True), ""
            )
        )
    # A plain member gets CHAT_ADMIN_REQUIRED for every privileged call.
    ic_c = types.InputChannel(channel.id, channel.access_hash)
    peer_c = types.InputPeerChannel(channel.id, channel.access_hash)
    for request in (
        functions.channels.EditTitleRequest(ic_c, "x"),
        functions.channels.EditBannedRequest(
            ic_c, ip(carol, bob), types.ChatBannedRights(0, view_messages=True)
        ),
        functions.channels.EditAdminRequest(ic_c, iu(carol, bob), types.ChatAdminRights(), ""),
        functions.channels.ToggleSlowModeRequest(ic_c, 10),
        functions.channels.DeleteChannelRequest(ic_c),
        functions.channels.GetAdminLogRequest(ic_c, "", 0, 0, 10),
        functions.messages.ExportChatInviteRequest(peer_c),
        functions.messages.EditChatDefaultBannedRightsRequest(
            peer_c, types.ChatBannedRights(0, send_messages=True)
        ),
        functions.messages.UpdatePinnedMessageRequest(peer_c, sent.id),
    ):
        with pytest.raises(errors.ChatAdminRequiredError):
            await c(request)


async def test_ban_kick_unban_and_slow_mode(edge_db, telethon_user):
    a, alice, _ = await telethon_user("Alice")
    b, bob, _ = await telethon_user("Bob")
    channel, ic = await make_group(a, "Strict", [iu(alice, bob)])
    await a(functions.channels.UpdateUsernameRequest(ic, f"strict{channel.id}"))
    link = await a(
        functions.messages.ExportChatInviteRequest(types.InputPeerChannel(channel.id, channel.access_hash))
    )
    invite_hash = link.link.rsplit("+", 1)[1]
    ic_b = types.InputChannel(channel.id, channel.access_hash)
    assert channel.id in await dialog_channel_ids(b)
    await a(
        functions.channels.EditBannedRequest(
            ic, ip(alice, bob), types.ChatBannedRights(0, view_messages=True)
        )
    )
    assert channel.id not in await dialog_channel_ids(b)
    with pytest.raises(errors.ChannelPrivateError):
        await b(functions.channels.JoinChannelRequest(ic_b))
    with pytest.raises(errors.InviteHashInvalidError):
        await b(functions.messages.ImportChatInviteRequest(invite_hash))
    full = await a(functions.channels.GetFullChannelRequest(ic))
    assert full.full_chat.kicked_count == 1
    await a(functions.channels.EditBannedRequest(ic, ip(alice, bob), types.ChatBannedRights(0)))
    await b(functions.channels.JoinChannelRequest(ic_b))
    assert channel.id in await dialog_channel_ids(b)
    # Slow mode binds members, not admins.
    b.flood_sleep_threshold = 0
    await a(functions.channels.ToggleSlowModeRequest(ic, 60))
    peer = types.PeerChannel(channel.id)
    await b.send_message(peer, "one")
    with pytest.raises(errors.SlowModeWaitError):
        await b.send_message(peer, "two")
    await a.send_message(peer, "admin one")
    await a.send_message(peer, "admin two")
    # Default banned rights: nobody but admins may send.
    await a(functions.channels.ToggleSlowModeRequest(ic, 0))
    await a(
        functions.messages.EditChatDefaultBannedRightsRequest(
            types.InputPeerChannel(channel.id, channel.access_hash),
            types.ChatBannedRights(0, send_messages=True),
        )
    )
    with pytest.raises(errors.ChatWriteForbiddenError):
        await b.send_message(peer, "three")


async def test_invite_usage_limit_and_request_needed_link(edge_db, telethon_user):
    a, alice, _ = await telethon_user("Alice")
    channel, ic = await make_group(a, "Limited")
    peer = types.InputPeerChannel(channel.id, channel.access_hash)
    link = await a(functions.messages.ExportChatInviteRequest(peer, usage_limit=3))
    assert link.usage_limit == 3
    invite_hash = link.link.rsplit("+", 1)[1]
    joiners = await asyncio.gather(*(telethon_user(f"J{i}") for i in range(10)))
    check = await joiners[0][0](functions.messages.CheckChatInviteRequest(invite_hash))
    assert isinstance(check, types.ChatInvite) and check.title == "Limited"
    results = await asyncio.gather(
        *(client(functions.messages.ImportChatInviteRequest(invite_hash)) for client, _, _ in joiners),
        return_exceptions=True,
    )
    ok = [r for r in results if not isinstance(r, BaseException)]
    refused = [r for r in results if isinstance(r, BaseException)]
    assert len(ok) == 3, results
    assert all(isinstance(r, errors.UsersTooMuchError) for r in refused), refused
    full = await a(functions.channels.GetFullChannelRequest(ic))
    assert full.full_chat.participants_count == 4
    importers = await a(
        functions.messages.GetChatInviteImportersRequest(
            peer, offset_date=None, offset_user=types.InputUserEmpty(), limit=50, link=link.link
        )
    )
    assert importers.count == 3
    # Request-needed: a pending request until the admin approves it.
    d, dave, _ = await telethon_user("Dave")
    req_link = await a(functions.messages.ExportChatInviteRequest(peer, request_needed=True))
    with pytest.raises(errors.InviteRequestSentError):
        await d(functions.messages.ImportChatInviteRequest(req_link.link.rsplit("+", 1)[1]))
    assert channel.id not in await dialog_channel_ids(d)
    pending = await a(
        functions.messages.GetChatInviteImportersRequest(
            peer, offset_date=None, offset_user=types.InputUserEmpty(), limit=50, requested=True
        )
    )
    assert [i.user_id for i in pending.importers] == [dave.id]
    await a(functions.messages.HideChatJoinRequestRequest(peer, iu(alice, dave), approved=True))
    assert channel.id in await dialog_channel_ids(d)
    # Revoking the limited link: nobody else gets in through it.
    await a(functions.messages.EditExportedChatInviteRequest(peer, link.link, revoked=True))
    with pytest.raises(errors.InviteHashExpiredError):
        await joiners[-1][0](functions.messages.ImportChatInviteRequest(invite_hash))


async def test_admin_log_filterable_by_admin_and_type(edge_db, telethon_user):
    a, alice, _ = await telethon_user("Alice")
    b, bob, _ = await telethon_user("Bob")
    _c, carol, _ = await telethon_user("Carol")
    channel, ic = await make_group(a, "Logged", [iu(alice, bob), iu(alice, carol)])
    await a(
        functions.channels.EditAdminRequest(
            ic, iu(alice, bob), types.ChatAdminRights(ban_users=True, change_info=True), ""
        )
    )
    ic_b = types.InputChannel(channel.id, channel.access_hash)
    await b(functions.channels.EditTitleRequest(ic_b, "Logged 2"))
    await b(
        functions.channels.EditBannedRequest(
            ic_b, ip(bob, carol), types.ChatBannedRights(0, view_messages=True)
        )
    )
    await a(functions.channels.ToggleSlowModeRequest(ic, 30))
    log = await a(functions.channels.GetAdminLogRequest(ic, "", 0, 0, 100))
    kinds = [type(e.action).__name__ for e in log.events]
    assert kinds == [
        "ChannelAdminLogEventActionToggleSlowMode",
        "ChannelAdminLogEventActionParticipantToggleBan",
        "ChannelAdminLogEventActionChangeTitle",
        "ChannelAdminLogEventActionParticipantToggleAdmin",
        "ChannelAdminLogEventActionParticipantInvite",  # Carol, then Bob (newest first)
        "ChannelAdminLogEventActionParticipantInvite",
    ]
    assert [e.action.participant.user_id for e in log.events[-2:]] == [carol.id, bob.id]
    assert {u.id for u in log.users} >= {alice.id, bob.id, carol.id}
    by_bob = await a(functions.channels.GetAdminLogRequest(ic, "", 0, 0, 100, admins=[iu(alice, bob)]))
    assert [e.user_id for e in by_bob.events] == [bob.id, bob.id]
    kicks = await a(
        functions.channels.GetAdminLogRequest(
            ic, "", 0, 0, 100, events_filter=types.ChannelAdminLogEventsFilter(kick=True)
        )
    )
    (kick,) = kicks.events
    assert isinstance(kick.action.new_participant, types.ChannelParticipantBanned)
    info = await a(
        functions.channels.GetAdminLogRequest(
            ic, "", 0, 0, 100, events_filter=types.ChannelAdminLogEventsFilter(info=True)
        )
    )
    assert [(e.action.prev_value, e.action.new_value) for e in info.events] == [("Logged", "Logged 2")]
    # Seek paging with max_id.
    older = await a(functions.channels.GetAdminLogRequest(ic, "", log.events[1].id, 0, 100))
    assert [e.id for e in older.events] == [e.id for e in log.events[2:]]
