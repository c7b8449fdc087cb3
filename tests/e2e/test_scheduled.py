"""Scheduled messages with unmodified clients: scheduled in a private chat and in each
kind of channel, listed, edited, deleted, sent now, and sent by the server at their time
to a member who was offline, across a listener restart."""

from __future__ import annotations

import asyncio
import time
from datetime import timedelta

import pytest

from scheduling_app.models import ScheduledMessage
from tests.e2e.test_channels import collect, input_user, logged_in, wait_for

pytestmark = pytest.mark.django_db(transaction=True)


def _peer(viewer, target):
    from telethon import types

    from accounts_app.access import user_access_hash

    return types.InputPeerUser(target.id, user_access_hash(viewer.id, target.id))


def _same_user_on(server, client, clients: list):
    """A new client of ``server`` on ``client``'s auth key (the same user's other device,
    or the same device reconnecting)."""
    from telethon import TelegramClient, connection
    from telethon.sessions import MemorySession

    from tests.e2e import harness

    harness.telethon_trust(server.public_pem)
    session = MemorySession()
    session.set_dc(2, server.host, server.port)
    session.auth_key = client.session.auth_key
    other = TelegramClient(
        session, harness.API_ID, harness.API_HASH, connection=connection.ConnectionTcpAbridged,
        receive_updates=True, connection_retries=1, retry_delay=0, timeout=10, request_retries=1,
        auto_reconnect=False, catch_up=False,
    )  # fmt: skip
    clients.append(other)
    return other


async def test_scheduled_private_message_reaches_offline_peer_after_restart(
    edge_server, start_edge_server, edge_db, clients
):
    from telethon import functions, types

    first = start_edge_server()
    alice, a, _, _ = await logged_in(first, "Alice", clients)
    bob, b, _, _ = await logged_in(edge_server, "Bob", clients)
    state = await b(functions.updates.GetStateRequest())
    await b.disconnect()  # Bob is offline from here on

    peer = _peer(alice, bob)
    sched = await a.send_message(peer, "see you later", schedule=timedelta(seconds=4))
    due = int(sched.date.timestamp())
    listed = await a(functions.messages.GetScheduledHistoryRequest(peer=peer, hash=0))
    assert [(m.id, m.message, m.from_scheduled, m.out) for m in listed.messages] == [
        (sched.id, "see you later", True, True)
    ]
    assert {u.id for u in listed.users} >= {bob.id}

    # The listener that took the request goes away; another one starts on the same store.
    first.stop()
    second = start_edge_server()
    await asyncio.sleep(max(0.0, due - time.time()) + 1.5)

    b2 = _same_user_on(edge_server, b, clients)
    await b2.connect()
    diff = await b2(functions.updates.GetDifferenceRequest(pts=state.pts, date=state.date, qts=0))
    got = [m for m in diff.new_messages if m.message == "see you later"]
    assert len(got) == 1  # exactly once, though two listeners ran the scheduler
    assert due <= got[0].date.timestamp() <= due + 1
    assert got[0].peer_id.user_id == alice.id

    a2 = _same_user_on(second, a, clients)
    await a2.connect()
    assert (await a2(functions.messages.GetScheduledHistoryRequest(peer=peer, hash=0))).messages == []
    hist = await a2(functions.messages.GetHistoryRequest(peer, 0, 0, 0, 10, 0, 0, 0))
    assert [m.message for m in hist.messages] == ["see you later"]
    assert not await ScheduledMessage.objects.filter(owner_id=alice.id).aexists()
    assert isinstance(diff, types.updates.Difference)


