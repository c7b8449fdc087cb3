"""Keyboards across layers: layer 229 folded the per-kind buttons (keyboardButtonUrl,
keyboardButtonCallback, ...) into keyboardButton / keyboardInlineButton with a kind
object; Telethon 1.43.2 (layer 224) knows the per-kind ones only. A layer-224 user sees
and presses a current bot's keyboard; a layer-224 bot's keyboards reach a current user."""

from __future__ import annotations

import asyncio
import json
import subprocess

import pytest

from tests.e2e.test_bots import _new_bot, bot_client
from tests.e2e.test_channels import collect, logged_in, new_user, wait_for

pytestmark = pytest.mark.django_db(transaction=True)

# Telethon 1.43.2 in its own venv, as a user (argv: ... user PHONE CODE BOT_USERNAME) or
# as a bot (argv: ... bot TOKEN); JSON lines on stdout, commands on stdin.
OLD_TELETHON = r"""
import asyncio, json, sys
from telethon import Button, TelegramClient, events, functions, types
from telethon.crypto import rsa
from telethon.sessions import MemorySession

host, port, pem, mode = sys.argv[1], int(sys.argv[2]), open(sys.argv[3]).read(), sys.argv[4]
rsa.add_key(pem, old=False)

def say(**kw):
    print(json.dumps(kw), flush=True)

async def line():
    return (await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)).strip()

def buttons(markup):
    if markup is None:
        return None
    rows = getattr(markup, "rows", [])
    return [type(markup).__name__, [[[type(b).__name__, b.text] for b in r.buttons] for r in rows]]

async def main():
    session = MemorySession()
    session.set_dc(2, host, port)
    client = TelegramClient(session, 611335, "d524b414d21f4d37f08684c1df41ac9c", connection_retries=1,
                            auto_reconnect=False, catch_up=False)
    live = asyncio.Queue()
    client.add_event_handler(lambda e: live.put_nowait(e.message), events.NewMessage(incoming=True))
    if mode == "user":
        phone, code, bot_name = sys.argv[5:8]
        await client.start(phone=phone, code_callback=lambda: code)
        bot = await client.get_input_entity(bot_name)
        await client.send_message(bot, "/menu")
        msg = await asyncio.wait_for(live.get(), 20)
        cb = msg.reply_markup.rows[0].buttons[0]
        say(live=msg.message, markup=buttons(msg.reply_markup), data=cb.data.decode(),
            url=msg.reply_markup.rows[1].buttons[0].url)
        answer = await client(functions.messages.GetBotCallbackAnswerRequest(peer=bot, msg_id=msg.id, data=cb.data))
        (again,) = await client.get_messages(bot, ids=[msg.id])
        say(answer=answer.message, alert=answer.alert, history=buttons(again.reply_markup))
    else:
        await client.start(bot_token=sys.argv[5])

        @client.on(events.NewMessage(incoming=True, pattern="/menu"))
        async def menu(event):
            await event.respond("Old menu", buttons=[
                [Button.inline("Yes", b"yes"), Button.url("Site", "https://example.org")],
                [Button.switch_inline("Share", "q", same_peer=True)],
            ])

        @client.on(events.NewMessage(incoming=True, pattern="/keys"))
        async def keys(event):
            await event.respond("Old keys", buttons=[[Button.text("Plain", resize=True), Button.request_phone("Phone")]])

        @client.on(events.CallbackQuery())
        async def pressed(event):
            await event.answer("old bot: " + event.data.decode(), alert=True)
            say(pressed=event.data.decode())

        say(ready=True)
    await line()
    await client.disconnect()

asyncio.run(main())
"""


