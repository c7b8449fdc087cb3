import pytest

from channels_app import actions
from channels_app.errors import (
    ChatAdminRequiredError,
    ChatWriteForbiddenError,
    EntitiesTooLongError,
    LimitInvalidError,
    MessageAuthorRequiredError,
    MessageDeleteForbiddenError,
    MessageEmptyError,
    MessageNotModifiedError,
    MessageTooLongError,
    ReplyMessageIdInvalidError,
)
from message_core import db

A, B, C = 21, 22, 23


async def group(*members):
    return (
        await actions.do_create_channel(A, "g", invite_user_ids=list(members), from_create_chat=True)
    ).channel


async def test_send_idempotent_returns_original_snapshot(chan):
    g = await group(B)
    first = await actions.do_send_message(A, g["id"], "hello", random_id=555)
    (ev,) = first.events
    assert (ev.message["id"], ev.pts, ev.pts_count) == (2, 2, 1)
    await actions.do_edit_message(A, g["id"], 2, "edited", [])
    again = await actions.do_send_message(A, g["id"], "hello", random_id=555)
    assert again.duplicate
    assert again.events[0].message["message"] == "hello" and again.events[0].pts == 2
    rows = await db.fetchone("SELECT count(*) AS n FROM channel_messages WHERE channel_id = %s", (g["id"],))
    assert rows["n"] == 2


async def test_send_limits(chan):
    g = await group(B)
    with pytest.raises(MessageEmptyError):
        await actions.do_send_message(A, g["id"], "  ", random_id=1)
    with pytest.raises(MessageTooLongError):
        await actions.do_send_message(A, g["id"], "x" * 4097, random_id=1)
    await actions.do_send_message(A, g["id"], "😀" * 4096, random_id=2)  # code points, not UTF-16
    many = [{"type": "bold", "offset": 0, "length": 1}] * 257
    with pytest.raises(EntitiesTooLongError):
        await actions.do_send_message(A, g["id"], "abc", random_id=3, entities=many)


async def test_reply_top_is_computed_by_the_server(chan):
    g = await group(B)
    root = (await actions.do_send_message(A, g["id"], "root", random_id=1)).events[0].message
    r1 = (
        (await actions.do_send_message(B, g["id"], "r1", random_id=2, reply_to_msg_id=root["id"]))
        .events[0]
        .message
    )
    r2 = (
        (await actions.do_send_message(A, g["id"], "r2", random_id=3, reply_to_msg_id=r1["id"]))
        .events[0]
        .message
    )
    assert (r1["reply_to_msg_id"], r1["reply_to_top_id"]) == (root["id"], root["id"])
    assert (r2["reply_to_msg_id"], r2["reply_to_top_id"]) == (r1["id"], root["id"])
    with pytest.raises(ReplyMessageIdInvalidError):
        await actions.do_send_message(A, g["id"], "x", random_id=4, reply_to_msg_id=999)


async def test_broadcast_only_admins_post(chan):
    ch = (await actions.do_create_channel(A, "news", broadcast=True)).channel
    await actions.do_invite_to_channel(A, ch["id"], [B])
    post = (await actions.do_send_message(A, ch["id"], "post", random_id=1)).events[0].message
    assert post["post"]
    with pytest.raises(ChatAdminRequiredError):
        await actions.do_send_message(B, ch["id"], "hi", random_id=2)


async def test_history_seek(chan):
    g = await group(B)
    for i in range(30):
        await actions.do_send_message(A, g["id"], f"m{i}", random_id=100 + i)
    # ids: 1 = create, 2 = m0 ... 31 = m29
    h = await actions.get_history(B, g["id"], limit=5)
    assert [m["id"] for m in h.messages] == [31, 30, 29, 28, 27]
    h = await actions.get_history(B, g["id"], offset_id=27, limit=3)
    assert [m["id"] for m in h.messages] == [26, 25, 24]
    h = await actions.get_history(B, g["id"], offset_id=20, add_offset=-2, limit=4)
    assert [m["id"] for m in h.messages] == [21, 20, 19, 18]
    h = await actions.get_history(B, g["id"], offset_id=20, add_offset=2, limit=2)
    assert [m["id"] for m in h.messages] == [17, 16]
    h = await actions.get_history(B, g["id"], min_id=28, limit=100)
    assert [m["id"] for m in h.messages] == [31, 30, 29]
    h = await actions.get_history(B, g["id"], max_id=4, limit=100)
    assert [m["id"] for m in h.messages] == [3, 2, 1]
    h = await actions.get_history(B, g["id"], limit=10_000)
    assert len(h.messages) == 31  # capped at 100, only 31 exist
    with pytest.raises(LimitInvalidError):
        await actions.get_history(B, g["id"], limit=-1)


async def test_get_messages_exact_ids(chan):
    g = await group(B)
    for i in range(5):
        await actions.do_send_message(A, g["id"], f"m{i}", random_id=10 + i)
    h = await actions.get_messages(B, g["id"], [6, 2, 99])
    assert [m["id"] for m in h.messages] == [6, 2, 99]
    assert h.messages[2].get("empty")
    with pytest.raises(LimitInvalidError):
        await actions.get_messages(B, g["id"], list(range(1, 102)))