async def test_scheduled_list_edit_delete_send_now_and_other_sessions(edge_server, edge_db, clients):
    from telethon import events, functions, types

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bob, b, _, _ = await logged_in(edge_server, "Bob", clients)
    # Alice's second device hears of her scheduled messages.
    a_other = _same_user_on(edge_server, a, clients)
    await a_other.connect()
    raw_other = []
    a_other.add_event_handler(collect(raw_other), events.Raw())
    got_b = []
    b.add_event_handler(collect(got_b, "message"), events.NewMessage())
    await b.get_dialogs()
    await a_other.get_dialogs()

    peer = _peer(alice, bob)
    one = await a.send_message(peer, "one", schedule=timedelta(hours=1))
    two = await a.send_message(peer, "two", schedule=timedelta(hours=2))
    await wait_for(lambda: sum(isinstance(u, types.UpdateNewScheduledMessage) for u in raw_other) == 2)

    got = await a(functions.messages.GetScheduledMessagesRequest(peer=peer, id=[one.id, two.id, 999999]))
    assert sorted(m.message for m in got.messages) == ["one", "two"]
    full = await a(functions.messages.GetScheduledHistoryRequest(peer=peer, hash=0))
    assert [m.message for m in full.messages] == ["two", "one"]

    # Edit: text and time.
    new_date = int(time.time()) + 3 * 3600
    await a(
        functions.messages.EditMessageRequest(
            peer=peer, id=one.id, message="one, edited", schedule_date=new_date
        )
    )
    again = await a(functions.messages.GetScheduledHistoryRequest(peer=peer, hash=0))
    assert (again.messages[0].message, again.messages[0].date.timestamp()) == ("one, edited", new_date)

    # Send now: Bob gets it at once; the scheduled list loses it.
    answer = await a(functions.messages.SendScheduledMessagesRequest(peer=peer, id=[two.id]))
    deleted = [u for u in answer.updates if isinstance(u, types.UpdateDeleteScheduledMessages)]
    assert deleted and deleted[0].messages == [two.id] and deleted[0].sent_messages
    await wait_for(lambda: any(m.message == "two" for m in got_b))
    # The sender's copies are marked as sent from the schedule (answer and other
    # session); the recipient's is an ordinary message.
    sent = [u.message for u in answer.updates if isinstance(u, types.UpdateNewMessage)]
    assert [(m.message, m.from_scheduled) for m in sent] == [("two", True)]
    await wait_for(
        lambda: any(isinstance(u, types.UpdateNewMessage) and u.message.message == "two" for u in raw_other)
    )
    assert [u.message.from_scheduled for u in raw_other if isinstance(u, types.UpdateNewMessage)] == [True]
    assert not next(m for m in got_b if m.message == "two").from_scheduled

    # Delete: the other session is told.
    await a(functions.messages.DeleteScheduledMessagesRequest(peer=peer, id=[one.id]))
    await wait_for(
        lambda: any(
            isinstance(u, types.UpdateDeleteScheduledMessages) and one.id in u.messages for u in raw_other
        )
    )
    assert (await a(functions.messages.GetScheduledHistoryRequest(peer=peer, hash=0))).messages == []
    assert [m.message for m in got_b] == ["two"]


async def test_scheduled_bad_dates_and_cap_write_nothing(edge_server, edge_db, clients):
    from telethon import errors, functions

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bob, _, _, _ = await logged_in(edge_server, "Bob", clients)
    peer = _peer(alice, bob)
    with pytest.raises(errors.ScheduleDateInvalidError):
        await a(
            functions.messages.SendMessageRequest(
                peer=peer, message="past", schedule_date=int(time.time()) - 60
            )
        )
    with pytest.raises(errors.ScheduleDateTooLateError):
        await a(functions.messages.SendMessageRequest(
            peer=peer, message="far", schedule_date=int(time.time()) + 366 * 86400))  # fmt: skip
    assert not await ScheduledMessage.objects.filter(owner_id=alice.id).aexists()
    for i in range(100):
        await a(functions.messages.SendMessageRequest(
            peer=peer, message=f"m{i}", schedule_date=int(time.time()) + 3600 + i))  # fmt: skip
    with pytest.raises(errors.ScheduleTooMuchError):
        await a(
            functions.messages.SendMessageRequest(
                peer=peer, message="101", schedule_date=int(time.time()) + 7200
            )
        )
    assert await ScheduledMessage.objects.filter(owner_id=alice.id).acount() == 100


