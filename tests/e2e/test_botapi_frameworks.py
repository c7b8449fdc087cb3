"""Unmodified Bot API frameworks from PyPI (python-telegram-bot, aiogram) pointed at
``manage.py runbotapi`` by their base URL: an echo bot and an inline keyboard whose
button a Telethon user presses and gets the bot's answer."""

from __future__ import annotations

import asyncio

import pytest

from tests.e2e.test_bots import _new_bot
from tests.e2e.test_channels import collect, logged_in, wait_for

pytestmark = pytest.mark.django_db(transaction=True)


async def _user_side(a, username: str, bot_id: int):
    """Alice: /start gets the keyboard, pressing it gets the bot's answer, text is echoed."""
    from telethon import events

    seen = []
    a.add_event_handler(collect(seen, "message"), events.NewMessage(incoming=True, from_users=[bot_id]))
    await a.send_message(username, "/start")
    await wait_for(lambda: any(m.reply_markup for m in seen), 20)
    menu = next(m for m in seen if m.reply_markup)
    assert menu.raw_text == "Pick one"
    answer = await menu.click(data=b"pick:1")
    assert answer.message == "You picked 1" and answer.alert
    await a.send_message(username, "echo me")
    await wait_for(lambda: any(m.raw_text == "echo me" for m in seen), 20)
    return seen


async def test_python_telegram_bot_echo_and_inline_keyboard(edge_server, botapi_server, edge_db, clients):
    from telegram import InlineKeyboardButton, InlineKeyboardMarkup
    from telegram.ext import Application, CallbackQueryHandler, CommandHandler, MessageHandler, filters

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bot_id, username, token = await _new_bot(alice.id, "Ptb")

    async def start(update, context):
        keyboard = InlineKeyboardMarkup([[InlineKeyboardButton("One", callback_data="pick:1")]])
        await update.message.reply_text("Pick one", reply_markup=keyboard)

    async def picked(update, context):
        await update.callback_query.answer(f"You picked {update.callback_query.data[5:]}", show_alert=True)

    async def echo(update, context):
        await update.message.reply_text(update.message.text)

    app = (
        Application.builder()
        .token(token)
        .base_url(f"{botapi_server.base}/bot")
        .base_file_url(f"{botapi_server.base}/file/bot")
        .build()
    )
    app.add_handler(CommandHandler("start", start))
    app.add_handler(CallbackQueryHandler(picked))
    app.add_handler(MessageHandler(filters.TEXT & ~filters.COMMAND, echo))
    await app.initialize()
    assert app.bot.username == username
    await app.start()
    await app.updater.start_polling(poll_interval=0.0, timeout=2)
    try:
        await _user_side(a, username, bot_id)
    finally:
        await app.updater.stop()
        await app.stop()
        await app.shutdown()


async def test_aiogram_echo_and_inline_keyboard(edge_server, botapi_server, edge_db, clients):
    from aiogram import Bot, Dispatcher, F
    from aiogram.client.session.aiohttp import AiohttpSession
    from aiogram.client.telegram import TelegramAPIServer
    from aiogram.filters import CommandStart
    from aiogram.types import CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, Message

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bot_id, username, token = await _new_bot(alice.id, "Aiogram")

    dp = Dispatcher()

    @dp.message(CommandStart())
    async def start(message: Message):
        keyboard = InlineKeyboardMarkup(
            inline_keyboard=[[InlineKeyboardButton(text="One", callback_data="pick:1")]]
        )
        await message.answer("Pick one", reply_markup=keyboard)

    @dp.callback_query(F.data.startswith("pick:"))
    async def picked(query: CallbackQuery):
        await query.answer(f"You picked {query.data[5:]}", show_alert=True)

    @dp.message(F.text)
    async def echo(message: Message):
        await message.answer(message.text)

    session = AiohttpSession(api=TelegramAPIServer.from_base(botapi_server.base))
    bot = Bot(token, session=session)
    me = await bot.get_me()
    assert me.id == bot_id and me.username == username
    polling = asyncio.create_task(dp.start_polling(bot, polling_timeout=2, handle_signals=False))
    try:
        await _user_side(a, username, bot_id)
    finally:
        await dp.stop_polling()
        await asyncio.wait_for(polling, 10)
        await bot.session.close()


