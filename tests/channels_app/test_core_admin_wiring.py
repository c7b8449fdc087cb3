"""Where the channel core meets administration: admin-log entries written by the core's
join / leave / invite / send / edit / delete paths, pins in the channel difference, and
the invite extras of the full channel."""

import pytest

from channels_app import actions, tl_convert
from channels_app.actions import admin, admin_log, settings, usernames
from channels_app.rights import admin_bit
from tl.errors import ChatAdminRequiredError

A, B, C = 41, 42, 43


async def _types(cid: int) -> list[tuple[str, int, int]]:
    page = await admin_log.get_admin_log(A, cid)
    return [(e["event_type"], e["actor_user_id"], e["target_user_id"]) for e in page.events]


async def test_join_leave_invite_are_admin_logged(chan):
    cid = (await actions.do_create_channel(A, "g", megagroup=True)).channel["id"]
    await usernames.do_update_username(A, cid, f"wired{cid}")
    await actions.do_invite_to_channel(A, cid, [B])
    await actions.do_join_channel(C, cid)
    await actions.do_leave_channel(B, cid)
    assert await _types(cid) == [
        ("participant_leave", B, B),
        ("participant_join", C, C),
        ("participant_invite", A, B),
        ("change_username", A, 0),
    ]


async def test_broadcast_posts_edits_and_moderated_deletes_are_logged(chan):
    cid = (await actions.do_create_channel(A, "news", broadcast=True)).channel["id"]
    await actions.do_invite_to_channel(A, cid, [B])
    await admin.do_edit_admin(A, cid, B, admin_bit("post_messages") | admin_bit("edit_messages"))
    post = (await actions.do_send_message(A, cid, "first post", random_id=1)).events[0].message
    await actions.do_edit_message(B, cid, post["id"], "first post, fixed", [])
    await actions.do_delete_messages(None, cid, [post["id"]])  # the operator console
    page = await admin_log.get_admin_log(A, cid, filters={"send", "edit", "delete"})
    kinds = [(e["event_type"], e["actor_user_id"]) for e in page.events]
    assert kinds == [("delete_message", 0), ("edit_message", B), ("send_message", A)]
    edit = page.events[1]["data"]
    assert (edit["prev_message"]["message"], edit["new_message"]["message"]) == (
        "first post",
        "first post, fixed",
    )


async def test_own_megagroup_messages_are_not_logged_but_moderation_is(chan):
    cid = (await actions.do_create_channel(A, "g", megagroup=True)).channel["id"]
    await actions.do_invite_to_channel(A, cid, [B])
    mine = (await actions.do_send_message(B, cid, "mine", random_id=2)).events[0].message
    other = (await actions.do_send_message(B, cid, "spam", random_id=3)).events[0].message
    await actions.do_edit_message(B, cid, mine["id"], "mine, edited", [])
    await actions.do_delete_messages(B, cid, [mine["id"]])
    await actions.do_delete_messages(A, cid, [other["id"]])
    page = await admin_log.get_admin_log(A, cid, filters={"send", "edit", "delete"})
    assert [(e["event_type"], e["actor_user_id"], e["target_user_id"]) for e in page.events] == [
        ("delete_message", A, B)
    ]


async def test_pins_reach_the_channel_difference(chan):
    cid = (await actions.do_create_channel(A, "g", megagroup=True)).channel["id"]
    await actions.do_invite_to_channel(A, cid, [B])
    msg = (await actions.do_send_message(A, cid, "pin me", random_id=4)).events[0].message
    before = (await actions.get_channel_for_viewer(B, cid, None))[0]["pts"]
    await settings.do_update_pinned_message(A, cid, msg["id"])
    diff = await actions.get_channel_difference(B, cid, before, 100)
    (update,) = [tl_convert.event_to_update(e, B) for e in diff.other_events]
    assert type(update).__name__ == "UpdatePinnedChannelMessages"
    assert (update.pinned, update.messages, update.pts) == (True, [msg["id"]], before + 1)


async def test_full_channel_carries_the_permanent_link_for_inviting_admins_only(chan):
    cid = (await actions.do_create_channel(A, "g", megagroup=True)).channel["id"]
    await actions.do_invite_to_channel(A, cid, [B])
    full = await actions.get_full_channel(A, cid, None)
    assert full["exported_invite"]["permanent"] and full["exported_invite"]["admin_user_id"] == A
    rendered = tl_convert.full_channel_to_tl(full, [], []).full_chat
    assert rendered.exported_invite.link.endswith(full["exported_invite"]["hash"])
    member_view = await actions.get_full_channel(B, cid, None)
    assert "exported_invite" not in member_view
    assert tl_convert.full_channel_to_tl(member_view, [], []).full_chat.exported_invite is None


async def test_join_switches_antispam_and_forum_show_on_the_channel(chan):
    from channels_app.chat_context import chats_for
    from tl.errors import ChatNotModifiedError, StickersetInvalidError

    cid = (await actions.do_create_channel(A, "g", megagroup=True)).channel["id"]
    await usernames.do_update_username(A, cid, f"switches{cid}")
    await actions.do_invite_to_channel(A, cid, [B])
    await settings.do_toggle_join_request(A, cid, True)
    await settings.do_toggle_join_to_send(A, cid, True)
    await settings.do_toggle_antispam(A, cid, True)
    await settings.do_toggle_forum(A, cid, True)
    (ch,) = await chats_for(B, [cid])
    assert (ch.join_request, ch.join_to_send, ch.forum) == (True, True, True)
    full = tl_convert.full_channel_to_tl(await actions.get_full_channel(A, cid, None), [], []).full_chat
    assert full.antispam
    with pytest.raises(ChatNotModifiedError):
        await settings.do_toggle_antispam(A, cid, True)
    with pytest.raises(ChatAdminRequiredError):
        await settings.do_toggle_forum(B, cid, False)
    page = await admin_log.get_admin_log(A, cid, filters={"settings", "forums"})
    assert [e["event_type"] for e in page.events] == ["toggle_forum", "toggle_antispam", "toggle_invites"]
    from stickers_app.catalog import SetRef

    assert await settings.do_set_sticker_set(A, cid, "stickers", None) is False  # nothing to clear
    with pytest.raises(StickersetInvalidError):
        await settings.do_set_sticker_set(A, cid, "stickers", SetRef(short_name="no_such_set"))
    with pytest.raises(ChatAdminRequiredError):
        await settings.do_set_sticker_set(B, cid, "stickers", None)


async def test_full_channel_unread_counts_live_messages_only(chan):
    cid = (await actions.do_create_channel(A, "g", megagroup=True)).channel["id"]
    await actions.do_invite_to_channel(A, cid, [B])
    ids = [
        (await actions.do_send_message(A, cid, f"m{i}", random_id=10 + i)).events[0].message["id"]
        for i in range(4)
    ]
    before = (await actions.get_full_channel(B, cid, None))["unread_count"]
    await actions.do_delete_messages(A, cid, ids[1:3])
    assert (await actions.get_full_channel(B, cid, None))["unread_count"] == before - 2