async def test_scheduled_in_supergroup_broadcast_and_banned_sender(edge_server, edge_db, clients):
    """A megagroup member gets the scheduled message live at its time; a sender banned
    meanwhile has it dropped with a notice from the service account."""
    from telethon import events, functions, types

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bob, b, _, _ = await logged_in(edge_server, "Bob", clients)
    created = await a(functions.messages.CreateChatRequest(users=[input_user(alice, bob)], title="Later"))
    channel = created.updates.chats[1]
    got_b, raw_a = [], []
    b.add_event_handler(collect(got_b, "message"), events.NewMessage())
    a.add_event_handler(collect(raw_a), events.Raw(types.UpdateNewChannelMessage))
    await b.get_dialogs()
    await a.get_dialogs()
    chan = types.InputPeerChannel(channel.id, channel.access_hash)
    sched = await a.send_message(chan, "group, later", schedule=timedelta(seconds=2))
    due = int(sched.date.timestamp())
    await wait_for(lambda: any(m.message == "group, later" for m in got_b), timeout=8)
    live = next(m for m in got_b if m.message == "group, later")
    assert due <= live.date.timestamp() <= due + 1 and live.sender_id == alice.id
    assert not live.from_scheduled  # only the sender's view is marked
    await wait_for(lambda: any(u.message.message == "group, later" for u in raw_a))
    mine = next(u.message for u in raw_a if u.message.message == "group, later")
    assert mine.from_scheduled and mine.out

    # Bob schedules, then loses the right to write: the message is dropped, Bob told.
    b_chan = await b.get_input_entity(channel.id)
    await b.send_message(b_chan, "never", schedule=timedelta(seconds=2))
    await a(functions.channels.EditBannedRequest(
        channel=types.InputChannel(channel.id, channel.access_hash), participant=input_user(alice, bob),
        banned_rights=types.ChatBannedRights(until_date=None, send_messages=True),
    ))  # fmt: skip
    await wait_for(lambda: any("could not be sent" in (m.message or "") for m in got_b), timeout=8)
    history = await a(functions.messages.GetHistoryRequest(chan, 0, 0, 0, 20, 0, 0, 0))
    assert "never" not in [m.message for m in history.messages]
    assert not await ScheduledMessage.objects.filter(owner_id=bob.id).aexists()

    # A broadcast: the post goes out as the channel.
    made = await a(functions.channels.CreateChannelRequest(title="News", about="", broadcast=True))
    news = made.chats[0]
    npeer = types.InputPeerChannel(news.id, news.access_hash)
    sched = await a.send_message(npeer, "post, later", schedule=timedelta(seconds=2))
    listed = await a(functions.messages.GetScheduledHistoryRequest(peer=npeer, hash=0))
    assert listed.messages[0].post and listed.messages[0].from_scheduled
    await asyncio.sleep(3.2)
    posts = await a(functions.messages.GetHistoryRequest(npeer, 0, 0, 0, 5, 0, 0, 0))
    assert posts.messages[0].message == "post, later" and posts.messages[0].post


async def test_mtcute_schedules_lists_sends_now_and_deletes(edge_server, edge_db, clients, tmp_path):
    """mtcute (layer 227) schedules into a megagroup: lists, deletes and sends one now;
    the Telethon member gets the others live at their time."""
    import uuid

    from asgiref.sync import sync_to_async
    from telethon import events, functions

    from accounts_app.actions import do_create_user
    from tests.e2e import harness
    from tests.e2e.js_clients import JsClient, ensure_node_modules

    ensure_node_modules()
    alice_phone, alice_code = harness.fresh_phone()
    await sync_to_async(do_create_user)(alice_phone, "Alice JS")
    _, b, _, _ = await logged_in(edge_server, "Bob", clients)
    bob_name = f"bob{uuid.uuid4().hex[:12]}"
    await b(functions.account.UpdateUsernameRequest(bob_name))
    got_b = []
    b.add_event_handler(collect(got_b, "message"), events.NewMessage())
    js = await JsClient.start("mtcute_client.mjs", edge_server, tmp_path / "mtcute.log")
    try:
        await js.call("login", phone=alice_phone, code=alice_code)
        group = await js.call("create_megagroup", title="JS later", invite=bob_name)
        chat = group["id"]
        await b.get_dialogs()
        later = await js.call("schedule", chat=chat, text="js later", in_s=3)
        assert later["scheduled"]
        gone = await js.call("schedule", chat=chat, text="js never", in_s=3600)
        now_ = await js.call("schedule", chat=chat, text="js right now", in_s=7200)
        listed = await js.call("scheduled", chat=chat)
        assert sorted(m["text"] for m in listed) == ["js later", "js never", "js right now"]
        await js.call("delete_scheduled", chat=chat, ids=[gone["id"]])
        sent = await js.call("send_scheduled", chat=chat, ids=[now_["id"]])
        assert [m["text"] for m in sent] == ["js right now"]
        await wait_for(lambda: any(m.message == "js right now" for m in got_b))
        await wait_for(lambda: any(m.message == "js later" for m in got_b), timeout=10)
        live = next(m for m in got_b if m.message == "js later")
        assert later["date"] <= live.date.timestamp() <= later["date"] + 1
        await js.wait("new", text="js later")  # the sender's own session sees it sent
        assert await js.call("scheduled", chat=chat) == []
        assert "js never" not in [m.message for m in got_b]
    finally:
        await js.close()


