"""The HTTP Bot API (manage.py runbotapi) with raw HTTP and an unmodified
python-telegram-bot, with Telethon users checking what they see live."""

from __future__ import annotations

import asyncio

import aiohttp
import pytest

from tests.e2e.test_bots import _new_bot
from tests.e2e.test_channels import collect, logged_in, wait_for

pytestmark = pytest.mark.django_db(transaction=True)


async def call(base: str, token: str, method: str, *, how: str = "json", **params):
    async with aiohttp.ClientSession() as s:
        url = f"{base}/bot{token}/{method}"
        if how == "get":
            req = s.get(url, params={k: str(v) for k, v in params.items()})
        elif how == "form":
            req = s.post(url, data={k: str(v) for k, v in params.items()})
        else:
            req = s.post(url, json=params)
        async with req as r:
            return r.status, await r.json()


async def updates_until(base: str, token: str, count: int, offset: int = 0) -> list[dict]:
    """getUpdates (GET, long poll, not confirming) until ``count`` updates are queued."""
    for _ in range(50):
        status, body = await call(base, token, "getUpdates", how="get", offset=offset, timeout=1)
        assert status == 200, body
        if len(body["result"]) >= count:
            return body["result"]
    raise AssertionError(f"fewer than {count} updates: {body}")


async def test_errors_getme_send_and_durable_updates(edge_server, botapi_server, edge_db, clients):
    from telethon import events

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bot_id, username, token = await _new_bot(alice.id, "Echo")
    base = botapi_server.base

    # Unknown token, unknown method, health.
    status, body = await call(base, "123:nope", "getMe")
    assert (status, body) == (401, {"ok": False, "error_code": 401, "description": "Unauthorized"})
    status, body = await call(base, token, "noSuchMethod")
    assert (status, body["description"]) == (404, "Not Found")
    async with aiohttp.ClientSession() as s, s.get(f"{base}/healthz") as r:
        assert r.status == 200
    async with aiohttp.ClientSession() as s, s.get(f"{base}/metrics") as r:
        assert "telesrv_botapi_calls" in await r.text()

    # getMe over GET, form and JSON.
    for how in ("get", "form", "json"):
        status, body = await call(base, token, "getMe", how=how)
        assert status == 200 and body["ok"]
        me = body["result"]
        assert me["id"] == bot_id and me["is_bot"] and me["username"] == username
        assert me["can_join_groups"] and not me["can_read_all_group_messages"]

    # The bot may not write first; the Bot API's words.
    status, body = await call(base, token, "sendMessage", chat_id=alice.id, text="hi")
    assert (status, body["description"]) == (400, "Bad Request: chat not found")
    status, body = await call(base, token, "sendMessage", chat_id=alice.id, text="")
    assert (status, body["description"]) == (400, "Bad Request: message text is empty")

    # Alice writes while nobody polls; the update waits in the queue.
    await a.send_message(username, "/start hello")
    await a.send_message(username, "second")
    got = await updates_until(base, token, 2)
    assert [u["message"]["text"] for u in got] == ["/start hello", "second"]
    first = got[0]["message"]
    assert first["from"]["id"] == alice.id and first["chat"] == {
        "id": alice.id,
        "type": "private",
        "first_name": "Alice",
    }
    assert first["entities"] == [{"type": "bot_command", "offset": 0, "length": 6}]
    # Not confirmed yet: asked again, the same; confirmed by offset: gone.
    _, again = await call(base, token, "getUpdates")
    assert [u["update_id"] for u in again["result"]] == [u["update_id"] for u in got]
    _, after = await call(base, token, "getUpdates", offset=got[-1]["update_id"] + 1)
    assert after["result"] == []

    # A long poll wakes when the next message arrives.
    poll = asyncio.create_task(call(base, token, "getUpdates", offset=got[-1]["update_id"] + 1, timeout=20))
    await asyncio.sleep(0.5)
    await a.send_message(username, "live")
    _, woke = await asyncio.wait_for(poll, 10)
    assert [u["message"]["text"] for u in woke["result"]] == ["live"]

    # The bot answers with HTML; Alice sees the formatting live.
    seen = []
    a.add_event_handler(collect(seen, "message"), events.NewMessage(incoming=True))
    status, body = await call(
        base, token, "sendMessage", chat_id=alice.id, text="<b>bold</b> and <a href='https://x.org'>link</a>",
        parse_mode="HTML", how="form",
    )  # fmt: skip
    assert status == 200, body
    sent = body["result"]
    assert sent["text"] == "bold and link" and sent["chat"]["id"] == alice.id
    assert sent["entities"] == [
        {"type": "bold", "offset": 0, "length": 4},
        {"type": "text_link", "offset": 9, "length": 4, "url": "https://x.org"},
    ]
    await wait_for(lambda: seen)
    assert seen[0].raw_text == "bold and link" and seen[0].entities[0].length == 4

    status, body = await call(base, token, "sendMessage", chat_id=alice.id, text="<b>open", parse_mode="HTML")
    assert status == 400 and body["description"].startswith("Bad Request: can't parse entities")
    status, body = await call(
        base, token, "sendMessage", chat_id=alice.id, text="a.b", parse_mode="MarkdownV2"
    )
    assert status == 400 and "reserved" in body["description"]

    # Forward and copy what Alice wrote back to her.
    status, body = await call(
        base, token, "forwardMessage", chat_id=alice.id, from_chat_id=alice.id, message_id=first["message_id"]
    )
    assert status == 200 and body["result"]["text"] == "/start hello"
    status, body = await call(
        base, token, "copyMessage", chat_id=alice.id, from_chat_id=alice.id, message_id=first["message_id"],
        caption="ignored for text",
    )  # fmt: skip
    assert status == 200 and set(body["result"]) == {"message_id"}
    status, body = await call(
        base, token, "forwardMessage", chat_id=alice.id, from_chat_id=alice.id, message_id=999999
    )
    assert (status, body["description"]) == (400, "Bad Request: message to forward not found")
    await wait_for(lambda: sum(m.raw_text == "/start hello" for m in seen) >= 2)
    forwarded = [m for m in seen if m.raw_text == "/start hello"]
    assert forwarded[0].fwd_from is not None and forwarded[1].fwd_from is None

    # Typing, seen live.
    from telethon import types as tl_types

    typing: list = []
    a.add_event_handler(collect(typing), events.UserUpdate(chats=[bot_id]))
    assert (await call(base, token, "sendChatAction", chat_id=alice.id, action="typing"))[1]["result"] is True
    await wait_for(lambda: any(isinstance(e.action, tl_types.SendMessageTypingAction) for e in typing))
    status, body = await call(base, token, "sendChatAction", chat_id=alice.id, action="dancing")
    assert (status, body["description"]) == (400, "Bad Request: wrong parameter action in request")

    # Edit, then delete: Alice's copy follows.
    status, body = await call(
        base, token, "editMessageText", chat_id=alice.id, message_id=sent["message_id"], text="edited"
    )
    assert status == 200 and body["result"]["text"] == "edited" and body["result"]["edit_date"]
    status, body = await call(
        base, token, "editMessageText", chat_id=alice.id, message_id=sent["message_id"], text="edited"
    )
    assert status == 400 and body["description"].startswith("Bad Request: message is not modified")
    status, body = await call(base, token, "deleteMessage", chat_id=alice.id, message_id=sent["message_id"])
    assert body == {"ok": True, "result": True}
    (left,) = await a.get_messages(username, ids=[next(m.id for m in seen if m.raw_text == "bold and link")])
    assert left is None

    # The keyboard alone changes; several messages go at once.
    kb = {"inline_keyboard": [[{"text": "Go", "url": "https://x.org"}]]}
    one = (await call(base, token, "sendMessage", chat_id=alice.id, text="one"))[1]["result"]
    two = (await call(base, token, "sendMessage", chat_id=alice.id, text="two"))[1]["result"]
    status, body = await call(
        base, token, "editMessageReplyMarkup", chat_id=alice.id, message_id=one["message_id"], reply_markup=kb
    )
    assert status == 200 and body["result"]["reply_markup"] == kb and body["result"]["text"] == "one"
    ids = [one["message_id"], two["message_id"]]
    assert (await call(base, token, "deleteMessages", chat_id=alice.id, message_ids=ids))[1]["result"] is True
    assert await a.get_messages(username, ids=ids) == [None, None]

    # The bot's profile texts, as Alice's client shows them.
    from telethon import functions

    assert (await call(base, token, "setMyName", name="Echo Two"))[1]["result"] is True
    assert (await call(base, token, "getMyName"))[1]["result"] == {"name": "Echo Two"}
    await call(base, token, "setMyDescription", description="Repeats you.")
    await call(base, token, "setMyShortDescription", short_description="An echo")
    assert (await call(base, token, "getMyDescription"))[1]["result"] == {"description": "Repeats you."}
    assert (await call(base, token, "getMyShortDescription"))[1]["result"] == {"short_description": "An echo"}
    full = await a(functions.users.GetFullUserRequest(username))
    assert full.users[0].first_name == "Echo Two" and full.full_user.about == "An echo"
    assert full.full_user.bot_info.description == "Repeats you."

    # Commands.
    cmds = [{"command": "start", "description": "Start"}, {"command": "help", "description": "Help"}]
    assert (await call(base, token, "setMyCommands", commands=cmds))[1]["result"] is True
    assert (await call(base, token, "getMyCommands"))[1]["result"] == cmds
    status, body = await call(
        base, token, "setMyCommands", commands=[{"command": "Bad Cmd", "description": "x"}]
    )
    assert status == 400
    assert (await call(base, token, "deleteMyCommands"))[1]["result"] is True
    assert (await call(base, token, "getMyCommands"))[1]["result"] == []


