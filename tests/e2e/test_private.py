"""Private chats with unmodified clients: live messages, replies, edits, deletes, read
marks, dialogs, offline catch-up through updates.getDifference, and forwards between
private chats and channels."""

from __future__ import annotations

import pytest

from tests.e2e.test_channels import (
    collect,
    input_user,
    logged_in,
    make_live_kurigram,
    new_user,
    wait_for,
)

pytestmark = pytest.mark.django_db(transaction=True)


def _peer(viewer, target):
    from telethon import types

    from accounts_app.access import user_access_hash

    return types.InputPeerUser(target.id, user_access_hash(viewer.id, target.id))


async def test_private_chat_live_reply_edit_read_delete(edge_server, edge_db, clients):
    from telethon import events, functions, types

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bob, b, _, _ = await logged_in(edge_server, "Bob", clients)
    got_b, edits_b, deletes_b, reads_a = [], [], [], []
    b.add_event_handler(collect(got_b, "message"), events.NewMessage())
    b.add_event_handler(collect(edits_b, "message"), events.MessageEdited())
    b.add_event_handler(collect(deletes_b, "deleted_ids"), events.MessageDeleted())
    a.add_event_handler(collect(reads_a), events.MessageRead(inbox=False))
    await a.get_dialogs()
    await b.get_dialogs()

    bob_for_a, alice_for_b = _peer(alice, bob), _peer(bob, alice)
    first = await a.send_message(bob_for_a, "hi Bob")
    assert first.out and first.id == 1
    await wait_for(lambda: any(m.message == "hi Bob" for m in got_b))
    live = next(m for m in got_b if m.message == "hi Bob")
    assert not live.out and live.sender_id == alice.id and live.chat_id == alice.id

    # B replies to its own copy of the message; A sees the reply to A's copy.
    got_a: list = []
    a.add_event_handler(collect(got_a, "message"), events.NewMessage(incoming=True))
    reply = await b.send_message(alice_for_b, "hello Alice", reply_to=live.id)
    assert reply.reply_to.reply_to_msg_id == live.id
    await wait_for(lambda: any(m.message == "hello Alice" for m in got_a))
    assert next(m for m in got_a if m.message == "hello Alice").reply_to.reply_to_msg_id == first.id

    # Typing reaches the other side only, as updateUserTyping.
    typing: list = []
    a.add_event_handler(collect(typing), events.UserUpdate())
    await b(functions.messages.SetTypingRequest(alice_for_b, types.SendMessageTypingAction()))
    await wait_for(lambda: any(getattr(e, "typing", False) and e.user_id == bob.id for e in typing))

    # Dialogs: each side lists the other with the newest message on top and its unread count.
    dialogs_a = await a.get_dialogs()
    d = next(d for d in dialogs_a if d.id == bob.id)
    assert d.message.message == "hello Alice" and d.unread_count == 1
    await a.send_read_acknowledge(bob_for_a)
    dialogs_a = await a.get_dialogs()
    assert next(d for d in dialogs_a if d.id == bob.id).unread_count == 0

    # B reads A's message: A's outbox mark moves live.
    await b.send_read_acknowledge(alice_for_b, max_id=live.id)
    await wait_for(lambda: any(getattr(e, "max_id", 0) >= first.id for e in reads_a))

    await a.edit_message(bob_for_a, first.id, "hi Bob (edited)")
    await wait_for(lambda: any(m.message == "hi Bob (edited)" for m in edits_b))
    # Only the author edits.
    from telethon.errors import MessageAuthorRequiredError

    with pytest.raises(MessageAuthorRequiredError):
        await b.edit_message(alice_for_b, live.id, "not mine")

    # Delete for both sides: B's copy goes too, by B's own id.
    await a.delete_messages(bob_for_a, [first.id], revoke=True)
    await wait_for(lambda: any(live.id in ids for ids in deletes_b))
    history_b = [m async for m in b.iter_messages(alice_for_b)]
    assert [m.message for m in history_b] == ["hello Alice"]
    got = await b(functions.messages.GetMessagesRequest([types.InputMessageID(live.id)]))
    assert isinstance(got.messages[0], types.MessageEmpty)

    # A retried send (same random id) is the same message.
    r1 = await a(functions.messages.SendMessageRequest(bob_for_a, "once", random_id=777))
    r2 = await a(functions.messages.SendMessageRequest(bob_for_a, "once", random_id=777))
    ids = [u.id for r in (r1, r2) for u in r.updates if isinstance(u, types.UpdateMessageID)]
    assert ids[0] == ids[1]
    assert sum(1 for m in [m async for m in b.iter_messages(alice_for_b)] if m.message == "once") == 1

    # Saved Messages: a chat with oneself.
    saved = await a.send_message("me", "note to self")
    assert saved.out and saved.peer_id.user_id == alice.id
    assert (await a.get_messages("me", limit=1))[0].message == "note to self"

    # Bad input gets Telegram's errors.
    from telethon.errors import MessageEmptyError, MessageTooLongError, PeerIdInvalidError

    with pytest.raises(MessageEmptyError):
        await a(functions.messages.SendMessageRequest(bob_for_a, "   ", random_id=778))
    with pytest.raises(MessageTooLongError):
        await a.send_message(bob_for_a, "x" * 4097)
    with pytest.raises(PeerIdInvalidError):
        await a.send_message(types.InputPeerUser(bob.id, 12345), "wrong hash")


