"""Which listener holds whom: presence leases in Redis, for targeted delivery.

Each listener process gets an id when it starts (a new one every start) and owns its
sessions. It keeps two kinds of lease in Redis, both sorted sets whose members are
listener ids scored by the lease's expiry (ms):

- ``presence:{u:ID}``: the listeners holding a live session of user ID;
- ``interest:{c:ID}``: the listeners holding an online member of channel ID (a user
  with a live session here whose active memberships include the channel: read once
  when the user comes online, then kept current by the channel's membership events).

A lease is written before the first answer of a session that binds its user (the
dispatcher waits for it), refreshed every ``REFRESH_SECONDS`` and lapses
``LEASE_SECONDS`` after its listener died. Publishers read the live leases and send each
event only to the listeners named (``edge_app.push``). Every key carries one hash tag, so
each command touches one slot of a Redis Cluster.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from django.conf import settings

from . import redis_conn
from .turn_batches import TurnBatcher

log = logging.getLogger("telesrv.edge.presence")

LEASE_SECONDS = settings.PRESENCE_LEASE_SECONDS
REFRESH_SECONDS = settings.PRESENCE_REFRESH_SECONDS
# Keys touched by one refresh pipeline round trip (the loop serves others between).
REFRESH_BATCH = 500
# Every this many renewals also sweeps dead listeners' lapsed entries.
SWEEP_EVERY = 6
# Users whose channels one lookup reads.
LOOKUP_BATCH = 500

ChannelLookup = Callable[[list[int]], Awaitable[dict[int, list[int]]]]
_channel_lookup: ChannelLookup | None = None

_listener_id: str | None = None
_edge: Any = None
# user -> channels it made this listener interested in; channel -> those users.
_users: dict[int, set[int]] = {}
_channel_users: dict[int, set[int]] = {}
# A user's lease work runs in order (online, offline, online...): one chain per user.
_pending: dict[int, asyncio.Task] = {}
_dropped_channel_hooks: list[Callable[[int], None]] = []


def set_channel_lookup(fn: ChannelLookup) -> None:
    """Install ``async fn([user ids]) -> {user_id: [channel ids of their active
    memberships]}`` (channels_app does; the edge knows nothing of channels)."""
    global _channel_lookup
    _channel_lookup = fn


def on_channel_dropped(fn: Callable[[int], None]) -> None:
    """``fn(channel_id)`` runs when this listener stops holding the channel's interest
    (its per-channel delivery state is stale from then on)."""
    _dropped_channel_hooks.append(fn)


def remove_channel_dropped(fn: Callable[[int], None]) -> None:
    if fn in _dropped_channel_hooks:
        _dropped_channel_hooks.remove(fn)


def namespace() -> str:
    """The prefix of every presence key and push channel. Pub/sub ignores the database
    number, so a database other than 0 is part of it (two installations on one Redis)."""
    return _namespace(settings.CACHES["default"].get("KEY_PREFIX") or "telesrv", settings.REDIS_URL)


@functools.lru_cache(maxsize=8)
def _namespace(prefix: str, url: str) -> str:
    from urllib.parse import parse_qs, urlparse

    parts = urlparse(url)
    path = parts.path.strip("/")
    db = int(path) if path.isdigit() else 0
    query = parse_qs(parts.query).get("db")
    if not db and query and query[0].isdigit():
        db = int(query[0])
    return prefix if not db else f"{prefix}:{db}"


def user_key(user_id: int) -> str:
    return f"{namespace()}:presence:{redis_conn.hash_tag('u', user_id)}"


def channel_key(channel_id: int) -> str:
    return f"{namespace()}:interest:{redis_conn.hash_tag('c', channel_id)}"


def listener_channel(listener_id: str) -> str:
    """The sharded pub/sub channel a listener receives its events on."""
    return f"{namespace()}:push:{redis_conn.hash_tag('l', listener_id)}"


def listener_id() -> str | None:
    """This process's listener id, None where it holds no sessions (admin, Bot API)."""
    return _listener_id


def new_listener_id() -> str:
    return secrets.token_hex(8)


def _expiry_ms() -> int:
    return int((time.time() + LEASE_SECONDS) * 1000)


# --- this listener's leases ---------------------------------------------------------------


def start(edge: Any, ident: str | None = None) -> str:
    """Become a listener: sessions of ``edge`` are announced from now on. Users binding
    to a session call :func:`user_online` (the session manager's hooks do)."""
    global _listener_id, _edge
    _listener_id = ident or new_listener_id()
    _edge = edge
    _users.clear()
    _channel_users.clear()
    manager = getattr(edge, "sessions", None)
    if manager is not None and hasattr(manager, "on_user_online"):
        manager.on_user_online = user_online
        manager.on_user_offline = user_offline
    return _listener_id


