"""Every Redis user of telesrv against a real Redis Cluster (3 masters, 3 replicas of
Debian's redis-server, tests/support/redis_cluster.py): the counters and their journal,
ordered push, the bots' keys and flood limits, sharded pub/sub; and a master lost
(SIGKILL) while a channel keeps sending: its replica takes over, the allocation waits
through the failover instead of failing, and the promoted counters are checked against
PostgreSQL before they count on (a replica may lag its master), so no pts or message id
is handed out twice."""

from __future__ import annotations

import asyncio
import os
import time

import pytest
from redis.crc import key_slot

from bots_app import flood
from channels_app import actions, counters
from edge_app import presence, push, push_order, redis_conn
from message_core import db
from tests.bots_app import test_flood, test_inline_cache
from tests.channels_app import test_counters
from tests.edge_app.test_push import FakeEdge, FakeSession, wait_for
from tests.support.redis_cluster import fresh_redis_cluster, redis_cluster, use_cluster  # noqa: F401

A, B = 71, 72


@pytest.fixture
async def on_cluster(redis_cluster, settings):  # noqa: F811
    use_cluster(settings, redis_cluster)
    yield redis_cluster
    await redis_conn.close_client()
    redis_conn.reset()


@pytest.fixture
async def cluster_edge(on_cluster, monkeypatch):
    """A push subscriber (on the cluster) with a few fake sessions, whose users' presence
    it holds (targeted delivery)."""
    monkeypatch.setattr(presence, "_channel_lookup", None)  # the fake users are in no channel
    sessions = [FakeSession(1, 100, 1), FakeSession(2, 200, 1)]
    edge = FakeEdge(sessions)
    ready = asyncio.Event()
    task = asyncio.create_task(push.run_subscriber(edge, ready))
    await asyncio.wait_for(ready.wait(), 10)
    for user_id in edge.online_user_ids():  # what the session manager's hook does
        presence.user_online(user_id)
        await presence.settled(user_id)
    yield edge
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


def test_the_url_selects_the_cluster(on_cluster):
    assert redis_conn.is_cluster()
    seeds, _ = redis_conn.cluster_seeds()
    assert seeds == [("127.0.0.1", p) for p in on_cluster.ports]


def test_the_keys_of_one_channel_share_a_slot(on_cluster):
    cid = 1_000_000_123
    keys = [counters.msg_id_key(cid), counters.pts_key(cid), counters.pending_key(cid)]
    keys += [counters.fence_key(counters.pts_key(cid)), *push_order._keys(cid)]
    assert len({key_slot(k.encode()) for k in keys}) == 1
    # ... and channels spread over the slots (not one hot shard for every counter).
    slots = {key_slot(counters.pts_key(c).encode()) for c in range(cid, cid + 50)}
    assert len(slots) > 40


async def test_counters_are_gapless_under_concurrency(on_cluster, chan):
    await test_counters.test_counter_ranges_are_contiguous_and_gapless_under_concurrency(chan)


async def test_a_lost_counter_recovers_from_postgresql(on_cluster, chan):
    await test_counters.test_counter_recovers_from_postgres_when_redis_lost_the_key(chan)


async def test_sends_allocate_journal_and_settle_on_the_cluster(on_cluster, chan):
    cid = (await actions.do_create_channel(A, "g", megagroup=True, invite_user_ids=[B])).channel["id"]
    sent = [(await actions.do_send_message(A, cid, f"m{i}", random_id=i)).events[0] for i in range(1, 6)]
    assert [e.pts for e in sent] == list(range(sent[0].pts, sent[0].pts + 5))
    await asyncio.sleep(counters.SETTLE_DELAY * 4)
    assert await counters.pending(0, cid) == []  # settled
    # An allocation whose writer died is found by the repair scan, through the index.
    await counters.next_pts(cid)
    found = await counters.pending(0)
    assert [(c, n) for c, _, n in found] == [(cid, 1)]
    await counters.settle(cid, [counters.pending_member(found[0][1], 1)])
    assert await counters.pending(0) == []
    assert await redis_conn.client().zscore(counters.pending_index_key(), str(cid)) is None


