"""Update kinds beyond new messages, received by an unmodified aiogram bot pointed at
``manage.py runbotapi``: edits (private, group, channel), channel posts, the bot's own
membership (my_chat_member) and others' (chat_member, asked for in allowed_updates),
all made by Telethon users while the bot was not polling and delivered once."""

from __future__ import annotations

import asyncio

import pytest

from tests.e2e.test_botapi import call
from tests.e2e.test_bots import _new_bot
from tests.e2e.test_channels import logged_in, wait_for

pytestmark = pytest.mark.django_db(transaction=True)

ALLOWED = [
    "message",
    "edited_message",
    "channel_post",
    "edited_channel_post",
    "my_chat_member",
    "chat_member",
]


async def test_edits_posts_and_membership_reach_an_aiogram_bot_that_was_offline(
    edge_server, botapi_server, edge_db, clients
):
    from aiogram import Bot, Dispatcher
    from aiogram.client.session.aiohttp import AiohttpSession
    from aiogram.client.telegram import TelegramAPIServer
    from telethon import functions, types

    from accounts_app.access import user_access_hash

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bob, b, _, _ = await logged_in(edge_server, "Bob", clients)
    bot_id, username, token = await _new_bot(alice.id, "Watcher")
    base = botapi_server.base
    # The bot asks for chat_member once (as Telegram, the choice is kept), then goes away.
    status, body = await call(base, token, "getUpdates", allowed_updates=ALLOWED, timeout=0)
    assert (status, body["result"]) == (200, [])

    def iu(owner, target_id):
        return types.InputUser(target_id, user_access_hash(owner, target_id))

    admin = types.ChatAdminRights(delete_messages=True, ban_users=True, pin_messages=True, invite_users=True)
    # A private message, then its edit.
    sent = await a.send_message(username, "hello")
    await sent.edit("hello, edited")
    # Alice blocks the bot, then thinks better of it.
    await a(functions.contacts.BlockRequest(id=username))
    await a(functions.contacts.UnblockRequest(id=username))

    # A supergroup: the bot is invited (with Bob: the service message says so), promoted;
    # Bob talks, edits, is restricted, leaves; the bot is demoted, then banned.
    group = (await a(functions.channels.CreateChannelRequest(title="Den", about="", megagroup=True))).chats[0]
    ig = types.InputChannel(group.id, group.access_hash)
    await a(functions.channels.InviteToChannelRequest(ig, [iu(alice.id, bob.id), iu(alice.id, bot_id)]))
    await a(functions.channels.EditAdminRequest(ig, iu(alice.id, bot_id), admin, rank=""))
    bob_group = await b.get_entity(types.PeerChannel(group.id))
    said = await b.send_message(bob_group, "hi all")
    await said.edit("hi all!")
    no_send = types.ChatBannedRights(until_date=None, send_messages=True)
    await a(functions.channels.EditBannedRequest(ig, iu(alice.id, bob.id), no_send))
    await b(functions.channels.LeaveChannelRequest(bob_group))
    await a(functions.channels.EditAdminRequest(ig, iu(alice.id, bot_id), types.ChatAdminRights(), rank=""))
    kicked = types.ChatBannedRights(until_date=None, view_messages=True)
    await a(functions.channels.EditBannedRequest(ig, iu(alice.id, bot_id), kicked))

    # A channel: the bot joins as an admin; a post and its edit.
    chan = (await a(functions.channels.CreateChannelRequest(title="News", about="", broadcast=True))).chats[0]
    ic = types.InputChannel(chan.id, chan.access_hash)
    await a(functions.channels.InviteToChannelRequest(ic, [iu(alice.id, bot_id)]))
    await a(functions.channels.EditAdminRequest(ic, iu(alice.id, bot_id), admin, rank=""))
    post = await a.send_message(types.PeerChannel(chan.id), "news")
    await post.edit("news!")
    # A group created with the bot among its first members.
    created = await a(functions.messages.CreateChatRequest(users=[iu(alice.id, bot_id)], title="Trio"))
    trio = created.updates.chats[0]

    # Back online: an unmodified aiogram bot polls with the same allowed_updates.
    got: list[tuple[str, object]] = []
    dp = Dispatcher()
    for kind in ALLOWED:

        def handler(event, _kind=kind):
            got.append((_kind, event))

        getattr(dp, kind).register(handler)
    bot = Bot(token, session=AiohttpSession(api=TelegramAPIServer.from_base(base)))
    polling = asyncio.create_task(
        dp.start_polling(bot, polling_timeout=1, handle_signals=False, allowed_updates=ALLOWED)
    )
    try:
        await wait_for(lambda: len(got) >= 19, 30)
        await asyncio.sleep(1.5)  # nothing more comes
    finally:
        await dp.stop_polling()
        await asyncio.wait_for(polling, 10)
        await bot.session.close()

    group_id, chan_id = -(10**12) - group.id, -(10**12) - chan.id
    summary = []
    for kind, ev in got:
        if kind in ("my_chat_member", "chat_member"):
            summary.append((kind, ev.chat.id, ev.new_chat_member.user.id, ev.old_chat_member.status,
                            ev.new_chat_member.status))  # fmt: skip
        elif kind == "message" and ev.new_chat_members:
            summary.append((kind, ev.chat.id, "joined", [u.id for u in ev.new_chat_members]))
        elif kind == "message" and ev.left_chat_member:
            summary.append((kind, ev.chat.id, "left", [ev.left_chat_member.id]))
        else:
            summary.append((kind, ev.chat.id, ev.text))
    assert summary == [
        ("message", alice.id, "hello"),
        ("edited_message", alice.id, "hello, edited"),
        ("my_chat_member", alice.id, bot_id, "member", "kicked"),
        ("my_chat_member", alice.id, bot_id, "kicked", "member"),
        ("message", group_id, "joined", [bob.id, bot_id]),
        ("my_chat_member", group_id, bot_id, "left", "member"),
        ("my_chat_member", group_id, bot_id, "member", "administrator"),
        ("message", group_id, "hi all"),
        ("edited_message", group_id, "hi all!"),
        ("chat_member", group_id, bob.id, "member", "restricted"),
        ("message", group_id, "left", [bob.id]),
        ("chat_member", group_id, bob.id, "member", "left"),
        ("my_chat_member", group_id, bot_id, "administrator", "member"),
        ("my_chat_member", group_id, bot_id, "member", "kicked"),
        ("my_chat_member", chan_id, bot_id, "left", "member"),
        ("my_chat_member", chan_id, bot_id, "member", "administrator"),
        ("channel_post", chan_id, "news"),
        ("edited_channel_post", chan_id, "news!"),
        ("my_chat_member", -(10**12) - trio.id, bot_id, "left", "member"),
    ], summary
    by_kind = {k: ev for k, ev in got}
    edited = [ev for k, ev in got if k == "edited_message"]
    assert all(ev.edit_date for ev in edited) and edited[1].from_user.id == bob.id
    promoted = next(
        ev for k, ev in got if k == "my_chat_member" and ev.new_chat_member.status == "administrator"
    )
    blocked = next(ev for k, ev in got if k == "my_chat_member" and ev.chat.type == "private")
    assert blocked.from_user.id == alice.id and blocked.chat.id == alice.id
    assert promoted.from_user.id == alice.id and promoted.new_chat_member.can_restrict_members
    assert by_kind["chat_member"].from_user.id == bob.id
    assert by_kind["channel_post"].chat.type == "channel"

    # Confirmed by the poller's offset: none comes twice.
    status, body = await call(base, token, "getUpdates", timeout=0)
    assert body["result"] == []


