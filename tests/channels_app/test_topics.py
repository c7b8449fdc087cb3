import pytest

from channels_app import actions
from channels_app.actions import messages, settings, topics
from channels_app.errors import (
    ChannelForumMissingError,
    ChatAdminRequiredError,
    LimitInvalidError,
    PinnedTooMuchError,
    ReplyMessageIdInvalidError,
    TopicClosedError,
    TopicDeletedError,
    TopicIdInvalidError,
    TopicNotModifiedError,
    TopicsEmptyError,
    TopicTitleEmptyError,
)

A, B, C = 31, 32, 33


async def forum(*members):
    g = (
        await actions.do_create_channel(A, "f", invite_user_ids=list(members), from_create_chat=True)
    ).channel
    await settings.do_toggle_forum(A, g["id"], True)
    return g


async def test_topics_need_a_forum(chan):
    g = (await actions.do_create_channel(A, "g", invite_user_ids=[B], from_create_chat=True)).channel
    with pytest.raises(ChannelForumMissingError):
        await topics.do_create_topic(A, g["id"], "t", None, None)
    with pytest.raises(ChannelForumMissingError):
        await topics.get_topics(A, g["id"])


async def test_create_topic_writes_root_on_pts_and_lists_it(chan):
    g = await forum(B)
    change = await topics.do_create_topic(B, g["id"], "  Ideas ", 0xFB6F5F, None)
    (ev,) = change.events
    root = ev.message
    assert root["action"]["_"] == "topicCreate" and root["action"]["title"] == "Ideas"
    assert ev.pts == g["pts"] + 1  # toggleForum takes no pts; the root message takes one
    page = await topics.get_topics(A, g["id"])
    assert [t["id"] for t in page.topics] == [1, root["id"]]
    assert page.topics[1]["title"] == "Ideas" and page.topics[1]["icon_color"] == 0xFB6F5F
    assert page.count == 2
    with pytest.raises(TopicTitleEmptyError):
        await topics.do_create_topic(A, g["id"], " ", None, None)


async def test_send_into_topic_and_reply_headers(chan):
    g = await forum(B)
    t1 = (await topics.do_create_topic(A, g["id"], "one", None, None)).events[0].message["id"]
    t2 = (await topics.do_create_topic(A, g["id"], "two", None, None)).events[0].message["id"]
    m = (await actions.do_send_message(B, g["id"], "in one", 1, top_msg_id=t1)).events[0].message
    assert (m["reply_to_msg_id"], m["reply_to_top_id"], m["forum_topic"]) == (t1, t1, True)
    r = (await actions.do_send_message(A, g["id"], "reply", 2, reply_to_msg_id=m["id"])).events[0].message
    assert (r["reply_to_msg_id"], r["reply_to_top_id"], r["forum_topic"]) == (m["id"], t1, True)
    with pytest.raises(ReplyMessageIdInvalidError):  # a reply into another topic
        await actions.do_send_message(A, g["id"], "x", 3, reply_to_msg_id=m["id"], top_msg_id=t2)
    general = (await actions.do_send_message(A, g["id"], "general", 4, top_msg_id=1)).events[0].message
    assert general["reply_to_top_id"] == 0 and not general["forum_topic"]
    with pytest.raises(TopicIdInvalidError):
        await actions.do_send_message(A, g["id"], "x", 5, top_msg_id=general["id"])
    replies = await actions.get_history(A, g["id"], thread_id=t1)
    assert [x["id"] for x in replies.messages] == [r["id"], m["id"]]
    page = await topics.get_topics_by_id(A, g["id"], [t1, t2, 999])
    by_id = {t["id"]: t for t in page.topics}
    assert list(by_id) == [t1, t2]
    assert by_id[t1]["top_message_id"] == r["id"] and by_id[t2]["top_message_id"] == t2
    # A's read mark is at their own reply; B's unread in topic one is A's reply only.
    mine = await topics.get_topics_by_id(B, g["id"], [t1])
    assert mine.topics[0]["unread_count"] == 1
    # the latest activity comes first after General
    assert [t["id"] for t in (await topics.get_topics(A, g["id"])).topics] == [1, t1, t2]


