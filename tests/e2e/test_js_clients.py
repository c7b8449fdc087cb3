"""Client families that are not Python against the real listener: GramJS (npm ``telegram``
2.26, layer 198) over TCP and over WebSocket, and mtcute (``@mtcute/node`` 0.30, layer
227) over TCP. Each logs in, creates a megagroup with a Telethon user in it, exchanges
messages live with that user, pages history and dialogs, edits and deletes both ways, and
catches up on what it missed while offline. All of them share the session's server.
"""

from __future__ import annotations

import asyncio
import uuid

import pytest

from accounts_app.models import User
from tests.e2e import harness
from tests.e2e.js_clients import JsClient, ensure_node_modules

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(scope="session")
def node_modules():
    ensure_node_modules()


def live_telethon(server):
    from telethon import TelegramClient, connection
    from telethon.sessions import MemorySession

    harness.telethon_trust(server.public_pem)
    session = MemorySession()
    session.set_dc(2, server.host, server.port)
    return TelegramClient(
        session, harness.API_ID, harness.API_HASH, connection=connection.ConnectionTcpAbridged,
        receive_updates=True, connection_retries=1, retry_delay=0, timeout=10, request_retries=1,
        auto_reconnect=False, catch_up=False,
    )  # fmt: skip


def collect(into: list, attr: str):
    async def handler(event):
        into.append(getattr(event, attr))

    return handler


async def wait_for(predicate, timeout: float = 10.0):
    deadline = asyncio.get_running_loop().time() + timeout
    while not predicate():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("timed out waiting")
        await asyncio.sleep(0.05)