async def test_python_telegram_bot_moderates_a_supergroup(edge_server, botapi_server, edge_db, clients):
    from telegram.ext import Application, CommandHandler, MessageHandler, filters
    from telethon import events, functions, types

    from accounts_app.access import user_access_hash

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bob, b, _, _ = await logged_in(edge_server, "Bob", clients)
    bot_id, _, token = await _new_bot(alice.id, "Mod")

    def iu(viewer, target_id):
        return types.InputUser(target_id, user_access_hash(viewer.id, target_id))

    created = await a(functions.channels.CreateChannelRequest(title="Mods", about="", megagroup=True))
    channel = created.chats[0]
    ic = types.InputChannel(channel.id, channel.access_hash)
    peer = types.InputPeerChannel(channel.id, channel.access_hash)
    await a(functions.channels.InviteToChannelRequest(ic, [iu(alice, bob.id), iu(alice, bot_id)]))

    heard, chats = [], []

    async def everything(update, context):
        heard.append(update.message.text)
        chats.append(update.message.chat)

    async def ban(update, context):
        replied = update.message.reply_to_message
        target = replied.from_user.id if replied else int(context.args[0])
        await context.bot.ban_chat_member(update.message.chat_id, target)
        member = await context.bot.get_chat_member(update.message.chat_id, target)
        await update.message.reply_text(f"Banned. {member.status}")

    app = Application.builder().token(token).base_url(f"{botapi_server.base}/bot").build()
    app.add_handler(CommandHandler("ban", ban))
    app.add_handler(MessageHandler(filters.ALL, everything))
    await app.initialize()
    await app.start()
    await app.updater.start_polling(poll_interval=0.0, timeout=2)
    try:
        # Privacy mode: the bot hears commands only, until it is an admin.
        await b.send_message(peer, "hello everyone")
        await b.send_message(peer, "/ping")
        await wait_for(lambda: "/ping" in heard, 20)
        assert "hello everyone" not in heard
        chat = chats[0]
        assert chat.id == -(10**12) - channel.id and chat.type == "supergroup" and chat.title == "Mods"
        await a(
            functions.channels.EditAdminRequest(
                ic, iu(alice, bot_id), types.ChatAdminRights(delete_messages=True, ban_users=True), rank="mod"
            )
        )
        await b.send_message(peer, "buy cheap stuff")
        await wait_for(lambda: "buy cheap stuff" in heard, 20)

        got_a: list = []
        a.add_event_handler(collect(got_a, "message"), events.NewMessage(incoming=True))
        spam = next(m for m in await a.get_messages(peer, limit=5) if m.message == "buy cheap stuff")
        await a.send_message(peer, "/ban", reply_to=spam.id)
        await wait_for(lambda: any(m.message.startswith("Banned.") for m in got_a), 20)
        assert next(m.message for m in got_a if m.message.startswith("Banned.")) == "Banned. kicked"
        parts = await a(
            functions.channels.GetParticipantsRequest(
                ic, types.ChannelParticipantsRecent(), offset=0, limit=10, hash=0
            )
        )
        assert bob.id not in [p.user_id for p in parts.participants]
        count = await app.bot.get_chat_member_count(chat.id)
        assert count == 2  # Alice and the bot
    finally:
        await app.updater.stop()
        await app.stop()
        await app.shutdown()


def _png(color=(200, 30, 30), size=(64, 48)) -> bytes:
    import io

    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", size, color).save(out, "PNG")
    return out.getvalue()


