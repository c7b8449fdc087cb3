"""Settings, pins and usernames as members notice them."""

import pytest

from channels_app import actions
from channels_app.actions import admin, admin_log, settings, usernames
from channels_app.errors import ChatWriteForbiddenError, MessageIdInvalidError, SlowmodeWaitError
from channels_app.rights import admin_bit, banned_bit
from tl.errors import (
    ChatAdminRequiredError,
    ChatNotModifiedError,
    UsernameInvalidError,
    UsernameNotModifiedError,
    UsernameOccupiedError,
)

A, B, C = 41, 42, 43


async def _group(*members):
    cid = (await actions.do_create_channel(A, "g", megagroup=True)).channel["id"]
    if members:
        await actions.do_invite_to_channel(A, cid, list(members))
    return cid


async def test_edit_title_writes_a_service_message_and_log(chan):
    cid = await _group(B)
    change = await settings.do_edit_title(A, cid, "  New name ")
    (ev,) = change.events
    assert change.channel["title"] == "New name"
    assert ev.message["action"] == {"_": "chatEditTitle", "title": "New name"}
    assert ev.pts == change.channel["pts"]
    with pytest.raises(ChatNotModifiedError):
        await settings.do_edit_title(A, cid, "New name")
    history = await actions.get_history(B, cid, limit=1)
    assert history.messages[0]["action"]["_"] == "chatEditTitle"


async def test_about_and_photo(chan):
    cid = await _group(B)
    ch = await settings.do_edit_about(A, cid, "all about it")
    assert ch["about"] == "all about it"
    with pytest.raises(ChatAdminRequiredError):
        await settings.do_edit_about(B, cid, "mine")
    assert not (await settings.do_edit_photo(A, cid, None)).events  # no photo to remove
    photo = {"id": 77, "access_hash": 1, "file_reference": "", "date": 1, "sizes": [], "stripped": ""}
    with pytest.raises(ChatAdminRequiredError):
        await settings.do_edit_photo(B, cid, photo)
    change = await settings.do_edit_photo(A, cid, photo)
    assert change.channel["photo"]["id"] == 77
    assert change.events[0].message["action"] == {"_": "chatEditPhoto", "photo": photo}
    removed = await settings.do_edit_photo(A, cid, None)
    assert removed.channel["photo"] is None and removed.events[0].message["action"]["_"] == "chatDeletePhoto"


async def test_slow_mode_is_enforced_for_members_not_admins(chan):
    cid = await _group(B)
    with pytest.raises(Exception, match="SECONDS_INVALID"):
        await settings.do_toggle_slow_mode(A, cid, 17)
    ch = await settings.do_toggle_slow_mode(A, cid, 60)
    assert ch["slowmode_seconds"] == 60
    await actions.do_send_message(B, cid, "one", random_id=1)
    with pytest.raises(SlowmodeWaitError) as err:
        await actions.do_send_message(B, cid, "two", random_id=2)
    assert (
        err.value.message.startswith("SLOWMODE_WAIT_")
        and 55 <= int(err.value.message.rsplit("_", 1)[1]) <= 60
    )
    await actions.do_send_message(A, cid, "admin 1", random_id=3)
    await actions.do_send_message(A, cid, "admin 2", random_id=4)
    await settings.do_toggle_slow_mode(A, cid, 0)
    await actions.do_send_message(B, cid, "two", random_id=2)


async def test_default_banned_rights_stop_sending(chan):
    cid = await _group(B)
    with pytest.raises(ChatAdminRequiredError):
        await settings.do_edit_default_banned_rights(B, cid, banned_bit("send_messages"))
    ch = await settings.do_edit_default_banned_rights(A, cid, banned_bit("send_messages"))
    assert ch["default_banned_rights"] == banned_bit("send_messages")
    with pytest.raises(ChatWriteForbiddenError):
        await actions.do_send_message(B, cid, "hi", random_id=1)
    await actions.do_send_message(A, cid, "admins still can", random_id=2)
    (event,) = (await admin_log.get_admin_log(A, cid, filters={"settings"})).events
    assert event["event_type"] == "default_banned_rights" and event["data"]["new"] == banned_bit(
        "send_messages"
    )


async def test_prehistory_hidden_new_member_sees_only_later_messages(chan):
    cid = await _group(C)
    await actions.do_send_message(A, cid, "secret", random_id=1)
    with pytest.raises(ChatAdminRequiredError):
        await settings.do_toggle_pre_history_hidden(C, cid, True)
    await settings.do_toggle_pre_history_hidden(A, cid, True)
    await actions.do_invite_to_channel(A, cid, [B])
    await actions.do_send_message(A, cid, "later", random_id=2)
    texts = [m["message"] for m in (await actions.get_history(B, cid, limit=50)).messages]
    assert "later" in texts and "secret" not in texts
    diff = await actions.get_channel_difference(B, cid, 0, 100)
    assert "secret" not in [m["message"] for m in diff.new_messages]


async def test_toggles_need_rights_and_report_not_modified(chan):
    cid = await _group(B)
    await admin.do_edit_admin(A, cid, B, admin_bit("change_info"))
    ch = await settings.do_toggle_noforwards(B, cid, True)
    assert ch["noforwards"]
    with pytest.raises(ChatNotModifiedError):
        await settings.do_toggle_noforwards(B, cid, True)
    with pytest.raises(ChatAdminRequiredError):  # needs ban_users
        await settings.do_toggle_participants_hidden(B, cid, True)
    assert (await settings.do_toggle_participants_hidden(A, cid, True))["participants_hidden"]
    await settings.do_toggle_join_to_send(A, cid, True)
    assert (await settings.get_join_settings([cid]))[cid]["join_to_send"]
    await settings.do_convert_to_gigagroup(A, cid)
    with pytest.raises(ChatNotModifiedError):
        await settings.do_convert_to_gigagroup(A, cid)
    assert (await settings.do_migrate_chat(A, cid))["id"] == cid


