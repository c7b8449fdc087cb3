"""Faults against the real listener: PostgreSQL restarted under load, the listener killed
with SIGKILL under load, a captured request replayed after a restart (slow frames and
connection limits: tests/mtproto/test_server_hygiene.py).

What each failure does and what is guaranteed: docs/reliability.md.
"""

from __future__ import annotations

import asyncio
import os
import signal
import struct
import time

import psycopg
import pytest

from accounts_app.access import user_access_hash
from mtproto.session import wire
from tests.e2e import harness
from tests.support import pg_cluster

pytestmark = pytest.mark.django_db(transaction=True)

# The listener's pts repair settles lost allocations this fast in these tests.
FAST_REPAIR = {"TELESRV_PTS_REPAIR_AFTER": "2", "TELESRV_PTS_REPAIR_INTERVAL": "1"}


def live_telethon(server, port: int | None = None):
    """Telethon that processes updates, reconnects on its own (a restarted listener on
    the same port) and reports a failed request instead of retrying it."""
    from telethon import TelegramClient, connection
    from telethon.sessions import MemorySession

    harness.telethon_trust(server.public_pem)
    session = MemorySession()
    session.set_dc(2, server.host, port or server.port)
    return TelegramClient(
        session, harness.API_ID, harness.API_HASH, connection=connection.ConnectionTcpAbridged,
        receive_updates=True, connection_retries=60, retry_delay=0.5, timeout=10, request_retries=1,
        auto_reconnect=True, catch_up=False,
    )  # fmt: skip


def input_user(viewer, target):
    from telethon import types

    return types.InputUser(user_id=target.id, access_hash=user_access_hash(viewer.id, target.id))


async def group_of(clients, title: str):
    """Connect and log each client in (a fresh user each), then a megagroup made by
    clients[0] with everyone in it; each client's input peer."""
    from telethon import functions, types

    users = []
    for c in clients:
        await c.connect()
        users.append(await harness.login_telethon(c))
    created = await clients[0](
        functions.messages.CreateChatRequest(users=[input_user(users[0], u) for u in users[1:]], title=title)
    )
    channel = created.updates.chats[1]
    peers = []
    for c in clients:
        await c.get_dialogs()
        peers.append(await c.get_input_entity(types.PeerChannel(channel.id)))
    return channel, peers


def pts_holes(rows: list[tuple[int, int]], current: int) -> list[int]:
    """pts in 1..current covered by no event (rows: (pts, pts_count))."""
    covered = set()
    for pts, count in rows:
        covered.update(range(pts - count + 1, pts + 1))
    return [p for p in range(1, current + 1) if p not in covered]


async def pts_log_is_whole(db, channel_id: int) -> bool:
    """Whether the channel's update log covers every pts up to its counter."""
    cur = await db.execute("SELECT pts FROM channels WHERE id = %s", (channel_id,))
    (current,) = await cur.fetchone()
    cur = await db.execute(
        "SELECT pts, pts_count FROM channel_update_events WHERE channel_id = %s", (channel_id,)
    )
    return not pts_holes(await cur.fetchall(), current)


async def stored_messages(channel_id: int) -> dict[str, int]:
    """text -> id of every message the channel stores (the suite's database, via the ORM)."""
    from channels_app.models import ChannelMessage

    return {
        text: mid
        async for text, mid in ChannelMessage.objects.filter(channel_id=channel_id).values_list(
            "message", "id"
        )
    }


async def wait_for_whole_pts_log(channel_id: int, timeout: float = 20) -> None:
    """Until the channel's update log (the suite's database) covers every pts to its counter."""
    from channels_app.models import Channel, ChannelUpdateEvent

    async def whole():
        ch = await Channel.objects.aget(id=channel_id)
        rows = [
            r
            async for r in ChannelUpdateEvent.objects.filter(channel_id=channel_id).values_list(
                "pts", "pts_count"
            )
        ]
        return not pts_holes(rows, ch.pts)

    await wait_until(whole, timeout, "the pts log to have no hole")


def drop_redis_keys(url: str, prefix: str) -> None:
    """Delete a test's Redis keys (its own prefix) on the server at ``url``."""
    import redis

    r = redis.Redis.from_url(url)
    keys = list(r.scan_iter(match=f"{prefix}:*", count=1000))
    if keys:
        r.delete(*keys)


