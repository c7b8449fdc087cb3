"""The primary's machine lost under load, with Patroni and etcd deciding the failover:
two PostgreSQL nodes managed by Patroni (synchronous mode, pg_rewind), the telesrv
schema migrated into the cluster through TELESRV_DB_HOSTS, the real listener on both
nodes, Telethon clients sending into a supergroup at a steady rate while a third follows
it with updates.getChannelDifference. Patroni and PostgreSQL of the primary's node are
killed with SIGKILL; Patroni promotes the standby once the leader lock expires.

Afterwards every acknowledged send is present exactly once, under the id it was given, in
the history and in the difference; no failed send was stored; no pts hole; the clients
carry on live. The time without a successful send is printed (target: under 15 s). Then
the old node's Patroni is started again: pg_rewind makes it a standby of the new primary,
and it becomes the synchronous one again. Patroni's /metrics shows each step.

tests/support/patroni_cluster.py builds the cluster; docs/operations.md ("High
availability with Patroni") is its production form.
"""

from __future__ import annotations

import asyncio
import collections
import itertools
import os
import subprocess
import sys
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
from tests.e2e.test_operations import get, health_url, sample
from tests.support import patroni_cluster

DB = "telesrv_ha"
# Seconds between two sends of one client: a steady load, not a storm (the point is what
# happens to each send, not how many there are).
SEND_INTERVAL = 0.1
# What the listener's retry of a request that lost its database covers
# (edge_app/dispatcher.DB_RETRY_SECONDS): a longer outage fails sends.
RETRY_WINDOW = 20.0
TARGET_OUTAGE = 15.0


class SteadyLoad(Load):
    async def _run(self, i: int) -> None:
        n = 0
        while not self._stop.is_set():
            text = f"c{i}-{n}-{os.getpid()}"
            n += 1
            try:
                m = await asyncio.wait_for(self.clients[i].send_message(self.peers[i], text), 40)
                self.ok[text] = (m.id, time.monotonic())
                await asyncio.sleep(SEND_INTERVAL)
            except Exception as exc:
                self.failed[text] = repr(exc)
                await asyncio.sleep(0.2)


class DifferenceFollower:
    """A client that keeps up with the channel by updates.getChannelDifference alone,
    through the failover (the listener retries it while the database is away)."""

    def __init__(self, client, peer, pts: int) -> None:
        self.client, self.peer, self.pts = client, peer, pts
        self.messages: list[tuple[int, str]] = []
        self.errors: list[str] = []
        self._stop = asyncio.Event()
        self._task: asyncio.Task | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run())

    async def _page(self):
        from telethon import functions, types

        return await self.client(
            functions.updates.GetChannelDifferenceRequest(
                channel=self.peer,
                filter=types.ChannelMessagesFilterEmpty(),
                pts=self.pts,
                limit=100,
                force=True,
            )
        )

    async def _run(self) -> None:
        from telethon import types

        while True:
            try:
                page = await self._page()
            except Exception as exc:
                self.errors.append(repr(exc))
                await asyncio.sleep(0.5)
                continue
            if isinstance(page, types.updates.ChannelDifferenceTooLong):
                self.errors.append(f"channelDifferenceTooLong at pts {self.pts}")
                return
            if isinstance(page, types.updates.ChannelDifference):
                self.messages += [(m.id, m.message) for m in page.new_messages]
            self.pts = page.pts
            if page.final:
                if self._stop.is_set():
                    return
                await asyncio.sleep(0.3)

    async def finish(self) -> None:
        """One last catch-up to the channel's current pts, then stop."""
        self._stop.set()
        await asyncio.wait_for(self._task, 60)


def _metric(node: patroni_cluster.PatroniNode, name: str) -> float | None:
    """One of Patroni's /metrics gauges (what Prometheus scrapes from each node)."""
    try:
        text = patroni_cluster.http_text(f"{node.rest}/metrics")
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith(f"{name}{{"):
            return float(line.rsplit(" ", 1)[1])
    return None


def _conninfo(node: patroni_cluster.PatroniNode) -> str:
    return f"host=127.0.0.1 port={node.pg_port} dbname={DB} user=postgres"


async def _listener_metrics(server) -> str:
    status, text = await asyncio.to_thread(get, health_url(server, "/metrics"))
    assert status == 200
    return text