async def test_pin_and_unpin_all(chan):
    cid = await _group(B)
    m1 = (await actions.do_send_message(A, cid, "first", random_id=1)).events[0].message["id"]
    m2 = (await actions.do_send_message(B, cid, "second", random_id=2)).events[0].message["id"]
    with pytest.raises(ChatAdminRequiredError):
        await settings.do_update_pinned_message(B, cid, m1)
    with pytest.raises(MessageIdInvalidError):
        await settings.do_update_pinned_message(A, cid, 999)
    change = await settings.do_update_pinned_message(A, cid, m1)
    (ev,) = change.events
    assert (ev.type, ev.pts_count, ev.message_ids, ev.message["pinned"]) == ("pin_messages", 1, [m1], True)
    assert change.channel["pinned_message_id"] == m1 and change.channel["pts"] == ev.pts
    again = await settings.do_update_pinned_message(A, cid, m1)
    assert again.events == []  # already pinned: no pts
    await settings.do_update_pinned_message(A, cid, m2)
    assert await settings.pinned_message_ids(cid) == [m2, m1]
    unpinned = await settings.do_update_pinned_message(A, cid, m2, unpin=True)
    assert unpinned.channel["pinned_message_id"] == m1
    change, offset = await settings.do_unpin_all_messages(A, cid)
    assert offset == 0 and change.events[0].message_ids == [m1] and change.channel["pinned_message_id"] == 0
    assert await settings.pinned_message_ids(cid) == []
    assert len((await admin_log.get_admin_log(A, cid, filters={"pinned"})).events) == 3


async def test_usernames_are_unique_across_channels_and_users(chan, django_user_model):
    from accounts_app.models import User

    cid = await _group(B)
    other = await _group()
    with pytest.raises(UsernameInvalidError):
        await usernames.check_username(A, cid, "ab")
    assert await usernames.check_username(A, cid, "Public_Group")
    ch = await usernames.do_update_username(A, cid, "Public_Group")
    assert ch["username"] == "Public_Group"
    with pytest.raises(UsernameNotModifiedError):
        await usernames.do_update_username(A, cid, "public_group")
    assert not await usernames.check_username(A, other, "PUBLIC_GROUP")
    with pytest.raises(UsernameOccupiedError):
        await usernames.do_update_username(A, other, "public_group")
    # A name a user holds is taken for channels, and the reverse through the hook.
    from asgiref.sync import sync_to_async

    await sync_to_async(User.objects.create)(id=555, phone="99966155555", first_name="U", username="someone")
    with pytest.raises(UsernameOccupiedError):
        await usernames.do_update_username(A, other, "SomeOne")
    from channels_app.usernames import channel_holds

    assert await sync_to_async(channel_holds)("public_group")
    with pytest.raises(ChatAdminRequiredError):
        await usernames.do_update_username(B, cid, "")
    assert [c["id"] for c in await usernames.get_admined_public_channels(A)] == [cid]
    # Public search and resolve find it for a non-member.
    mine, public = await usernames.search_public_channels(C, "public_gr", 10)
    assert mine == [] and [c["id"] for c in public] == [cid]
    found = await usernames.resolve_public_channel(C, "public_group")
    assert found is not None and found[0]["id"] == cid and found[1] is None
    # Clearing frees the name.
    await usernames.do_update_username(A, cid, "")
    assert await usernames.resolve_public_channel(C, "public_group") is None
    assert (await admin_log.get_admin_log(A, cid, filters={"info"})).events[0]["data"] == {
        "prev": "Public_Group",
        "new": "",
    }


async def test_a_banned_user_still_resolves_a_public_group_but_cannot_read_it(chan):
    from channels_app.rpc.settings import username_resolver
    from tl.errors import ChannelPrivateError
    from tl.gen import types

    cid = await _group(B, C)
    await usernames.do_update_username(A, cid, "banned_here")
    await actions.do_send_message(A, cid, "members only", random_id=1)
    await admin.do_edit_banned(A, cid, C, banned_bit("view_messages"))
    hit = await username_resolver(C, "banned_here")
    assert hit is not None and hit.results == [types.PeerChannel(channel_id=cid)]
    assert [c.id for c in hit.chats] == [cid] and isinstance(hit.chats[0], types.ChannelForbidden)
    with pytest.raises(ChannelPrivateError):
        await actions.get_history(C, cid, limit=10)


async def test_left_and_inactive_channels(chan):
    ids = [await _group(B) for _ in range(3)]
    await actions.do_leave_channel(B, ids[0])
    await actions.do_leave_channel(B, ids[2])
    count, rows, complete = await usernames.get_left_channels(B, 0)
    assert count == 2 and {r["id"] for r in rows} == {ids[0], ids[2]} and complete
    count, rows, complete = await usernames.get_left_channels(B, 2)
    assert rows == [] and not complete
    await actions.do_send_message(B, ids[1], "active", random_id=1)
    inactive = await usernames.get_inactive_channels(A)
    assert [c["id"] for c, _ in inactive] == ids
