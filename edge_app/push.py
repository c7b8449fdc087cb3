"""Online push between edge processes, over Redis pub/sub.

Any process (an edge, the admin, a management command) publishes JSON events; every
edge process runs one subscriber task that receives them all and runs the handlers
registered for the event's kind, which push to the sessions that process holds::

    @subscriber("channels.new_message")
    async def on_new_message(payload, edge):
        for session in edge.sessions_of_user(payload["user_id"]): ...

    @renderer("channels.new_message")
    async def render(payload, viewer_user_id) -> Updates | None: ...

    await push_to_users([1, 2, 3], "channels.new_message", {...}, exclude=(key_id, session_id))
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Iterable
from functools import partial
from typing import Any

import orjson
from django.conf import settings

from edge_app import metrics, redis_conn
from edge_app.serial_jobs import SerialJobs

log = logging.getLogger("telesrv.edge.push")

Subscriber = Callable[[dict, Any], Awaitable[None]]
Renderer = Callable[[dict, int], Awaitable[Any]]

USERS_KIND = "edge.push_to_users"
# User ids per published event: a big fan-out goes out as several events.
USERS_PER_EVENT = 2000

_subscribers: dict[str, list[Subscriber]] = {}
_renderers: dict[str, Renderer] = {}
_background: set[asyncio.Task] = set()
_subscribed = False  # this process runs the subscriber (an edge) and it is listening


def is_subscribed() -> bool:
    """Whether events published now reach this process's own subscriber."""
    return _subscribed


def channel_name() -> str:
    # Redis pub/sub ignores the database number: two installations on one Redis server
    # (databases 0 and 2, say) would hear each other's events. A database other than 0
    # is part of the name; 0 keeps the name older listeners use (rolling upgrades).
    prefix = settings.CACHES["default"].get("KEY_PREFIX") or "telesrv"
    db = _redis_db(settings.REDIS_URL)
    return f"{prefix}:edge:push" if not db else f"{prefix}:{db}:edge:push"


def _redis_db(url: str) -> int:
    from urllib.parse import parse_qs, urlparse

    parts = urlparse(url)
    path = parts.path.strip("/")
    if path.isdigit():
        return int(path)
    query = parse_qs(parts.query).get("db")
    return int(query[0]) if query and query[0].isdigit() else 0


def subscriber(kind: str) -> Callable[[Subscriber], Subscriber]:
    def register(fn: Subscriber) -> Subscriber:
        _subscribers.setdefault(kind, []).append(fn)
        return fn

    return register


def renderer(kind: str) -> Callable[[Renderer], Renderer]:
    def register(fn: Renderer) -> Renderer:
        if kind in _renderers:
            raise RuntimeError(f"renderer for {kind!r} registered twice")
        _renderers[kind] = fn
        return fn

    return register


def _client():
    """The Redis client of the running event loop (``redis_conn``)."""
    return redis_conn.client()


def event_message(kind: str, payload: dict) -> bytes:
    """The pub/sub message carrying one event. orjson: on a busy group's hot path the
    standard library's encoder was a few per cent of the listener's CPU. Integer keys
    become strings, as json.dumps makes them."""
    return orjson.dumps({"kind": kind, "payload": payload}, option=orjson.OPT_NON_STR_KEYS)


async def publish(kind: str, payload: dict) -> None:
    """Send ``payload`` (JSON-serialisable) to every edge process, this one included."""
    await redis_conn.spublish(channel_name(), event_message(kind, payload))