async def wait_until(predicate, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while True:
        value = await predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        await asyncio.sleep(0.25)


class Load:
    """Clients sending numbered messages in a loop, every outcome recorded."""

    def __init__(self, clients, peers) -> None:
        self.clients, self.peers = clients, peers
        self.ok: dict[str, tuple[int, float]] = {}  # text -> (message id, answered at)
        self.failed: dict[str, str] = {}
        self._stop = asyncio.Event()
        self._tasks: list[asyncio.Task] = []

    def start(self) -> None:
        self._tasks = [asyncio.create_task(self._run(i)) for i in range(len(self.clients))]

    async def _run(self, i: int) -> None:
        n = 0
        while not self._stop.is_set():
            text = f"c{i}-{n}-{os.getpid()}"
            n += 1
            try:
                m = await asyncio.wait_for(self.clients[i].send_message(self.peers[i], text), 40)
                self.ok[text] = (m.id, time.monotonic())
            except Exception as exc:
                self.failed[text] = repr(exc)
                await asyncio.sleep(0.2)

    async def stop(self) -> None:
        self._stop.set()
        await asyncio.wait_for(asyncio.gather(*self._tasks, return_exceptions=True), 60)


# --- PostgreSQL restarted under load ---------------------------------------------------


@pytest.fixture
def fault_cluster(django_db_setup):
    """A database with the test database's schema on a PostgreSQL cluster of the test's
    own, and the listener environment that points at it (with a Redis prefix of its own)."""
    from django.conf import settings

    reason = pg_cluster.unavailable()
    if reason:
        pytest.skip(reason)
    cluster = pg_cluster.Cluster(harness.free_port())
    prefix = f"{os.environ.get('TELESRV_REDIS_PREFIX', 'telesrv')}-pgfault{os.getpid()}"
    env = {
        **os.environ,
        "TELESRV_DB_HOST": "127.0.0.1",
        "TELESRV_DB_PORT": str(cluster.port),
        "TELESRV_DB_NAME": "telesrv_fault",
        "TELESRV_REDIS_PREFIX": prefix,
        **FAST_REPAIR,
    }
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    try:
        cluster.init()
        cluster.start()
        cluster.create_database_like("telesrv_fault", settings.DATABASES["default"])
        yield cluster, env
    finally:
        cluster.destroy()
        drop_redis_keys(env.get("TELESRV_REDIS_URL", "redis://127.0.0.1:6379/0"), prefix)


async def test_postgresql_restart_under_load_loses_and_fakes_nothing(fault_cluster, edge_rsa_key, tmp_path):
    cluster, env = fault_cluster
    server = harness.start_edge(env, edge_rsa_key, tmp_path / "edge.log")
    clients = [live_telethon(server) for _ in range(3)]
    try:
        channel, peers = await group_of(clients, "pg restart")
        load = Load(clients, peers)
        load.start()
        await asyncio.sleep(2)
        sent_before = len(load.ok)
        await asyncio.to_thread(cluster.stop, "fast")  # every session of the listener is cut
        await asyncio.sleep(4)
        await asyncio.to_thread(cluster.start)
        back = time.monotonic()
        await asyncio.sleep(4)
        await load.stop()

        # Service resumed within seconds of PostgreSQL's return (requests made while it
        # was away waited for it instead of failing).
        after = sorted(t for _, t in load.ok.values() if t >= back)
        assert after, (
            f"nothing was answered after PostgreSQL came back; failures: {list(load.failed.values())[:3]}"
        )
        assert after[0] - back < 5, after[0] - back
        assert len(load.ok) > sent_before
        # A new client can log in (the ORM's connection was replaced too).
        newcomer = live_telethon(server)
        clients.append(newcomer)
        await newcomer.connect()
        assert await asyncio.wait_for(harness.login_telethon(newcomer), 20)

        conninfo = f"host=127.0.0.1 port={cluster.port} dbname=telesrv_fault user=postgres"
        async with await psycopg.AsyncConnection.connect(conninfo, autocommit=True) as db:
            cur = await db.execute(
                "SELECT message, id FROM channel_messages WHERE channel_id = %s", (channel.id,)
            )
            stored = dict(await cur.fetchall())
            # Every acknowledged message is stored, under the id the client was given ...
            assert {t: stored.get(t) for t in load.ok} == {t: mid for t, (mid, _) in load.ok.items()}
            # ... and no message reported as failed was stored after all.
            assert not set(load.failed) & set(stored), [
                load.failed[t] for t in set(load.failed) & set(stored)
            ]

            await wait_until(lambda: pts_log_is_whole(db, channel.id), 15, "the pts log to have no hole")
    finally:
        for c in clients:
            await c.disconnect()
        server.stop()


# --- the listener killed under load -----------------------------------------------------


async def test_kill_9_under_load_leaves_no_pts_hole_and_clients_follow(
    edge_env, edge_rsa_key, edge_db, tmp_path
):
    from telethon import events

    port = harness.free_port()
    env = {**edge_env, **FAST_REPAIR}
    log = tmp_path / "edge.log"
    server = harness.start_edge(env, edge_rsa_key, log, port=port)
    clients = [live_telethon(server) for _ in range(4)]
    try:
        channel, peers = await group_of(clients, "kill -9")
        seen: list[list[str]] = [[] for _ in clients]
        for i, c in enumerate(clients):

            async def on_message(event, i=i):
                seen[i].append(event.message.message)

            c.add_event_handler(on_message, events.NewMessage())
        load = Load(clients, peers)
        load.start()
        for _ in range(3):
            await asyncio.sleep(1)
            os.kill(server.proc.pid, signal.SIGKILL)
            server.proc.wait(10)
            server = await asyncio.to_thread(harness.start_edge, env, edge_rsa_key, log, port)
        await asyncio.sleep(2)
        await load.stop()
        assert load.ok, list(load.failed.values())[:3]

        # Allocations the kills left uncommitted become noops within the repair bound.
        await wait_for_whole_pts_log(channel.id)
        # Every client's update loop is alive: each gets a message sent now.
        for i, c in enumerate(clients):
            text = f"after the kills {i}"
            await asyncio.wait_for(c.send_message(peers[i], text), 30)
        for i in range(len(clients)):
            others = [f"after the kills {j}" for j in range(len(clients)) if j != i]

            async def has_all(i=i, others=others):
                return all(t in seen[i] for t in others)

            await wait_until(has_all, 30, f"client {i} to receive the others' messages")
        stored = {m async for m in _stored_texts(channel.id)}
        assert set(load.ok) <= stored
    finally:
        for c in clients:
            await c.disconnect()
        server.stop()


async def _stored_texts(channel_id: int):
    from channels_app.models import ChannelMessage

    async for text in ChannelMessage.objects.filter(channel_id=channel_id).values_list("message", flat=True):
        yield text


# --- replay after a restart --------------------------------------------------------------


async def test_captured_request_replayed_after_a_restart_is_not_executed(
    start_edge_server, telethon_client, edge_db
):
    from channels_app.models import Channel
    from tl import functions

    first = start_edge_server()
    client = await telethon_client("abridged", server=first)
    await harness.login_telethon(client)
    key = client.session.auth_key.key
    await client.disconnect()

    raw = await harness.RawClient(first.host, first.port, key).connect()
    await raw.handshake()
    title = f"replayed {os.getpid()} {time.time()}"
    request = functions.channels.CreateChannel(title=title, about="", megagroup=True).to_bytes()
    mid = raw.new_msg_id()
    captured = raw.encrypt(request, mid, raw.seqno(True))  # what an eavesdropper records
    raw.send_packet(captured)
    body = await raw.expect(wire.RPC_RESULT, timeout=15)
    assert struct.unpack_from("<q", body, 4)[0] == mid
    assert await Channel.objects.filter(title=title).acount() == 1
    raw.close()

    first.stop()  # a restart: a new process, nothing of the old one's memory
    second = start_edge_server()
    attacker = await harness.RawClient(second.host, second.port, key, session_id=raw.session_id).connect()
    attacker.send_packet(captured)
    body = await attacker.expect(wire.BAD_SERVER_SALT, timeout=10)
    assert struct.unpack_from("<q", body, 4)[0] == mid  # refused, not run
    with pytest.raises(TimeoutError):
        await attacker.expect(wire.RPC_RESULT, timeout=1.5)
    attacker.close()
    assert await Channel.objects.filter(title=title).acount() == 1
