"""The primary's machine lost under load: a throw-away primary and a synchronous
streaming standby, the real listener started with TELESRV_DB_HOSTS naming both, Telethon
clients sending into a supergroup; the primary is stopped without a shutdown
(``pg_ctl stop -m immediate``), the standby promoted. Sends resume through the new
primary with no acknowledged send lost, no failed send stored, no INTERNAL answer and no
pts hole. The outage (no successful send) is printed.

docs/operations.md ("PostgreSQL failover") and docs/reliability.md say what each part does.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import time

import psycopg
import pytest

from tests.e2e import harness
from tests.e2e.test_faults import (
    FAST_REPAIR,
    Load,
    drop_redis_keys,
    group_of,
    live_telethon,
    pts_log_is_whole,
    wait_until,
)
from tests.support import pg_cluster

pytestmark = pytest.mark.django_db(transaction=True)

DB = "telesrv_failover"
# Seconds between losing the primary and promoting the standby.
PROMOTION_DELAY = 3.0


def _connect(port: int) -> str:
    return f"host=127.0.0.1 port={port} dbname=postgres user=postgres"


async def _wait_sync_standby(primary: pg_cluster.Cluster) -> None:
    """Once the standby streams, commits wait for it: an acknowledged send is then on
    both nodes (before, they would have waited for a standby that is not there yet)."""
    async with await psycopg.AsyncConnection.connect(_connect(primary.port), autocommit=True) as db:

        async def streaming():
            cur = await db.execute("SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'")
            return (await cur.fetchone())[0] > 0

        await wait_until(streaming, 30, "the standby to stream")
        await db.execute("ALTER SYSTEM SET synchronous_standby_names = '*'")
        await db.execute("SELECT pg_reload_conf()")

        async def synchronous():
            cur = await db.execute("SELECT count(*) FROM pg_stat_replication WHERE sync_state = 'sync'")
            return (await cur.fetchone())[0] > 0

        await wait_until(synchronous, 10, "the standby to be synchronous")


async def _client_sessions(port: int) -> int:
    async with await psycopg.AsyncConnection.connect(
        f"host=127.0.0.1 port={port} dbname={DB} user=postgres", autocommit=True
    ) as db:
        cur = await db.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()", (DB,)
        )
        return (await cur.fetchone())[0]


async def search_reads_the_standby(client, peer, standby: pg_cluster.Cluster) -> None:
    """messages.searchGlobal finds a message through the standby (replayed there
    within a moment) and the listener holds sessions on it."""
    from telethon import functions, types

    assert await _client_sessions(standby.port) == 0
    await client.send_message(peer, "findable before the failover")

    request = functions.messages.SearchGlobalRequest(
        q="findable", filter=types.InputMessagesFilterEmpty(), min_date=None, max_date=None,
        offset_rate=0, offset_peer=types.InputPeerEmpty(), offset_id=0, limit=10,
    )  # fmt: skip

    async def found():
        result = await client(request)
        return [m.message for m in result.messages] == ["findable before the failover"]

    await wait_until(found, 10, "search to find the message")
    assert await _client_sessions(standby.port) > 0


@pytest.fixture
def primary_and_standby(django_db_setup):
    from django.conf import settings

    reason = pg_cluster.unavailable()
    if reason:
        pytest.skip(reason)
    if not (pg_cluster._bindir() / "pg_basebackup").exists():
        pytest.skip("PostgreSQL's pg_basebackup is not installed")
    primary = pg_cluster.Cluster(harness.free_port())
    standby: pg_cluster.Cluster | None = None
    prefix = f"{os.environ.get('TELESRV_REDIS_PREFIX', 'telesrv')}-failover{os.getpid()}"
    sync = "-c synchronous_commit=on"
    try:
        primary.init()
        primary.start(sync)
        primary.create_database_like(DB, settings.DATABASES["default"])
        standby = pg_cluster.Cluster.standby_of(primary, harness.free_port())
        standby.start(sync)
        asyncio.run(_wait_sync_standby(primary))
        env = {
            "TELESRV_DB_HOSTS": f"127.0.0.1:{primary.port},127.0.0.1:{standby.port}",
            "TELESRV_DB_NAME": DB,
            # Lag-tolerant reads (search here) go to the standby while it is one.
            "TELESRV_DB_REPLICA_HOSTS": f"127.0.0.1:{standby.port}",
            "TELESRV_DB_CONNECT_TIMEOUT": "2",
            "TELESRV_REDIS_PREFIX": prefix,
            **FAST_REPAIR,
        }
        yield primary, standby, env
    finally:
        primary.destroy()
        if standby is not None:
            standby.destroy()
        drop_redis_keys(os.environ.get("TELESRV_REDIS_URL", "redis://127.0.0.1:6379/0"), prefix)


async def test_sends_follow_a_promoted_standby_and_lose_nothing(primary_and_standby, edge_rsa_key, tmp_path):
    primary, standby, env = primary_and_standby
    log = tmp_path / "edge.log"
    server = harness.start_edge(env, edge_rsa_key, log)
    clients = [live_telethon(server) for _ in range(2)]
    try:
        channel, peers = await group_of(clients, "failover")
        await search_reads_the_standby(clients[1], peers[0], standby)
        load = Load(clients, peers)
        load.start()
        await asyncio.sleep(2)
        assert load.ok, list(load.failed.values())[:3]
        await asyncio.to_thread(primary.stop, "immediate")  # the primary's machine is gone
        down = time.monotonic()
        # No primary at all while a failover manager would notice and decide: sends wait
        # (the dispatcher's retry) instead of failing.
        await asyncio.sleep(PROMOTION_DELAY)
        await asyncio.to_thread(standby.promote)
        promoted = time.monotonic()
        await asyncio.sleep(4)
        await load.stop()

        answered = sorted(t for _, t in load.ok.values())
        after = [t for t in answered if t > promoted]
        assert after, f"no send succeeded after the failover; failures: {list(load.failed.values())[:3]}"
        outage = max(b - a for a, b in itertools.pairwise(answered))
        print(
            f"\nfailover: primary down {promoted - down:.2f} s before the promotion; no successful send"
            f" for {outage:.2f} s; {len(load.ok)} sends acknowledged, {len(load.failed)} failed"
        )
        assert outage >= PROMOTION_DELAY * 0.9  # the sends did need the new primary
        assert after[0] - promoted < 5, after[0] - promoted
        # A failed send got a retryable error, never INTERNAL.
        assert not [f for f in load.failed.values() if "INTERNAL" in f], list(load.failed.values())[:3]

        async with await psycopg.AsyncConnection.connect(
            f"host=127.0.0.1 port={standby.port} dbname={DB} user=postgres", autocommit=True
        ) as db:
            cur = await db.execute("SELECT pg_is_in_recovery()")
            assert (await cur.fetchone())[0] is False
            cur = await db.execute(
                "SELECT message, id FROM channel_messages WHERE channel_id = %s", (channel.id,)
            )
            stored = dict(await cur.fetchall())
            # Every acknowledged send is on the new primary under the id it was given ...
            assert {t: stored.get(t) for t in load.ok} == {t: mid for t, (mid, _) in load.ok.items()}
            # ... and none reported as failed was stored after all.
            assert not set(load.failed) & set(stored)

            await wait_until(lambda: pts_log_is_whole(db, channel.id), 15, "the pts log to have no hole")
        # The clients carry on live through the new primary.
        for i, c in enumerate(clients):
            await asyncio.wait_for(c.send_message(peers[i], f"after the failover {i}"), 20)
    finally:
        for c in clients:
            await c.disconnect()
        server.stop()
