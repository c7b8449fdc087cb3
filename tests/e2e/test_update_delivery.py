"""Live update delivery that every client can follow: channel pushes in pts order
under concurrent senders, what the acting session gets for its own deletes / edits /
pins, catch-up and state answers real clients start from, re-sending after a
reconnect."""

from __future__ import annotations

import asyncio
import contextlib
import struct
import time

import pytest

from accounts_app.models import User
from tests.e2e import harness

pytestmark = pytest.mark.django_db(transaction=True)


def live_telethon(server):
    """Telethon 1.45 that processes updates, handlers run one at a time in arrival order."""
    from telethon import TelegramClient, connection
    from telethon.sessions import MemorySession

    harness.telethon_trust(server.public_pem)
    session = MemorySession()
    session.set_dc(2, server.host, server.port)
    return TelegramClient(
        session, harness.API_ID, harness.API_HASH, connection=connection.ConnectionTcpAbridged,
        receive_updates=True, connection_retries=1, retry_delay=0, timeout=10, request_retries=1,
        auto_reconnect=False, catch_up=False, sequential_updates=True,
    )  # fmt: skip


def live_kurigram(server, name: str):
    """Kurigram 2.2.26 with updates on and one handler worker (arrival order)."""
    return harness.make_kurigram(server, "abridged", name=name, no_updates=False, workers=1)


async def new_user(first_name: str):
    phone, code = harness.fresh_phone()
    user = await User.objects.acreate(phone=phone, first_name=first_name)
    return user, phone, code


async def telethon_login(server, first_name: str, clients: list):
    user, phone, code = await new_user(first_name)
    client = live_telethon(server)
    clients.append(client)
    await client.connect()
    sent = await client.send_code_request(phone)
    await client.sign_in(phone, code=code, phone_code_hash=sent.phone_code_hash)
    return user, client


async def kurigram_login(server, first_name: str, kurigrams: list):
    user, phone, code = await new_user(first_name)
    client = live_kurigram(server, f"k{user.id}")
    kurigrams.append(client)
    await client.connect()
    sent = await client.send_code(phone)
    await client.sign_in(phone, sent.phone_code_hash, code)
    await client.initialize()
    return user, client


async def stop_kurigrams(kurigrams):
    for k in kurigrams:
        with contextlib.suppress(Exception):
            await k.stop() if k.is_initialized else await k.disconnect()


def count_requests(client, name: str) -> list:
    """Calls of the TL function ``name`` the client makes (Telethon or Kurigram)."""
    seen: list = []
    if hasattr(client, "_call"):
        original = client._call

        async def _call(sender, request, *a, **kw):
            if type(request).__name__.startswith(name):
                seen.append(request)
            return await original(sender, request, *a, **kw)

        client._call = _call
    else:
        original = client.invoke

        async def invoke(query, *a, **kw):
            if type(query).__name__.startswith(name):
                seen.append(query)
            return await original(query, *a, **kw)

        client.invoke = invoke
    return seen


def input_user(viewer, target):
    from telethon import types

    from accounts_app.access import user_access_hash

    return types.InputUser(user_id=target.id, access_hash=user_access_hash(viewer.id, target.id))


async def wait_for(predicate, timeout: float = 10.0):
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting")
        await asyncio.sleep(0.05)


PER_CLIENT = int(__import__("os").environ.get("E2E_PER_CLIENT", "200"))


