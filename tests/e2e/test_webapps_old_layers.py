"""Mini App buttons for a client of layer 224 (Telethon 1.43.2), which knows
keyboardButtonWebView / keyboardButtonSimpleWebView as constructors of their own: it
sees a current bot's web app buttons, opens the inline one (requestWebView, launch data
the bot's token validates) and sends the keyboard one's data, which the bot hears."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

import pytest

from tests.e2e.test_bots import _new_bot, bot_client
from tests.e2e.test_bots_old_layers import _start, _stop
from tests.e2e.test_channels import collect, logged_in, new_user, wait_for

pytestmark = pytest.mark.django_db(transaction=True)

OLD_USER = r"""
import asyncio, json, sys
from telethon import TelegramClient, events, functions, types
from telethon.crypto import rsa
from telethon.sessions import MemorySession

host, port, pem = sys.argv[1], int(sys.argv[2]), open(sys.argv[3]).read()
phone, code, bot_name = sys.argv[5:8]
rsa.add_key(pem, old=False)

def say(**kw):
    print(json.dumps(kw), flush=True)

async def main():
    session = MemorySession()
    session.set_dc(2, host, port)
    client = TelegramClient(session, 611335, "d524b414d21f4d37f08684c1df41ac9c", connection_retries=1,
                            auto_reconnect=False, catch_up=False)
    live = asyncio.Queue()
    client.add_event_handler(lambda e: live.put_nowait(e.message), events.NewMessage(incoming=True))
    await client.start(phone=phone, code_callback=lambda: code)
    bot = await client.get_input_entity(bot_name)
    await client.send_message(bot, "/start")
    shop, form = await asyncio.wait_for(live.get(), 20), await asyncio.wait_for(live.get(), 20)
    web, simple = shop.reply_markup.rows[0].buttons[0], form.reply_markup.rows[0].buttons[0]
    say(buttons=[type(web).__name__, web.url, type(simple).__name__, simple.url])
    view = await client(functions.messages.RequestWebViewRequest(peer=bot, bot=bot, platform="android", url=web.url))
    say(view=[type(view).__name__, view.query_id, view.url])
    sent = await client(functions.messages.SendWebViewDataRequest(bot=bot, random_id=5, button_text=simple.text, data="blue"))
    (own,) = [u.message for u in sent.updates if isinstance(u, types.UpdateNewMessage)]
    say(own=[type(own).__name__, type(own.action).__name__, own.action.text])
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    await client.disconnect()

asyncio.run(main())
"""


async def test_layer_224_user_opens_web_apps_and_sends_keyboard_data(
    edge_server, edge_db, clients, old_telethon_python, tmp_path, monkeypatch
):
    from aiogram.utils.web_app import safe_parse_webapp_init_data
    from telethon import events, types

    from tests.e2e import test_bots_old_layers

    alice, _, _, _ = await logged_in(edge_server, "Alice", clients)
    _, username, token = await _new_bot(alice.id, "OldApps")
    b = await bot_client(edge_server, token, clients)
    heard = []
    b.add_event_handler(collect(heard), events.Raw(types.UpdateNewMessage))

    @b.on(events.NewMessage(incoming=True, pattern="/start"))
    async def start(event):
        web = types.KeyboardInlineButton("Shop", types.InlineButtonTypeWebView("https://shop.example/"))
        await event.respond("Shop", buttons=types.ReplyInlineMarkup([types.KeyboardInlineButtonRow([web])]))
        simple = types.KeyboardButton("Form", types.ButtonTypeSimpleWebView("https://form.example/"))
        await event.respond("Form", buttons=types.ReplyKeyboardMarkup([types.KeyboardButtonRow([simple])]))

    _, phone, code = await new_user("Carol")
    # test_bots_old_layers' runner (venv, key, address) with this script.
    monkeypatch.setattr(test_bots_old_layers, "OLD_TELETHON", OLD_USER)
    proc, says = await _start(edge_server, old_telethon_python, tmp_path, "user", phone, code, "@" + username)
    try:
        shown = await says()
        assert shown["buttons"] == [
            "KeyboardButtonWebView", "https://shop.example/",
            "KeyboardButtonSimpleWebView", "https://form.example/",
        ]  # fmt: skip
        kind, query_id, url = (await says())["view"]
        assert kind == "WebViewResultUrl" and query_id
        parts = urlsplit(url)
        assert parts._replace(fragment="").geturl() == "https://shop.example/"
        data = safe_parse_webapp_init_data(token, dict(parse_qsl(parts.fragment))["tgWebAppData"])
        assert data.user.first_name == "Carol" and data.query_id
        assert (await says())["own"] == ["MessageService", "MessageActionWebViewDataSent", "Form"]
        await wait_for(lambda: any(isinstance(u.message, types.MessageService) for u in heard), 20)
        (service,) = [u.message for u in heard if isinstance(u.message, types.MessageService)]
        assert service.action == types.MessageActionWebViewDataSentMe(text="Form", data="blue")
    finally:
        await _stop(proc)