async def _start(server, python, tmp_path, *args):
    pem = tmp_path / "server.pub"
    pem.write_bytes(server.public_pem)
    script = tmp_path / "old_telethon.py"
    script.write_text(OLD_TELETHON)
    proc = await asyncio.create_subprocess_exec(
        str(python), str(script), server.host, str(server.port), str(pem), *args,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip

    async def says():
        while True:  # Telethon's start() prints its own lines too
            raw = await asyncio.wait_for(proc.stdout.readline(), 60)
            if not raw:
                err = await proc.stderr.read()
                raise AssertionError(err.decode()[-3000:])
            if raw.startswith(b"{"):
                return json.loads(raw)

    return proc, says


async def _stop(proc):
    if proc.returncode is None:
        proc.stdin.write(b"quit\n")
        await proc.stdin.drain()
        try:
            await asyncio.wait_for(proc.wait(), 20)
        except TimeoutError:
            proc.kill()


async def test_layer_224_user_sees_and_presses_a_bots_inline_keyboard(
    edge_server, edge_db, clients, old_telethon_python, tmp_path
):
    """A current Telethon bot's inline keyboard reaches a Telethon 1.43.2 user as the
    per-kind buttons of layer 224 (live and in the history), and pressing the callback
    button gets the bot's answer."""
    from telethon import Button, events

    alice, _, _, _ = await logged_in(edge_server, "Alice", clients)
    _, username, token = await _new_bot(alice.id, "Layers")
    b = await bot_client(edge_server, token, clients)

    @b.on(events.NewMessage(incoming=True, pattern="/menu"))
    async def menu(event):
        await event.respond(
            "Pick one",
            buttons=[
                [Button.inline("Yes", b"yes"), Button.inline("No", b"no")],
                [Button.url("Site", "https://example.org"), Button.switch_inline("Share", "q")],
            ],
        )

    @b.on(events.CallbackQuery())
    async def on_press(event):
        await event.answer(f"pressed {event.data.decode()}", alert=True)

    _, c_phone, c_code = await new_user("Carol")
    proc, says = await _start(
        edge_server, old_telethon_python, tmp_path, "user", c_phone, c_code, "@" + username
    )
    try:
        shown = await says()
        assert shown["live"] == "Pick one"
        assert shown["markup"] == [
            "ReplyInlineMarkup",
            [
                [["KeyboardButtonCallback", "Yes"], ["KeyboardButtonCallback", "No"]],
                [["KeyboardButtonUrl", "Site"], ["KeyboardButtonSwitchInline", "Share"]],
            ],
        ]
        assert shown["data"] == "yes" and shown["url"] == "https://example.org"
        answered = await says()
        assert answered["answer"] == "pressed yes" and answered["alert"] is True
        assert answered["history"] == shown["markup"]
    finally:
        await _stop(proc)


async def test_layer_224_bot_sends_inline_and_reply_keyboards(
    edge_server, edge_db, clients, old_telethon_python, tmp_path
):
    """A Telethon 1.43.2 bot (layer 224) sends an inline keyboard and a reply keyboard
    (no REPLY_MARKUP_INVALID); a current Telethon user sees them as layer-229 buttons
    and gets the old bot's callback answer."""
    from telethon import events, functions, types

    from accounts_app.access import user_access_hash

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bot_id, _, token = await _new_bot(alice.id, "Oldbot")
    proc, says = await _start(edge_server, old_telethon_python, tmp_path, "bot", token)
    try:
        assert (await says()) == {"ready": True}
        got: list = []
        a.add_event_handler(collect(got, "message"), events.NewMessage(incoming=True))
        bot_peer = types.InputPeerUser(bot_id, user_access_hash(alice.id, bot_id))
        await a.send_message(bot_peer, "/menu")
        await wait_for(lambda: any(m.message == "Old menu" for m in got), 20)
        shown = next(m for m in got if m.message == "Old menu")
        rows = shown.reply_markup.rows
        assert isinstance(shown.reply_markup, types.ReplyInlineMarkup)
        assert [b.text for b in rows[0].buttons] == ["Yes", "Site"]
        assert rows[0].buttons[0].type.data == b"yes"
        assert rows[0].buttons[1].type.url == "https://example.org"
        assert isinstance(rows[1].buttons[0].type, types.InlineButtonTypeSwitchInline)
        assert rows[1].buttons[0].type.same_peer and rows[1].buttons[0].type.query == "q"

        answer = await a(
            functions.messages.GetBotCallbackAnswerRequest(peer=bot_peer, msg_id=shown.id, data=b"yes")
        )
        assert answer.alert and answer.message == "old bot: yes"
        assert (await says()) == {"pressed": "yes"}

        await a.send_message(bot_peer, "/keys")
        await wait_for(lambda: any(m.message == "Old keys" for m in got), 20)
        keys = next(m for m in got if m.message == "Old keys")
        assert isinstance(keys.reply_markup, types.ReplyKeyboardMarkup) and keys.reply_markup.resize
        (plain, phone) = keys.reply_markup.rows[0].buttons
        assert plain.text == "Plain" and isinstance(plain.type, types.ButtonTypeDefault)
        assert phone.text == "Phone" and isinstance(phone.type, types.ButtonTypeRequestPhone)
    finally:
        await _stop(proc)