async def test_four_clients_send_concurrently_and_everyone_sees_all_in_pts_order(
    edge_server, edge_db, clients
):
    from pyrogram import filters
    from pyrogram.handlers import MessageHandler
    from telethon import events, functions, types

    kurigrams: list = []
    try:
        alice, a = await telethon_login(edge_server, "Alice", clients)
        bob, b = await telethon_login(edge_server, "Bob", clients)
        carol, c = await kurigram_login(edge_server, "Carol", kurigrams)
        dave, d = await kurigram_login(edge_server, "Dave", kurigrams)
        created = await a(
            functions.messages.CreateChatRequest(
                users=[input_user(alice, u) for u in (bob, carol, dave)], title="Busy"
            )
        )
        channel = created.updates.chats[1]
        chat_id = -1000000000000 - channel.id
        peer = types.InputPeerChannel(channel.id, channel.access_hash)

        seen: dict[str, list[tuple[int, str]]] = {n: [] for n in ("Alice", "Bob", "Carol", "Dave")}
        for name, client in (("Alice", a), ("Bob", b)):

            async def on_telethon(event, into=seen[name]):
                into.append((event.message.id, event.message.message))

            client.add_event_handler(on_telethon, events.NewMessage(chats=[channel.id]))
        for name, client in (("Carol", c), ("Dave", d)):

            async def on_kurigram(_client, message, into=seen[name]):
                into.append((message.id, message.text))

            client.add_handler(MessageHandler(on_kurigram, filters.chat(chat_id)))
        differences = {n: count_requests(cl, "GetChannelDifference") for n, cl in
                       (("Alice", a), ("Bob", b), ("Carol", c), ("Dave", d))}  # fmt: skip
        await a.get_dialogs()
        await b.get_dialogs()
        async for _ in c.get_dialogs():
            pass
        async for _ in d.get_dialogs():
            pass

        # Each client keeps a few sends in flight, as a busy app does; the run stays short.
        async def in_flight(send, n=4):
            gate = asyncio.Semaphore(n)

            async def one(i):
                async with gate:
                    await send(i)

            await asyncio.gather(*(one(i) for i in range(PER_CLIENT)))

        def telethon_sends(client, name):
            return in_flight(
                lambda i: client(
                    functions.messages.SendMessageRequest(peer, f"{name}-{i}", random_id=hash((name, i)))
                )
            )

        def kurigram_sends(client, name):
            return in_flight(lambda i: client.send_message(chat_id, f"{name}-{i}"))

        await asyncio.gather(
            telethon_sends(a, "Alice"), telethon_sends(b, "Bob"),
            kurigram_sends(c, "Carol"), kurigram_sends(d, "Dave"),
        )  # fmt: skip
        names = list(seen)

        def others_of(name):
            return {f"{o}-{i}" for o in names if o != name for i in range(PER_CLIENT)}

        def complete():
            return all(others_of(n) <= {t for _, t in seen[n]} for n in names)

        await wait_for(complete, timeout=40)
        for name in names:
            got = [(mid, t) for mid, t in seen[name] if t and not t.startswith(f"{name}-")]
            texts = [t for _, t in got]
            assert len(texts) == len(set(texts)) == 3 * PER_CLIENT, name  # each exactly once
            ids = [mid for mid, _ in got]
            assert ids == sorted(ids), f"{name} saw messages out of pts order"
            assert differences[name] == [], f"{name} needed getChannelDifference"
    finally:
        await stop_kurigrams(kurigrams)


UPDATES_TOO_LONG = 0xE317AF7E
UPDATES_KINDS = {0x74AE4240, 0x78D4DEC1, 0x725B04C3, UPDATES_TOO_LONG}  # updates, short, combined


async def test_reconnect_after_overflow_gets_updates_too_long_not_a_partial_burst(
    edge_server, edge_db, clients
):
    """Pushes queued for a session that is away overflow its queue: on reconnect the
    session gets updatesTooLong (the client runs getDifference), not the newest 1024."""
    from telethon import functions, types

    from mtproto.session import wire
    from tl import functions as tl_functions

    alice, a = await telethon_login(edge_server, "Alice", clients)
    user, phone, code = await new_user("Ursula")
    u = harness.make_telethon(edge_server, "abridged")
    clients.append(u)
    await u.connect()
    sent = await u.send_code_request(phone)
    await u.sign_in(phone, code=code, phone_code_hash=sent.phone_code_hash)
    key = u.session.auth_key.key
    await u.disconnect()
    (channel,) = (
        await a(functions.messages.CreateChatRequest(users=[input_user(alice, user)], title="Away"))
    ).updates.chats[1:2]
    peer = types.InputPeerChannel(channel.id, channel.access_hash)

    raw = await harness.RawClient(edge_server.host, edge_server.port, key).connect()
    try:
        await raw.handshake()
        raw.send(tl_functions.updates.GetState().to_bytes())  # binds the session to the user
        await raw.expect(wire.RPC_RESULT)
    finally:
        raw.close()
    session_id = raw.session_id
    await asyncio.sleep(0.3)
    for _ in range(11):  # 1100 pushes for a session that keeps 1024
        await a(
            [functions.messages.SetTypingRequest(peer, types.SendMessageTypingAction()) for _ in range(100)]
        )
        # Paced under the per-key request limit (a burst of 1000, then 200/s): a listener
        # fast enough to take all 1100 within half a second answers FLOOD_WAIT.
        await asyncio.sleep(0.1)
    await asyncio.sleep(2)

    back = await harness.RawClient(edge_server.host, edge_server.port, key, session_id=session_id).connect()
    try:
        back.salt = raw.salt
        back._seq = raw._seq
        back.send(struct.pack("<Iq", wire.PING, 7))
        kinds = []
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            try:
                messages = await back.recv(max(0.05, deadline - time.monotonic()))
            except TimeoutError:
                break
            for _mid, _seq, body in messages:
                if wire.constructor_of(body) == wire.GZIP_PACKED:
                    body = wire.gunzip(body)
                if wire.constructor_of(body) in UPDATES_KINDS:
                    kinds.append(wire.constructor_of(body))
    finally:
        back.close()
    assert kinds == [UPDATES_TOO_LONG]