async def test_reactions_and_join_requests_reach_a_python_telegram_bot_admin(
    edge_server, botapi_server, edge_db, clients
):
    from telegram import Update
    from telegram.ext import Application, TypeHandler
    from telethon import errors, functions, types

    from accounts_app.access import user_access_hash

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bob, b, _, _ = await logged_in(edge_server, "Bob", clients)
    bot_id, _, token = await _new_bot(alice.id, "Greeter")
    base = botapi_server.base
    wanted = ["message_reaction", "message_reaction_count", "chat_join_request"]
    await call(base, token, "getUpdates", allowed_updates=wanted, timeout=0)

    def iu(target_id):
        return types.InputUser(target_id, user_access_hash(alice.id, target_id))

    rights = types.ChatAdminRights(invite_users=True, delete_messages=True, ban_users=True)
    group = (await a(functions.channels.CreateChannelRequest(title="Club", about="", megagroup=True))).chats[
        0
    ]
    ig = types.InputChannel(group.id, group.access_hash)
    await a(functions.channels.InviteToChannelRequest(ig, [iu(bot_id)]))
    await a(functions.channels.EditAdminRequest(ig, iu(bot_id), rights, rank=""))
    chan = (await a(functions.channels.CreateChannelRequest(title="News", about="", broadcast=True))).chats[0]
    ic = types.InputChannel(chan.id, chan.access_hash)
    await a(functions.channels.InviteToChannelRequest(ic, [iu(bot_id)]))
    await a(functions.channels.EditAdminRequest(ic, iu(bot_id), rights, rank=""))

    # Alice reacts in the group, then changes her mind; in the channel the count changes.
    said = await a.send_message(types.PeerChannel(group.id), "vote")
    like, fire = types.ReactionEmoji("👍"), types.ReactionEmoji("🔥")
    await a(functions.messages.SendReactionRequest(types.PeerChannel(group.id), said.id, reaction=[like]))
    await a(functions.messages.SendReactionRequest(types.PeerChannel(group.id), said.id, reaction=[fire]))
    post = await a.send_message(types.PeerChannel(chan.id), "post")
    await a(functions.messages.SendReactionRequest(types.PeerChannel(chan.id), post.id, reaction=[like]))
    # Bob asks to join through a link that needs approval.
    link = await a(functions.messages.ExportChatInviteRequest(types.InputPeerChannel(group.id, group.access_hash),
                                                              request_needed=True))  # fmt: skip
    with pytest.raises(errors.InviteRequestSentError):
        await b(functions.messages.ImportChatInviteRequest(link.link.rsplit("+", 1)[-1]))

    got: list[Update] = []

    async def record(update, context):
        got.append(update)

    app = Application.builder().token(token).base_url(f"{base}/bot").base_file_url(f"{base}/file/bot").build()
    app.add_handler(TypeHandler(Update, record))
    await app.initialize()
    await app.start()
    await app.updater.start_polling(poll_interval=0.0, timeout=1, allowed_updates=wanted)
    try:
        await wait_for(lambda: len(got) >= 4, 30)
        await asyncio.sleep(1.5)
    finally:
        await app.updater.stop()
        await app.stop()
        await app.shutdown()

    group_id, chan_id = -(10**12) - group.id, -(10**12) - chan.id
    first, second, count, request = got
    assert len(got) == 4
    r = first.message_reaction
    assert (r.chat.id, r.message_id, r.user.id) == (group_id, said.id, alice.id)
    assert [x.emoji for x in r.old_reaction] == [] and [x.emoji for x in r.new_reaction] == ["👍"]
    r = second.message_reaction
    assert [x.emoji for x in r.old_reaction] == ["👍"] and [x.emoji for x in r.new_reaction] == ["🔥"]
    c = count.message_reaction_count
    assert (c.chat.id, c.message_id) == (chan_id, post.id)
    assert [(x.type.emoji, x.total_count) for x in c.reactions] == [("👍", 1)]
    j = request.chat_join_request
    assert (j.chat.id, j.from_user.id, j.user_chat_id) == (group_id, bob.id, bob.id)