async def scenario(js: JsClient, server, tag: str) -> None:
    from asgiref.sync import sync_to_async
    from telethon import events, functions, types

    from accounts_app.actions import do_create_user

    # mtcute 0.30 cannot sign up (GramJS can, but not the same way): the account is made
    # as a sign-up would make it, and the JS client signs in.
    alice_phone, alice_code = harness.fresh_phone()
    await sync_to_async(do_create_user)(alice_phone, f"Alice {tag}")
    bob_phone, bob_code = harness.fresh_phone()
    await User.objects.acreate(phone=bob_phone, first_name=f"Bob {tag}")
    bob = live_telethon(server)
    try:
        await bob.connect()
        sent = await bob.send_code_request(bob_phone)
        await bob.sign_in(bob_phone, code=bob_code, phone_code_hash=sent.phone_code_hash)
        bob_name = f"bob{uuid.uuid4().hex[:12]}"
        await bob(functions.account.UpdateUsernameRequest(bob_name))
        got, edits, deletes = [], [], []
        bob.add_event_handler(collect(got, "message"), events.NewMessage())
        bob.add_event_handler(collect(edits, "message"), events.MessageEdited())
        bob.add_event_handler(collect(deletes, "deleted_ids"), events.MessageDeleted())

        me = await js.call("login", phone=alice_phone, code=alice_code)
        alice = await User.objects.aget(phone=alice_phone)
        assert int(me["id"]) == alice.id and alice.first_name == f"Alice {tag}"

        # A megagroup made by the JS client, with Bob invited by username.
        group = await js.call("create_megagroup", title=f"JS {tag}", invite=bob_name)
        chat = group["id"]
        channel_id = int(group["channel_id"])
        dialogs = await bob.get_dialogs()
        assert any(d.entity.id == channel_id for d in dialogs)
        peer_b = await bob.get_input_entity(types.PeerChannel(channel_id))

        # Live, both ways.
        hello = await js.call("send", chat=chat, text=f"hello from {tag}")
        await wait_for(lambda: any(m.message == f"hello from {tag}" for m in got))
        live = next(m for m in got if m.message == f"hello from {tag}")
        assert live.id == hello["id"] and live.sender_id == alice.id
        answer = await bob.send_message(peer_b, "hi from Telethon")
        seen = await js.wait("new", text="hi from Telethon")
        assert seen["id"] == answer.id

        # History pages: 25 more messages, read back 10 at a time, newest first.
        texts = [f"{tag} #{i}" for i in range(25)]
        for t in texts:
            await bob.send_message(peer_b, t)
        await js.wait("new", text=texts[-1])
        pages, offset = [], 0
        while True:
            page = await js.call("history", chat=chat, limit=10, offset_id=offset)
            if not page:
                break
            assert len(page) <= 10
            pages.append(page)
            offset = page[-1]["id"]
        history = [m for p in pages for m in p]
        ids = [m["id"] for m in history]
        assert ids == sorted(ids, reverse=True) and len(set(ids)) == len(ids)
        msgs = [m["text"] for m in history if m["text"]]
        assert msgs[:25] == texts[::-1]
        assert msgs[25:27] == ["hi from Telethon", f"hello from {tag}"]
        assert len(pages) >= 3

        # Dialogs, one per request: the group (newest) then the others.
        second = await js.call("create_megagroup", title=f"JS {tag} quiet", invite=None)
        await js.call("send", chat=chat, text="dialogs order")
        listed = await js.call("dialogs", chunk=1)
        titles = [d["title"] for d in listed]
        assert titles[:2] == [f"JS {tag}", f"JS {tag} quiet"], titles
        assert listed[0]["top"] == "dialogs order"
        assert len({d["id"] for d in listed}) == len(listed)
        assert second["id"] != chat

        # Edits and deletes, both ways.
        await js.call("edit", chat=chat, id=hello["id"], text=f"hello from {tag} (edited)")
        await wait_for(lambda: any(m.message == f"hello from {tag} (edited)" for m in edits))
        await bob.edit_message(peer_b, answer.id, "hi (edited by Telethon)")
        await js.wait("edit", text="hi (edited by Telethon)")
        await js.call("delete", chat=chat, ids=[hello["id"]])
        await wait_for(lambda: any(hello["id"] in d for d in deletes))
        await bob.delete_messages(peer_b, [answer.id])
        await js.wait("delete", ids=[answer.id])

        # Offline: what Bob does meanwhile reaches the JS client when it is back. A private
        # message first: mtcute reads an account pts of 0 (a new account before its first
        # account-level update) as "no state" and then fetches no difference at all.
        await bob.send_message(alice.id, "a private hello")
        await js.wait("new", text="a private hello")
        await js.call("disconnect")
        away = [await bob.send_message(peer_b, f"while away {i}") for i in range(3)]
        await bob.edit_message(peer_b, away[0], "while away 0 (edited)")
        await bob.delete_messages(peer_b, [away[1].id])
        await js.call("reconnect")
        await js.wait("new", text="while away 2", timeout=15)
        page = await js.call("history", chat=chat, limit=5, offset_id=0)
        assert [m["text"] for m in page[:2]] == ["while away 2", "while away 0 (edited)"]

        # And live again after the catch-up.
        await bob.send_message(peer_b, "welcome back")
        await js.wait("new", text="welcome back")
    finally:
        await bob.disconnect()


def no_server_errors(server, start: int) -> None:
    new = server.log()[start:]
    trouble = [line for line in new.splitlines() if "Traceback" in line or " ERROR " in line]
    assert not trouble, new[-3000:]


async def run(script: str, server, tmp_path, tag: str, **env: str) -> None:
    start = len(server.log())
    js = await JsClient.start(script, server, tmp_path / f"{tag}.log", **env)
    try:
        await asyncio.wait_for(scenario(js, server, tag), 90)
    finally:
        await js.close()
    no_server_errors(server, start)


async def test_mtcute_over_tcp(node_modules, edge_server, edge_db, tmp_path):
    await run("mtcute_client.mjs", edge_server, tmp_path, "mtcute")


async def test_gramjs_over_tcp(node_modules, edge_server, edge_db, tmp_path):
    await run("gramjs_client.mjs", edge_server, tmp_path, "gramjs-tcp", GRAMJS_TRANSPORT="tcp")


async def test_gramjs_over_websocket(node_modules, edge_server, edge_db, tmp_path):
    await run("gramjs_client.mjs", edge_server, tmp_path, "gramjs-ws", GRAMJS_TRANSPORT="ws")