async def test_webhook_with_secret_token_retries_after_failures(edge_server, botapi_server, edge_db, clients):
    from aiohttp import web

    from tests.e2e import harness

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    _, username, token = await _new_bot(alice.id, "Hook")
    base = botapi_server.base

    received, answers = [], [500, 500]  # the receiver fails twice, then accepts

    async def receive(request: web.Request) -> web.Response:
        received.append((request.headers.get("X-Telegram-Bot-Api-Secret-Token"), await request.json()))
        return web.Response(status=answers.pop(0) if answers else 200)

    app = web.Application()
    app.router.add_post("/hook", receive)
    runner = web.AppRunner(app)
    await runner.setup()
    port = harness.free_port()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    try:
        status, body = await call(
            base, token, "setWebhook", url=f"http://127.0.0.1:{port}/hook", secret_token="bad token!"
        )
        assert (status, body["description"]) == (
            400,
            "Bad Request: secret token contains unallowed characters",
        )
        status, body = await call(
            base, token, "setWebhook", url=f"http://127.0.0.1:{port}/hook", secret_token="s3cret"
        )
        assert body == {"ok": True, "result": True}
        status, body = await call(base, token, "getUpdates")
        assert status == 409 and body["description"].startswith("Conflict: can't use getUpdates method")

        await a.send_message(username, "to the hook")
        await wait_for(lambda: len(received) >= 3, 20)
        assert [r[0] for r in received] == ["s3cret"] * 3
        assert {r[1]["update_id"] for r in received} == {
            received[0][1]["update_id"]
        }  # the same update, retried
        assert received[-1][1]["message"]["text"] == "to the hook"
        _, info = await call(base, token, "getWebhookInfo")
        info = info["result"]
        assert info["url"] == f"http://127.0.0.1:{port}/hook"
        assert info["last_error_message"] == "Wrong response from the webhook: 500 Internal Server Error"
        for _ in range(40):
            _, info = await call(base, token, "getWebhookInfo")
            if info["result"]["pending_update_count"] == 0:
                break
            await asyncio.sleep(0.1)
        assert info["result"]["pending_update_count"] == 0
        await asyncio.sleep(1)
        assert len(received) == 3  # delivered once it succeeded, never again

        # Back to getUpdates: what arrives meanwhile waits there.
        assert (await call(base, token, "deleteWebhook"))[1]["result"] is True
        _, info = await call(base, token, "getWebhookInfo")
        assert info["result"]["url"] == ""
        await a.send_message(username, "polled")
        got = await updates_until(base, token, 1)
        assert got[0]["message"]["text"] == "polled"
    finally:
        await runner.cleanup()