async def test_poll_state_and_answers_reach_the_bot_that_sent_the_poll(
    edge_server, botapi_server, edge_db, clients
):
    from aiogram import Bot, Dispatcher
    from aiogram.client.session.aiohttp import AiohttpSession
    from aiogram.client.telegram import TelegramAPIServer
    from telethon import functions, types

    from tests.e2e.test_bots import bot_client
    from tests.e2e.test_polls import _send_poll, poll_media

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bot_id, username, token = await _new_bot(alice.id, "Pollster")
    await a.send_message(username, "/start")
    # The poll is sent over MTProto (the same bot, logged in by its token); the Bot API
    # hears what happens to it.
    mt = await bot_client(edge_server, token, clients, receive_updates=False)
    from accounts_app.access import user_access_hash

    peer = types.InputPeerUser(alice.id, user_access_hash(bot_id, alice.id))
    sent = await _send_poll(mt, peer, poll_media("Tea or coffee?", ["Tea", "Coffee"], public_voters=True))
    msg_id = next(u.id for u in sent.updates if isinstance(u, types.UpdateMessageID))
    await a(functions.messages.SendVoteRequest(peer=username, msg_id=msg_id, options=[b"1"]))

    got: list[tuple[str, object]] = []
    dp = Dispatcher()
    dp.poll.register(lambda ev: got.append(("poll", ev)))
    dp.poll_answer.register(lambda ev: got.append(("poll_answer", ev)))
    bot = Bot(token, session=AiohttpSession(api=TelegramAPIServer.from_base(botapi_server.base)))
    polling = asyncio.create_task(dp.start_polling(bot, polling_timeout=1, handle_signals=False))
    try:
        await wait_for(lambda: len(got) >= 2, 30)
        # Live while polling: Alice changes her vote.
        await a(functions.messages.SendVoteRequest(peer=username, msg_id=msg_id, options=[b"0"]))
        await wait_for(lambda: len(got) >= 4, 30)
        await asyncio.sleep(1)
    finally:
        await dp.stop_polling()
        await asyncio.wait_for(polling, 10)
        await bot.session.close()

    kinds = [k for k, _ in got]
    assert kinds == ["poll", "poll_answer", "poll", "poll_answer"], kinds
    state, answer, state2, answer2 = (ev for _, ev in got)
    assert state.question == "Tea or coffee?" and not state.is_anonymous and state.total_voter_count == 1
    assert [(o.text, o.voter_count) for o in state.options] == [("Tea", 0), ("Coffee", 1)]
    assert answer.user.id == alice.id and answer.option_ids == [1] and answer.poll_id == state.id
    assert [o.voter_count for o in state2.options] == [1, 0] and answer2.option_ids == [0]
