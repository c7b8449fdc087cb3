"""Redis counters: channel ids, per-channel message ids and per-channel pts.

Every allocation is one call of one Lua script: "if a key is missing, initialise it
from the PostgreSQL recovery value, then INCRBY n" for up to a few keys at once, so a
send gets its message id and its pts in one round trip, and a multi-pts operation gets
a contiguous range. The first call passes no recovery values; only when Redis has lost
a key does the caller read ``MAX(...)`` from PostgreSQL and call again.
"""

from __future__ import annotations

import asyncio

import redis.asyncio as aioredis
from django.conf import settings

from edge_app import metrics

from . import db

# Channel ids live far above user ids (which accounts_app allocates from 1).
CHANNEL_ID_BASE = 1_000_000_000

_LUA = """
local missing = {}
for i, key in ipairs(KEYS) do
  if redis.call('EXISTS', key) == 0 then
    local rec = ARGV[2 * i - 1]
    if rec == '' then
      table.insert(missing, i)
    else
      redis.call('SET', key, rec)
    end
  end
end
if #missing > 0 then
  table.insert(missing, 1, 'missing')
  return missing
end
local out = {}
for i, key in ipairs(KEYS) do
  out[i] = redis.call('INCRBY', key, tonumber(ARGV[2 * i]))
end
return out
"""

_clients: dict[asyncio.AbstractEventLoop, tuple[aioredis.Redis, object]] = {}


def prefix() -> str:
    return settings.CACHES["default"].get("KEY_PREFIX") or "telesrv"


def redis_client():
    loop = asyncio.get_running_loop()
    entry = _clients.get(loop)
    if entry is None:
        # Blocking pool: a burst of senders waits for a connection instead of failing.
        pool = aioredis.BlockingConnectionPool.from_url(settings.REDIS_URL, max_connections=64, timeout=10)
        client = aioredis.Redis(connection_pool=pool)
        entry = (client, client.register_script(_LUA))
        _clients[loop] = entry
    return entry


async def close_clients() -> None:
    entry = _clients.pop(asyncio.get_running_loop(), None)
    if entry is not None:
        await entry[0].aclose()


def channel_id_key() -> str:
    return f"{prefix()}:counter:channel_id"


def msg_id_key(channel_id: int) -> str:
    return f"{prefix()}:counter:channel_msg_id:{channel_id}"


def pts_key(channel_id: int) -> str:
    return f"{prefix()}:counter:channel_pts:{channel_id}"


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


async def allocate(increments: list[tuple[str, int]]) -> list[int]:
    """INCRBY each key by its n atomically; returns the new (last) values."""
    _, script = redis_client()
    keys = [k for k, _ in increments]
    args: list = []
    for _, n in increments:
        args += ["", n]
    result = await script(keys=keys, args=args)
    if result and result[0] == b"missing":
        for i in result[1:]:
            args[2 * (int(i) - 1)] = await _recover(keys[int(i) - 1])
        result = await script(keys=keys, args=args)
    pts = sum(n for k, n in increments if ":counter:channel_pts:" in k)
    if pts:
        metrics.PTS_ALLOCATED.inc(pts)
    return [int(v) for v in result]


async def next_channel_id() -> int:
    (value,) = await allocate([(channel_id_key(), 1)])
    return value


async def next_message(channel_id: int, pts_count: int = 1) -> tuple[int, int]:
    """One message id and a pts range ending at the returned pts."""
    msg_id, pts = await allocate([(msg_id_key(channel_id), 1), (pts_key(channel_id), pts_count)])
    return msg_id, pts


async def next_pts(channel_id: int, count: int = 1) -> int:
    """A contiguous pts range of ``count``; returns its last value."""
    (pts,) = await allocate([(pts_key(channel_id), count)])
    return pts
