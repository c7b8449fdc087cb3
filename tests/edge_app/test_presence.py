"""Targeted delivery: presence leases decide which listeners an event goes to.

The listener under test is this process (the ``edge`` fixture: users 1 and 2 online);
a second listener is played by hand: its leases written in Redis, its channel read.
"""

from __future__ import annotations

import asyncio
import os
import time

import orjson
import pytest

from edge_app import metrics, presence, push, push_order, redis_conn
from tests.edge_app.test_push import edge, wait_for  # noqa: F401 - fixture


def _count(counter, *labels) -> float:
    return (counter.labels(*labels) if labels else counter)._value.get()


class OtherListener:
    """A listener in another process: leases in Redis and what reaches its channel."""

    def __init__(self) -> None:
        self.id = presence.new_listener_id()
        self.got: list[dict] = []
        self._task: asyncio.Task | None = None

    async def start(self) -> None:
        ready = asyncio.Event()

        async def read() -> None:
            async for _, raw in redis_conn.sharded_messages([presence.listener_channel(self.id)], ready):
                self.got.append(orjson.loads(raw))

        self._task = asyncio.create_task(read())
        await asyncio.wait_for(ready.wait(), 5)
        await redis_conn.client().set(presence.alive_key(self.id), b"1", px=30_000)  # its lease

    async def hold_user(self, user_id: int) -> None:
        await redis_conn.client().zadd(presence.user_key(user_id), {self.id: int(time.time() * 1000)})

    async def hold_channel(self, channel_id: int) -> None:
        await redis_conn.client().zadd(presence.channel_key(channel_id), {self.id: int(time.time() * 1000)})

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)


@pytest.fixture
async def other():
    listener = OtherListener()
    await listener.start()
    yield listener
    await listener.stop()


def _ids() -> tuple[int, int]:
    # Users and channels no other test run touches (leases outlive a test by 30 s).
    base = int.from_bytes(os.urandom(4), "big") << 8
    return base + 1, base + 2


async def test_a_users_event_goes_only_to_the_listener_holding_them(edge, other, monkeypatch):  # noqa: F811
    async def render(payload, viewer):
        return payload["text"]

    monkeypatch.setitem(push._renderers, "test.dm", render)
    far, _ = _ids()
    await other.hold_user(far)
    received = _count(metrics.PUSH_EVENTS_RECEIVED, "listener")
    unwanted = _count(metrics.PUSH_EVENTS_UNWANTED)
    await push.push_to_users([2, far], "test.dm", {"text": "hi"})
    await wait_for(lambda: edge.sessions[2].pushed and other.got)
    # Each listener got one event naming only the users it holds.
    assert [e["payload"]["user_ids"] for e in other.got] == [[far]]
    assert edge.sessions[2].pushed == ["hi"]
    assert _count(metrics.PUSH_EVENTS_RECEIVED, "listener") == received + 1
    assert _count(metrics.PUSH_EVENTS_UNWANTED) == unwanted


async def test_nobody_online_means_nothing_is_sent(edge, other):  # noqa: F811
    sent = _count(metrics.PUSH_EVENTS_SENT, "listener")
    await push.push_to_users(list(_ids()), "test.dm", {})
    assert _count(metrics.PUSH_EVENTS_SENT, "listener") == sent
    await asyncio.sleep(0.1)
    assert other.got == []


async def test_a_dead_listeners_entries_route_nowhere_and_are_dropped(edge, other):  # noqa: F811
    far, _ = _ids()
    await other.hold_user(far)
    assert (await presence.listeners_of([far]))[0] == {other.id: [far]}
    await redis_conn.client().delete(presence.alive_key(other.id))  # its lease lapsed
    presence._alive_seen.clear()  # (publishers trust what they learnt for a second)
    assert await presence.listeners_of([far]) == ({}, set())
    await wait_for(lambda: not presence._cleanups)
    assert await redis_conn.client().zrange(presence.user_key(far), 0, -1) == []


async def test_an_event_for_a_user_who_left_counts_as_unwanted(edge):  # noqa: F811
    """A publisher read the lease a moment before the user left this listener."""
    far, _ = _ids()
    await redis_conn.client().zadd(presence.user_key(far), {presence.listener_id(): int(time.time() * 1000)})
    unwanted = _count(metrics.PUSH_EVENTS_UNWANTED)
    await push.push_to_users([far], "test.dm", {})
    await wait_for(lambda: _count(metrics.PUSH_EVENTS_UNWANTED) == unwanted + 1)


async def test_a_session_binding_its_user_writes_the_lease_before_going_on(edge):  # noqa: F811
    from tests.edge_app.test_push import FakeSession

    user, _ = _ids()
    edge.sessions.append(FakeSession(user, 300, 1))
    presence.user_online(user)
    assert presence.pending(user)
    await presence.settled(user)
    by_listener, _ = await presence.listeners_of([user])
    assert by_listener == {presence.listener_id(): [user]}
    # The last session goes: so does the lease, at once.
    edge.sessions.pop()
    presence.user_offline(user)
    await presence.settled(user)
    assert await presence.listeners_of([user]) == ({}, set())