def stop() -> None:
    global _listener_id, _edge
    manager = getattr(_edge, "sessions", None)
    if manager is not None and getattr(manager, "on_user_online", None) is user_online:
        manager.on_user_online = manager.on_user_offline = None
    _listener_id, _edge = None, None
    for task in _pending.values():
        task.cancel()
    _pending.clear()
    _users.clear()
    _channel_users.clear()


def holds_user(user_id: int) -> bool:
    return user_id in _users


def holds_channel(channel_id: int) -> bool:
    return channel_id in _channel_users


def user_online(user_id: int) -> None:
    """A session here now belongs to ``user_id`` (called synchronously by the session
    manager); the lease follows at once, see :func:`settled`."""
    _chain(user_id)


def user_offline(user_id: int) -> None:
    _chain(user_id)


def _chain(user_id: int) -> None:
    if _listener_id is None:
        return
    before = _pending.get(user_id)
    task = asyncio.get_running_loop().create_task(_sync_user(user_id, before))
    _pending[user_id] = task
    task.add_done_callback(lambda t: _pending.pop(user_id, None) if _pending.get(user_id) is t else None)


async def settled(user_id: int) -> None:
    """Wait until ``user_id``'s lease work is done (a request must not be answered
    before its user's events are routed here)."""
    task = _pending.get(user_id)
    if task is not None:
        with contextlib.suppress(Exception):
            await asyncio.shield(task)


def pending(user_id: int) -> bool:
    return user_id in _pending


# Users' lease writes side by side at most this many (a listener restarting takes
# thousands of sessions at once; each write holds a Redis and maybe a database connection).
CONCURRENT_WRITES = 16
_gates: dict[asyncio.AbstractEventLoop, asyncio.Semaphore] = {}


def _gate() -> asyncio.Semaphore:
    loop = asyncio.get_running_loop()
    gate = _gates.get(loop)
    if gate is None:
        _gates.clear()
        gate = _gates[loop] = asyncio.Semaphore(CONCURRENT_WRITES)
    return gate


def _online_here(user_id: int) -> bool:
    return _edge is not None and bool(_edge.sessions_of_user(user_id))


async def _sync_user(user_id: int, before: asyncio.Task | None) -> None:
    if before is not None:
        with contextlib.suppress(BaseException):
            await before
    try:
        if _online_here(user_id):
            if user_id not in _users:
                await _adds.submit(None, user_id)
        elif user_id in _users:
            async with _gate():
                await _remove_user(user_id)
    except Exception:
        # The next refresh writes the leases again; until then the user's events may
        # miss this listener (the client catches up through getDifference).
        log.exception("presence of user %s not written", user_id)


async def _add_users(_key, user_ids: list[int]) -> list[None]:
    """The leases of the users who came online in one turn of the loop (a restarted
    listener takes thousands at once): one pipeline, one channel lookup per
    ``LOOKUP_BATCH`` users."""
    fresh = [u for u in dict.fromkeys(user_ids) if u not in _users and _online_here(u)]
    if fresh and _listener_id is not None:
        async with _gate():
            expiry = _expiry_ms()
            pipe = redis_conn.client().pipeline(transaction=False)
            for u in fresh:
                pipe.zadd(user_key(u), {_listener_id: expiry})
            await pipe.execute()
            for u in fresh:
                _users[u] = set()
            for at in range(0, len(fresh) if _channel_lookup is not None else 0, LOOKUP_BATCH):
                part = fresh[at : at + LOOKUP_BATCH]
                found = await _channel_lookup(part)
                await _add_pairs([(u, c) for u in part if u in _users for c in found.get(u, ())])
    return [None] * len(user_ids)


_adds = TurnBatcher(_add_users)


async def _remove_user(user_id: int) -> None:
    channels = _users.pop(user_id, set())
    r = redis_conn.client()
    await r.zrem(user_key(user_id), _listener_id)
    for cid in channels:
        await _drop(user_id, cid)


async def add_channels(user_id: int, channel_ids: Iterable[int]) -> None:
    """``user_id`` (online here) is an active member of these channels: hold their
    interest. Written before it returns."""
    if _listener_id is None or user_id not in _users:
        return
    await _add_pairs([(user_id, int(c)) for c in channel_ids])


async def _add_pairs(pairs: list[tuple[int, int]]) -> None:
    fresh = []
    for user_id, cid in pairs:
        _users[user_id].add(cid)
        holders = _channel_users.setdefault(cid, set())
        if not holders:
            fresh.append(cid)
        holders.add(user_id)
    if fresh:
        expiry = _expiry_ms()
        r = redis_conn.client()
        for at in range(0, len(fresh), REFRESH_BATCH):
            pipe = r.pipeline(transaction=False)
            for cid in fresh[at : at + REFRESH_BATCH]:
                pipe.zadd(channel_key(cid), {_listener_id: expiry})
                pipe.expire(channel_key(cid), int(LEASE_SECONDS * 2) + 1)
            await pipe.execute()


