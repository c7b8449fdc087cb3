"""Two real listeners on a Redis Cluster (3 masters, 3 replicas of Debian's redis-server,
``TELESRV_REDIS_URL=redis+cluster://...``): Telethon users on both listeners chat live
in a supergroup while the master that holds the group's counters is killed (SIGKILL),
then the one that carries the push channel (when that is another); each replica is
promoted, the sends wait through the failover, the listeners follow the
slots to the new master, and afterwards: every acknowledged message is stored under the
id it was given, no id or pts was handed out twice, the pts log has no hole, and
everyone gets the others' new messages live again.

docs/operations.md ("Redis Cluster") says what each part does.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import time

import pytest

from tests.e2e import harness
from tests.e2e.test_faults import (
    FAST_REPAIR,
    Load,
    group_of,
    live_telethon,
    stored_messages,
    wait_for_whole_pts_log,
    wait_until,
)
from tests.support.redis_cluster import fresh_redis_cluster  # noqa: F401

pytestmark = pytest.mark.django_db(transaction=True)


async def test_users_on_two_listeners_chat_through_a_master_failover(
    fresh_redis_cluster,  # noqa: F811
    edge_env,
    edge_rsa_key,
    edge_db,
    tmp_path,
):
    from telethon import events

    from channels_app.models import ChannelUpdateEvent

    cluster = fresh_redis_cluster
    prefix = f"{os.environ.get('TELESRV_REDIS_PREFIX', 'telesrv')}-cluster{os.getpid()}"
    env = {**edge_env, **FAST_REPAIR, "TELESRV_REDIS_URL": cluster.url, "TELESRV_REDIS_PREFIX": prefix}
    env["TELESRV_CHANNEL_DB_POOL"] = "4"  # two listeners on a shared PostgreSQL
    servers = [harness.start_edge(env, edge_rsa_key, tmp_path / f"edge{i}.log") for i in range(2)]
    # Two users on the first listener, one on the second.
    clients = [live_telethon(servers[i]) for i in (0, 0, 1)]
    try:
        channel, peers = await group_of(clients, "cluster")
        seen: list[list[str]] = [[] for _ in clients]
        for i, c in enumerate(clients):

            async def on_message(event, i=i):
                seen[i].append(event.message.message)

            c.add_event_handler(on_message, events.NewMessage())

        # Live before the failover, across listeners.
        await clients[2].send_message(peers[2], "hello from the second listener")

        async def first_heard():
            return all("hello from the second listener" in s for s in seen[:2])

        await wait_until(first_heard, 20, "the first listener's users to hear the second's")

        group_master = cluster.master_of_key(f"{prefix}:counter:channel_pts:{{c:{channel.id}}}")
        push_master = cluster.master_of_key(f"{prefix}:edge:push")  # the sharded push channel
        load = Load(clients, peers)
        load.start()
        await asyncio.sleep(2)
        assert load.ok, list(load.failed.values())[:3]
        report = []
        for owner in dict.fromkeys([group_master, push_master]):
            cluster.remember_masters()
            cluster.kill(owner)  # the machine of the master is gone
            down = time.monotonic()
            promoted_port = await asyncio.to_thread(cluster.wait_promoted, owner)
            promoted = time.monotonic()
            report.append(
                f"master {owner} killed, replica {promoted_port} promoted after {promoted - down:.2f} s"
            )
            await asyncio.sleep(4)
        await load.stop()
        answered = sorted(t for _, t in load.ok.values())
        after = [t for t in answered if t > promoted]
        assert after, f"no send succeeded after the failover; failures: {list(load.failed.values())[:3]}"
        outage = max(b - a for a, b in itertools.pairwise(answered))
        print(
            f"\nRedis failover: {'; '.join(report)}; no successful send for {outage:.2f} s at most;"
            f" {len(load.ok)} sends acknowledged, {len(load.failed)} failed"
        )
        # Sends waited through the failover rather than failing.
        assert not load.failed, list(load.failed.values())[:3]

        stored = await stored_messages(channel.id)
        # Every acknowledged send is stored under the id it was given; no id twice.
        assert {t: stored.get(t) for t in load.ok} == {t: mid for t, (mid, _) in load.ok.items()}
        assert len(set(stored.values())) == len(stored)

        await wait_for_whole_pts_log(channel.id)
        rows = [
            r
            async for r in ChannelUpdateEvent.objects.filter(channel_id=channel.id).values_list(
                "pts", "pts_count"
            )
        ]
        covered = [p for pts, n in rows for p in range(pts - n + 1, pts + 1)]
        assert len(covered) == len(set(covered))  # no pts given to two events

        # Everyone is live again, across both listeners.
        for i, c in enumerate(clients):
            await asyncio.wait_for(c.send_message(peers[i], f"after the failover {i}"), 30)
        for i in range(len(clients)):
            others = [f"after the failover {j}" for j in range(len(clients)) if j != i]

            async def has_all(i=i, others=others):
                return all(t in seen[i] for t in others)

            await wait_until(has_all, 30, f"client {i} to receive the others' messages")
    finally:
        for c in clients:
            await c.disconnect()
        for s in servers:
            s.stop()
