"""Discussion groups and send-as with Telethon against the real listener: a broadcast
linked to a group, a post, a member's comments counted on the post a subscriber
reads, the comments paged through the post, and an anonymous admin seen as the group."""

from __future__ import annotations

import pytest

from tests.e2e.test_channels import collect, input_user, logged_in, wait_for

pytestmark = pytest.mark.django_db(transaction=True)


async def test_comments_on_a_linked_post_and_send_as(edge_server, edge_db, clients):
    from telethon import events, functions, types
    from telethon.errors import RPCError

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bob, b, _, _ = await logged_in(edge_server, "Bob", clients)
    carol, c, _, _ = await logged_in(edge_server, "Carol", clients)
    news = (await a(functions.channels.CreateChannelRequest("News", "", broadcast=True))).chats[0]
    talk = (await a(functions.channels.CreateChannelRequest("Talk", "", megagroup=True))).chats[0]
    news_ic = types.InputChannel(news.id, news.access_hash)
    talk_ic = types.InputChannel(talk.id, talk.access_hash)
    news_peer = types.InputPeerChannel(news.id, news.access_hash)
    talk_peer = types.InputPeerChannel(talk.id, talk.access_hash)
    await a(functions.channels.InviteToChannelRequest(news_ic, [input_user(alice, carol)]))
    await a(
        functions.channels.InviteToChannelRequest(talk_ic, [input_user(alice, bob), input_user(alice, carol)])
    )
    offered = await a(functions.channels.GetGroupsForDiscussionRequest())
    assert [ch.id for ch in offered.chats] == [talk.id]
    assert await a(functions.channels.SetDiscussionGroupRequest(news_ic, talk_ic))
    with pytest.raises(RPCError) as e:
        await a(functions.channels.SetDiscussionGroupRequest(news_ic, talk_ic))
    assert type(e.value).__name__ == "LinkNotModifiedError"
    full = await c(functions.channels.GetFullChannelRequest(news_ic))
    assert full.full_chat.linked_chat_id == talk.id

    got_b: list = []
    b.add_event_handler(collect(got_b, "message"), events.NewMessage())
    await b.get_dialogs()
    await c.get_dialogs()
    sent = await a(functions.messages.SendMessageRequest(news_peer, "big news", random_id=1))
    post = next(u.message for u in sent.updates if isinstance(u, types.UpdateNewChannelMessage))
    assert post.replies.comments and post.replies.channel_id == talk.id
    # Bob, in the group, sees the post's root arrive live and comments on it.
    await wait_for(lambda: any(m.message == "big news" for m in got_b))
    root = next(m for m in got_b if m.message == "big news")
    assert root.fwd_from.saved_from_msg_id == post.id
    disc = await b(functions.messages.GetDiscussionMessageRequest(talk_peer, root.id))
    assert disc.messages[0].id == root.id
    for i in range(3):
        await b(
            functions.messages.SendMessageRequest(
                talk_peer,
                f"comment {i}",
                random_id=10 + i,
                reply_to=types.InputReplyToMessage(reply_to_msg_id=root.id),
            )
        )
    # Carol, a subscriber, sees the counter rise (as TDesktop polls it) and on the post.
    views = await c(functions.messages.GetMessagesViewsRequest(news_peer, [post.id], False))
    assert views.views[0].replies.replies == 3
    got = await c(functions.channels.GetMessagesRequest(news_ic, [types.InputMessageID(post.id)]))
    assert got.messages[0].replies.replies == 3
    assert got.messages[0].replies.recent_repliers == [types.PeerUser(bob.id)]
    page = await c(functions.messages.GetRepliesRequest(news_peer, post.id, 0, None, 0, 2, 0, 0, 0))
    assert [m.message for m in page.messages] == ["comment 2", "comment 1"]
    older = await c(
        functions.messages.GetRepliesRequest(news_peer, post.id, page.messages[-1].id, None, 0, 2, 0, 0, 0)
    )
    assert [m.message for m in older.messages] == ["comment 0"]
    assert await c(functions.messages.ReadDiscussionRequest(news_peer, post.id, page.messages[0].id))
    disc = await c(functions.messages.GetDiscussionMessageRequest(news_peer, post.id))
    assert (disc.read_inbox_max_id, disc.unread_count) == (page.messages[0].id, 0)

    # Alice (the group's creator) posts as the group: Bob sees the group as sender.
    offers = await a(functions.channels.GetSendAsRequest(talk_peer))
    assert types.PeerChannel(talk.id) in [p.peer for p in offers.peers]
    got_b.clear()
    await a(
        functions.messages.SendMessageRequest(talk_peer, "from the group", random_id=50, send_as=talk_peer)
    )
    await wait_for(lambda: any(m.message == "from the group" for m in got_b))
    anon = next(m for m in got_b if m.message == "from the group")
    assert anon.from_id == types.PeerChannel(talk.id)
    with pytest.raises(RPCError) as e:
        await b(functions.messages.SendMessageRequest(talk_peer, "x", random_id=51, send_as=talk_peer))
    assert type(e.value).__name__ == "SendAsPeerInvalidError"
