"""Publishing the events of one channel's pts log in pts order.

Channel pts are allocated before the transaction commits, so two senders can commit,
and publish, in the opposite order of their pts. Every publish of a channel goes
through one Lua script on Redis that keeps the stream's last released position and
the events that arrived early: an event is released only when the range before it
was, and then every held successor follows. The script answers with the released
events, each stamped with the end of the one released before it, and the listeners
holding the channel's interest (``edge_app.presence``), read in the same step; the
caller sends them to those listeners, and each listener puts events that two
publishers raced back in order (``edge_app.stream_order``) before delivering one
channel's events in arrival order (``channels_app.push``). Every key of the script
carries the channel's hash tag: one slot of a Redis Cluster.

A range that never comes (its process died between allocation and commit) holds the
stream back at most ``HOLE_WAIT`` seconds; a range that failed is announced with
:func:`skip_in_order` and holds nothing. An event whose range lies before the
released position (late after a skipped hole) is sent at once: clients recover it
by getChannelDifference.

The publishes of one channel made in one turn of the event loop go in one script call:
the sends that one group-committed statement wrote (channels_app.actions.message_writes)
resume together and publish together.
"""

from __future__ import annotations

import asyncio
import logging
import time

from . import presence, redis_conn
from .push import event_message, send_ordered
from .turn_batches import TurnBatcher

log = logging.getLogger("telesrv.edge.push_order")

# Long enough for a committed but slowly publishing sender on a busy host.
HOLE_WAIT = 3.0
# Idle streams are forgotten after this; the next event starts a fresh position.
STREAM_TTL = 24 * 3600

# KEYS: last released position, held events (start -> "stop:ms:message"), end of the
#       last event sent, the channel's interest (listener ids)
# ARGV: now ms, hole wait ms, ttl s, then per range: start, stop, message ('' = advance
#       only). No range: release what waited out the hole.
# Returns {events still held, {listeners}, {prev, stop, message, ...}}; prev -1: late.
_LUA = """
local now, wait, ttl = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local raw = redis.call('GET', KEYS[1])
local last = raw and tonumber(raw) or nil
local rawsent = redis.call('GET', KEYS[3])
local sent = rawsent and tonumber(rawsent) or nil
local out = {}
if #ARGV == 3 and last == nil then return {0, {}, out} end
if last == nil then
  for i = 4, #ARGV, 3 do
    local start = tonumber(ARGV[i])
    if last == nil or start < last then last = start end
  end
end
for i = 4, #ARGV, 3 do
  local start, stop, m = tonumber(ARGV[i]), tonumber(ARGV[i + 1]), ARGV[i + 2]
  if stop <= last then
    if m ~= '' then
      out[#out + 1] = -1; out[#out + 1] = stop; out[#out + 1] = m
    end
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
  if m ~= '' then
    out[#out + 1] = sent or at; out[#out + 1] = tonumber(e); out[#out + 1] = m
    sent = tonumber(e)
  end
  redis.call('HDEL', KEYS[2], tostring(at))
  if tonumber(e) > last then last = tonumber(e) end
end
redis.call('SET', KEYS[1], last, 'EX', ttl)
if sent ~= nil then redis.call('SET', KEYS[3], sent, 'EX', ttl) end
redis.call('EXPIRE', KEYS[2], ttl)
local listeners = {}
if #out > 0 then listeners = redis.call('ZRANGE', KEYS[4], 0, -1) end
return {redis.call('HLEN', KEYS[2]), listeners, out}
"""

_script: list = [None, None]  # (the Redis client it was registered on, the script)
_flush_scheduled: set[int] = set()


def _keys(channel_id: int) -> list[str]:
    base = f"{presence.namespace()}:push_order:{redis_conn.hash_tag('c', channel_id)}"
    return [f"{base}:last", f"{base}:held", f"{base}:sent", presence.channel_key(channel_id)]


async def _call(channel_id: int, ranges: list[tuple[int, int, bytes | str]]) -> int:
    client = redis_conn.client()
    if _script[0] is not client:  # a new Redis client (another event loop)
        _script[:] = [client, client.register_script(_LUA)]
    args: list = [int(time.time() * 1000), int(HOLE_WAIT * 1000), STREAM_TTL]
    for r in ranges:
        args += r
    held, listeners, out = await _script[1](keys=_keys(channel_id), args=args)
    released = [(int(out[i]), int(out[i + 1]), out[i + 2]) for i in range(0, len(out), 3)]
    if released and listeners:
        await send_ordered(
            await presence.live_listeners(x.decode() if isinstance(x, bytes) else str(x) for x in listeners),
            redis_conn.hash_tag("c", channel_id),
            released,
        )
    held = int(held)
    if held and channel_id not in _flush_scheduled:
        _flush_scheduled.add(channel_id)
        asyncio.get_running_loop().create_task(_flush_later(channel_id))
    return held


async def _call_batch(channel_id: int, ranges: list[tuple[int, int, bytes | str]]) -> list[None]:
    await _call(channel_id, ranges)
    return [None] * len(ranges)


_batches = TurnBatcher(_call_batch)  # see the module docstring


async def _flush_later(channel_id: int) -> None:
    """Releases what a hole holds back once it waited ``HOLE_WAIT`` (nobody else may
    publish on the stream meanwhile); reschedules itself while something is held."""
    await asyncio.sleep(HOLE_WAIT + 0.05)
    _flush_scheduled.discard(channel_id)
    try:
        await _call(channel_id, [])
    except Exception:
        log.exception("flushing the push stream of channel %s failed", channel_id)


async def publish_in_order(channel_id: int, start: int, stop: int, kind: str, payload: dict) -> None:
    """Send the event covering pts ``start+1..stop`` of the channel to the listeners
    holding its interest, once everything up to ``start`` was released."""
    message = event_message(kind, payload, {"c": [channel_id]})
    await _batches.submit(channel_id, (start, stop, message))


async def skip_in_order(channel_id: int, start: int, stop: int) -> None:
    """Positions ``start+1..stop`` will carry no event (a failed write): stop waiting."""
    await _batches.submit(channel_id, (start, stop, ""))