async def test_scheduled_into_forum_topic_discussion_thread_with_media_album_and_forward(
    edge_server, edge_db, clients, tmp_path
):
    """Each kind of thread keeps its place when the scheduled message is sent: a forum
    topic, a post's comments in the linked group; a scheduled photo, album and forward
    arrive as such."""
    from PIL import Image
    from telethon import events, functions, types

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bob, b, _, _ = await logged_in(edge_server, "Bob", clients)
    created = await a(
        functions.messages.CreateChatRequest(users=[input_user(alice, bob)], title="Forum later")
    )
    forum = created.updates.chats[1]
    fpeer = types.InputPeerChannel(forum.id, forum.access_hash)
    await a(
        functions.channels.ToggleForumRequest(
            types.InputChannel(forum.id, forum.access_hash), True, tabs=False
        )
    )
    upd = await a(functions.messages.CreateForumTopicRequest(peer=fpeer, title="Plans", random_id=5))
    topic = next(u.message.id for u in upd.updates if isinstance(u, types.UpdateNewChannelMessage))

    news = (await a(functions.channels.CreateChannelRequest("News later", "", broadcast=True))).chats[0]
    talk = (await a(functions.channels.CreateChannelRequest("Talk later", "", megagroup=True))).chats[0]
    news_ic, talk_ic = (
        types.InputChannel(news.id, news.access_hash),
        types.InputChannel(talk.id, talk.access_hash),
    )
    news_peer, talk_peer = (
        types.InputPeerChannel(news.id, news.access_hash),
        types.InputPeerChannel(talk.id, talk.access_hash),
    )
    await a(functions.channels.InviteToChannelRequest(talk_ic, [input_user(alice, bob)]))
    assert await a(functions.channels.SetDiscussionGroupRequest(news_ic, talk_ic))

    got_b = []
    b.add_event_handler(collect(got_b, "message"), events.NewMessage())
    await b.get_dialogs()
    sent = await a(functions.messages.SendMessageRequest(news_peer, "post", random_id=1))
    post = next(u.message for u in sent.updates if isinstance(u, types.UpdateNewChannelMessage))
    await wait_for(lambda: any(m.message == "post" for m in got_b))
    root = next(m for m in got_b if m.message == "post")

    at = int(time.time()) + 3
    await a(functions.messages.SendMessageRequest(
        fpeer, "topic, later", random_id=11, schedule_date=at,
        reply_to=types.InputReplyToMessage(reply_to_msg_id=topic, top_msg_id=topic)))  # fmt: skip
    await a(functions.messages.SendMessageRequest(
        talk_peer, "comment, later", random_id=12, schedule_date=at,
        reply_to=types.InputReplyToMessage(reply_to_msg_id=root.id)))  # fmt: skip
    image = tmp_path / "p.png"
    Image.new("RGB", (64, 48), (10, 200, 10)).save(image)
    bob_peer = _peer(alice, bob)
    await a.send_file(bob_peer, str(image), caption="photo, later", schedule=timedelta(seconds=3))
    await a.send_file(
        bob_peer, [str(image), str(image)], caption=["album 1", "album 2"], schedule=timedelta(seconds=3)
    )
    await a.forward_messages(bob_peer, post.id, news_peer, schedule=timedelta(seconds=3))
    listed = await a(functions.messages.GetScheduledHistoryRequest(peer=bob_peer, hash=0))
    assert len(listed.messages) == 4 and all(m.from_scheduled for m in listed.messages)
    assert len({m.grouped_id for m in listed.messages if m.grouped_id}) == 1

    want = {"topic, later", "comment, later", "photo, later", "album 1", "album 2", "post"}
    await wait_for(
        lambda: want <= {m.message for m in got_b if m.date.timestamp() >= at - 1} | {"post"}, timeout=10
    )
    by_text = {m.message: m for m in got_b}
    assert (
        by_text["topic, later"].reply_to.forum_topic
        and by_text["topic, later"].reply_to.reply_to_msg_id == topic
    )
    assert by_text["comment, later"].reply_to.reply_to_msg_id == root.id
    assert isinstance(by_text["photo, later"].media, types.MessageMediaPhoto)
    assert by_text["album 1"].grouped_id and by_text["album 1"].grouped_id == by_text["album 2"].grouped_id
    await wait_for(lambda: any(m.fwd_from and m.is_private for m in got_b), timeout=5)
    fwd = [m for m in got_b if m.fwd_from and m.is_private]
    assert fwd[0].message == "post" and fwd[0].fwd_from.channel_post == post.id
    replies = await b(functions.messages.GetRepliesRequest(talk_peer, root.id, 0, None, 0, 5, 0, 0, 0))
    assert [m.message for m in replies.messages] == ["comment, later"]