async def test_closed_topic_refuses_members_but_not_managers(chan):
    g = await forum(B, C)
    t = (await topics.do_create_topic(B, g["id"], "mine", None, None)).events[0].message["id"]
    with pytest.raises(ChatAdminRequiredError):
        await topics.do_edit_topic(C, g["id"], t, closed=True)
    edit = await topics.do_edit_topic(B, g["id"], t, closed=True)  # its creator may close it
    em = edit.events[0].message
    assert em["action"] == {"_": "topicEdit", "closed": True}
    assert (em["reply_to_top_id"], em["forum_topic"]) == (t, True)
    with pytest.raises(TopicNotModifiedError):
        await topics.do_edit_topic(B, g["id"], t, closed=True)
    with pytest.raises(TopicClosedError):
        await actions.do_send_message(C, g["id"], "x", 1, top_msg_id=t)
    await actions.do_send_message(A, g["id"], "creator of the group", 2, top_msg_id=t)
    await actions.do_send_message(B, g["id"], "creator of the topic", 3, top_msg_id=t)
    with pytest.raises(ChatAdminRequiredError):  # hiding is for managers
        await topics.do_edit_topic(B, g["id"], t, hidden=True)
    await topics.do_edit_topic(A, g["id"], t, title="renamed", closed=False)
    (topic,) = (await topics.get_topics_by_id(C, g["id"], [t])).topics
    assert (topic["title"], topic["closed"]) == ("renamed", False)
    await actions.do_send_message(C, g["id"], "open again", 4, top_msg_id=t)


async def test_topic_pages_seek_and_caps(chan):
    g = await forum(B)
    ids = [
        (await topics.do_create_topic(A, g["id"], f"t{i}", None, None)).events[0].message["id"]
        for i in range(5)
    ]
    first = await topics.get_topics(B, g["id"], limit=3)
    assert [t["id"] for t in first.topics] == [1, ids[4], ids[3]]
    last = first.topics[-1]
    nxt = await topics.get_topics(
        B, g["id"], offset_date=last["top_message_date"], offset_id=last["top_message_id"],
        offset_topic=last["id"], limit=3,
    )  # fmt: skip
    assert [t["id"] for t in nxt.topics] == ids[2::-1]
    found = await topics.get_topics(B, g["id"], q="t3")
    assert [t["id"] for t in found.topics] == [ids[3]]
    with pytest.raises(TopicsEmptyError):
        await topics.get_topics_by_id(B, g["id"], [])
    with pytest.raises(LimitInvalidError):
        await topics.get_topics_by_id(B, g["id"], list(range(2, 103)))
    with pytest.raises(LimitInvalidError):
        await topics.get_topics(B, g["id"], limit=-1)


async def test_pin_and_reorder_topics(chan):
    g = await forum(B)
    ids = [
        (await topics.do_create_topic(A, g["id"], f"t{i}", None, None)).events[0].message["id"]
        for i in range(6)
    ]
    with pytest.raises(ChatAdminRequiredError):
        await topics.do_pin_topic(B, g["id"], ids[0], True)
    for i in ids[:5]:
        await topics.do_pin_topic(A, g["id"], i, True)
    with pytest.raises(PinnedTooMuchError):
        await topics.do_pin_topic(A, g["id"], ids[5], True)
    assert await topics.do_pin_topic(A, g["id"], ids[4], False) == ids[3::-1]
    assert chan[-1] == ("channel.topics_pinned", {"channel_id": g["id"], "order": ids[3::-1]})
    assert await topics.do_reorder_pinned_topics(A, g["id"], [ids[0], ids[1]], False) == [
        ids[0], ids[1], ids[3], ids[2],
    ]  # fmt: skip
    assert await topics.do_reorder_pinned_topics(A, g["id"], [ids[5], ids[0]], True) == [ids[5], ids[0]]
    page = await topics.get_topics(B, g["id"])
    assert [t["id"] for t in page.topics][:3] == [1, ids[5], ids[0]]
    assert page.topics[1]["pinned_order"] == 1


async def test_delete_topic_history_in_pages(chan, monkeypatch):
    from message_core import limits

    g = await forum(B)
    t = (await topics.do_create_topic(B, g["id"], "doomed", None, None)).events[0].message["id"]
    other = (await topics.do_create_topic(B, g["id"], "kept", None, None)).events[0].message["id"]
    for i in range(5):
        await actions.do_send_message(B, g["id"], f"m{i}", 100 + i, top_msg_id=t)
    kept = (await actions.do_send_message(B, g["id"], "stay", 200, top_msg_id=other)).events[0].message
    with pytest.raises(ChatAdminRequiredError):
        await messages.do_delete_topic_history(B, g["id"], t)
    monkeypatch.setattr(limits, "DELETE_HISTORY_PAGE", 3)
    ev, more = await messages.do_delete_topic_history(A, g["id"], t)
    assert more and ev.pts_count == 3
    ev, more = await messages.do_delete_topic_history(A, g["id"], t)
    assert not more and ev.pts_count == 3 and t in ev.message_ids  # two messages and the root
    with pytest.raises(TopicDeletedError):
        await messages.do_delete_topic_history(A, g["id"], t)
    with pytest.raises(TopicDeletedError):
        await actions.do_send_message(B, g["id"], "late", 300, top_msg_id=t)
    (gone,) = (await topics.get_topics_by_id(B, g["id"], [t])).topics
    assert gone["deleted"]
    assert [m["id"] for m in (await actions.get_history(B, g["id"], thread_id=other)).messages] == [
        kept["id"]
    ]