async def test_supergroup_admin_methods_as_members_see_them(edge_server, botapi_server, edge_db, clients):
    from telethon import events, functions, types

    from accounts_app.access import user_access_hash

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bob, b, _, _ = await logged_in(edge_server, "Bob", clients)
    bot_id, _, token = await _new_bot(alice.id, "Admin")
    base = botapi_server.base

    def iu(target_id):
        return types.InputUser(target_id, user_access_hash(alice.id, target_id))

    created = await a(functions.channels.CreateChannelRequest(title="Club", about="", megagroup=True))
    channel = created.chats[0]
    ic = types.InputChannel(channel.id, channel.access_hash)
    peer = types.InputPeerChannel(channel.id, channel.access_hash)
    chat_id = -(10**12) - channel.id

    # Not in the group yet: the bot cannot see it.
    status, body = await call(base, token, "getChat", chat_id=chat_id)
    assert (status, body["description"]) == (400, "Bad Request: chat not found")
    await a(functions.channels.InviteToChannelRequest(ic, [iu(bob.id), iu(bot_id)]))
    status, body = await call(base, token, "sendMessage", chat_id=chat_id, text="hi")
    assert status == 200 and body["result"]["chat"]["type"] == "supergroup"
    # A plain member may not moderate: the domain's error, in the Bot API's shape.
    status, body = await call(base, token, "banChatMember", chat_id=chat_id, user_id=bob.id)
    assert status == 400 and body["description"] == "Bad Request: CHAT_ADMIN_REQUIRED"

    rights = types.ChatAdminRights(
        change_info=True,
        delete_messages=True,
        ban_users=True,
        pin_messages=True,
        add_admins=True,
        invite_users=True,
    )
    await a(functions.channels.EditAdminRequest(ic, iu(bot_id), rights, rank="bot"))

    typing: list = []
    b.add_event_handler(collect(typing), events.UserUpdate())
    assert (await call(base, token, "sendChatAction", chat_id=chat_id, action="upload_photo"))[1][
        "result"
    ] is True
    await wait_for(lambda: any(e.user_id == bot_id and e.uploading for e in typing))

    assert (await call(base, token, "setChatTitle", chat_id=chat_id, title="Club 2"))[1]["result"] is True
    status, body = await call(base, token, "getChat", chat_id=chat_id)
    assert body["result"]["title"] == "Club 2" and body["result"]["id"] == chat_id

    keyboard = {"inline_keyboard": [[{"text": "Agree", "callback_data": "agree"}]]}
    sent = (await call(base, token, "sendMessage", chat_id=chat_id, text="rules", reply_markup=keyboard))[1][
        "result"
    ]
    assert sent["reply_markup"] == keyboard

    # A member presses the button under the group message; the bot answers.
    (shown,) = await b.get_messages(peer, ids=[sent["message_id"]])
    pressing = asyncio.create_task(shown.click(data=b"agree"))
    for _ in range(50):
        got = (await call(base, token, "getUpdates", allowed_updates=["callback_query"], timeout=1))[1][
            "result"
        ]
        if got:
            break
    query = got[-1]["callback_query"]
    assert query["from"]["id"] == bob.id and query["data"] == "agree"
    assert query["message"]["message_id"] == sent["message_id"] and query["message"]["chat"]["id"] == chat_id
    assert (await call(base, token, "answerCallbackQuery", callback_query_id=query["id"], text="Thanks"))[1][
        "ok"
    ]
    assert (await pressing).message == "Thanks"
    await call(base, token, "getUpdates", offset=got[-1]["update_id"] + 1, allowed_updates=[])

    status, body = await call(
        base, token, "editMessageText", chat_id=chat_id, message_id=sent["message_id"], text="Rules!"
    )
    assert status == 200 and body["result"]["text"] == "Rules!"
    assert (await call(base, token, "pinChatMessage", chat_id=chat_id, message_id=sent["message_id"]))[1][
        "ok"
    ]
    full = await a(functions.channels.GetFullChannelRequest(ic))
    assert full.full_chat.pinned_msg_id == sent["message_id"]
    assert (await call(base, token, "unpinChatMessage", chat_id=chat_id, message_id=sent["message_id"]))[1][
        "ok"
    ]
    full = await a(functions.channels.GetFullChannelRequest(ic))
    assert not full.full_chat.pinned_msg_id

    # Bob may read but not write; then he may again.
    status, body = await call(
        base,
        token,
        "restrictChatMember",
        chat_id=chat_id,
        user_id=bob.id,
        permissions={"can_send_messages": False},
    )
    assert body == {"ok": True, "result": True}
    status, body = await call(base, token, "getChatMember", chat_id=chat_id, user_id=bob.id)
    assert body["result"]["status"] == "restricted"
    from telethon import errors

    with pytest.raises(errors.ChatWriteForbiddenError):
        await b.send_message(peer, "let me talk")
    perms = {k: True for k in ("can_send_messages", "can_send_photos", "can_send_other_messages")}
    await call(base, token, "restrictChatMember", chat_id=chat_id, user_id=bob.id, permissions=perms)
    spam = await b.send_message(peer, "spam")

    status, body = await call(base, token, "deleteMessage", chat_id=chat_id, message_id=spam.id)
    assert body == {"ok": True, "result": True}
    (gone,) = await a.get_messages(peer, ids=[spam.id])
    assert gone is None

    # Everyone's permissions, the description, unpinning everything, a ban lifted.
    await call(base, token, "setChatPermissions", chat_id=chat_id, permissions={"can_send_messages": True})
    full = await a(functions.channels.GetFullChannelRequest(ic))
    assert (
        full.chats[0].default_banned_rights.send_photos
        and not full.chats[0].default_banned_rights.send_messages
    )
    assert (await call(base, token, "setChatDescription", chat_id=chat_id, description="About us"))[1]["ok"]
    full = await a(functions.channels.GetFullChannelRequest(ic))
    assert full.full_chat.about == "About us"
    await call(base, token, "pinChatMessage", chat_id=chat_id, message_id=sent["message_id"])
    assert (await call(base, token, "unpinAllChatMessages", chat_id=chat_id))[1]["result"] is True
    full = await a(functions.channels.GetFullChannelRequest(ic))
    assert not full.full_chat.pinned_msg_id
    await call(base, token, "banChatMember", chat_id=chat_id, user_id=bob.id)
    status, body = await call(base, token, "getChatMember", chat_id=chat_id, user_id=bob.id)
    assert body["result"]["status"] == "kicked"
    assert (await call(base, token, "unbanChatMember", chat_id=chat_id, user_id=bob.id))[1]["result"] is True
    status, body = await call(base, token, "getChatMember", chat_id=chat_id, user_id=bob.id)
    assert body["result"]["status"] == "left"
    await a(functions.channels.InviteToChannelRequest(ic, [iu(bob.id)]))

    status, body = await call(
        base, token, "promoteChatMember", chat_id=chat_id, user_id=bob.id, can_pin_messages=True
    )
    assert body == {"ok": True, "result": True}
    admins = (await call(base, token, "getChatAdministrators", chat_id=chat_id))[1]["result"]
    assert {m["user"]["id"]: m["status"] for m in admins} == {
        alice.id: "creator",
        bot_id: "administrator",
        bob.id: "administrator",
    }
    assert (await call(base, token, "leaveChat", chat_id=chat_id))[1]["result"] is True
    status, body = await call(base, token, "getChat", chat_id=chat_id)
    assert status == 400
