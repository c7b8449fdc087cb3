"""Push between processes through Redis: publish here, deliver in the subscriber."""

from __future__ import annotations

import asyncio

import pytest

from edge_app import presence, push, redis_conn


class FakeSession:
    def __init__(self, user_id: int, key: int, sid: int) -> None:
        self.user_id, self.auth_key_id, self.session_id = user_id, key, sid
        self.pushed: list = []

    async def push(self, updates) -> None:
        self.pushed.append(updates)


class FakeEdge:
    def __init__(self, sessions) -> None:
        self.sessions = sessions

    def sessions_of_user(self, user_id):
        return [s for s in self.sessions if s.user_id == user_id]

    def online_user_ids(self):
        return sorted({s.user_id for s in self.sessions})

    def sessions_of_perm_key(self, perm):
        return []

    def drop_auth_key(self, auth_key_id):
        self.dropped = auth_key_id


@pytest.fixture
async def edge(monkeypatch):
    # No database here: the users' channels are not looked up.
    monkeypatch.setattr(presence, "_channel_lookup", None)
    sessions = [FakeSession(1, 100, 1), FakeSession(1, 100, 2), FakeSession(2, 200, 1)]
    edge = FakeEdge(sessions)
    ready = asyncio.Event()
    task = asyncio.create_task(push.run_subscriber(edge, ready))
    await asyncio.wait_for(ready.wait(), 5)
    for user_id in edge.online_user_ids():  # what the session manager's hook does
        presence.user_online(user_id)
        await presence.settled(user_id)
    yield edge
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    await redis_conn.close_client()


async def wait_for(cond, timeout=3.0):
    deadline = asyncio.get_running_loop().time() + timeout
    while not cond():
        if asyncio.get_running_loop().time() > deadline:
            raise TimeoutError
        await asyncio.sleep(0.02)


async def test_subscriber_gets_published_events(edge, monkeypatch):
    seen = []

    async def handler(payload, e):
        seen.append((payload, e))

    monkeypatch.setitem(push._subscribers, "test.kind", [handler])
    await push.publish("test.kind", {"n": 1})
    await push.publish("test.other", {"n": 2})
    await wait_for(lambda: seen)
    assert seen == [({"n": 1}, edge)]


async def test_push_to_users_renders_per_viewer_and_skips_the_excluded_session(edge, monkeypatch):
    rendered = []

    async def render(payload, viewer):
        rendered.append(viewer)
        return {"for": viewer, "text": payload["text"]} if viewer != 2 else None

    monkeypatch.setitem(push._renderers, "test.msg", render)
    await push.push_to_users([1, 2, 3], "test.msg", {"text": "hi"}, exclude=(100, 1))
    await wait_for(lambda: edge.sessions[1].pushed)
    assert edge.sessions[0].pushed == []  # the sender's own session
    assert edge.sessions[1].pushed == [{"for": 1, "text": "hi"}]
    assert edge.sessions[2].pushed == []  # the renderer had nothing for user 2
    assert sorted(rendered) == [1, 2]  # user 3 has no session here: not even rendered


async def test_a_failing_viewer_does_not_stop_the_others(edge, monkeypatch):
    async def render(payload, viewer):
        if viewer == 1:
            raise ValueError("broken for this viewer")
        return "ok"

    monkeypatch.setitem(push._renderers, "test.partial", render)
    await push.push_to_users([1, 2], "test.partial", {})
    await wait_for(lambda: edge.sessions[2].pushed)
    assert edge.sessions[2].pushed == ["ok"] and edge.sessions[0].pushed == []


async def test_events_arrive_in_order(edge, monkeypatch):
    async def render(payload, viewer):
        return payload["i"]

    monkeypatch.setitem(push._renderers, "test.seq", render)
    for i in range(20):
        await push.push_to_users([2], "test.seq", {"i": i})
    await wait_for(lambda: len(edge.sessions[2].pushed) == 20)
    assert edge.sessions[2].pushed == list(range(20))


def test_publish_from_sync_code_like_the_admin():
    import json
    import time

    import redis
    from django.conf import settings

    client = redis.Redis.from_url(settings.REDIS_URL)
    sub = client.pubsub(ignore_subscribe_messages=True)
    sub.ssubscribe(push.channel_name())
    try:
        push.publish_soon("test.sync", {"a": 1})
        push.publish_soon("test.sync", {"a": 2})  # a second event loop, a second client
        got = []
        deadline = time.monotonic() + 3
        while len(got) < 2 and time.monotonic() < deadline:
            message = sub.get_sharded_message(timeout=0.2)
            if message:
                got.append(json.loads(message["data"]))
    finally:
        sub.close()
        client.close()
    assert got == [{"kind": "test.sync", "payload": {"a": 1}}, {"kind": "test.sync", "payload": {"a": 2}}]


async def test_dropped_key_reaches_the_edge(edge):
    await push.announce_auth_key_dropped(-5)
    await wait_for(lambda: getattr(edge, "dropped", None) == -5)


def test_installations_on_other_redis_databases_do_not_hear_each_other(settings):
    """Pub/sub ignores the database number: the channel names it when it is not 0 (two
    test runs, or two installations, on one Redis), and keeps the old name on 0."""
    settings.REDIS_URL = "redis://127.0.0.1:6379/0"
    plain = push.channel_name()
    settings.REDIS_URL = "redis://127.0.0.1:6379/2"
    second = push.channel_name()
    settings.REDIS_URL = "redis://127.0.0.1:6379?db=3"
    third = push.channel_name()
    assert plain.endswith(":push:{all}") and plain.count(":") == 2
    assert len({plain, second, third}) == 3