async def _sync_standbys(primary: patroni_cluster.PatroniNode) -> list[str]:
    async with await psycopg.AsyncConnection.connect(_conninfo(primary), autocommit=True) as db:
        cur = await db.execute("SELECT application_name FROM pg_stat_replication WHERE sync_state = 'sync'")
        return [r[0] for r in await cur.fetchall()]


@pytest.fixture
def ha_cluster():
    reason = patroni_cluster.unavailable()
    if reason:
        pytest.skip(reason)
    cluster = patroni_cluster.HaCluster([harness.free_port() for _ in range(6)])
    prefix = f"{os.environ.get('TELESRV_REDIS_PREFIX', 'telesrv')}-patroni{os.getpid()}"
    env = {
        "TELESRV_DB_HOSTS": cluster.hosts,
        "TELESRV_DB_NAME": DB,
        # Lag-tolerant reads go to whichever node is the standby (libpq's prefer-standby).
        "TELESRV_DB_REPLICA_HOSTS": cluster.hosts,
        "TELESRV_DB_CONNECT_TIMEOUT": "2",
        "TELESRV_REDIS_PREFIX": prefix,
        **FAST_REPAIR,
    }
    try:
        cluster.start()
        # The deployment's own steps, through the host list: the database is created and
        # migrated on whichever node is the primary.
        migrate_env = {**os.environ, **env}
        migrate_env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        for step in (["-m", "telesrv_project.database"], ["manage.py", "migrate", "--noinput"]):
            subprocess.run(
                [sys.executable, *step],
                cwd=harness.ROOT,
                env=migrate_env,
                check=True,
                capture_output=True,
                timeout=300,
            )
        yield cluster, env
    finally:
        cluster.destroy()
        drop_redis_keys(os.environ.get("TELESRV_REDIS_URL", "redis://127.0.0.1:6379/0"), prefix)


