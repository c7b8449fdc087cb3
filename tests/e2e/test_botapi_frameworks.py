"""Unmodified Bot API frameworks from PyPI (python-telegram-bot, aiogram) pointed at
``manage.py runbotapi`` by their base URL: an echo bot and an inline keyboard whose
button a Telethon user presses and gets the bot's answer."""

from __future__ import annotations

import asyncio

import pytest

from tests.e2e.test_bots import _new_bot
from tests.e2e.test_channels import logged_in, wait_for

pytestmark = pytest.mark.django_db(transaction=True)


async def _user_side(a, username: str, bot_id: int):
    """Alice: /start gets the keyboard, pressing it gets the bot's answer, text is echoed."""
    from telethon import events

    seen = []
    a.add_event_handler(
        lambda e: seen.append(e.message), events.NewMessage(incoming=True, from_users=[bot_id])
    )
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