async def test_edit_and_delete_permissions(chan):
    g = await group(B)
    m = (await actions.do_send_message(A, g["id"], "a", random_id=1)).events[0].message
    with pytest.raises(MessageAuthorRequiredError):
        await actions.do_edit_message(B, g["id"], m["id"], "b", [])
    with pytest.raises(MessageNotModifiedError):
        await actions.do_edit_message(A, g["id"], m["id"], "a", [])
    ev = (await actions.do_edit_message(A, g["id"], m["id"], "b", [])).events[0]
    assert ev.type == "edit_message" and ev.message["edit_date"] > 0
    with pytest.raises(MessageDeleteForbiddenError):
        await actions.do_delete_messages(B, g["id"], [m["id"]])
    mb = (await actions.do_send_message(B, g["id"], "mine", random_id=2)).events[0].message
    ch, ev = await actions.do_delete_messages(B, g["id"], [mb["id"]])
    assert ev.pts_count == 1 and ev.message_ids == [mb["id"]]
    assert ch["top_message_id"] == m["id"]  # the top falls back to the newest survivor
    ch, ev = await actions.do_delete_messages(A, g["id"], [1, m["id"]])
    assert ev.pts_count == 2
    with pytest.raises(LimitInvalidError):
        await actions.do_delete_messages(A, g["id"], list(range(1, 1002)))


async def test_forward_between_channels_keeps_the_origin(chan):
    src = (await actions.do_create_channel(A, "news", broadcast=True)).channel
    post = (await actions.do_send_message(A, src["id"], "post", random_id=1)).events[0].message
    g = await group(B)
    _, items = await actions.get_forwardable(A, src["id"], [post["id"]])
    fwd = await actions.do_forward_to_channel(A, g["id"], items, [77])
    msg = fwd.events[0].message
    assert msg["fwd_from"] == {
        "from_channel_id": src["id"],
        "channel_post": post["id"],
        "post_author": "",
        "date": post["date"],
    }
    assert src["id"] in {m for m in [msg["fwd_from"]["from_channel_id"]]}
    # forwarding the forward keeps the original header
    _, items2 = await actions.get_forwardable(B, g["id"], [msg["id"]])
    assert items2[0]["fwd_from"]["from_channel_id"] == src["id"]


async def test_read_history_advances_inbox_and_senders_outbox(chan):
    g = await group(B, C)
    for i in range(3):
        await actions.do_send_message(A, g["id"], f"a{i}", random_id=i + 1)
    await actions.do_send_message(C, g["id"], "c", random_id=10)
    (entry,) = (await actions.get_dialogs(B)).entries
    assert entry.unread_count == 5  # create message + 4
    res = await actions.do_read_history(B, g["id"], 10_000)  # clamped to the top
    assert res["max_id"] == 5 and res["still_unread_count"] == 0
    assert sorted(res["outbox"]) == [(A, 4), (C, 5)]
    full = await actions.get_full_channel(A, g["id"], g["access_hash"])
    assert full["read_outbox_max_id"] == 4
    kinds = [k for k, _ in chan]
    assert "channel.read_inbox" in kinds and kinds.count("channel.read_outbox") == 2


async def test_write_forbidden_for_non_member_of_public_and_private(chan):
    g = await group(B)
    from channels_app.errors import ChannelPrivateError

    with pytest.raises(ChannelPrivateError):
        await actions.do_send_message(C, g["id"], "x", random_id=1)
    await db.fetchone("UPDATE channels SET username = 'pub' WHERE id = %s RETURNING id", (g["id"],))
    with pytest.raises(ChatWriteForbiddenError):
        await actions.do_send_message(C, g["id"], "x", random_id=1)
    # public preview: a non-member may read the history
    assert (await actions.get_history(C, g["id"])).messages


async def test_a_pushed_message_is_rendered_once_per_view():
    """The live push renders one update per view (sender, mentioned, everyone else) and
    shares it: viewers with one view must get byte-equal updates, the others not."""
    import dataclasses

    from channels_app import tl_convert
    from channels_app.domain import ChannelEvent

    D = 24
    m = {
        "channel_id": 7, "id": 5, "sender_user_id": A, "date": 1_700_000_000, "message": "hi B",
        "entities": [{"type": "mentionName", "offset": 3, "length": 1, "user_id": B}],
    }  # fmt: skip
    ev = ChannelEvent(channel_id=7, pts=9, pts_count=1, type="new_message", date=m["date"], message=m)
    mentioned = {B}

    def rendered(viewer):
        return tl_convert.event_to_update(ev, viewer).to_bytes()

    assert tl_convert.event_view(ev, C, mentioned) == tl_convert.event_view(ev, D, mentioned)
    assert rendered(C) == rendered(D)
    for other in (A, B):
        assert tl_convert.event_view(ev, other, mentioned) != tl_convert.event_view(ev, C, mentioned)
        assert rendered(other) != rendered(C)
    # The viewer's own reaction choice is in a read-path summary: never shared.
    chosen = dataclasses.replace(ev, message={**m, "reactions": {"results": []}})
    assert tl_convert.event_view(chosen, C, mentioned) is None


async def test_a_broadcast_post_does_not_name_its_poster():
    from channels_app.actions.common import message_refs

    users: set[int] = set()
    chats: set[int] = set()
    message_refs([{"channel_id": 7, "id": 2, "sender_user_id": A, "post": True}], users, chats)
    assert users == set() and chats == {7}
    message_refs([{"channel_id": 8, "id": 2, "sender_user_id": A}], users, chats)
    assert users == {A}
