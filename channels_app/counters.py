"""Redis counters: channel ids, per-channel message ids and per-channel pts.

Every allocation is one call of one Lua script: "if a key is missing, initialise it
from the PostgreSQL recovery value, then INCRBY n" for up to a few keys at once, so a
send gets its message id and its pts in one round trip, and a multi-pts operation gets
a contiguous range. The first call passes no recovery values; only when Redis has lost
a key does the caller read ``MAX(...)`` from PostgreSQL and call again.

A pts range is journalled by the same script that allocates it (so no crash can come
between the two): ``pts_pending:<channel>`` holds ``"<last pts>:<count>"`` with the
allocation time, and ``pts_pending`` the channels that have entries, with the oldest
time. :func:`settle` removes an entry once its event (or noop) is committed; an entry
left behind by a crash or a database outage is filled with a noop by the repair job
(``actions.pts_repair``). See docs/reliability.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import time

import redis.asyncio as aioredis
from django.conf import settings

from edge_app import metrics
from message_core import db

# Channel ids live far above user ids (which accounts_app allocates from 1).
CHANNEL_ID_BASE = 1_000_000_000

# KEYS: n counters [, the channel's pending set, the pending index]
# ARGV: n, (recovery value, increment) per counter [, channel id, now, index of the pts counter]
_LUA = """
local n = tonumber(ARGV[1])
local missing = {}
for i = 1, n do
  if redis.call('EXISTS', KEYS[i]) == 0 then
    local rec = ARGV[2 * i]
    if rec == '' then
      table.insert(missing, i)
    else
      redis.call('SET', KEYS[i], rec)
    end
  end
end
if #missing > 0 then
  table.insert(missing, 1, 'missing')
  return missing
end
local out = {}
for i = 1, n do
  out[i] = redis.call('INCRBY', KEYS[i], tonumber(ARGV[2 * i + 1]))
end
if #KEYS > n then
  local j = tonumber(ARGV[2 * n + 4])
  redis.call('ZADD', KEYS[n + 1], ARGV[2 * n + 3], out[j] .. ':' .. ARGV[2 * j + 1])
  redis.call('ZADD', KEYS[n + 2], 'NX', ARGV[2 * n + 3], ARGV[2 * n + 2])
end
return out
"""

# KEYS: the channel's pending set, the pending index; ARGV: channel id, members...
_SETTLE_LUA = """
redis.call('ZREM', KEYS[1], unpack(ARGV, 2))
local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
if #first == 0 then
  redis.call('ZREM', KEYS[2], ARGV[1])
else
  redis.call('ZADD', KEYS[2], first[2], ARGV[1])
end
return 1
"""

_clients: dict[asyncio.AbstractEventLoop, tuple[aioredis.Redis, object, object]] = {}
# Settled allocations waiting for the next batched removal, per event loop.
_settling: dict[asyncio.AbstractEventLoop, dict[int, list[str]]] = {}
SETTLE_DELAY = 0.05


def prefix() -> str:
    return settings.CACHES["default"].get("KEY_PREFIX") or "telesrv"


def redis_client():
    """(client, allocation script) of this event loop."""
    return _entry()[:2]


def _entry():
    loop = asyncio.get_running_loop()
    entry = _clients.get(loop)
    if entry is None:
        # Blocking pool: a burst of senders waits for a connection instead of failing.
        pool = aioredis.BlockingConnectionPool.from_url(settings.REDIS_URL, max_connections=64, timeout=10)
        client = aioredis.Redis(connection_pool=pool)
        entry = (client, client.register_script(_LUA), client.register_script(_SETTLE_LUA))
        _clients[loop] = entry
    return entry


async def close_clients() -> None:
    loop = asyncio.get_running_loop()
    if loop in _clients:
        await _flush_settled(loop)
    entry = _clients.pop(loop, None)
    if entry is not None:
        await entry[0].aclose()


def channel_id_key() -> str:
    return f"{prefix()}:counter:channel_id"


def msg_id_key(channel_id: int) -> str:
    return f"{prefix()}:counter:channel_msg_id:{channel_id}"


def pts_key(channel_id: int) -> str:
    return f"{prefix()}:counter:channel_pts:{channel_id}"


def pending_key(channel_id: int) -> str:
    return f"{prefix()}:pts_pending:{channel_id}"


def pending_index_key() -> str:
    return f"{prefix()}:pts_pending"


async def _recover(key: str) -> int:
    p = prefix()
    if key == channel_id_key():
        row = await db.fetchone("SELECT COALESCE(MAX(id), %s) AS v FROM channels", (CHANNEL_ID_BASE,))
        return max(int(row["v"]), CHANNEL_ID_BASE)
    kind, _, cid = key[len(p) + len(":counter:") :].rpartition(":")
    channel_id = int(cid)
    if kind == "channel_msg_id":
        row = await db.fetchone(
            "SELECT GREATEST((SELECT COALESCE(MAX(id), 0) FROM channel_messages WHERE channel_id = %(c)s),"
            " (SELECT COALESCE(MAX(top_message_id), 0) FROM channels WHERE id = %(c)s)) AS v",
            {"c": channel_id},
        )
    else:
        row = await db.fetchone(
            "SELECT GREATEST((SELECT COALESCE(MAX(pts), 0) FROM channel_update_events WHERE channel_id = %(c)s),"
            " (SELECT COALESCE(MAX(pts), 0) FROM channels WHERE id = %(c)s)) AS v",
            {"c": channel_id},
        )
    return int(row["v"])


async def allocate(increments: list[tuple[str, int]], *, journal_channel: int | None = None) -> list[int]:
    """INCRBY each key by its n atomically; returns the new (last) values. With
    ``journal_channel``, the range of that channel's pts key is journalled as pending."""
    _, script = redis_client()
    keys = [k for k, _ in increments]
    n = len(keys)
    args: list = [n]
    for _, count in increments:
        args += ["", count]
    extra_keys: list[str] = []
    if journal_channel is not None:
        j = keys.index(pts_key(journal_channel)) + 1
        extra_keys = [pending_key(journal_channel), pending_index_key()]
        args += [journal_channel, time.time(), j]
    result = await script(keys=keys + extra_keys, args=args)
    if result and result[0] == b"missing":
        for i in result[1:]:
            args[2 * int(i) - 1] = await _recover(keys[int(i) - 1])
        result = await script(keys=keys + extra_keys, args=args)
    pts = sum(n for k, n in increments if ":counter:channel_pts:" in k)
    if pts:
        metrics.PTS_ALLOCATED.inc(pts)
    return [int(v) for v in result]


