"""Publishing the events of one ordered stream (a channel's pts log) in stream order.

Channel pts are allocated before the transaction commits, so two senders can commit,
and publish, in the opposite order of their pts. Every publish of a stream goes
through one Lua script on Redis that keeps the stream's last published position and
the events that arrived early: an event is published only when the range before it
was, and then every held successor follows. Redis pub/sub keeps that order to every
edge, and each edge delivers one channel's events in arrival order
(``channels_app.push``), so each session gets them in pts order without any session
waiting for another.

A range that never comes (its process died between allocation and commit) holds the
stream back at most ``HOLE_WAIT`` seconds; a range that failed is announced with
:func:`skip_in_order` and holds nothing. An event whose range lies before the
published position (late after a skipped hole) is published at once: clients recover
it by getChannelDifference.

On a Redis Cluster a script may publish only to a shard channel of its own keys' slot.
Where the pub/sub channel lies elsewhere (the one deployment-wide push channel), the
script hands the released messages back, in order, and the caller SPUBLISHes them one
after the other: one caller's releases stay in order; two processes releasing the same
stream's events within the same instant may publish them interleaved (the client then
sees a pts gap and fills it by getChannelDifference). A stream of a channel keeps its
keys under the channel's hash tag, so a per-channel shard channel tagged the same way is
published from inside the script, atomically in order.

The publishes of one stream made in one turn of the event loop go in one script call:
the sends that one group-committed statement wrote (channels_app.actions.message_writes)
resume together and publish together.
"""

from __future__ import annotations

import asyncio
import logging
import time

from . import redis_conn
from .push import channel_name, event_message
from .turn_batches import TurnBatcher

log = logging.getLogger("telesrv.edge.push_order")

# Long enough for a committed but slowly publishing sender on a busy host.
HOLE_WAIT = 3.0
# Idle streams are forgotten after this; the next event starts a fresh position.
STREAM_TTL = 24 * 3600

# KEYS: last published position, held events (start -> "stop:ms:message")
# ARGV: pubsub channel ('' = hand the messages back), now ms, hole wait ms, ttl s, then
#       per range: start, stop, message ('' = advance only). No range: release what
#       waited out the hole.
# Returns: the number of held events, then the released messages (channel '').
_LUA = """
local chan, now, wait, ttl = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local out = {0}
local function release(m)
  if m == '' then return end
  if chan == '' then table.insert(out, m) else redis.call('SPUBLISH', chan, m) end
end
local raw = redis.call('GET', KEYS[1])
local last = raw and tonumber(raw) or nil
if #ARGV == 4 and last == nil then return out end
if last == nil then
  for i = 5, #ARGV, 3 do
    local start = tonumber(ARGV[i])
    if last == nil or start < last then last = start end
  end
end
for i = 5, #ARGV, 3 do
  local start, stop, m = tonumber(ARGV[i]), tonumber(ARGV[i + 1]), ARGV[i + 2]
  if stop <= last then
    release(m)
  else
    redis.call('HSET', KEYS[2], tostring(start), stop .. ':' .. now .. ':' .. m)
  end
end
while true do
  local v = redis.call('HGET', KEYS[2], tostring(last))
  local at = last
  if not v then
    local lo = nil
    for _, k in ipairs(redis.call('HKEYS', KEYS[2])) do
      local n = tonumber(k)
      if lo == nil or n < lo then lo = n end
    end
    if lo == nil then break end
    v = redis.call('HGET', KEYS[2], tostring(lo))
    local _, held = string.match(v, '^(%d+):(%d+):')
    if lo > last and now - tonumber(held) < wait then break end
    at = lo
  end
  local e, _, m = string.match(v, '^(%d+):(%d+):(.*)$')
  release(m)
  redis.call('HDEL', KEYS[2], tostring(at))
  if tonumber(e) > last then last = tonumber(e) end
end
redis.call('SET', KEYS[1], last, 'EX', ttl)
redis.call('EXPIRE', KEYS[2], ttl)
out[1] = redis.call('HLEN', KEYS[2])
return out
"""

_flush_scheduled: set[str] = set()


def _tag(stream: str) -> str:
    kind, _, ident = stream.partition(":")
    if kind == "channel" and ident.isdigit():
        return redis_conn.hash_tag("c", ident)  # the channel's slot
    return redis_conn.hash_tag("s", stream)


def _keys(stream: str) -> list[str]:
    base = f"{redis_conn.key_prefix()}:push_order:{stream}:{_tag(stream)}"
    return [f"{base}:last", f"{base}:held"]


def _publish_inside(channel: str, stream: str) -> bool:
    """Whether the script may SPUBLISH to ``channel`` itself (always on one Redis; on a
    cluster when the channel lies in the stream's slot)."""
    if not redis_conn.is_cluster():
        return True
    from redis.crc import key_slot

    return key_slot(channel.encode()) == key_slot(_keys(stream)[0].encode())


async def _call(stream: str, ranges: list[tuple[int, int, str]]) -> int:
    channel = channel_name()
    inside = _publish_inside(channel, stream)
    args: list = [channel if inside else "", int(time.time() * 1000), int(HOLE_WAIT * 1000), STREAM_TTL]
    for r in ranges:
        args += r
    result = await redis_conn.script(_LUA)(keys=_keys(stream), args=args)
    held = int(result[0])
    for message in result[1:]:
        await redis_conn.spublish(channel, message)
    if held and stream not in _flush_scheduled:
        _flush_scheduled.add(stream)
        asyncio.get_running_loop().create_task(_flush_later(stream))
    return held


async def _call_batch(stream: str, ranges: list[tuple[int, int, str]]) -> list[None]:
    await _call(stream, ranges)
    return [None] * len(ranges)


_batches = TurnBatcher(_call_batch)  # see the module docstring


async def _flush_later(stream: str) -> None:
    """Releases what a hole holds back once it waited ``HOLE_WAIT`` (nobody else may
    publish on the stream meanwhile); reschedules itself while something is held."""
    await asyncio.sleep(HOLE_WAIT + 0.05)
    _flush_scheduled.discard(stream)
    try:
        await _call(stream, [])
    except Exception:
        log.exception("flushing push stream %s failed", stream)


async def publish_in_order(stream: str, start: int, stop: int, kind: str, payload: dict) -> None:
    """Publish (like ``push.publish``) the event covering positions ``start+1..stop`` of
    ``stream`` once everything up to ``start`` was published."""
    await _batches.submit(stream, (start, stop, event_message(kind, payload)))


async def skip_in_order(stream: str, start: int, stop: int) -> None:
    """Positions ``start+1..stop`` will carry no event (a failed write): stop waiting."""
    await _batches.submit(stream, (start, stop, ""))