async def test_patroni_failover_loses_nothing_and_the_old_primary_rejoins(ha_cluster, edge_rsa_key, tmp_path):
    from telethon import events, functions

    cluster, env = ha_cluster
    old, new = cluster.nodes
    assert cluster.primary() is old and cluster.role_of(new) == "sync_standby"
    assert await _sync_standbys(old) == [new.name]
    assert _metric(old, "patroni_primary") == 1 and _metric(new, "patroni_sync_standby") == 1

    server = harness.start_edge(env, edge_rsa_key, tmp_path / "edge.log")
    clients = [live_telethon(server) for _ in range(3)]
    try:
        channel, peers = await group_of(clients, "patroni failover")
        full = await clients[2](functions.channels.GetFullChannelRequest(peers[2]))
        follower = DifferenceFollower(clients[2], peers[2], full.full_chat.pts)
        live: list[str] = []

        async def on_message(event):
            live.append(event.message.message)

        clients[1].add_event_handler(on_message, events.NewMessage())
        # The listener's own view: its primary connection on pg1, lag-tolerant reads on
        # the standby pg2, which streams synchronously.
        seen = await _listener_metrics(server)
        assert sample(seen, "telesrv_db_node_info", alias="default", node=old.address, role="primary") == 1
        assert sample(seen, "telesrv_db_node_info", alias="replica", node=new.address, role="standby") == 1
        assert sample(seen, "telesrv_db_standbys", sync_state="sync") == 1
        assert sample(seen, "telesrv_db_replay_lag_bytes", standby=new.name, sync_state="sync") is not None
        follower.start()
        load = SteadyLoad(clients[:2], peers[:2])
        load.start()
        await asyncio.sleep(3)
        assert load.ok, list(load.failed.values())[:3]

        await asyncio.to_thread(old.lose_machine)
        down = time.monotonic()
        await asyncio.to_thread(cluster.wait, new.is_primary, 60, f"Patroni to promote {new.name}", new)
        promoted = time.monotonic()
        # Sends carry on through the new primary (the listener finds it by
        # target_session_attrs=read-write), then the load stops.
        await wait_until(
            lambda: asyncio.sleep(0, [t for _, t in load.ok.values() if t > promoted]),
            30,
            "a send after promotion",
        )
        await asyncio.sleep(3)
        await load.stop()

        answered = sorted(t for _, t in load.ok.values())
        outage = max(b - a for a, b in itertools.pairwise(answered))
        print(
            f"\npatroni failover: {new.name} promoted {promoted - down:.2f} s after {old.name} was killed;"
            f" no successful send for {outage:.2f} s (target {TARGET_OUTAGE:g} s);"
            f" {len(load.ok)} sends acknowledged, {len(load.failed)} failed: {list(load.failed.values())[:3]}"
        )
        assert any(a < down for a in answered) and any(t > promoted for t in answered)
        assert outage < RETRY_WINDOW, outage
        # What a client saw of the failover: its sends waited, or failed with an error it
        # may retry; never INTERNAL.
        assert not [f for f in load.failed.values() if "INTERNAL" in f], list(load.failed.values())[:3]
        # Patroni's metrics tell the failover: the new leader, on a new timeline.
        assert _metric(new, "patroni_primary") == 1
        assert _metric(new, "patroni_postgres_timeline") == 2
        seen = await _listener_metrics(server)
        assert sample(seen, "telesrv_db_node_info", alias="default", node=new.address, role="primary") == 1
        # No request of any client (sends, the follower's differences, Telethon's own
        # calls) was answered INTERNAL.
        assert not [
            line
            for line in seen.splitlines()
            if line.startswith("telesrv_rpc_calls_total{") and 'error="INTERNAL"' in line
        ]
        assert sample(seen, "telesrv_db_standbys", sync_state="sync") == 0  # one machine holds the data

        # The clients carry on live: a send after the failover is pushed to the other one.
        await asyncio.wait_for(clients[0].send_message(peers[0], "live after the failover"), 20)
        await wait_until(lambda: asyncio.sleep(0, "live after the failover" in live), 20, "the live update")
        await follower.finish()

        acknowledged = {text: mid for text, (mid, _) in load.ok.items()}
        # Every acknowledged send exactly once in the difference, under its id, and
        # nothing that failed.
        assert not [e for e in follower.errors if "INTERNAL" in e or "TooLong" in e], follower.errors[:3]
        in_difference = collections.Counter(text for _, text in follower.messages)
        assert {t: in_difference[t] for t in acknowledged} == dict.fromkeys(acknowledged, 1)
        ids = {text: mid for mid, text in follower.messages}
        assert {t: ids[t] for t in acknowledged} == acknowledged
        assert not set(load.failed) & set(in_difference)
        # ... and in the history.
        history = [(m.id, m.message) async for m in clients[1].iter_messages(peers[1], limit=None)]
        in_history = collections.Counter(text for _, text in history)
        assert {t: in_history[t] for t in acknowledged} == dict.fromkeys(acknowledged, 1)
        assert {t: mid for mid, t in history if t in acknowledged} == acknowledged
        assert not set(load.failed) & set(in_history)

        async with await psycopg.AsyncConnection.connect(_conninfo(new), autocommit=True) as db:
            await wait_until(lambda: pts_log_is_whole(db, channel.id), 15, "the pts log to have no hole")

        # The old primary's machine comes back: Patroni rewinds it and it follows the new
        # primary, synchronously again.
        await asyncio.to_thread(old.start)
        back = time.monotonic()
        await asyncio.to_thread(cluster.wait_synchronous, old, 120)
        print(
            f"patroni rejoin: {old.name} the synchronous standby {time.monotonic() - back:.2f} s after its restart"
        )
        assert cluster.primary() is new
        assert await _sync_standbys(new) == [old.name]
        assert _metric(old, "patroni_replica") == 1 and _metric(old, "patroni_sync_standby") == 1
        seen = await _listener_metrics(server)
        assert sample(seen, "telesrv_db_standbys", sync_state="sync") == 1
        assert sample(seen, "telesrv_db_node_info", alias="replica", node=old.address, role="standby") == 1
        # A send now commits on both machines, and the rejoined node holds every
        # acknowledged one.
        last = await asyncio.wait_for(clients[0].send_message(peers[0], "on two machines again"), 20)
        async with await psycopg.AsyncConnection.connect(_conninfo(old), autocommit=True) as db:

            async def replayed():
                cur = await db.execute(
                    "SELECT message, id FROM channel_messages WHERE channel_id = %s", (channel.id,)
                )
                return dict(await cur.fetchall())

            stored = await wait_until(
                lambda: replayed_with(replayed, last.id), 15, "the rejoined standby to replay the last send"
            )
            assert {t: stored.get(t) for t in acknowledged} == acknowledged
    finally:
        for c in clients:
            await c.disconnect()
        server.stop()


async def replayed_with(read, message_id: int):
    stored = await read()
    return stored if message_id in stored.values() else None
