import pytest

from channels_app import actions
from channels_app.errors import (
    AddressInvalidError,
    ChannelInvalidError,
    ChannelPrivateError,
    ChatAdminRequiredError,
    ChatInvalidError,
    ChatTitleEmptyError,
    TtlPeriodInvalidError,
    UserAlreadyParticipantError,
    UserNotParticipantError,
    UsersTooFewError,
    UsersTooMuchError,
)

A, B, C, D = 11, 12, 13, 14


async def test_create_chat_makes_a_megagroup_with_a_service_message(chan):
    change = await actions.do_create_channel(A, "  Team  ", invite_user_ids=[B, C, A], from_create_chat=True)
    ch = change.channel
    assert ch["megagroup"] and not ch["broadcast"]
    assert ch["title"] == "Team" and ch["participants_count"] == 3
    (ev,) = change.events
    assert (ev.pts, ev.pts_count, ev.message["id"]) == (1, 1, 1)
    assert ev.message["action"] == {"_": "channelCreate", "title": "Team"}
    # invitees have the creation message as their one unread; the creator none.
    dialogs_b = await actions.get_dialogs(B)
    assert [(e.channel["id"], e.unread_count) for e in dialogs_b.entries] == [(ch["id"], 1)]
    assert (await actions.get_dialogs(A)).entries[0].unread_count == 0
    assert chan[0][0] == "channel.event"


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"for_import": True, "megagroup": True}, ChatInvalidError),
        ({"has_geo": True, "megagroup": True}, AddressInvalidError),
        ({"ttl_period": -1, "megagroup": True}, TtlPeriodInvalidError),
        ({"broadcast": True, "megagroup": True}, ChannelInvalidError),
    ],
)
async def test_create_channel_rejects_unsupported_flags(chan, kwargs, error):
    with pytest.raises(error):
        await actions.do_create_channel(A, "x", **kwargs)


async def test_create_validation(chan):
    with pytest.raises(ChatTitleEmptyError):
        await actions.do_create_channel(A, "   ", megagroup=True)
    with pytest.raises(UsersTooFewError):
        await actions.do_create_channel(A, "t", invite_user_ids=[A], from_create_chat=True)
    with pytest.raises(UsersTooMuchError):
        await actions.do_create_channel(A, "t", invite_user_ids=list(range(100, 302)), from_create_chat=True)
    plain = await actions.do_create_channel(A, "t")
    assert plain.channel["broadcast"]  # no type flag: a broadcast channel


async def test_invite_join_leave_rules(chan):
    g = (await actions.do_create_channel(A, "g", megagroup=True)).channel
    cid = g["id"]
    await actions.do_send_message(A, cid, "before", random_id=1)
    change = await actions.do_invite_to_channel(A, cid, [B])
    (ev,) = change.events
    assert ev.message["action"] == {"_": "chatAddUser", "users": [B]}
    assert change.channel["participants_count"] == 2
    with pytest.raises(UserAlreadyParticipantError):
        await actions.do_invite_to_channel(A, cid, [B])
    # The invitee's unread is only the invite service message, not the older history.
    (entry,) = (await actions.get_dialogs(B)).entries
    assert entry.unread_count == 1
    # A private megagroup cannot be joined without an invite link.
    with pytest.raises(ChannelPrivateError):
        await actions.do_join_channel(C, cid)
    await actions.do_leave_channel(B, cid)
    with pytest.raises(UserNotParticipantError):
        await actions.do_leave_channel(B, cid)
    assert (await actions.get_dialogs(B)).entries == []
    with pytest.raises(ChannelPrivateError):
        await actions.get_history(B, cid)


async def test_broadcast_invite_needs_admin_and_writes_no_pts(chan):
    ch = (await actions.do_create_channel(A, "news", broadcast=True)).channel
    change = await actions.do_invite_to_channel(A, ch["id"], [B, C])
    assert change.events == [] and change.channel["pts"] == 1
    with pytest.raises(ChatAdminRequiredError):
        await actions.do_invite_to_channel(B, ch["id"], [D])


async def test_creator_leaving_hands_over_to_the_oldest_member(chan):
    g = (await actions.do_create_channel(A, "g", invite_user_ids=[B, C], from_create_chat=True)).channel
    await actions.do_leave_channel(A, g["id"])
    ch, _ = await actions.get_channel_for_viewer(B, g["id"], g["access_hash"])
    assert ch["creator_user_id"] in (B, C)
    heir_member = await actions.get_participant(ch, ch["creator_user_id"])
    assert heir_member["role"] == "creator"
    assert ch["participants_count"] == 2 and ch["admins_count"] == 1


async def test_access_hash_must_match(chan):
    g = (await actions.do_create_channel(A, "g", megagroup=True)).channel
    with pytest.raises(ChannelPrivateError):
        await actions.get_channel_for_viewer(A, g["id"], g["access_hash"] ^ 1)
    # a non-member without the hash learns nothing
    with pytest.raises(ChannelPrivateError):
        await actions.get_channel_for_viewer(B, g["id"], 0)
    got = await actions.get_channels(A, [(g["id"], g["access_hash"] ^ 1), (g["id"], g["access_hash"])])
    assert len(got) == 1  # the wrong-hash entry of a vector is skipped (messages.getChats)
    # channels.getChannels fails as Telegram does
    with pytest.raises(ChannelPrivateError):
        await actions.get_channels(A, [(g["id"], g["access_hash"] ^ 1)], strict=True)
    with pytest.raises(ChannelPrivateError):
        await actions.get_channels(B, [(g["id"], 0)], strict=True)
    with pytest.raises(ChannelInvalidError):
        await actions.get_channels(A, [(g["id"] + 10_000, 0)], strict=True)


async def test_participants_filters_and_caps(chan):
    g = (await actions.do_create_channel(A, "g", invite_user_ids=[B, C], from_create_chat=True)).channel
    ch, me = await actions.get_channel_for_viewer(A, g["id"], g["access_hash"])
    count, rows = await actions.get_participants(A, ch, me, "recent", "", 0, 1000)
    assert count == 3 and {r["user_id"] for r in rows} == {A, B, C}
    count, rows = await actions.get_participants(A, ch, me, "admins", "", 0, 10)
    assert [r["user_id"] for r in rows] == [A]
    _, page = await actions.get_participants(A, ch, me, "recent", "", 2, 10)
    assert len(page) == 1
    _, b = await actions.get_channel_for_viewer(B, g["id"], g["access_hash"])
    with pytest.raises(ChatAdminRequiredError):
        await actions.get_participants(B, ch, b, "kicked", "", 0, 10)