async def test_the_listeners_lease_is_renewed_and_given_back(edge, monkeypatch):  # noqa: F811
    key = presence.alive_key(presence.listener_id())
    r = redis_conn.client()
    assert 0 < await r.pttl(key) <= presence.LEASE_SECONDS * 1000
    monkeypatch.setattr(presence, "LEASE_SECONDS", 90)
    await presence.refresh()
    assert await r.pttl(key) > 60_000
    users = [presence.user_key(1), presence.user_key(2)]
    me = presence.listener_id().encode()
    for k in users:
        assert me in await r.zrange(k, 0, -1)
    await presence.withdraw()  # a listener shutting down
    assert await r.exists(key) == 0
    for k in users:
        assert me not in await r.zrange(k, 0, -1)


async def test_a_lease_lost_by_redis_is_written_again_with_its_entries(edge):  # noqa: F811
    """A Redis restarted without persistence forgets every lease: the listener's next
    renewal notices and writes its entries again."""
    r = redis_conn.client()
    me = presence.listener_id()
    await r.delete(presence.alive_key(me), presence.user_key(2))
    await presence.refresh()
    assert await r.exists(presence.alive_key(me))
    assert (await presence.listeners_of([2]))[0] == {me: [2]}


async def test_a_channel_event_goes_once_to_each_interested_listener(edge, other, monkeypatch):  # noqa: F811
    seen = []

    async def handler(payload, _edge):
        seen.append(payload)

    monkeypatch.setitem(push._subscribers, "test.chan", [handler])
    here, there = _ids()
    await presence.add_channels(1, [here])
    await other.hold_channel(there)
    await push.publish_to("test.chan", {"n": 1}, channels=[here])
    await push.publish_to("test.chan", {"n": 2}, channels=[there])
    await push.publish_to("test.chan", {"n": 3}, channels=[here, there])
    await wait_for(lambda: len(seen) == 2 and len(other.got) == 2)
    assert [p["n"] for p in seen] == [1, 3]
    assert [e["payload"]["n"] for e in other.got] == [2, 3]
    # The member leaves: this listener gives the channel's interest back.
    await presence.remove_channel(1, here)
    _, interested = await presence.listeners_of(channel_ids=[here])
    assert interested == set()


async def test_ordered_channel_events_reach_only_interested_listeners_in_order(edge, other, monkeypatch):  # noqa: F811
    seen = []

    async def handler(payload, _edge):
        seen.append(payload["pts"])

    monkeypatch.setitem(push._subscribers, "test.ordered", [handler])
    channel, elsewhere = _ids()
    await presence.add_channels(2, [channel])
    await other.hold_channel(channel)
    await push_order.publish_in_order(channel, 0, 1, "test.ordered", {"pts": 1})
    await push_order.publish_in_order(channel, 2, 3, "test.ordered", {"pts": 3})  # 2 not yet
    await push_order.publish_in_order(elsewhere, 0, 1, "test.ordered", {"pts": 99})  # nobody's
    await push_order.publish_in_order(channel, 1, 2, "test.ordered", {"pts": 2})
    await wait_for(lambda: len(seen) == 3 and len(other.got) == 3)
    assert seen == [1, 2, 3]
    assert [e["payload"]["pts"] for e in other.got] == [1, 2, 3]
    assert [e["seq"][1:] for e in other.got] == [[0, 1], [1, 2], [2, 3]]


async def test_deployment_wide_events_reach_everyone_uncounted(edge):  # noqa: F811
    unwanted = _count(metrics.PUSH_EVENTS_UNWANTED)
    received = _count(metrics.PUSH_EVENTS_RECEIVED, "broadcast")
    await push.announce_auth_key_dropped(-7)
    await wait_for(lambda: getattr(edge, "dropped", None) == -7)
    assert _count(metrics.PUSH_EVENTS_RECEIVED, "broadcast") == received + 1
    assert _count(metrics.PUSH_EVENTS_UNWANTED) == unwanted


async def test_bot_queries_also_reach_the_bot_api_processes(edge, monkeypatch):  # noqa: F811
    got = []
    ready = asyncio.Event()

    async def read():
        async for _, raw in redis_conn.sharded_messages([push.service_channel()], ready):
            got.append(orjson.loads(raw))

    task = asyncio.create_task(read())
    await asyncio.wait_for(ready.wait(), 5)
    monkeypatch.setattr(push, "_service_kinds", {"test.query"})
    try:
        bot, _ = _ids()
        await push.push_to_users([bot], "test.query", {"q": 1})
        await push.push_to_users([bot], "test.dm", {"q": 2})
        await wait_for(lambda: got)
        await asyncio.sleep(0.1)
    finally:
        task.cancel()
    assert [(e["payload"]["kind"], e["payload"]["user_ids"]) for e in got] == [("test.query", [bot])]
