"""editAdmin / editBanned / deleteChannel and the admin log they write."""

import pytest

from channels_app import actions
from channels_app.actions import admin, admin_log, settings
from channels_app.errors import ChannelPrivateError, ChatWriteForbiddenError, UserNotParticipantError
from channels_app.rights import admin_bit, banned_bit
from tl.errors import (
    ChatAdminRequiredError,
    RightForbiddenError,
    UserAdminInvalidError,
    UserCreatorError,
)

A, B, C, D = 21, 22, 23, 24


async def _group(*members):
    g = (await actions.do_create_channel(A, "g", megagroup=True)).channel
    if members:
        await actions.do_invite_to_channel(A, g["id"], list(members))
    return g["id"]


async def test_promoted_admin_can_use_granted_rights_only(chan):
    cid = await _group(B, C)
    rights = admin_bit("ban_users") | admin_bit("pin_messages")
    up = await admin.do_edit_admin(A, cid, B, rights, "mod")
    assert (up.prev["role"], up.new["role"], up.new["admin_rights"]) == ("member", "admin", rights)
    assert up.channel["admins_count"] == 2
    # B may restrict C (ban_users) ...
    await admin.do_edit_banned(B, cid, C, banned_bit("send_messages"))
    with pytest.raises(ChatWriteForbiddenError):
        await actions.do_send_message(C, cid, "hi", random_id=5)
    # ... but not change the title, and not grant rights they lack.
    with pytest.raises(ChatAdminRequiredError):
        await settings.do_edit_title(B, cid, "nope")
    with pytest.raises(ChatAdminRequiredError):  # B has no add_admins at all
        await admin.do_edit_admin(B, cid, C, admin_bit("pin_messages"))
    # A plain member gets CHAT_ADMIN_REQUIRED for every privileged call.
    with pytest.raises(ChatAdminRequiredError):
        await settings.do_edit_title(C, cid, "x")
    with pytest.raises(ChatAdminRequiredError):
        await admin.do_edit_banned(C, cid, B, banned_bit("send_messages"))


async def test_admin_cannot_grant_beyond_own_rights_nor_touch_the_creator(chan):
    cid = await _group(B, C)
    await admin.do_edit_admin(A, cid, B, admin_bit("add_admins") | admin_bit("pin_messages"))
    with pytest.raises(RightForbiddenError):
        await admin.do_edit_admin(B, cid, C, admin_bit("ban_users"))
    await admin.do_edit_admin(B, cid, C, admin_bit("pin_messages"))
    with pytest.raises(UserCreatorError):
        await admin.do_edit_admin(B, cid, A, 0)
    with pytest.raises(UserCreatorError):
        await admin.do_edit_banned(None, cid, A, banned_bit("view_messages"))
    # C was promoted by B: only B or the creator may demote C.
    with pytest.raises(UserNotParticipantError):
        await admin.do_edit_admin(A, cid, D, admin_bit("pin_messages"))
    up = await admin.do_edit_admin(A, cid, C, 0)
    assert up.new["role"] == "member" and up.channel["admins_count"] == 2
    with pytest.raises(UserAdminInvalidError):
        await admin.do_edit_admin(A, cid, C, 0)  # not an admin any more


async def test_kick_removes_member_blocks_rejoin_until_unbanned(chan):
    cid = await _group(B)
    pts_before = (await _channel(cid))["pts"]
    up = await admin.do_edit_banned(A, cid, B, banned_bit("view_messages"))
    assert up.new["status"] == "kicked"
    assert up.channel["participants_count"] == 1 and up.channel["kicked_count"] == 1
    # A kick from a megagroup leaves a visible service message: exactly one pts.
    (ev,) = up.events
    assert ev.pts == pts_before + 1 and ev.message["action"] == {"_": "chatDeleteUser", "user_id": B}
    assert (await actions.get_dialogs(B)).entries == []
    with pytest.raises(ChannelPrivateError):
        await actions.get_history(B, cid, limit=10)
    await settings_public(cid)
    with pytest.raises(ChannelPrivateError):
        await actions.do_join_channel(B, cid)
    up = await admin.do_edit_banned(A, cid, B, 0)
    assert up.new["status"] == "left" and up.channel["kicked_count"] == 0
    assert not up.events  # unban: no message, no pts
    await actions.do_join_channel(B, cid)


async def test_restriction_takes_no_pts_and_counts(chan):
    cid = await _group(B)
    pts = (await _channel(cid))["pts"]
    up = await admin.do_edit_banned(A, cid, B, banned_bit("send_messages"), until_date=0)
    assert not up.events and up.channel["pts"] == pts and up.channel["banned_count"] == 1
    up = await admin.do_edit_banned(A, cid, B, 0)
    assert up.channel["banned_count"] == 0
    kinds = [k for k, _ in chan]
    assert "channel_admin.participant" in kinds


