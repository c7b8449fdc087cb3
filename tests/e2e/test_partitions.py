"""A machine that vanishes without a reset, under send load: its network is cut (every
packet dropped in both directions inside its network namespace, tests/support/netns.py)
while the process keeps running, so its peers get no FIN and no RST; they learn only by
timing out. The kill tests (test_patroni_failover.py, test_redis_cluster.py,
test_testbed.py) close sockets; this one does not.

- PostgreSQL: two nodes managed by Patroni, each in its own namespace; the primary's is
  cut. Patroni promotes the standby once the leader lock expires; the listener's
  connections to the vanished node give up after ``TELESRV_DB_TCP_TIMEOUT``
  (tcp_user_timeout, keepalives) and new ones skip it after ``TELESRV_DB_CONNECT_TIMEOUT``.
- Redis: a cluster of 3 masters and 3 replicas, each node in its own namespace; the
  master of the group's counters is cut, then the one carrying the push channel. The
  replica is promoted after ``cluster-node-timeout``; commands in flight time out
  (``socket_timeout``) and are retried on the new master; a subscription that hears
  nothing is given up (``TELESRV_REDIS_SUBSCRIPTION_PING``) and made again.

Each test prints the promotion time, how long sends stalled and how long a new
connection takes to skip the vanished node, and asserts: the promotion happened, every
send a client got an answer for is in the history (and the difference) exactly once
under its id, no pts hole, sends resumed within the stated bounds, clients live again.
docs/reliability.md ("Partitions") holds the measured figures.
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
    group_of,
    live_telethon,
    pts_log_is_whole,
    stored_messages,
    wait_for_whole_pts_log,
    wait_until,
)
from tests.e2e.test_operations import get, health_url, sample
from tests.e2e.test_patroni_failover import DB, DifferenceFollower, SteadyLoad
from tests.support import netns, patroni_cluster
from tests.support.redis_cluster import RedisCluster
from tests.support.redis_cluster import unavailable as redis_unavailable

CONNECT_TIMEOUT = 2  # TELESRV_DB_CONNECT_TIMEOUT: a new connection's wait per silent node
TCP_TIMEOUT = 5  # TELESRV_DB_TCP_TIMEOUT: a connection's wait for a silent node
# Sends may stall this long: the leader lock's TTL (8 s here) and Patroni's loop until
# the promotion, then a connection's TCP timeout and a connect timeout, on a shared box.
PG_STALL_BOUND = 20.0
# After the promotion the listener is on the new primary within one connection's TCP
# timeout plus one connect timeout (plus the load of a shared 2-core box).
PG_RESUME_BOUND = TCP_TIMEOUT + CONNECT_TIMEOUT + 3.0
# Redis: cluster-node-timeout (1 s) and the election, then a command's socket timeout
# (5 s) and the client's retry.
REDIS_STALL_BOUND = 15.0
# Live pushes: a subscription on the cut master is given up after 2-3 PING intervals
# (TELESRV_REDIS_SUBSCRIPTION_PING, 2 s) and made again on the promoted replica.
REDIS_PUSH_GAP_BOUND = 15.0


def _require_netns() -> None:
    why = netns.unavailable()
    if why and os.geteuid() == 0 and "nft nor iptables" in why:
        subprocess.run(
            ["apt-get", "install", "-y", "nftables"], capture_output=True, timeout=600, check=False
        )
        why = netns.unavailable()
    if why:
        pytest.skip(why)


def _stall(answered: list[float], after: float) -> float:
    """The longest time without an acknowledged send, from the last one before ``after``."""
    gaps = [b - a for a, b in itertools.pairwise(sorted(answered)) if b > after]
    return max(gaps, default=0.0)


# --- PostgreSQL ------------------------------------------------------------------------


@pytest.fixture
def partitioned_ha():
    reason = patroni_cluster.unavailable()
    if reason:
        pytest.skip(reason)
    _require_netns()
    prefix = f"{os.environ.get('TELESRV_REDIS_PREFIX', 'telesrv')}-partition{os.getpid()}"
    with netns.Machines(["pg1", "pg2"]) as machines:
        cluster = patroni_cluster.HaCluster([harness.free_port() for _ in range(6)], machines)
        env = {
            "TELESRV_DB_HOSTS": cluster.hosts,
            "TELESRV_DB_NAME": DB,
            "TELESRV_DB_CONNECT_TIMEOUT": str(CONNECT_TIMEOUT),
            "TELESRV_DB_TCP_TIMEOUT": str(TCP_TIMEOUT),
            "TELESRV_REDIS_PREFIX": prefix,
            **FAST_REPAIR,
        }
        try:
            cluster.start()
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
            yield machines, cluster, env
        finally:
            for name in list(machines.cut):
                machines.heal(name)
            cluster.destroy()
            from tests.e2e.test_faults import drop_redis_keys

            drop_redis_keys(os.environ.get("TELESRV_REDIS_URL", "redis://127.0.0.1:6379/0"), prefix)


def _connect_seconds(cluster) -> float:
    """How long a new connection, as the listener makes them, takes to reach the primary
    while the first node in the list is silent."""
    hosts = ",".join(n.host for n in cluster.nodes)
    ports = ",".join(str(n.pg_port) for n in cluster.nodes)
    t0 = time.monotonic()
    with psycopg.connect(
        host=hosts,
        port=ports,
        dbname=DB,
        user="postgres",
        target_session_attrs="read-write",
        connect_timeout=CONNECT_TIMEOUT,
    ) as conn:
        conn.execute("SELECT 1")
    return time.monotonic() - t0


async def test_postgresql_primary_partitioned_under_load(partitioned_ha, edge_rsa_key, tmp_path):
    from telethon import events, functions

    machines, cluster, env = partitioned_ha
    old, new = cluster.nodes
    assert cluster.primary() is old
    server = harness.start_edge(env, edge_rsa_key, tmp_path / "edge.log")
    clients = [live_telethon(server) for _ in range(3)]
    try:
        channel, peers = await group_of(clients, "partition")
        full = await clients[2](functions.channels.GetFullChannelRequest(peers[2]))
        follower = DifferenceFollower(clients[2], peers[2], full.full_chat.pts)
        live: list[str] = []

        async def on_message(event):
            live.append(event.message.message)

        clients[1].add_event_handler(on_message, events.NewMessage())
        follower.start()
        load = SteadyLoad(clients[:2], peers[:2])
        load.start()
        await asyncio.sleep(3)
        assert load.ok, list(load.failed.values())[:3]

        machines.partition(old.name)  # the primary's machine is gone; its processes run on
        cut = time.monotonic()
        await asyncio.to_thread(cluster.wait, new.is_primary, 60, f"Patroni to promote {new.name}", new)
        promoted = time.monotonic()
        await wait_until(
            lambda: asyncio.sleep(0, [t for _, t in load.ok.values() if t > promoted]),
            30,
            "a send after promotion",
        )
        resumed = min(t for _, t in load.ok.values() if t > promoted)
        connect = await asyncio.to_thread(_connect_seconds, cluster)
        await asyncio.sleep(3)
        await load.stop()

        answered = [t for _, t in load.ok.values()]
        stall = _stall(answered, cut)
        print(
            f"\nPostgreSQL partition: {new.name} promoted {promoted - cut:.2f} s after {old.name}'s network was cut;"
            f" sends stalled {stall:.2f} s (bound {PG_STALL_BOUND:g});"
            f" first send on the new primary {resumed - promoted:.2f} s after the promotion"
            f" (bound {PG_RESUME_BOUND:g});"
            f" a new connection skips the silent node in {connect:.2f} s (connect timeout {CONNECT_TIMEOUT} s);"
            f" {len(load.ok)} sends acknowledged, {len(load.failed)} failed: {list(load.failed.values())[:3]}"
        )
        assert stall < PG_STALL_BOUND, stall
        assert resumed - promoted < PG_RESUME_BOUND
        assert CONNECT_TIMEOUT - 0.5 < connect < CONNECT_TIMEOUT + 3
        assert not [f for f in load.failed.values() if "INTERNAL" in f], list(load.failed.values())[:3]
        seen = (await asyncio.to_thread(get, health_url(server, "/metrics")))[1]
        assert sample(seen, "telesrv_db_node_info", alias="default", node=new.address, role="primary") == 1

        # Live again, and every acknowledged send is there exactly once under its id.
        await asyncio.wait_for(clients[0].send_message(peers[0], "live after the partition"), 30)
        await wait_until(lambda: asyncio.sleep(0, "live after the partition" in live), 30, "the live update")
        await follower.finish()
        acknowledged = {text: mid for text, (mid, _) in load.ok.items()}
        assert not [e for e in follower.errors if "INTERNAL" in e or "TooLong" in e], follower.errors[:3]
        in_difference = collections.Counter(text for _, text in follower.messages)
        assert {t: in_difference[t] for t in acknowledged} == dict.fromkeys(acknowledged, 1)
        assert {t: mid for mid, t in follower.messages if t in acknowledged} == acknowledged
        history = [(m.id, m.message) async for m in clients[1].iter_messages(peers[1], limit=None)]
        assert {t: mid for mid, t in history if t in acknowledged} == acknowledged
        assert not set(load.failed) & {t for _, t in history}
        conninfo = f"host={new.host} port={new.pg_port} dbname={DB} user=postgres"
        async with await psycopg.AsyncConnection.connect(conninfo, autocommit=True) as db:
            await wait_until(lambda: pts_log_is_whole(db, channel.id), 15, "the pts log to have no hole")
            cur = await db.execute("SELECT pts FROM channels WHERE id = %s", (channel.id,))
            # The client that followed by differences reached the channel's pts.
            assert follower.pts == (await cur.fetchone())[0]
    finally:
        for c in clients:
            await c.disconnect()
        server.stop()


# --- Redis Cluster ---------------------------------------------------------------------


@pytest.fixture
def partitioned_redis():
    why = redis_unavailable()
    if why:
        pytest.skip(why)
    _require_netns()
    with netns.Machines([f"r{i}" for i in range(1, 7)]) as machines:
        cluster = RedisCluster(ports=[25100 + i for i in range(6)], machines=machines)
        try:
            yield cluster.start()
        finally:
            for port in list(cluster.cut):
                cluster.heal(port)
            cluster.stop()


@pytest.mark.django_db(transaction=True)
async def test_redis_master_partitioned_under_load(
    partitioned_redis, edge_env, edge_rsa_key, edge_db, tmp_path
):
    from telethon import events

    cluster = partitioned_redis
    prefix = f"{os.environ.get('TELESRV_REDIS_PREFIX', 'telesrv')}-rpart{os.getpid()}"
    env = {**edge_env, **FAST_REPAIR, "TELESRV_REDIS_URL": cluster.url, "TELESRV_REDIS_PREFIX": prefix}
    env["TELESRV_CHANNEL_DB_POOL"] = "4"
    servers = [harness.start_edge(env, edge_rsa_key, tmp_path / f"edge{i}.log") for i in range(2)]
    clients = [live_telethon(servers[i]) for i in (0, 0, 1)]
    try:
        channel, peers = await group_of(clients, "redis partition")
        seen: list[list[str]] = [[] for _ in clients]
        heard: list[list[float]] = [[] for _ in clients]  # when each live message came
        for i, c in enumerate(clients):

            async def on_message(event, i=i):
                seen[i].append(event.message.message)
                heard[i].append(time.monotonic())

            c.add_event_handler(on_message, events.NewMessage())

        group_master = cluster.master_of_key(f"{prefix}:counter:channel_pts:{{c:{channel.id}}}")
        push_master = cluster.master_of_key(f"{prefix}:edge:push")
        load = Load(clients, peers)
        load.start()
        await asyncio.sleep(2)
        assert load.ok, list(load.failed.values())[:3]
        report, cuts = [], []
        for owner in dict.fromkeys([group_master, push_master]):
            cluster.remember_masters()
            cluster.partition(owner)
            cut = time.monotonic()
            cuts.append(cut)
            promoted_port = await asyncio.to_thread(cluster.wait_promoted, owner)
            report.append(
                f"master {owner} ({'counters' if owner == group_master else 'push'}) cut,"
                f" replica {promoted_port} promoted after {time.monotonic() - cut:.2f} s"
            )
            await asyncio.sleep(REDIS_STALL_BOUND)
        stopping = time.monotonic()
        await load.stop()
        answered = [t for _, t in load.ok.values()]
        stall = _stall(answered, cuts[0])
        # The others' sends never stop, so a client that hears nothing for a while is
        # one whose listener's subscription hangs on the cut master.
        push_gap = max(_stall([t for t in h if t < stopping], cuts[0]) for h in heard)
        print(
            f"\nRedis partition: {'; '.join(report)}; sends stalled {stall:.2f} s (bound {REDIS_STALL_BOUND:g});"
            f" live pushes stopped for {push_gap:.2f} s at most (bound {REDIS_PUSH_GAP_BOUND:g});"
            f" {len(load.ok)} sends acknowledged, {len(load.failed)} failed: {list(load.failed.values())[:3]}"
        )
        assert any(t > cuts[-1] for t in answered), "no send succeeded after the partition"
        assert stall < REDIS_STALL_BOUND, stall
        assert push_gap < REDIS_PUSH_GAP_BOUND, push_gap
        assert not [f for f in load.failed.values() if "INTERNAL" in f], list(load.failed.values())[:3]

        stored = await stored_messages(channel.id)
        assert {t: stored.get(t) for t in load.ok} == {t: mid for t, (mid, _) in load.ok.items()}
        assert len(set(stored.values())) == len(stored)

        await wait_for_whole_pts_log(channel.id)

        # Everyone live again on both listeners: the push subscriptions on the cut
        # master were given up and made again on the promoted one.
        for i, c in enumerate(clients):
            await asyncio.wait_for(c.send_message(peers[i], f"after the partition {i}"), 30)
        for i in range(len(clients)):
            others = [f"after the partition {j}" for j in range(len(clients)) if j != i]

            async def has_all(i=i, others=others):
                return all(t in seen[i] for t in others)

            await wait_until(has_all, 40, f"client {i} to receive the others' messages")
    finally:
        for c in clients:
            await c.disconnect()
        for s in servers:
            s.stop()


# --- One Redis (the default deployment) --------------------------------------------------

# A command to a Redis cut off without a reset fails after the client's socket_timeout
# (5 s, edge_app/redis_conn.py), so a send is answered (INTERNAL) instead of hanging
# until the network returns; a send meets at most two such timeouts (its allocation or
# flood check, its publish), plus the load of a shared box.
SINGLE_REDIS_ANSWER_BOUND = 2 * 5.0 + 5.0
SINGLE_REDIS_CUT = 25.0


class TimedLoad(Load):
    """Load that notes when each failed send was answered."""

    def __init__(self, clients, peers) -> None:
        super().__init__(clients, peers)
        self.failed_at: list[float] = []

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
                self.failed_at.append(time.monotonic())
                await asyncio.sleep(0.2)


@pytest.fixture
def partitioned_single_redis(tmp_path):
    why = redis_unavailable()
    if why:
        pytest.skip(why)
    _require_netns()
    with netns.Machines(["rs"]) as machines:
        host, port = machines.address("rs"), 25200
        cmd = ["redis-server", "--port", str(port), "--bind", host, "--save", "", "--appendonly", "no"]
        cmd += ["--protected-mode", "no", "--dir", str(tmp_path), "--logfile", str(tmp_path / "redis.log")]
        proc = subprocess.Popen(
            machines.wrap("rs", cmd), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        try:
            deadline = time.monotonic() + 20
            while (
                subprocess.run(
                    ["redis-cli", "-h", host, "-p", str(port), "ping"], capture_output=True, text=True
                ).stdout.strip()
                != "PONG"
            ):
                assert time.monotonic() < deadline, "redis-server did not start"
                time.sleep(0.1)
            yield machines, f"redis://{host}:{port}/0"
        finally:
            machines.heal("rs")
            proc.kill()
            proc.wait(10)


@pytest.mark.django_db(transaction=True)
async def test_single_redis_partitioned_answers_and_recovers(
    partitioned_single_redis, edge_env, edge_rsa_key, edge_db, tmp_path
):
    machines, url = partitioned_single_redis
    prefix = f"{os.environ.get('TELESRV_REDIS_PREFIX', 'telesrv')}-rsingle{os.getpid()}"
    env = {**edge_env, **FAST_REPAIR, "TELESRV_REDIS_URL": url, "TELESRV_REDIS_PREFIX": prefix}
    server = harness.start_edge(env, edge_rsa_key, tmp_path / "edge.log")
    clients = [live_telethon(server) for _ in range(2)]
    try:
        channel, peers = await group_of(clients, "single redis partition")
        load = TimedLoad(clients, peers)
        load.start()
        await asyncio.sleep(2)
        assert load.ok, list(load.failed.values())[:3]
        machines.partition("rs")
        cut = time.monotonic()
        await asyncio.sleep(SINGLE_REDIS_CUT)
        machines.heal("rs")
        healed = time.monotonic()
        await wait_until(
            lambda: asyncio.sleep(0, [t for _, t in load.ok.values() if t > healed]),
            30,
            "a send after healing",
        )
        resumed = min(t for _, t in load.ok.values() if t > healed)
        await load.stop()
        answered_during = [t for t in load.failed_at if cut < t < healed]
        first_answer = min(answered_during, default=float("inf")) - cut
        print(
            f"\nsingle Redis partition: first send answered (an error) {first_answer:.2f} s after the cut"
            f" (bound {SINGLE_REDIS_ANSWER_BOUND:g}); {len(answered_during)} sends refused during the"
            f" {SINGLE_REDIS_CUT:g} s cut;"
            f" sends resumed {resumed - healed:.2f} s after the network came back;"
            f" {len(load.ok)} acknowledged, {len(load.failed)} failed"
        )
        # Sends were answered during the cut, not held until it ended.
        assert first_answer < SINGLE_REDIS_ANSWER_BOUND, first_answer
        assert resumed - healed < 10
        stored = await stored_messages(channel.id)
        assert {t: stored.get(t) for t in load.ok} == {t: mid for t, (mid, _) in load.ok.items()}
        # A send whose commit came before the cut and whose publish met it is stored
        # but answered with an error: the client's retry (same random_id) returns it.
        print(f"failed sends stored anyway: {len(set(load.failed) & set(stored))}")
    finally:
        for c in clients:
            await c.disconnect()
        server.stop()