def publish_soon(kind: str, payload: dict) -> None:
    """``publish`` from synchronous code: scheduled on the running loop, if any."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        from asgiref.sync import async_to_sync

        async_to_sync(_publish_and_close)(kind, payload)
        return
    task = loop.create_task(publish(kind, payload))
    _background.add(task)
    task.add_done_callback(_background.discard)


async def _publish_and_close(kind: str, payload: dict) -> None:
    """``publish`` on a loop made for this one call: its client goes with it."""
    try:
        await publish(kind, payload)
    finally:
        await redis_conn.close_client()


async def deliver(session: Any, updates: Any) -> bool:
    """Push one ``Updates`` to one live session, counted in the metrics."""
    if getattr(session, "destroyed", False):
        metrics.PUSHES_DROPPED.labels("session_gone").inc()
        return False
    try:
        await session.push(updates)
    except Exception:
        metrics.PUSHES_DROPPED.labels("send_failed").inc()
        log.exception("push to a session failed")
        return False
    metrics.PUSHES_SENT.inc()
    return True


def render_failed() -> None:
    metrics.PUSHES_DROPPED.labels("render_failed").inc()


async def push_to_users(
    user_ids: Iterable[int],
    kind: str,
    payload: dict,
    exclude: tuple[int, int] | None = None,
) -> None:
    """Render ``kind`` for each user with ``@renderer(kind)`` and push it to all their
    live sessions on every edge, except the session ``exclude`` = (auth_key_id,
    session_id) (usually the one whose request caused the event)."""
    ids = sorted({int(u) for u in user_ids})
    for start in range(0, len(ids), USERS_PER_EVENT):
        await publish(
            USERS_KIND,
            {
                "user_ids": ids[start : start + USERS_PER_EVENT],
                "kind": kind,
                "payload": payload,
                "exclude": list(exclude) if exclude else None,
            },
        )


# A user's pushes are rendered and delivered in order, users side by side: a render
# that reads the database must not hold up the edge's subscriber loop (every other
# user's and channel's pushes queue behind it).
_user_jobs = SerialJobs("user push")


@subscriber(USERS_KIND)
async def _deliver_to_users(event: dict, edge: Any) -> None:
    render = _renderers.get(event["kind"])
    if render is None:
        log.error("no renderer for push kind %r", event["kind"])
        return
    exclude = tuple(event["exclude"]) if event.get("exclude") else None
    for user_id in event["user_ids"]:
        if any((s.auth_key_id, s.session_id) != exclude for s in edge.sessions_of_user(user_id)):
            _user_jobs.put(user_id, partial(_render_for_user, render, event, user_id, exclude, edge))


async def _render_for_user(render: Renderer, event: dict, user_id: int, exclude, edge: Any) -> None:
    try:
        updates = await render(event["payload"], user_id)
        if updates is None:
            return
        # The sessions online now, not when the event arrived.
        for session in edge.sessions_of_user(user_id):
            if (session.auth_key_id, session.session_id) != exclude:
                await deliver(session, updates)
    except Exception:
        # One viewer's failure must not cost the others their update.
        render_failed()
        log.exception("rendering %r for user %s failed", event["kind"], user_id)


@subscriber("edge.auth_key_dropped")
async def _auth_key_dropped(event: dict, edge: Any) -> None:
    edge.drop_auth_key(int(event["auth_key_id"]))


async def announce_auth_key_dropped(auth_key_id: int) -> None:
    """Tell every edge that a key was deleted outside the listener (the admin): they
    forget it and hang up its connections; the client then creates a new key."""
    await publish("edge.auth_key_dropped", {"auth_key_id": auth_key_id})


async def _handle(raw: bytes, edge: Any) -> None:
    try:
        event = orjson.loads(raw)
        kind, payload = event["kind"], event["payload"]
    except (ValueError, KeyError, TypeError):
        log.warning("malformed push event %r", raw[:200])
        return
    for fn in _subscribers.get(kind, ()):
        try:
            await fn(payload, edge)
        except Exception:
            log.exception("push subscriber %s for %r failed", getattr(fn, "__qualname__", fn), kind)


class _Subscribed(asyncio.Event):
    """Set by ``sharded_messages`` once subscribed: from then on this process hears
    what it publishes."""

    def __init__(self, outer: asyncio.Event | None) -> None:
        super().__init__()
        self.outer = outer

    def set(self) -> None:
        global _subscribed
        _subscribed = True
        super().set()
        if self.outer is not None:
            self.outer.set()


async def run_subscriber(edge: Any, ready: asyncio.Event | None = None) -> None:
    """The one subscriber task of an edge process: runs until cancelled, reconnecting
    to Redis when the connection drops."""
    while True:
        try:
            # Sharded pub/sub (SSUBSCRIBE): on a Redis Cluster, at the shard of the
            # channel's slot, found there again after a failover.
            messages = redis_conn.sharded_messages([channel_name()], _Subscribed(ready))
            async with contextlib.aclosing(messages):
                async for _, data in messages:
                    # In order, one at a time: updates must reach a session in the order
                    # they were published.
                    await _handle(data, edge)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("push subscriber lost Redis; reconnecting")
            await asyncio.sleep(1)
        finally:
            global _subscribed
            _subscribed = False
