"""Redis counters: channel ids, per-channel message ids and per-channel pts.

Every allocation is one call of one Lua script: "if a key is missing, initialise it
from the PostgreSQL recovery value, then INCRBY n" for up to a few keys at once, so a
send gets its message id and its pts in one round trip, and a multi-pts operation gets
a contiguous range. The first call passes no recovery values; only when Redis has lost
a key, or the counters were last written by another Redis server (see the fence below),
does the caller read ``MAX(...)`` from PostgreSQL and call again. All keys of one call
share a hash tag (one Redis Cluster slot).

A pts range is journalled by the same script that allocates it (so no crash can come
between the two): ``pts_pending:{c:<channel>}`` holds ``"<last pts>:<count>"`` with the
allocation time, and ``pts_pending:index`` the channels that have entries (written just
after the script: another slot, see :func:`pending`). :func:`settle` removes an entry once its event (or noop) is committed; an entry
left behind by a crash or a database outage is filled with a noop by the repair job
(``actions.pts_repair``). See docs/reliability.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import time

from edge_app import metrics, redis_conn
from message_core import db

# Channel ids (and the legacy chat ids derived from them) start here: above every id a
# client reserves, and below user ids (accounts_app.models.USER_ID_BASE), so a number
# names one peer of either kind.
CHANNEL_ID_BASE = 1_000_000_000

# KEYS: n counters, the writer fence [, the channel's pending set]
# ARGV: n, per counter (recovery value, increment, id margin) [, now, index of the pts counter]
#
# The fence holds the run id of the Redis server that last wrote these counters. A
# different one (a replica promoted after its master died, a restart from an older
# snapshot) may hold counters behind what was handed out - replication is asynchronous
# - so they are checked against PostgreSQL before they count on: the script answers
# "recover" and the caller passes MAX(...) from the database. Id counters then also
# skip ``id margin`` (ids handed out but not yet committed when the master died);
# pts may not skip (a hole), an in-flight pts that comes twice is refused by the pts
# log's key and its writer takes a fresh one (``common.with_pts``).
_LUA = """
local n = tonumber(ARGV[1])
local runid = string.match(redis.call('INFO', 'server'), 'run_id:(%x+)')
local fence = redis.call('GET', KEYS[n + 1])
local stale = fence ~= runid
local need = {}
for i = 1, n do
  local rec = ARGV[3 * i - 1]
  local cur = redis.call('GET', KEYS[i])
  if cur == false or stale then
    if rec == '' then
      table.insert(need, i)
    else
      rec = tonumber(rec)
      if cur == false then
        redis.call('SET', KEYS[i], rec)
      else
        if fence then rec = rec + tonumber(ARGV[3 * i + 1]) end
        if rec > tonumber(cur) then redis.call('SET', KEYS[i], rec) end
      end
    end
  end
end
if #need > 0 then
  table.insert(need, 1, 'recover')
  return need
end
if stale then redis.call('SET', KEYS[n + 1], runid) end
local out = {}
for i = 1, n do
  out[i] = redis.call('INCRBY', KEYS[i], tonumber(ARGV[3 * i]))
end
if #KEYS > n + 1 then
  local j = tonumber(ARGV[3 * n + 3])
  local first = redis.call('ZCARD', KEYS[n + 2]) == 0
  redis.call('ZADD', KEYS[n + 2], ARGV[3 * n + 2], out[j] .. ':' .. ARGV[3 * j])
  if first then out[n + 1] = 1 else out[n + 1] = 0 end