async def test_kurigram_schedules_a_message(edge_server, edge_db, clients):
    from datetime import datetime

    from pyrogram import filters
    from pyrogram.handlers import MessageHandler

    from tests.e2e.test_channels import make_live_kurigram, new_user

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bob, phone, code = await new_user("Bob")
    k = make_live_kurigram(edge_server, "sched_bob")
    await k.connect()
    try:
        sent_code = await k.send_code(phone)
        await k.sign_in(phone, sent_code.phone_code_hash, code)
        seen = []
        k.add_handler(MessageHandler(lambda _c, m: seen.append(m), filters.all))
        await k.initialize()
        await a.send_message(_peer(alice, bob), "hi")
        assert [d.chat.id async for d in k.get_dialogs()] == [alice.id]
        due = int(time.time()) + 3
        mine = await k.send_message(alice.id, "kurigram later", schedule_date=datetime.fromtimestamp(due))
        assert mine.scheduled and mine.text == "kurigram later"
        listed = await a(__import__("telethon").functions.messages.GetHistoryRequest(
            _peer(alice, bob), 0, 0, 0, 5, 0, 0, 0))  # fmt: skip
        assert "kurigram later" not in [m.message for m in listed.messages]
        await asyncio.sleep(max(0.0, due - time.time()) + 1.5)
        got = [m async for m in k.get_chat_history(alice.id, limit=2)]
        assert got[0].text == "kurigram later" and not got[0].scheduled
        assert due <= got[0].date.timestamp() <= due + 1
    finally:
        await k.stop() if k.is_initialized else await k.disconnect()