async def test_python_telegram_bot_photo_round_trip_through_get_file(
    edge_server, botapi_server, edge_db, clients
):
    import io

    from PIL import Image
    from telegram import Bot
    from telegram.error import BadRequest
    from telethon import events

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bob, _, _, _ = await logged_in(edge_server, "Bob", clients)
    bot_id, username, token = await _new_bot(alice.id, "Photo")
    seen = []
    a.add_event_handler(collect(seen, "message"), events.NewMessage(incoming=True, from_users=[bot_id]))
    await a.send_message(username, "/start")

    bot = Bot(token, base_url=f"{botapi_server.base}/bot", base_file_url=f"{botapi_server.base}/file/bot")
    async with bot:
        # Upload (multipart) to Alice; she sees the photo with its caption live.
        sent = await bot.send_photo(alice.id, photo=_png(), caption="<b>red</b>", parse_mode="HTML")
        assert sent.caption == "red" and sent.caption_entities[0].type == "bold"
        biggest = sent.photo[-1]
        assert (biggest.width, biggest.height) == (64, 48)
        await wait_for(lambda: any(m.photo for m in seen), 20)
        assert next(m for m in seen if m.photo).raw_text == "red"

        # getFile and the download give the image back.
        f = await bot.get_file(biggest.file_id)
        assert f.file_unique_id == biggest.file_unique_id and f.file_size == biggest.file_size
        data = await f.download_as_bytearray()
        assert Image.open(io.BytesIO(bytes(data))).size == (64, 48)

        # The file_id is reused without uploading again: the same file, the same unique id.
        again = await bot.send_photo(alice.id, photo=biggest.file_id)
        assert again.photo[-1].file_unique_id == biggest.file_unique_id

        # A document, and what a user sends the bot.
        doc = await bot.send_document(alice.id, document=b"hello file", filename="note.txt")
        assert doc.document.file_name == "note.txt" and doc.document.file_size == 10
        got = await (await bot.get_file(doc.document.file_id)).download_as_bytearray()
        assert bytes(got) == b"hello file"
        upload = io.BytesIO(_png((0, 0, 255), (32, 32)))
        upload.name = "blue.png"  # Telethon sends a named image as a photo
        await a.send_file(username, upload, caption="from alice")
        for _ in range(50):
            updates = await bot.get_updates(timeout=1)
            photos = [u.message for u in updates if u.message and u.message.photo]
            if photos:
                break
        (incoming,) = photos
        assert incoming.caption == "from alice"
        blue = await (await bot.get_file(incoming.photo[-1].file_id)).download_as_bytearray()
        assert Image.open(io.BytesIO(bytes(blue))).getpixel((5, 5))[2] > 200

        # Bob's bot may not use a file it never saw; URLs are not fetched.
        with pytest.raises(BadRequest, match=r"(?i)wrong file identifier/http url specified"):
            await bot.send_photo(alice.id, photo="https://example.org/x.jpg")
    _, _, other_token = await _new_bot(bob.id, "Other")
    async with Bot(other_token, base_url=f"{botapi_server.base}/bot") as other:
        with pytest.raises(BadRequest, match=r"(?i)wrong file_id"):
            await other.get_file(biggest.file_id)


async def test_aiogram_inline_mode(edge_server, botapi_server, edge_db, clients):
    from aiogram import Bot, Dispatcher
    from aiogram.client.session.aiohttp import AiohttpSession
    from aiogram.client.telegram import TelegramAPIServer
    from aiogram.types import (
        ChosenInlineResult,
        InlineKeyboardButton,
        InlineKeyboardMarkup,
        InlineQuery,
        InlineQueryResultArticle,
        InputTextMessageContent,
    )

    from bots_app import actions
    from edge_app.orm_threads import in_thread

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bob, b, _, _ = await logged_in(edge_server, "Bob", clients)
    bot_id, username, token = await _new_bot(alice.id, "Inline")
    await in_thread(actions.do_set_inline)(alice.id, bot_id, "Search...")
    await in_thread(actions.do_set_inline_feedback)(alice.id, bot_id, True)

    dp = Dispatcher()
    chosen: list[str] = []

    @dp.inline_query()
    async def answer(query: InlineQuery):
        keyboard = InlineKeyboardMarkup(
            inline_keyboard=[[InlineKeyboardButton(text="Site", url="https://x.org")]]
        )
        await query.answer(
            [
                InlineQueryResultArticle(
                    id="up",
                    title=query.query.upper(),
                    description="shouted",
                    input_message_content=InputTextMessageContent(
                        message_text=f"<b>{query.query.upper()}</b>", parse_mode="HTML"
                    ),
                    reply_markup=keyboard,
                )
            ],
            cache_time=0,
        )

    @dp.chosen_inline_result()
    async def picked(result: ChosenInlineResult):
        chosen.append(f"{result.result_id}:{result.query}:{result.from_user.id}")

    bot = Bot(token, session=AiohttpSession(api=TelegramAPIServer.from_base(botapi_server.base)))
    polling = asyncio.create_task(dp.start_polling(bot, polling_timeout=2, handle_signals=False))
    try:
        results = await a.inline_query(username, "hello")
        assert [r.title for r in results] == ["HELLO"] and results[0].description == "shouted"
        got: list = []
        b.add_event_handler(collect(got, "message"), events_new_message())
        from telethon import types

        from accounts_app.access import user_access_hash

        await results[0].click(types.InputPeerUser(bob.id, user_access_hash(alice.id, bob.id)))
        await wait_for(lambda: got, 20)
        assert got[0].raw_text == "HELLO" and got[0].via_bot_id == bot_id and got[0].entities[0].length == 5
        assert got[0].reply_markup.rows[0].buttons[0].text == "Site"
        await wait_for(lambda: chosen, 20)
        assert chosen == [f"up:hello:{alice.id}"]  # the query the result was chosen for
    finally:
        await dp.stop_polling()
        await asyncio.wait_for(polling, 10)
        await bot.session.close()


def events_new_message():
    from telethon import events

    return events.NewMessage(incoming=True)
