"""Online push between processes, over Redis sharded pub/sub, sent only where needed.

Any process (an edge, the admin, a management command) publishes JSON events. Each
listener process receives on its own channel (``presence.listener_channel``) the events
that concern a session it holds, and runs the handlers registered for the event's kind,
which push to those sessions::

    @subscriber("channels.new_message")
    async def on_new_message(payload, edge):
        for session in edge.sessions_of_user(payload["user_id"]): ...

    @renderer("channels.new_message")
    async def render(payload, viewer_user_id) -> Updates | None: ...

    await push_to_users([1, 2, 3], "channels.new_message", {...}, exclude=(key_id, session_id))

Where an event goes is read from the presence leases (``edge_app.presence``): a user's
event goes to the listeners holding that user, once per listener with the users it
holds; a channel's event (``publish_to(channels=...)``) once to each listener holding an
online member, which fans it out locally. Deployment-wide events (a deleted auth key, a
language pack) go on one broadcast channel every process hears; events for the Bot API
processes on the service channel. A listener counts the targeted events that concerned
none of its sessions (``telesrv_push_events_unwanted``): 0 outside lease changes.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Iterable
from functools import partial
from typing import Any

import orjson

from edge_app import metrics, presence, redis_conn
from edge_app.serial_jobs import SerialJobs
from edge_app.stream_order import StreamOrder

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
# push_to_users kinds the Bot API processes also get (queries asked of bots).
_service_kinds: set[str] = set()


def is_subscribed() -> bool:
    """Whether this process is a listener receiving the events routed to it now."""
    return _subscribed


def channel_name() -> str:
    """The broadcast channel: deployment-wide events, every process hears them."""
    return f"{presence.namespace()}:push:{{all}}"


def service_channel() -> str:
    """The channel of processes without MTProto sessions that serve bots (Bot API)."""
    return f"{presence.namespace()}:push:{{service}}"


def also_to_service(kind: str) -> None:
    """``push_to_users`` events of ``kind`` also reach the Bot API processes."""
    _service_kinds.add(kind)


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
    return redis_conn.client()


def event_message(kind: str, payload: dict, route: dict | None = None) -> bytes:
    """The pub/sub message carrying one event. orjson: on a busy group's hot path the
    standard library's encoder was a few per cent of the listener's CPU. Integer keys
    become strings, as json.dumps makes them. ``route``: whom a targeted event is for
    ({"u": [user ids], "c": [channel ids]}), what the receiver counts it against."""
    event = {"kind": kind, "payload": payload}
    if route:
        event["r"] = route
    return orjson.dumps(event, option=orjson.OPT_NON_STR_KEYS)


_SENT_TO_LISTENER = metrics.PUSH_EVENTS_SENT.labels("listener")


async def _spublish(channel: str, data: bytes, label: str) -> None:
    await redis_conn.spublish(channel, data)
    metrics.PUSH_EVENTS_SENT.labels(label).inc()


async def publish(kind: str, payload: dict) -> None:
    """Send ``payload`` (JSON-serialisable) to every process, this one included: for
    deployment-wide events only; events for users and channels use ``push_to_users``
    and ``publish_to``."""
    await _spublish(channel_name(), event_message(kind, payload), "broadcast")


async def publish_service(kind: str, payload: dict) -> None:
    """Send to the Bot API processes."""
    await _spublish(service_channel(), event_message(kind, payload), "service")


async def publish_to(
    kind: str, payload: dict, *, users: Iterable[int] = (), channels: Iterable[int] = ()
) -> None:
    """Send ``payload`` once to each listener holding one of ``users`` or an online
    member of one of ``channels``; the handlers there find their own audience."""
    users, channels = sorted({int(u) for u in users}), sorted({int(c) for c in channels})
    by_listener, interested = await presence.listeners_of(users, channels)
    targets = set(by_listener) | interested
    if not targets:
        return
    message = event_message(kind, payload, {"u": users, "c": channels})
    await asyncio.gather(*(_spublish(presence.listener_channel(lid), message, "listener") for lid in targets))


async def send_ordered(listeners: Iterable[str], tag: str, released: list[tuple[int, int, bytes]]) -> None:
    """Hand the events ``push_order`` released for stream ``tag`` (prev, stop, event
    message) to these listeners, in order on each."""
    if not released:
        return
    framed = [
        b'{"seq":' + orjson.dumps([tag, prev, stop]) + b"," + message[1:] for prev, stop, message in released
    ]

    # One round trip per listener, not one per event: a group commit releases several.
    async def to_one(lid: str) -> None:
        await redis_conn.spublish_many(presence.listener_channel(lid), framed)
        _SENT_TO_LISTENER.inc(len(framed))

    targets = list(listeners)
    if len(targets) == 1:
        await to_one(targets[0])  # the usual case on one machine: no tasks for gather
    else:
        await asyncio.gather(*(to_one(lid) for lid in targets))


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
    if not ids:
        return
    by_listener, _ = await presence.listeners_of(ids)
    jobs = []
    for lid, held in by_listener.items():
        for start in range(0, len(held), USERS_PER_EVENT):
            part = held[start : start + USERS_PER_EVENT]
            message = event_message(USERS_KIND, _users_event(part, kind, payload, exclude), {"u": part})
            jobs.append(_spublish(presence.listener_channel(lid), message, "listener"))
    if kind in _service_kinds:
        for start in range(0, len(ids), USERS_PER_EVENT):
            event = _users_event(ids[start : start + USERS_PER_EVENT], kind, payload, exclude)
            jobs.append(_spublish(service_channel(), event_message(USERS_KIND, event), "service"))
    await asyncio.gather(*jobs)


def _users_event(user_ids: list[int], kind: str, payload: dict, exclude) -> dict:
    return {
        "user_ids": user_ids,
        "kind": kind,
        "payload": payload,
        "exclude": list(exclude) if exclude else None,
    }


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


def _wanted(route: dict, edge: Any) -> bool:
    """Whether a targeted event may concern a session here. A channel this listener
    does not follow (yet) may still hold a member here (its interest was granted by a
    publisher): the channel's handlers decide, and count it with :func:`unwanted`."""
    if any(edge.sessions_of_user(int(u)) for u in route.get("u", ())):
        return True
    return bool(route.get("c"))