async def test_broadcast_scheduled_messages_are_shared_by_its_posting_admins(edge_server, edge_db, clients):
    """Two admins of a broadcast see, edit, delete and send now each other's scheduled
    posts and hear of each change; the cap of 100 is the channel's; an admin without
    the right to post sees none of them."""
    from telethon import errors, events, functions, types

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bob, b, _, _ = await logged_in(edge_server, "Bob", clients)
    carol, c, _, _ = await logged_in(edge_server, "Carol", clients)
    made = await a(functions.channels.CreateChannelRequest(title="Desk", about="", broadcast=True))
    news = made.chats[0]
    ich = types.InputChannel(news.id, news.access_hash)
    await a(
        functions.channels.InviteToChannelRequest(ich, [input_user(alice, bob), input_user(alice, carol)])
    )
    await a(functions.channels.EditAdminRequest(
        ich, input_user(alice, bob), types.ChatAdminRights(post_messages=True, edit_messages=True), rank="",
    ))  # fmt: skip
    await a(functions.channels.EditAdminRequest(
        ich, input_user(alice, carol), types.ChatAdminRights(change_info=True), rank="",
    ))  # fmt: skip
    raw_a, raw_b, raw_c = [], [], []
    a.add_event_handler(collect(raw_a), events.Raw())
    b.add_event_handler(collect(raw_b), events.Raw())
    c.add_event_handler(collect(raw_c), events.Raw())
    for cl in (a, b, c):
        await cl.get_dialogs()
    pa = types.InputPeerChannel(news.id, news.access_hash)
    pb = await b.get_input_entity(news.id)
    pc = await c.get_input_entity(news.id)

    def scheduled(raw, text):
        return any(isinstance(u, types.UpdateNewScheduledMessage) and u.message.message == text for u in raw)

    by_a = await a.send_message(pa, "from alice", schedule=timedelta(hours=1))
    await wait_for(lambda: scheduled(raw_b, "from alice"))
    by_b = await b.send_message(pb, "from bob", schedule=timedelta(hours=2))
    await wait_for(lambda: scheduled(raw_a, "from bob"))
    for cl, peer in ((a, pa), (b, pb)):
        listed = await cl(functions.messages.GetScheduledHistoryRequest(peer=peer, hash=0))
        assert [m.message for m in listed.messages] == ["from bob", "from alice"]
        assert all(m.post and m.from_scheduled for m in listed.messages)
        got = await cl(functions.messages.GetScheduledMessagesRequest(peer=peer, id=[by_a.id, by_b.id]))
        assert sorted(m.id for m in got.messages) == sorted([by_a.id, by_b.id])
    # Carol may not post: none of them are hers to see, and she cannot touch them.
    assert (await c(functions.messages.GetScheduledHistoryRequest(peer=pc, hash=0))).messages == []
    with pytest.raises(errors.MessageIdInvalidError):
        await c(functions.messages.SendScheduledMessagesRequest(peer=pc, id=[by_a.id]))
    assert not scheduled(raw_c, "from alice")

    # Bob edits Alice's post; Alice hears of it.
    await b(functions.messages.EditMessageRequest(
        peer=pb, id=by_a.id, message="from alice, edited by bob", schedule_date=int(time.time()) + 5400,
    ))  # fmt: skip
    await wait_for(lambda: scheduled(raw_a, "from alice, edited by bob"))
    # Alice deletes Bob's post; Bob hears of it.
    await a(functions.messages.DeleteScheduledMessagesRequest(peer=pa, id=[by_b.id]))
    await wait_for(
        lambda: any(
            isinstance(u, types.UpdateDeleteScheduledMessages) and by_b.id in u.messages for u in raw_b
        )
    )
    # Bob sends Alice's post now: it goes out as the channel; Alice's list loses it.
    answer = await b(functions.messages.SendScheduledMessagesRequest(peer=pb, id=[by_a.id]))
    new = [u for u in answer.updates if isinstance(u, types.UpdateNewChannelMessage)]
    assert [m.message.message for m in new] == ["from alice, edited by bob"] and new[0].message.post
    await wait_for(
        lambda: any(
            isinstance(u, types.UpdateDeleteScheduledMessages) and by_a.id in u.messages and u.sent_messages
            for u in raw_a
        )
    )
    # Sent as its author: Alice's sessions get it marked as sent from the schedule.
    await wait_for(
        lambda: any(
            isinstance(u, types.UpdateNewChannelMessage) and u.message.message == "from alice, edited by bob"
            and u.message.from_scheduled for u in raw_a
        )
    )  # fmt: skip
    for cl, peer in ((a, pa), (b, pb)):
        assert (await cl(functions.messages.GetScheduledHistoryRequest(peer=peer, hash=0))).messages == []
    posts = await c(functions.messages.GetHistoryRequest(pc, 0, 0, 0, 5, 0, 0, 0))
    assert posts.messages[0].message == "from alice, edited by bob"

    # The cap is the channel's: 100 of Alice's leave Bob no room.
    at = int(time.time()) + 7200
    await ScheduledMessage.objects.abulk_create(
        ScheduledMessage(owner_id=alice.id, peer_kind="c", peer_id=news.id, date=at + i, random_id=1000 + i,
                         message=f"m{i}", params={"post": True}, created=at)
        for i in range(100)
    )  # fmt: skip
    with pytest.raises(errors.ScheduleTooMuchError):
        await b.send_message(pb, "one too many", schedule=timedelta(hours=3))
    assert not await ScheduledMessage.objects.filter(owner_id=bob.id).aexists()