async def test_events_are_published_in_pts_order(cluster_edge):
    got: list = []

    async def handler(payload, _edge):
        got.append(payload["pts"])

    push._subscribers["test.ordered"] = [handler]
    try:
        stream = int.from_bytes(os.urandom(3), "big")  # a channel user 1 is online in
        await presence.add_channels(1, [stream])
        await push_order.publish_in_order(stream, 0, 1, "test.ordered", {"pts": 1})
        await push_order.publish_in_order(stream, 2, 3, "test.ordered", {"pts": 3})
        await asyncio.sleep(0.2)
        assert got == [1]
        await push_order.publish_in_order(stream, 1, 2, "test.ordered", {"pts": 2})
        await wait_for(lambda: len(got) == 3)
        assert got == [1, 2, 3]
    finally:
        push._subscribers.pop("test.ordered", None)


async def test_push_reaches_the_users_sessions(cluster_edge):
    seen = []

    @push.renderer("test.cluster_render")
    async def render(payload, viewer):
        return ("rendered", payload["n"], viewer)

    try:
        await push.push_to_users([1, 2], "test.cluster_render", {"n": 7})
        await wait_for(lambda: cluster_edge.sessions[0].pushed and cluster_edge.sessions[1].pushed)
        seen = [s.pushed for s in cluster_edge.sessions]
    finally:
        push._renderers.pop("test.cluster_render", None)
    assert seen == [[("rendered", 7, 1)], [("rendered", 7, 2)]]


async def test_sharded_messages_follow_each_channel_to_its_shard(on_cluster):
    channels = [f"{redis_conn.key_prefix()}:test:{i}" for i in range(12)]
    assert len({on_cluster.master_of_key(c) for c in channels}) == 3  # all shards involved
    ready = asyncio.Event()
    got: list = []

    async def listen():
        async for channel, data in redis_conn.sharded_messages(channels, ready):
            got.append((channel, data))
            if len(got) == len(channels):
                return

    task = asyncio.create_task(listen())
    await asyncio.wait_for(ready.wait(), 10)
    for c in channels:
        await redis_conn.spublish(c, c.encode())
    await asyncio.wait_for(task, 10)
    assert sorted(got) == sorted((c, c.encode()) for c in channels)


async def test_bot_flood_limits(on_cluster, settings):
    settings.BOT_FLOOD_PER_SECOND = 3
    settings.BOT_FLOOD_GROUP_PER_MINUTE = 4
    await test_flood.test_per_second_limit_answers_flood_wait(settings)
    await test_flood.test_per_group_minute_limit_waits_for_the_minute_to_end(settings)
    assert flood.per_second() == 3


async def test_inline_answer_cache(on_cluster, transactional_db):
    await test_inline_cache.test_a_shared_answer_serves_every_user_for_the_same_query_offset_and_chat_type()
    await test_inline_cache.test_a_personal_answer_serves_its_user_only()


async def test_rebuild_redis_state_on_the_cluster(on_cluster, chan):
    from tests.channels_app.test_rebuild_redis_state import rebuild

    cid = (await actions.do_create_channel(A, "g", megagroup=True)).channel["id"]
    last = (await actions.do_send_message(A, cid, "m", random_id=1)).events[0]
    client = redis_conn.client()
    await client.set(counters.pts_key(cid), last.pts + 50)
    from asgiref.sync import sync_to_async

    done = await sync_to_async(rebuild)("--yes")
    assert "set the counters of" in done
    assert int(await client.get(counters.pts_key(cid))) == last.pts
    nxt = (await actions.do_send_message(A, cid, "after", random_id=2)).events[0]
    assert nxt.pts == last.pts + 1


async def test_a_master_lost_mid_sends_hands_out_nothing_twice(fresh_redis_cluster, settings, chan):  # noqa: F811
    cluster = fresh_redis_cluster
    use_cluster(settings, cluster)
    try:
        cid = (await actions.do_create_channel(A, "g", megagroup=True, invite_user_ids=[B])).channel["id"]
        cluster.remember_masters()
        owner = cluster.master_of_key(counters.pts_key(cid))
        recoveries: list[str] = []
        real_recover = counters._recover

        async def counted(key):
            recoveries.append(key)
            return await real_recover(key)

        counters._recover = counted
        results: list = []
        stop = asyncio.Event()

        async def sender(n):
            i = 0
            while not stop.is_set():
                i += 1
                change = await actions.do_send_message(A, cid, f"s{n}-{i}", random_id=n * 100_000 + i)
                ev = change.events[0]
                results.append((time.monotonic(), ev.message["id"], ev.pts))

        tasks = [asyncio.create_task(sender(n)) for n in range(3)]
        await wait_for(lambda: len(results) >= 30, timeout=20)
        recoveries.clear()
        cluster.kill(owner)
        killed = time.monotonic()
        await asyncio.to_thread(cluster.wait_promoted, owner)
        await wait_for(lambda: any(t > killed + 0.5 for t, _, _ in results) and len(results) > 60, timeout=30)
        stop.set()
        await asyncio.gather(*tasks)
        ids = [m for _, m, _ in results]
        pts = [p for _, _, p in results]
        assert len(set(ids)) == len(ids) and len(set(pts)) == len(pts)  # nothing twice
        assert any(":counter:channel_pts:" in k for k in recoveries)  # checked against PostgreSQL
        rows = await db.fetchall(
            "SELECT pts, pts_count FROM channel_update_events WHERE channel_id = %s ORDER BY pts", (cid,)
        )
        covered = []
        for r in rows:
            covered += range(r["pts"] - r["pts_count"] + 1, r["pts"] + 1)
        assert covered == list(range(1, rows[-1]["pts"] + 1))  # no hole, no overlap
    finally:
        counters._recover = real_recover
        await redis_conn.close_client()
        redis_conn.reset()