def pending_member(last_pts: int, count: int) -> str:
    return f"{last_pts}:{count}"


async def settle(channel_id: int, members: list[str]) -> None:
    """The pending allocations ``members`` of ``channel_id`` are committed (as events or
    noops): forget them now."""
    script = _entry()[2]
    for i in range(0, len(members), 1000):  # Lua's unpack() has a stack limit
        chunk = members[i : i + 1000]
        await script(keys=[pending_key(channel_id), pending_index_key()], args=[channel_id, *chunk])


def settle_soon(channel_id: int, last_pts: int, count: int) -> None:
    """:func:`settle`, batched with the other settlements of the next few milliseconds
    (an entry left a little longer is harmless: the repair finds its event and only
    drops it)."""
    loop = asyncio.get_running_loop()
    batch = _settling.get(loop)
    if batch is None:
        batch = _settling[loop] = {}
        loop.call_later(SETTLE_DELAY, _start_flush, loop)
    batch.setdefault(channel_id, []).append(pending_member(last_pts, count))


_flushing: set[asyncio.Task] = set()  # referenced until done (the loop keeps weak refs)


def _start_flush(loop: asyncio.AbstractEventLoop) -> None:
    task = loop.create_task(_flush_settled(loop))
    _flushing.add(task)
    task.add_done_callback(_flushing.discard)


async def _flush_settled(loop: asyncio.AbstractEventLoop) -> None:
    batch = _settling.pop(loop, None)
    if not batch:
        return
    for channel_id, members in batch.items():
        # On failure they stay pending: the repair job settles them later.
        with contextlib.suppress(Exception):
            await settle(channel_id, members)


async def pending(
    older_than: float, channel_id: int | None = None, limit: int = 500
) -> list[tuple[int, int, int]]:
    """(channel_id, last_pts, count) of allocations pending for longer than ``older_than``
    seconds (of one channel, or of any)."""
    client, _ = redis_client()
    cutoff = time.time() - older_than
    if channel_id is None:
        channels = [int(c) for c in await client.zrangebyscore(pending_index_key(), "-inf", cutoff, 0, limit)]
    else:
        channels = [channel_id]
    out = []
    for cid in channels:
        for member in await client.zrangebyscore(pending_key(cid), "-inf", cutoff, 0, limit):
            last, _, count = member.decode().partition(":")
            out.append((cid, int(last), int(count)))
    return out


async def next_channel_id() -> int:
    (value,) = await allocate([(channel_id_key(), 1)])
    return value


async def next_message(channel_id: int, pts_count: int = 1) -> tuple[int, int]:
    """One message id and a pts range ending at the returned pts."""
    msg_id, pts = await allocate(
        [(msg_id_key(channel_id), 1), (pts_key(channel_id), pts_count)], journal_channel=channel_id
    )
    return msg_id, pts


async def next_pts(channel_id: int, count: int = 1) -> int:
    """A contiguous pts range of ``count``; returns its last value."""
    (pts,) = await allocate([(pts_key(channel_id), count)], journal_channel=channel_id)
    return pts
