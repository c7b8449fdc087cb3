"""Forum topics with Telethon against the real listener: topics created, messages in
each seen live by one member and through getReplies / getForumTopics by another, a
closed topic refusing a member's send."""

from __future__ import annotations

import pytest

from tests.e2e.test_channels import collect, input_user, logged_in, wait_for

pytestmark = pytest.mark.django_db(transaction=True)


async def test_forum_topics_live_replies_and_closing(edge_server, edge_db, clients):
    from telethon import events, functions, types
    from telethon.errors import RPCError

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bob, b, _, _ = await logged_in(edge_server, "Bob", clients)
    carol, c, _, _ = await logged_in(edge_server, "Carol", clients)
    created = await a(
        functions.messages.CreateChatRequest(
            users=[input_user(alice, bob), input_user(alice, carol)], title="Forum"
        )
    )
    channel = created.updates.chats[1]
    peer = types.InputPeerChannel(channel.id, channel.access_hash)
    await a(
        functions.channels.ToggleForumRequest(
            types.InputChannel(channel.id, channel.access_hash), True, tabs=False
        )
    )

    got_b: list = []
    b.add_event_handler(collect(got_b, "message"), events.NewMessage())
    await b.get_dialogs()

    topic_ids = []
    for title in ("Plans", "Bugs", "Random"):
        upd = await a(
            functions.messages.CreateForumTopicRequest(peer=peer, title=title, random_id=hash(title))
        )
        (root,) = [u.message for u in upd.updates if isinstance(u, types.UpdateNewChannelMessage)]
        assert isinstance(root.action, types.MessageActionTopicCreate) and root.action.title == title
        topic_ids.append(root.id)

    for t in topic_ids:
        await a(
            functions.messages.SendMessageRequest(
                peer, f"hello in {t}", random_id=1000 + t,
                reply_to=types.InputReplyToMessage(reply_to_msg_id=t, top_msg_id=t),
            )
        )  # fmt: skip
    await wait_for(lambda: sum(1 for m in got_b if (m.message or "").startswith("hello in")) == 3)
    for m in got_b:
        if (m.message or "").startswith("hello in"):
            assert m.reply_to.forum_topic and m.reply_to.reply_to_msg_id == int(m.message.split()[-1])

    # Carol was not listening: each topic's thread and the topic list show it all.
    for t in topic_ids:
        replies = await c(functions.messages.GetRepliesRequest(peer, t, 0, None, 0, 10, 0, 0, 0))
        assert [m.message for m in replies.messages] == [f"hello in {t}"]
        assert [(x.id, x.short) for x in replies.topics] == [(t, True)]
    listed = await c(functions.messages.GetForumTopicsRequest(peer, None, 0, 0, 10))
    assert [t.title for t in listed.topics] == ["General", "Random", "Bugs", "Plans"]
    tops = {m.id for m in listed.messages}
    assert all(t.top_message in tops for t in listed.topics[1:])
    assert all(t.unread_count == 1 for t in listed.topics[1:])
    by_id = await c(functions.messages.GetForumTopicsByIDRequest(peer, [topic_ids[1]]))
    assert [t.title for t in by_id.topics] == ["Bugs"]

    # Carol catching up by getChannelDifference gets the topics' roots and messages.
    ic = types.InputChannel(channel.id, channel.access_hash)
    diff = await c(
        functions.updates.GetChannelDifferenceRequest(ic, types.ChannelMessagesFilterEmpty(), 1, 100)
    )
    roots = [m for m in diff.new_messages if isinstance(m, types.MessageService)]
    assert [m.action.title for m in roots if isinstance(m.action, types.MessageActionTopicCreate)] == [
        "Plans", "Bugs", "Random",
    ]  # fmt: skip
    assert sum(1 for m in diff.new_messages if getattr(m, "reply_to", None) and m.reply_to.forum_topic) == 3
    await c(functions.channels.ToggleViewForumAsMessagesRequest(ic, True))
    full = await c(functions.channels.GetFullChannelRequest(ic))
    assert full.full_chat.view_forum_as_messages and full.chats[0].forum

    # Alice closes "Bugs": Bob's send into it is refused, Alice's still goes in.
    await a(functions.messages.EditForumTopicRequest(peer, topic_ids[1], closed=True))
    peer_b = await b.get_input_entity(types.PeerChannel(channel.id))
    with pytest.raises(RPCError) as err:
        await b(
            functions.messages.SendMessageRequest(
                peer_b, "let me in", random_id=77,
                reply_to=types.InputReplyToMessage(reply_to_msg_id=topic_ids[1], top_msg_id=topic_ids[1]),
            )
        )  # fmt: skip
    assert "TOPIC_CLOSED" in str(err.value)
    (closed,) = (await b(functions.messages.GetForumTopicsByIDRequest(peer_b, [topic_ids[1]]))).topics
    assert closed.closed


async def test_kurigram_member_creates_a_topic_and_posts_in_it(edge_server, edge_db, clients):
    from telethon import events, functions, types

    from tests.e2e.test_channels import make_live_kurigram, new_user

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bob, b_phone, b_code = await new_user("Bob")
    created = await a(
        functions.messages.CreateChatRequest(users=[input_user(alice, bob)], title="Kuri forum")
    )
    channel = created.updates.chats[1]
    ic = types.InputChannel(channel.id, channel.access_hash)
    await a(functions.channels.ToggleForumRequest(ic, True, tabs=False))
    got_a: list = []
    a.add_event_handler(collect(got_a, "message"), events.NewMessage())
    await a.get_dialogs()

    kb = make_live_kurigram(edge_server, "kuriforum")
    await kb.connect()
    try:
        sent = await kb.send_code(b_phone)
        await kb.sign_in(b_phone, sent.phone_code_hash, b_code)
        chat_id = -1000000000000 - channel.id
        async for _ in kb.get_dialogs():
            pass
        topic = await kb.create_forum_topic(chat_id, "From Kurigram")
        msg = await kb.send_message(chat_id, "kurigram in a topic", message_thread_id=topic.id)
        assert msg.message_thread_id == topic.id
        await wait_for(lambda: any(m.message == "kurigram in a topic" for m in got_a))
        live = next(m for m in got_a if m.message == "kurigram in a topic")
        assert live.reply_to.forum_topic and live.reply_to.reply_to_msg_id == topic.id
        titles = [t.title async for t in kb.get_forum_topics(chat_id)]
        assert titles == ["General", "From Kurigram"]
    finally:
        await kb.disconnect()