async def test_operator_actor_is_recorded_as_zero(chan):
    cid = await _group(B)
    await admin.do_edit_admin(None, cid, B, admin_bit("change_info"))
    page = await admin_log.get_admin_log(A, cid)
    (event,) = [e for e in page.events if e["event_type"] == "participant_promote"]
    assert event["actor_user_id"] == 0 and event["target_user_id"] == B


async def test_delete_channel_creator_only_and_dialogs_drop_it(chan):
    cid = await _group(B)
    await admin.do_edit_admin(A, cid, B, admin_bit("change_info") | admin_bit("ban_users"))
    with pytest.raises(ChatAdminRequiredError):
        await admin.do_delete_channel(B, cid)
    ch = await admin.do_delete_channel(A, cid)
    assert ch["deleted"]
    assert (await actions.get_dialogs(A)).entries == []
    assert (await actions.get_dialogs(B)).entries == []
    with pytest.raises(ChannelPrivateError):
        await actions.do_send_message(A, cid, "x", random_id=9)


async def test_admin_log_filters_by_type_and_admin_and_pages(chan):
    cid = await _group(B, C, D)
    await admin.do_edit_admin(A, cid, B, admin_bit("ban_users") | admin_bit("change_info"))
    await settings.do_edit_title(B, cid, "renamed")
    await admin.do_edit_banned(B, cid, C, banned_bit("send_messages"))
    await admin.do_edit_banned(A, cid, D, banned_bit("view_messages"))
    await settings.do_toggle_slow_mode(A, cid, 30)
    everything = await admin_log.get_admin_log(A, cid)
    assert [e["event_type"] for e in everything.events] == [
        "toggle_slow_mode",
        "participant_kick",
        "participant_ban",
        "change_title",
        "participant_promote",
        *["participant_invite"] * 3,  # one per invited user, newest first
    ]
    invites = await admin_log.get_admin_log(A, cid, filters={"invite"})
    assert [e["target_user_id"] for e in invites.events] == [D, C, B]
    assert {e["actor_user_id"] for e in invites.events} == {A}
    by_b = await admin_log.get_admin_log(A, cid, admin_ids=[B])
    assert [e["event_type"] for e in by_b.events] == ["participant_ban", "change_title"]
    bans = await admin_log.get_admin_log(A, cid, filters={"ban", "kick"})
    assert [e["target_user_id"] for e in bans.events] == [D, C]
    info = await admin_log.get_admin_log(A, cid, filters={"info"}, q="renam")
    assert [e["data"]["new"] for e in info.events] == ["renamed"]
    # seek paging: id < max_id, id > min_id, capped limit
    first = await admin_log.get_admin_log(A, cid, limit=2)
    rest = await admin_log.get_admin_log(A, cid, max_id=first.events[-1]["id"], limit=10**6)
    assert len(first.events) == 2 and len(rest.events) == 6
    newer = await admin_log.get_admin_log(A, cid, min_id=rest.events[0]["id"])
    assert [e["id"] for e in newer.events] == [e["id"] for e in first.events]
    assert {A, B, C, D} <= everything.user_ids
    await actions.do_invite_to_channel(A, cid, [99])
    with pytest.raises(ChatAdminRequiredError):
        await admin_log.get_admin_log(99, cid)


async def _channel(cid):
    ch, _ = await actions.get_channel_for_viewer(A, cid, None)
    return ch


async def settings_public(cid):
    from channels_app.actions import usernames

    await usernames.do_update_username(A, cid, f"grp{cid}")


async def test_a_console_ban_reaches_clients_with_an_actor_they_can_render(chan):
    """updateChannelParticipant of an operator's action (actor None) names the group's
    owner, and carries that user; it named user 0, whom no client knows."""
    from asgiref.sync import sync_to_async

    from accounts_app.actions import do_create_user
    from channels_app.rpc import admin as admin_rpc

    owner, member, target = [
        (await sync_to_async(do_create_user)(f"9996617000{i}", name)).id
        for i, name in enumerate(("Owner", "Member", "Target"))
    ]
    cid = (await actions.do_create_channel(owner, "g", megagroup=True)).channel["id"]
    await actions.do_invite_to_channel(owner, cid, [member, target])
    chan.clear()
    up = await admin.do_edit_banned(None, cid, target, banned_bit("send_messages"))
    assert up.actor_user_id == owner and owner in up.user_ids
    (payload,) = [p for k, p in chan if k == admin_rpc.PARTICIPANT]
    for viewer in (owner, target):
        rendered = await admin_rpc._render_participant(payload, viewer)
        (update,) = [u for u in rendered.updates if type(u).__name__ == "UpdateChannelParticipant"]
        assert update.actor_id == owner and owner in {u.id for u in rendered.users}
    # The admin log still says the operator did it.
    log = await admin_log.get_admin_log(owner, cid, filters={"ban"})
    assert log.events[0]["actor_user_id"] == admin_log.OPERATOR