async def test_a_counter_behind_postgresql_after_a_failover_is_caught(on_cluster, chan):
    await test_counters.test_a_counter_behind_postgresql_after_a_failover_is_caught(chan)


async def test_a_quiet_subscription_is_pinged_and_a_silent_shard_is_given_up(
    fresh_redis_cluster,  # noqa: F811
    settings,
    monkeypatch,
):
    """A subscriber hears of a node that vanished without a reset (a powered-off host: here
    SIGSTOP) by its keep-alive PING, not never."""
    import signal

    cluster = fresh_redis_cluster
    use_cluster(settings, cluster)
    monkeypatch.setattr(redis_conn, "SUBSCRIPTION_PING", 0.3)
    channel = f"{redis_conn.key_prefix()}:test:quiet"
    ready = asyncio.Event()
    got: list = []

    async def listen():
        async for _, data in redis_conn.sharded_messages([channel], ready):
            got.append(data)

    task = asyncio.create_task(listen())
    try:
        await asyncio.wait_for(ready.wait(), 10)
        await asyncio.sleep(1.5)  # quiet, but answering its PINGs
        assert not task.done()
        await redis_conn.spublish(channel, b"still here")
        await wait_for(lambda: got == [b"still here"])
        owner = cluster.master_of_key(channel)
        os.kill(cluster.procs[owner].pid, signal.SIGSTOP)
        try:
            stopped = time.monotonic()
            with pytest.raises(Exception) as exc:
                await asyncio.wait_for(task, 5)
            assert "stopped answering" in str(exc.value)
            assert time.monotonic() - stopped < 2
        finally:
            os.kill(cluster.procs[owner].pid, signal.SIGCONT)
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        await redis_conn.close_client()
        redis_conn.reset()


async def test_sends_the_promoted_replica_never_saw_are_not_handed_out_again(
    fresh_redis_cluster,  # noqa: F811
    settings,
    chan,
):
    """A real lagging replica: its master stops replicating to it (an ACL that refuses the
    replica's PSYNC, its link cut) while it acknowledges more sends; then the master dies
    and the replica - without those increments - is promoted. Its counters are behind
    what clients were given; the fence makes the next send check them against
    PostgreSQL, so the next pts and id follow the stored ones."""
    cluster = fresh_redis_cluster
    use_cluster(settings, cluster)
    try:
        cid = (await actions.do_create_channel(A, "g", megagroup=True)).channel["id"]
        await actions.do_send_message(A, cid, "before", random_id=1)
        master = cluster.master_of_key(counters.pts_key(cid))
        replica = cluster.replica_of(master)
        cluster.remember_masters()
        cluster.cli(master, "acl", "setuser", "default", "-psync", "-sync", "-replconf")
        cluster.cli(master, "client", "kill", "type", "replica")
        await wait_for(lambda: "master_link_status:down" in cluster.cli(replica, "info", "replication"))
        unseen = [
            (await actions.do_send_message(A, cid, f"unseen {i}", random_id=10 + i)).events[0]
            for i in range(5)
        ]
        cluster.kill(master)
        assert await asyncio.to_thread(cluster.wait_promoted, master) == replica
        lagging = cluster.cli(replica, "get", counters.pts_key(cid)).strip()
        assert int(lagging) < unseen[-1].pts  # the promoted counter really is behind
        nxt = (await actions.do_send_message(A, cid, "after", random_id=99)).events[0]
        assert nxt.pts == unseen[-1].pts + 1
        assert nxt.message["id"] > unseen[-1].message["id"]
    finally:
        await redis_conn.close_client()
        redis_conn.reset()
