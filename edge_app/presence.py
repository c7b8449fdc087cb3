"""Which listener holds whom: presence leases in Redis, for targeted delivery.

Each listener process gets an id when it starts (a new one every start) and owns its
sessions. Its lease is ``alive:{l:ID}``, a key that lasts ``LEASE_SECONDS`` and is
renewed every ``REFRESH_SECONDS``: a killed listener's lease lapses by itself. Under
that lease it writes two kinds of entry, sorted sets whose members are listener ids
(scored by when they were written):

- ``presence:{u:ID}``: the listeners holding a live session of user ID;
- ``interest:{c:ID}``: the listeners holding an online member of channel ID (a user
  with a live session here whose active memberships include the channel: read once
  when the user comes online, then kept current by the channel's membership events).

An entry is written before the first answer of a session that binds its user (the
dispatcher waits for it) and removed when the last such session goes. Publishers read
the entries, keep those whose listener's lease is alive (checked once a second per
listener) and send each event only to those listeners (``edge_app.push``); entries of
a dead listener are removed by the first publisher that meets them. Renewing costs one
command per listener whatever the number of its sessions. Every key carries one hash
tag, so each command touches one slot of a Redis Cluster.
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
# Keys touched by one pipeline round trip (the loop serves others between).
REFRESH_BATCH = 500
# How long a publisher trusts what it learnt of a listener's lease.
ALIVE_CHECK_SECONDS = 1.0
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


def alive_key(listener_id: str) -> str:
    return f"{namespace()}:alive:{redis_conn.hash_tag('l', listener_id)}"


def listener_id() -> str | None:
    """This process's listener id, None where it holds no sessions (admin, Bot API)."""
    return _listener_id


def new_listener_id() -> str:
    return secrets.token_hex(8)


def _now_ms() -> int:
    return int(time.time() * 1000)


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
            written = _now_ms()
            pipe = redis_conn.client().pipeline(transaction=False)
            for u in fresh:
                pipe.zadd(user_key(u), {_listener_id: written})
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
        written = _now_ms()
        r = redis_conn.client()
        for at in range(0, len(fresh), REFRESH_BATCH):
            pipe = r.pipeline(transaction=False)
            for cid in fresh[at : at + REFRESH_BATCH]:
                pipe.zadd(channel_key(cid), {_listener_id: written})
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
        written = _now_ms()
        await redis_conn.client().zadd(channel_key(channel_id), dict.fromkeys(others, written))


async def release_channel(channel_id: int) -> None:
    """This listener was found holding no member of the channel: give its interest
    back (a lease granted by a publisher, or one that outlived its members)."""
    if _listener_id is not None and channel_id not in _channel_users:
        await redis_conn.client().zrem(channel_key(channel_id), _listener_id)


async def refresh() -> None:
    """Renew this listener's lease (the entries it wrote live as long as it does). A
    lease found missing means Redis lost it (a restart without persistence, a failover,
    or a pause longer than the lease): every entry is written again."""
    if _listener_id is None:
        return
    r = redis_conn.client()
    previous = await r.set(alive_key(_listener_id), b"1", px=int(LEASE_SECONDS * 1000), get=True)
    if previous is None and (_users or _channel_users):
        log.warning("presence: the lease of listener %s was gone; writing its entries again", _listener_id)
        keys = [user_key(u) for u in list(_users)] + [channel_key(c) for c in list(_channel_users)]
        written = _now_ms()
        for at in range(0, len(keys), REFRESH_BATCH):
            pipe = r.pipeline(transaction=False)
            for key in keys[at : at + REFRESH_BATCH]:
                pipe.zadd(key, {_listener_id: written})
            await pipe.execute()


async def run_refresher() -> None:
    while True:
        await asyncio.sleep(REFRESH_SECONDS)
        try:
            await refresh()
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("renewing the listener's lease failed")


async def withdraw() -> None:
    """A listener shutting down gives its lease and entries back at once (a killed
    one's lease lapses, and publishers drop its entries as they meet them)."""
    if _listener_id is None:
        return
    keys = [user_key(u) for u in _users] + [channel_key(c) for c in _channel_users]
    r = redis_conn.client()
    await r.delete(alive_key(_listener_id))
    for at in range(0, len(keys), REFRESH_BATCH):
        pipe = r.pipeline(transaction=False)
        for key in keys[at : at + REFRESH_BATCH]:
            pipe.zrem(key, _listener_id)
        await pipe.execute()


# --- what publishers read -------------------------------------------------------------------


_alive_seen: dict[str, tuple[bool, float]] = {}
_cleanups: set[asyncio.Task] = set()


async def live_listeners(listener_ids: Iterable[str]) -> set[str]:
    """Those of ``listener_ids`` whose lease is alive (what a publisher learnt within
    ``ALIVE_CHECK_SECONDS``, else one pipelined read)."""
    now = time.monotonic()
    ids = set(listener_ids)
    live = {lid for lid in ids if lid == _listener_id}
    unknown = []
    for lid in ids - live:
        seen = _alive_seen.get(lid)
        if seen is not None and now - seen[1] < ALIVE_CHECK_SECONDS:
            if seen[0]:
                live.add(lid)
        else:
            unknown.append(lid)
    if unknown:
        pipe = redis_conn.client().pipeline(transaction=False)
        for lid in unknown:
            pipe.exists(alive_key(lid))
        if len(_alive_seen) > 10_000:
            _alive_seen.clear()
        for lid, found in zip(unknown, await pipe.execute(), strict=True):
            _alive_seen[lid] = (bool(found), now)
            if found:
                live.add(lid)
    return live


async def listeners_of(
    user_ids: Iterable[int] = (), channel_ids: Iterable[int] = ()
) -> tuple[dict[str, list[int]], set[str]]:
    """({listener: [the users it holds]}, {listeners holding the channels' interest}),
    live listeners only: one pipelined read, one key per command (and one more for the
    leases not checked within the last second)."""
    users = sorted({int(u) for u in user_ids})
    channels = sorted({int(c) for c in channel_ids})
    by_listener: dict[str, list[int]] = {}
    interested: set[str] = set()
    if not users and not channels:
        return by_listener, interested
    keys = [user_key(u) for u in users] + [channel_key(c) for c in channels]
    pipe = redis_conn.client().pipeline(transaction=False)
    for key in keys:
        pipe.zrange(key, 0, -1)
    found = [[_text(x) for x in lids] for lids in await pipe.execute()]
    live = await live_listeners({lid for lids in found for lid in lids})
    dead: dict[str, list[str]] = {}
    for i, (key, lids) in enumerate(zip(keys, found, strict=True)):
        for lid in lids:
            if lid not in live:
                dead.setdefault(key, []).append(lid)
            elif i < len(users):
                by_listener.setdefault(lid, []).append(users[i])
            else:
                interested.add(lid)
    if dead:
        task = asyncio.get_running_loop().create_task(_drop_dead(dead))
        _cleanups.add(task)
        task.add_done_callback(_cleanups.discard)
    return by_listener, interested


async def _drop_dead(dead: dict[str, list[str]]) -> None:
    try:
        pipe = redis_conn.client().pipeline(transaction=False)
        for key, lids in dead.items():
            pipe.zrem(key, *lids)
        await pipe.execute()
    except Exception:
        log.warning("dropping entries of dead listeners failed", exc_info=True)


def _text(value) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
