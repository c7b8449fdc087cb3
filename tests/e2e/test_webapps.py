"""Mini Apps end to end: a Telethon user opens a bot's web apps; the launch data is
checked by the validators bots use (``@telegram-apps/init-data-node`` in Node, aiogram's
``safe_parse_webapp_init_data``); a local page's backend answers the web view through
the Bot API's answerWebAppQuery (aiogram) and the message shows in the user's chat; a
reply keyboard's web app data reaches an unmodified python-telegram-bot bot as
``web_app_data``; @BotFather's /newapp and /setmenubutton."""

from __future__ import annotations

import asyncio
import json
from urllib.parse import parse_qs, parse_qsl, urlencode, urlsplit

import pytest

from tests.e2e import harness
from tests.e2e.js_clients import JS_DIR, ensure_node_modules
from tests.e2e.test_bots import _converse, _new_bot, bot_client
from tests.e2e.test_channels import collect, logged_in, wait_for

pytestmark = pytest.mark.django_db(transaction=True)

PAGE = "<!doctype html><title>Shop</title><script>/* posts tgWebAppData to /answer */</script>"


@pytest.fixture(scope="module")
def node_modules():
    ensure_node_modules()


async def _node_validate(init_data: str, token: str) -> dict:
    proc = await asyncio.create_subprocess_exec(
        "node", str(JS_DIR / "init_data.mjs"), cwd=harness.ROOT,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(
        proc.communicate(json.dumps({"initData": init_data, "token": token}).encode()), 60
    )
    assert proc.returncode == 0, err.decode()
    return json.loads(out)


def _launch(url: str) -> tuple[str, dict]:
    """(the page's URL, the launch parameters of its fragment)."""
    parts = urlsplit(url)
    return parts._replace(fragment="").geturl(), dict(parse_qsl(parts.fragment))


def _tampered(init_data: str, user_id: int) -> str:
    fields = dict(parse_qsl(init_data))
    user = json.loads(fields["user"])
    user["id"] = user_id + 1
    fields["user"] = json.dumps(user, separators=(",", ":"))
    return urlencode(fields)


async def _input_bot(a, username: str):
    from telethon import functions, types

    (bot,) = (await a(functions.contacts.ResolveUsernameRequest(username))).users
    return types.InputUser(bot.id, bot.access_hash), types.InputPeerUser(bot.id, bot.access_hash)


async def _page_server(token: str, bot, answers: list):
    """The Mini App's site: the page, and its backend which checks the launch data
    with aiogram's helper and answers the web view through answerWebAppQuery."""
    from aiogram.types import InlineQueryResultArticle, InputTextMessageContent
    from aiogram.utils.web_app import safe_parse_webapp_init_data
    from aiohttp import web

    async def page(request):
        return web.Response(text=PAGE, content_type="text/html")

    async def answer(request):
        form = await request.post()
        try:
            data = safe_parse_webapp_init_data(token, form["initData"])
        except ValueError:
            return web.Response(status=403, text="bad init data")
        text = f"Ordered {form['item']} for {data.user.first_name}"
        result = InlineQueryResultArticle(
            id="order", title="Order", input_message_content=InputTextMessageContent(message_text=text)
        )
        answers.append(await bot.answer_web_app_query(web_app_query_id=data.query_id, result=result))
        return web.Response(text="ok")

    app = web.Application()
    app.router.add_get("/shop", page)
    app.router.add_post("/answer", answer)
    runner = web.AppRunner(app)
    await runner.setup()
    port = harness.free_port()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    return runner, f"http://127.0.0.1:{port}"


async def test_inline_web_app_button_launch_data_validates_and_answer_reaches_the_chat(
    node_modules, edge_server, botapi_server, edge_db, clients
):
    from aiogram import Bot
    from aiogram.client.session.aiohttp import AiohttpSession
    from aiogram.client.telegram import TelegramAPIServer
    from aiogram.exceptions import TelegramBadRequest
    from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup, WebAppInfo
    from aiogram.utils.web_app import safe_parse_webapp_init_data
    from aiohttp import ClientSession
    from telethon import errors, events, functions, types

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bot_id, username, token = await _new_bot(alice.id, "Shop")
    bot = Bot(token, session=AiohttpSession(api=TelegramAPIServer.from_base(botapi_server.base)))
    answers: list = []
    runner, site = await _page_server(token, bot, answers)
    seen, raw = [], []
    a.add_event_handler(collect(seen, "message"), events.NewMessage(chats=[bot_id]))
    a.add_event_handler(collect(raw), events.Raw(types.UpdateWebViewResultSent))
    try:
        await a.send_message(username, "/start")
        keyboard = InlineKeyboardMarkup(
            inline_keyboard=[[InlineKeyboardButton(text="Open shop", web_app=WebAppInfo(url=f"{site}/shop"))]]
        )
        await bot.send_message(alice.id, "Welcome", reply_markup=keyboard)
        await wait_for(lambda: any(m.reply_markup for m in seen), 20)
        menu = next(m for m in seen if m.reply_markup)
        (button,) = menu.reply_markup.rows[0].buttons
        assert isinstance(button.type, types.InlineButtonTypeWebView)
        assert button.type.url == f"{site}/shop"

        # The user's client opens the button's web app.
        input_bot, bot_peer = await _input_bot(a, username)
        theme = {"bg_color": "#ffffff", "text_color": "#000000"}
        view = await a(
            functions.messages.RequestWebViewRequest(
                peer=bot_peer, bot=input_bot, platform="tdesktop", url=button.type.url,
                theme_params=types.DataJSON(json.dumps(theme)),
            )
        )  # fmt: skip
        assert view.query_id
        page_url, launch = _launch(view.url)
        assert page_url == f"{site}/shop"
        assert launch["tgWebAppPlatform"] == "tdesktop" and launch["tgWebAppVersion"]
        assert json.loads(launch["tgWebAppThemeParams"]) == theme
        init_data = launch["tgWebAppData"]

        # Node's validator: valid, and the fields Telegram documents.
        checked = await _node_validate(init_data, token)
        assert checked["valid"], checked
        parsed = checked["parsed"]
        assert parsed["user"]["id"] == alice.id and parsed["user"]["first_name"] == "Alice"
        assert parsed["query_id"] and parsed["chat_type"] == "sender" and parsed["chat_instance"]
        assert parsed["signature"] and parsed["hash"]
        # aiogram's helper: the same.
        data = safe_parse_webapp_init_data(token, init_data)
        assert data.user.id == alice.id and data.query_id == parsed["query_id"]
        # Tampered data and another bot's token are refused by both.
        bad = _tampered(init_data, alice.id)
        assert not (await _node_validate(bad, token))["valid"]
        assert "SignatureInvalid" in (await _node_validate(init_data, token[:-1] + "x"))["error"]
        with pytest.raises(ValueError):
            safe_parse_webapp_init_data(token, bad)

        # The web view stays open (prolongWebView) while the user looks around.
        assert await a(functions.messages.ProlongWebViewRequest(bot_peer, input_bot, view.query_id))

        # The page: loaded from the local server, then it posts its launch data to its
        # backend, which answers through the Bot API.
        async with ClientSession() as http:
            async with http.get(page_url) as resp:
                assert resp.status == 200 and "<title>Shop</title>" in await resp.text()
            async with http.post(f"{site}/answer", data={"initData": bad, "item": "tea"}) as resp:
                assert resp.status == 403
            async with http.post(f"{site}/answer", data={"initData": init_data, "item": "tea"}) as resp:
                assert resp.status == 200, await resp.text()
        assert answers and answers[0].inline_message_id is None

        # The answer is the user's message via the bot in their chat with it, and the
        # user's client is told the web view is done.
        await wait_for(lambda: any(m.raw_text == "Ordered tea for Alice" for m in seen), 20)
        sent = next(m for m in seen if m.raw_text == "Ordered tea for Alice")
        assert sent.out and sent.via_bot_id == bot_id
        await wait_for(lambda: any(u.query_id == view.query_id for u in raw), 20)
        history = await a.get_messages(bot_peer, limit=1)
        assert history[0].raw_text == "Ordered tea for Alice"

        # A query is answered once; an answered one cannot be prolonged.
        with pytest.raises(TelegramBadRequest, match="query ID is invalid"):
            await bot.answer_web_app_query(
                web_app_query_id=data.query_id,
                result={"type": "article", "id": "again", "title": "x",
                        "input_message_content": {"message_text": "again"}},
            )  # fmt: skip
        with pytest.raises(errors.QueryIdInvalidError):
            await a(functions.messages.ProlongWebViewRequest(bot_peer, input_bot, view.query_id))
    finally:
        await runner.cleanup()
        await bot.session.close()


async def test_keyboard_web_app_data_reaches_python_telegram_bot(
    edge_server, botapi_server, edge_db, clients
):
    from aiogram.utils.web_app import safe_parse_webapp_init_data
    from telegram import KeyboardButton, ReplyKeyboardMarkup, WebAppInfo
    from telegram.ext import Application, CommandHandler, MessageHandler, filters
    from telethon import events, functions, types

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bot_id, username, token = await _new_bot(alice.id, "Form")
    received = []

    async def start(update, context):
        button = KeyboardButton("Fill the form", web_app=WebAppInfo(url="https://form.example/fill"))
        await update.message.reply_text("Open the form", reply_markup=ReplyKeyboardMarkup([[button]]))

    async def web_app_data(update, context):
        got = update.effective_message.web_app_data
        received.append((got.button_text, got.data, update.effective_user.id))
        await update.effective_message.reply_text(f"Thanks, {json.loads(got.data)['name']}")

    app = (
        Application.builder()
        .token(token)
        .base_url(f"{botapi_server.base}/bot")
        .base_file_url(f"{botapi_server.base}/file/bot")
        .build()
    )
    app.add_handler(CommandHandler("start", start))
    app.add_handler(MessageHandler(filters.StatusUpdate.WEB_APP_DATA, web_app_data))
    seen = []
    a.add_event_handler(collect(seen, "message"), events.NewMessage(incoming=True, from_users=[bot_id]))
    await app.initialize()
    await app.start()
    await app.updater.start_polling(poll_interval=0.0, timeout=2)
    try:
        await a.send_message(username, "/start")
        await wait_for(lambda: any(m.reply_markup for m in seen), 20)
        (button,) = next(m for m in seen if m.reply_markup).reply_markup.rows[0].buttons
        assert isinstance(button.type, types.ButtonTypeSimpleWebView)
        assert button.type.url == "https://form.example/fill"

        input_bot, _ = await _input_bot(a, username)
        view = await a(
            functions.messages.RequestSimpleWebViewRequest(
                bot=input_bot, platform="android", url=button.type.url, start_param="ref42"
            )
        )
        page_url, launch = _launch(view.url)
        assert parse_qs(urlsplit(page_url).query)["tgWebAppStartParam"] == ["ref42"]
        assert launch["tgWebAppPlatform"] == "android"
        data = safe_parse_webapp_init_data(token, launch["tgWebAppData"])
        # A keyboard's web app has no query (it answers with sendWebViewData) and no chat.
        assert data.user.id == alice.id and data.query_id is None and data.start_param == "ref42"

        payload = json.dumps({"name": "Alice", "size": "M"})
        updates = await a(
            functions.messages.SendWebViewDataRequest(
                bot=input_bot, random_id=7, button_text=button.text, data=payload
            )
        )
        (own,) = [u.message for u in updates.updates if isinstance(u, types.UpdateNewMessage)]
        assert isinstance(own, types.MessageService)
        assert own.action == types.MessageActionWebViewDataSent(text="Fill the form")
        await wait_for(lambda: received, 20)
        assert received == [("Fill the form", payload, alice.id)]
        await wait_for(lambda: any(m.raw_text == "Thanks, Alice" for m in seen), 20)
        # The user's history keeps the service message.
        history = await a.get_messages(username, limit=3)
        assert any(isinstance(m.action, types.MessageActionWebViewDataSent) for m in history if m.action)
    finally:
        await app.updater.stop()
        await app.stop()
        await app.shutdown()


async def test_botfather_newapp_and_menu_button(edge_server, botapi_server, edge_db, clients):
    """@BotFather's /newapp makes a named app (getBotApp, requestAppWebView) and
    /setmenubutton a menu button that opens a web app (userFull.bot_info,
    requestWebView from the menu, requestMainWebView); the Bot API's
    setChatMenuButton / getChatMenuButton and bots.getBotMenuButton see the same."""
    from aiogram.utils.web_app import safe_parse_webapp_init_data
    from aiohttp import ClientSession
    from telethon import errors, events, functions, types

    from bots_app.service_bot import ensure_service_bot
    from edge_app.orm_threads import in_thread

    await in_thread(ensure_service_bot)()
    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    _, username, token = await _new_bot(alice.id, "Apps")
    got: list = []
    a.add_event_handler(collect(got, "message"), events.NewMessage(incoming=True))
    father = (await a(functions.contacts.ResolveUsernameRequest("BotFather"))).users[0]

    assert "Choose a bot" in await _converse(a, father, got, "/newapp")
    assert "title" in await _converse(a, father, got, f"@{username}")
    assert "description" in await _converse(a, father, got, "Tea Shop")
    assert "URL" in await _converse(a, father, got, "Buy tea")
    assert "not an http" in await _converse(a, father, got, "ftp://nope")
    assert "short name" in await _converse(a, father, got, "https://tea.example/app")
    assert "invalid" in await _converse(a, father, got, "x!")
    done = await _converse(a, father, got, "teashop")
    assert done.startswith("Done!") and f"t.me/{username}/teashop" in done

    input_bot, bot_peer = await _input_bot(a, username)
    found = await a(
        functions.messages.GetBotAppRequest(types.InputBotAppShortName(input_bot, "teashop"), hash=0)
    )
    assert found.app.title == "Tea Shop" and found.app.description == "Buy tea"
    same = await a(
        functions.messages.GetBotAppRequest(
            types.InputBotAppID(found.app.id, found.app.access_hash), found.app.hash
        )
    )
    assert isinstance(same.app, types.BotAppNotModified)
    with pytest.raises(errors.RPCError, match="BOT_APP_INVALID"):
        await a(functions.messages.GetBotAppRequest(types.InputBotAppShortName(input_bot, "nothere"), hash=0))
    view = await a(
        functions.messages.RequestAppWebViewRequest(
            peer=bot_peer,
            app=types.InputBotAppShortName(input_bot, "teashop"),
            platform="ios",
            start_param="promo",
        )
    )
    page_url, launch = _launch(view.url)
    assert page_url.startswith("https://tea.example/app")
    data = safe_parse_webapp_init_data(token, launch["tgWebAppData"])
    assert data.start_param == "promo" and data.chat_type == "sender" and data.user.id == alice.id

    # The menu button.
    assert "Choose a bot" in await _converse(a, father, got, "/setmenubutton")
    assert "URL of the Mini App" in await _converse(a, father, got, f"@{username}")
    assert "text of the button" in await _converse(a, father, got, "https://tea.example/menu")
    assert "Success" in await _converse(a, father, got, "Order")
    (shown,) = await a(functions.users.GetUsersRequest([input_bot]))
    assert shown.bot_has_main_app
    full = await a(functions.users.GetFullUserRequest(input_bot))
    assert full.full_user.bot_info.menu_button == types.BotMenuButton(
        text="Order", url="https://tea.example/menu"
    )
    menu_view = await a(
        functions.messages.RequestWebViewRequest(
            peer=bot_peer, bot=input_bot, platform="web", from_bot_menu=True
        )
    )
    assert menu_view.query_id and _launch(menu_view.url)[0] == "https://tea.example/menu"
    main = await a(functions.messages.RequestMainWebViewRequest(peer=bot_peer, bot=input_bot, platform="web"))
    assert _launch(main.url)[0] == "https://tea.example/menu" and main.query_id is None

    # The Bot API sees and changes the same button.
    async with ClientSession() as http:
        base = f"{botapi_server.base}/bot{token}"
        async with http.get(f"{base}/getChatMenuButton") as resp:
            body = await resp.json()
        assert body["result"] == {
            "type": "web_app",
            "text": "Order",
            "web_app": {"url": "https://tea.example/menu"},
        }
        async with http.get(f"{base}/getMe") as resp:
            assert (await resp.json())["result"]["has_main_web_app"] is True
        button = {"type": "commands"}
        async with http.post(f"{base}/setChatMenuButton", json={"menu_button": button}) as resp:
            assert (await resp.json())["result"] is True
        async with http.get(f"{base}/getChatMenuButton") as resp:
            assert (await resp.json())["result"] == {"type": "commands"}
    full = await a(functions.users.GetFullUserRequest(input_bot))
    assert isinstance(full.full_user.bot_info.menu_button, types.BotMenuButtonCommands)
    (shown,) = await a(functions.users.GetUsersRequest([input_bot]))
    assert not shown.bot_has_main_app
    with pytest.raises(errors.UrlInvalidError):
        await a(functions.messages.RequestMainWebViewRequest(peer=bot_peer, bot=input_bot, platform="web"))


async def test_mtproto_bot_answers_a_web_view_in_a_group_and_hears_keyboard_data(
    edge_server, edge_db, clients
):
    """The MTProto side of the same: a Telethon bot answers a web view opened in a
    supergroup with sendWebViewResultMessage (the message is the user's, via the bot,
    in the group), and gets a keyboard's data as messageActionWebViewDataSentMe."""
    from telethon import errors, events, functions, types

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bot_id, username, token = await _new_bot(alice.id, "Group")
    b = await bot_client(edge_server, token, clients)
    heard = []
    b.add_event_handler(collect(heard), events.Raw(types.UpdateNewMessage))
    await b(
        functions.bots.SetBotMenuButtonRequest(
            types.InputUserEmpty(), types.BotMenuButton("Menu", "https://g.example/")
        )
    )

    created = await a(functions.channels.CreateChannelRequest(title="Tea club", about="", megagroup=True))
    group = created.chats[0]
    group_peer = types.InputPeerChannel(group.id, group.access_hash)
    input_bot, _ = await _input_bot(a, username)
    view = await a(
        functions.messages.RequestWebViewRequest(
            peer=group_peer, bot=input_bot, platform="web", from_bot_menu=True
        )
    )
    _, launch = _launch(view.url)
    fields = dict(parse_qsl(launch["tgWebAppData"]))
    assert fields["chat_type"] == "supergroup" and fields["query_id"]

    seen = []
    a.add_event_handler(collect(seen, "message"), events.NewMessage(chats=[group.id]))
    article = types.InputBotInlineResult(
        id="1", type="article", title="Tea",
        send_message=types.InputBotInlineMessageText(message="Two teas, please"),
    )  # fmt: skip
    sent = await b(functions.messages.SendWebViewResultMessageRequest(fields["query_id"], article))
    assert isinstance(sent, types.WebViewMessageSent)
    await wait_for(lambda: any(m.raw_text == "Two teas, please" for m in seen), 20)
    posted = next(m for m in seen if m.raw_text == "Two teas, please")
    assert posted.sender_id == alice.id and posted.via_bot_id == bot_id
    with pytest.raises(errors.QueryIdInvalidError):
        await b(functions.messages.SendWebViewResultMessageRequest(fields["query_id"], article))
    # A person cannot answer for the bot.
    with pytest.raises(errors.RPCError):
        await a(functions.messages.SendWebViewResultMessageRequest(fields["query_id"], article))

    await a.send_message(username, "/start")
    await a(
        functions.messages.SendWebViewDataRequest(input_bot, random_id=9, button_text="Order", data="green")
    )
    await wait_for(lambda: any(isinstance(u.message, types.MessageService) for u in heard), 20)
    (service,) = [u.message for u in heard if isinstance(u.message, types.MessageService)]
    assert service.action == types.MessageActionWebViewDataSentMe(text="Order", data="green")
    assert service.from_id == types.PeerUser(alice.id) and not service.out