async def remove_channel(user_id: int, channel_id: int) -> None:
    """``user_id`` is no longer an active member of the channel."""
    if _listener_id is None:
        return
    channels = _users.get(user_id)
    if channels is None or channel_id not in channels:
        return
    channels.discard(channel_id)
    await _drop(user_id, channel_id)


async def _drop(user_id: int, channel_id: int) -> None:
    holders = _channel_users.get(channel_id)
    if holders is None:
        return
    holders.discard(user_id)
    if holders:
        return
    del _channel_users[channel_id]
    for fn in _dropped_channel_hooks:
        fn(channel_id)
    await redis_conn.client().zrem(channel_key(channel_id), _listener_id)


async def grant_channel(channel_id: int, user_ids: Iterable[int]) -> None:
    """Users just became members (an invite): the listeners holding them get the
    channel's interest now, written by the publisher before the channel's next event,
    so the event announcing it reaches them; each listener then keeps (or gives back)
    the lease itself when its handlers find (or do not find) a member there."""
    users = [int(u) for u in user_ids]
    if not users:
        return
    by_listener, _ = await listeners_of(users)
    others = [lid for lid in by_listener if lid != _listener_id]
    if _listener_id in by_listener:
        for u in by_listener[_listener_id]:
            await add_channels(u, [channel_id])
    if others:
        expiry = _expiry_ms()
        await redis_conn.client().zadd(channel_key(channel_id), dict.fromkeys(others, expiry))


async def release_channel(channel_id: int) -> None:
    """This listener was found holding no member of the channel: give its interest
    back (a lease granted by a publisher, or one that outlived its members)."""
    if _listener_id is not None and channel_id not in _channel_users:
        await redis_conn.client().zrem(channel_key(channel_id), _listener_id)


async def refresh(sweep: bool = True) -> int:
    """Renew every lease this listener holds (and, with ``sweep``, drop lapsed entries
    of dead listeners from the same keys: readers skip them anyway); returns how many
    keys were renewed. Chunks of ``REFRESH_BATCH`` keys, the loop serving between them."""
    if _listener_id is None:
        return 0
    keys = [user_key(u) for u in list(_users)] + [channel_key(c) for c in list(_channel_users)]
    expiry, now = _expiry_ms(), int(time.time() * 1000)
    keep = int(LEASE_SECONDS * 2) + 1
    r = redis_conn.client()
    for at in range(0, len(keys), REFRESH_BATCH):
        pipe = r.pipeline(transaction=False)
        for key in keys[at : at + REFRESH_BATCH]:
            pipe.zadd(key, {_listener_id: expiry})
            pipe.expire(key, keep)
            if sweep:
                pipe.zremrangebyscore(key, "-inf", now)
        await pipe.execute()
    return len(keys)


async def run_refresher() -> None:
    rounds = 0
    while True:
        await asyncio.sleep(REFRESH_SECONDS)
        rounds += 1
        try:
            await refresh(sweep=rounds % SWEEP_EVERY == 0)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("renewing presence leases failed")


async def withdraw() -> None:
    """A listener shutting down gives its leases back at once (a killed one's lapse)."""
    if _listener_id is None:
        return
    keys = [user_key(u) for u in _users] + [channel_key(c) for c in _channel_users]
    r = redis_conn.client()
    for at in range(0, len(keys), REFRESH_BATCH):
        pipe = r.pipeline(transaction=False)
        for key in keys[at : at + REFRESH_BATCH]:
            pipe.zrem(key, _listener_id)
        await pipe.execute()


# --- what publishers read -------------------------------------------------------------------


async def listeners_of(
    user_ids: Iterable[int] = (), channel_ids: Iterable[int] = ()
) -> tuple[dict[str, list[int]], set[str]]:
    """({listener: [the users it holds]}, {listeners holding the channels' interest}),
    from the live leases: one pipelined read, one key per command."""
    users = sorted({int(u) for u in user_ids})
    channels = sorted({int(c) for c in channel_ids})
    by_listener: dict[str, list[int]] = {}
    interested: set[str] = set()
    if not users and not channels:
        return by_listener, interested
    now = int(time.time() * 1000)
    pipe = redis_conn.client().pipeline(transaction=False)
    for u in users:
        pipe.zrangebyscore(user_key(u), now, "+inf")
    for c in channels:
        pipe.zrangebyscore(channel_key(c), now, "+inf")
    found = await pipe.execute()
    for u, lids in zip(users, found[: len(users)], strict=True):
        for lid in lids:
            by_listener.setdefault(_text(lid), []).append(u)
    for lids in found[len(users) :]:
        interested.update(_text(lid) for lid in lids)
    return by_listener, interested


def _text(value) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