async def test_offline_user_catches_up_private_messages_through_get_difference(edge_server, edge_db, clients):
    from telethon import functions, types

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    carol, c, _, _ = await logged_in(edge_server, "Carol", clients)
    state = await c(functions.updates.GetStateRequest())
    carol_for_a = _peer(alice, carol)
    sent = [await a.send_message(carol_for_a, f"p{i}") for i in range(30)]
    await a.edit_message(carol_for_a, sent[3].id, "p3 edited")
    await a.delete_messages(carol_for_a, [sent[5].id, sent[6].id], revoke=True)

    diff = await c(functions.updates.GetDifferenceRequest(pts=state.pts, date=state.date, qts=0))
    assert isinstance(diff, types.updates.Difference)
    assert diff.state.pts == state.pts + 30 + 1 + 2
    texts = [m.message for m in diff.new_messages]
    # Messages render as they are now: edited text, deleted ones gone.
    assert len(texts) == 28 and "p3 edited" in texts and "p5" not in texts and "p6" not in texts
    assert any(u.id == alice.id for u in diff.users)
    assert any(isinstance(u, types.UpdateDeleteMessages) and len(u.messages) == 2 for u in diff.other_updates)
    # Paging with pts_total_limit-less slices covers the same range without gaps.
    page = await c(
        functions.updates.GetDifferenceRequest(pts=state.pts, date=state.date, qts=0, pts_limit=10)
    )
    assert isinstance(page, types.updates.DifferenceSlice)
    assert page.intermediate_state.pts == state.pts + 10

    history = await c(functions.messages.GetHistoryRequest(_peer(carol, alice), 0, 0, 0, 100, 0, 0, 0))
    assert len(history.messages) == 28 and history.messages[0].message == "p29"
    older = await c(
        functions.messages.GetHistoryRequest(_peer(carol, alice), history.messages[9].id, 0, 0, 5, 0, 0, 0)
    )
    assert [m.id for m in older.messages] == [m.id for m in history.messages[10:15]]


async def test_forwards_between_private_chats_and_channels(edge_server, edge_db, clients):
    from telethon import functions, types

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bob, b, _, _ = await logged_in(edge_server, "Bob", clients)
    created = await a(functions.messages.CreateChatRequest(users=[input_user(alice, bob)], title="Fwd"))
    channel = created.updates.chats[1]
    group = types.InputPeerChannel(channel.id, channel.access_hash)
    post = await a.send_message(group, "from the group")

    # channel -> user: the header names the original sender; the channel comes along.
    fwd = await a.forward_messages(_peer(alice, bob), post.id, group)
    assert fwd.fwd_from.from_id.user_id == alice.id and fwd.peer_id.user_id == bob.id
    in_b = (await b.get_messages(_peer(bob, alice), limit=1))[0]
    assert in_b.message == "from the group" and in_b.fwd_from.from_id.user_id == alice.id

    # user -> channel: B forwards A's private message into the group.
    private = await a.send_message(_peer(alice, bob), "private words")
    copy_b = (await b.get_messages(_peer(bob, alice), limit=1))[0]
    assert copy_b.message == "private words"
    into_group = await b.forward_messages(
        types.InputPeerChannel(channel.id, channel.access_hash), copy_b.id, _peer(bob, alice)
    )
    assert into_group.fwd_from.from_id.user_id == alice.id
    assert into_group.peer_id.channel_id == channel.id
    latest = (await a.get_messages(group, limit=1))[0]
    assert latest.message == "private words" and latest.sender_id == bob.id and private.id > 0

    # user -> user (Saved Messages) keeps the first origin.
    saved = await b.forward_messages("me", copy_b.id, _peer(bob, alice))
    assert saved.fwd_from.from_id.user_id == alice.id

    # Dialogs list the channel and the private chat together, newest first.
    dialogs = await b.get_dialogs()
    ids = [d.id for d in dialogs]
    assert bob.id in ids and alice.id in ids
    assert ids.index(bob.id) < ids.index(alice.id)  # Saved Messages got the newest message


async def test_kurigram_private_chat_live_and_history(edge_server, edge_db, clients):
    from pyrogram import filters
    from pyrogram.handlers import MessageHandler

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bob, phone, code = await new_user("Bob")
    k = make_live_kurigram(edge_server, "private_bob")
    await k.connect()
    try:
        sent_code = await k.send_code(phone)
        await k.sign_in(phone, sent_code.phone_code_hash, code)
        seen: list = []
        k.add_handler(MessageHandler(lambda _c, m: seen.append(m), filters.all))
        await k.initialize()
        sent = await a.send_message(_peer(alice, bob), "hello Kurigram")
        await wait_for(lambda: any(m.text == "hello Kurigram" for m in seen))
        live = next(m for m in seen if m.text == "hello Kurigram")
        assert live.from_user.id == alice.id and live.chat.id == alice.id
        dialogs = [d async for d in k.get_dialogs()]
        assert any(d.chat.id == alice.id and d.unread_messages_count == 1 for d in dialogs)
        got = [m async for m in k.get_chat_history(alice.id, limit=5)]
        assert [m.text for m in got] == ["hello Kurigram"]
        mine = await k.send_message(alice.id, "hello Telethon", reply_to_message_id=got[0].id)
        assert mine.text == "hello Telethon" and mine.outgoing
        back = (await a.get_messages(_peer(alice, bob), limit=1))[0]
        assert back.message == "hello Telethon" and back.reply_to.reply_to_msg_id == sent.id
    finally:
        await k.stop() if k.is_initialized else await k.disconnect()
