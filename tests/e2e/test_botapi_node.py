"""Unmodified Node bot frameworks from npm (grammY, Telegraf; package.json pins them)
pointed at ``manage.py runbotapi`` by their apiRoot: the bot sets its command menu,
answers /start with an inline keyboard whose button a Telethon user presses, answers a
command and echoes text, each seen live by the user."""

from __future__ import annotations

import asyncio
import json
import os

import pytest

from tests.e2e import harness
from tests.e2e.js_clients import JS_DIR, ensure_node_modules
from tests.e2e.test_botapi_frameworks import _user_side
from tests.e2e.test_bots import _new_bot
from tests.e2e.test_channels import collect, logged_in, wait_for

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(scope="session")
def node_modules():
    ensure_node_modules()


@pytest.mark.parametrize("framework", ["grammy", "telegraf"])
async def test_node_bot_echo_keyboard_and_commands(
    framework, node_modules, edge_server, botapi_server, edge_db, clients, tmp_path
):
    from telethon import events, functions

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bot_id, username, token = await _new_bot(alice.id, framework.capitalize())
    env = {**os.environ, "BOT_TOKEN": token, "BOT_API_ROOT": botapi_server.base, "NODE_BOT": framework}
    log_path = tmp_path / f"{framework}.log"
    with open(log_path, "wb") as log:
        proc = await asyncio.create_subprocess_exec(
            "node", str(JS_DIR / "node_bot.mjs"), cwd=harness.ROOT, env=env,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=log,
        )  # fmt: skip
    try:
        line = await asyncio.wait_for(proc.stdout.readline(), 30)
        assert line, log_path.read_text(errors="replace")
        assert json.loads(line) == {"ready": username}

        # The menu it set, as Alice's client shows it.
        full = await a(functions.users.GetFullUserRequest(username))
        assert [(c.command, c.description) for c in full.full_user.bot_info.commands] == [
            ("start", "Show the menu"),
            ("help", "What I do"),
        ]
        seen = await _user_side(a, username, bot_id)
        helped: list = []
        a.add_event_handler(collect(helped, "message"), events.NewMessage(incoming=True, from_users=[bot_id]))
        await a.send_message(username, "/help")
        await wait_for(lambda: helped, 20)
        assert helped[0].raw_text == f"{'grammY' if framework == 'grammy' else 'Telegraf'} help"
        assert [m.raw_text for m in seen if m.raw_text == "echo me"] == ["echo me"]
    finally:
        proc.stdin.close()
        try:
            await asyncio.wait_for(proc.wait(), 15)
        except TimeoutError:
            proc.kill()
            await proc.wait()
    assert "failed" not in log_path.read_text(errors="replace")