def unwanted() -> None:
    """A targeted event concerned none of this listener's sessions."""
    metrics.PUSH_EVENTS_UNWANTED.inc()


async def _handle(event: dict, edge: Any) -> None:
    try:
        kind, payload = event["kind"], event["payload"]
    except (KeyError, TypeError):
        log.warning("malformed push event %r", str(event)[:200])
        return
    for fn in _subscribers.get(kind, ()):
        try:
            await fn(payload, edge)
        except Exception:
            log.exception("push subscriber %s for %r failed", getattr(fn, "__qualname__", fn), kind)


async def run_subscriber(edge: Any, ready: asyncio.Event | None = None, *, listener: bool = True) -> None:
    """The one subscriber task of a process: runs until cancelled, reconnecting to
    Redis when the connection drops. ``listener``: the process holds MTProto sessions
    (``edge``'s), announces them (``edge_app.presence``) and receives their events;
    otherwise (the Bot API) it hears the service and broadcast channels."""
    global _subscribed
    queue: asyncio.Queue = asyncio.Queue()
    order = StreamOrder(queue.put_nowait)
    tasks: list[asyncio.Task] = []
    loop = asyncio.get_running_loop()

    def forget(channel_id: int) -> None:
        order.forget(redis_conn.hash_tag("c", channel_id))

    async def when_subscribed(attempt: asyncio.Event) -> None:
        global _subscribed
        await attempt.wait()
        _subscribed = listener
        if ready is not None:
            ready.set()

    if listener:
        lid = presence.start(edge)
        presence.on_channel_dropped(forget)
        try:
            await presence.refresh()  # the lease, before any entry is written under it
        except Exception:
            log.exception("push: the listener's lease not written (renewed in %ss)", presence.REFRESH_SECONDS)
        own = presence.listener_channel(lid)
        channels = [own, channel_name()]
        tasks.append(loop.create_task(presence.run_refresher()))
        log.info("push: listener %s", lid)
    else:
        own = service_channel()
        channels = [own, channel_name()]

    async def handle_in_order() -> None:
        # In order, one at a time: updates must reach a session in the order they
        # were published (handlers hand slow work to per-user or per-channel queues).
        while True:
            await _handle(await queue.get(), edge)

    tasks.append(loop.create_task(handle_in_order()))
    label = {own: "listener" if listener else "service", channel_name(): "broadcast"}
    reconnecting = False
    try:
        while True:
            if listener and reconnecting:
                # Redis may have restarted meanwhile: the lease (and entries) again.
                with contextlib.suppress(Exception):
                    await presence.refresh()
            reconnecting = True
            attempt = asyncio.Event()
            watch = loop.create_task(when_subscribed(attempt))
            try:
                async for channel, raw in redis_conn.sharded_messages(channels, attempt):
                    kind = label.get(channel, "listener")
                    metrics.PUSH_EVENTS_RECEIVED.labels(kind).inc()
                    try:
                        event = orjson.loads(raw)
                    except ValueError:
                        log.warning("malformed push event %r", raw[:200])
                        continue
                    route = event.get("r") if isinstance(event, dict) else None
                    if route is not None and listener and not _wanted(route, edge):
                        unwanted()
                        continue
                    seq = event.get("seq") if isinstance(event, dict) else None
                    if seq:
                        order.accept(seq[0], int(seq[1]), int(seq[2]), event)
                    else:
                        queue.put_nowait(event)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("push subscriber lost Redis; reconnecting")
            finally:
                watch.cancel()
                _subscribed = False
            await asyncio.sleep(1)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if listener:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(presence.withdraw(), 2)
            presence.stop()
            presence.remove_channel_dropped(forget)