end
return out
"""

# Ids handed out by a lost master but not yet committed, skipped after a failover.
ID_MARGIN = 1000

# Settled allocations waiting for the next batched removal, per event loop.
_settling: dict[asyncio.AbstractEventLoop, dict[int, list[str]]] = {}
SETTLE_DELAY = 0.05


def prefix() -> str:
    return redis_conn.key_prefix()


def redis_client():
    """(client, allocation script) of this event loop."""
    return redis_conn.client(), redis_conn.script(_LUA)


async def close_clients() -> None:
    loop = asyncio.get_running_loop()
    if loop in _settling:
        await _flush_settled(loop)
    await redis_conn.close_client()


# Every key of one channel carries its hash tag, so a script touching them runs on one
# Redis Cluster slot. The journal's index of channels is one key of its own, written
# outside the allocation script (see ``pending``).
def _channel_tag(channel_id: int) -> str:
    return redis_conn.hash_tag("c", channel_id)


def channel_id_key() -> str:
    return f"{prefix()}:counter:{redis_conn.hash_tag('g', 'channel_id')}"


def msg_id_key(channel_id: int) -> str:
    return f"{prefix()}:counter:channel_msg_id:{_channel_tag(channel_id)}"


def pts_key(channel_id: int) -> str:
    return f"{prefix()}:counter:channel_pts:{_channel_tag(channel_id)}"


def fence_key(counter_key: str) -> str:
    return f"{prefix()}:counter:writer:{counter_key[counter_key.rindex('{') :]}"


def pending_key(channel_id: int) -> str:
    return f"{prefix()}:pts_pending:{_channel_tag(channel_id)}"


def pending_index_key() -> str:
    return f"{prefix()}:pts_pending:index"


def _counter_of(key: str) -> tuple[str, int | None]:
    """(kind, channel id) of a counter key."""
    if key == channel_id_key():
        return "channel_id", None
    kind = key[len(prefix()) + len(":counter:") :].split(":", 1)[0]
    return kind, int(key[key.rindex("{") + 3 : -1])


async def _recover(key: str) -> int:
    kind, channel_id = _counter_of(key)
    if kind == "channel_id":
        row = await db.fetchone("SELECT COALESCE(MAX(id), %s) AS v FROM channels", (CHANNEL_ID_BASE,))
        return max(int(row["v"]), CHANNEL_ID_BASE)
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
    ``journal_channel``, the range of that channel's pts key is journalled as pending.
    The keys share one hash tag (one channel's, or the channel id counter alone)."""
    client, script = redis_client()
    keys = [k for k, _ in increments]
    n = len(keys)
    args: list = [n]
    for key, count in increments:
        args += ["", count, 0 if ":counter:channel_pts:" in key else ID_MARGIN]
    extra_keys = [fence_key(keys[0])]
    if journal_channel is not None:
        j = keys.index(pts_key(journal_channel)) + 1
        extra_keys.append(pending_key(journal_channel))
        args += [time.time(), j]
    for _ in range(5):
        result = await script(keys=keys + extra_keys, args=args)
        if not result or result[0] != b"recover":
            break
        for i in result[1:]:
            args[3 * int(i) - 2] = await _recover(keys[int(i) - 1])
    else:
        raise RuntimeError(f"Redis counters {keys} kept asking for recovery")
    if journal_channel is not None:
        if result[n]:  # the channel's first pending entry: index the channel
            await client.zadd(pending_index_key(), {str(journal_channel): args[-2]}, nx=True)
        result = result[:n]
    pts = sum(n for k, n in increments if ":counter:channel_pts:" in k)
    if pts:
        metrics.PTS_ALLOCATED.inc(pts)
    return [int(v) for v in result]


def pending_member(last_pts: int, count: int) -> str:
    return f"{last_pts}:{count}"


async def settle(channel_id: int, members: list[str]) -> None:
    """The pending allocations ``members`` of ``channel_id`` are committed (as events or
    noops): forget them now. (The channel stays in the index until ``pending`` finds
    its set empty.)"""
    client, _ = redis_client()
    for i in range(0, len(members), 1000):
        await client.zrem(pending_key(channel_id), *members[i : i + 1000])


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
    seconds (of one channel, or of any).

    The index of channels with entries is written outside the allocation script (on a
    Redis Cluster it lives in another slot than the channel's keys): the allocation that
    makes a channel's set non-empty adds the channel, only this scan takes it out - and
    looks at the set again after, putting the channel back if an allocation came in
    between. A channel whose entries are all younger gets their age as its score."""
    client, _ = redis_client()
    cutoff = time.time() - older_than
    if channel_id is None:
        channels = [int(c) for c in await client.zrangebyscore(pending_index_key(), "-inf", cutoff, 0, limit)]
    else:
        channels = [channel_id]
    out = []
    for cid in channels:
        old = await client.zrangebyscore(pending_key(cid), "-inf", cutoff, 0, limit)
        for member in old:
            last, _, count = member.decode().partition(":")
            out.append((cid, int(last), int(count)))
        if channel_id is None and not old:
            await _reindex(client, cid)
    return out


async def _reindex(client, channel_id: int) -> None:
    first = await client.zrange(pending_key(channel_id), 0, 0, withscores=True)
    if first:
        await client.zadd(pending_index_key(), {str(channel_id): first[0][1]}, xx=True)
        return
    await client.zrem(pending_index_key(), str(channel_id))
    first = await client.zrange(pending_key(channel_id), 0, 0, withscores=True)
    if first:  # an allocation came in meanwhile
        await client.zadd(pending_index_key(), {str(channel_id): first[0][1]})


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
