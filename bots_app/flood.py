"""Bots' send limits, as Telegram has them: about ``BOT_FLOOD_PER_SECOND`` (30) messages
a second in all and ``BOT_FLOOD_GROUP_PER_MINUTE`` (20) a minute into one group; past
either the send is refused with FLOOD_WAIT_X until the window ends.

Fixed windows counted in Redis, so every listener process counts against the same
budget. A refused send gives back what it took, so a bot that waits as told is not
held back by its own refused attempts.
"""

from __future__ import annotations

import time

from django.conf import settings

from edge_app import redis_conn
from tl.errors import FloodWaitError

from . import kv

# One key per call (so one Redis Cluster slot): count, and let the window expire.
_TAKE_LUA = """
local used = redis.call('INCRBY', KEYS[1], ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[2])
return used
"""


def per_second() -> int:
    return int(getattr(settings, "BOT_FLOOD_PER_SECOND", 30))


def group_per_minute() -> int:
    return int(getattr(settings, "BOT_FLOOD_GROUP_PER_MINUTE", 20))


async def _take(key: str, count: int, limit: int, window: int, now: float) -> int:
    """Take ``count`` from the window's budget; 0, or the seconds until it resets."""
    used = await redis_conn.script(_TAKE_LUA)(keys=[key], args=[count, window + 1])
    if int(used) <= limit:
        return 0
    await kv.client().decrby(key, count)
    return max(1, int(window - now % window + 0.999))


async def check(bot_id: int, channel_id: int | None, count: int, *, now: float | None = None) -> None:
    """Count ``count`` messages of ``bot_id`` (into ``channel_id``, a group, if given);
    raises FLOOD_WAIT_X past a limit."""
    now = time.time() if now is None else now
    base = kv.key("flood", bot_id)
    wait = await _take(f"{base}:s:{int(now)}", count, per_second(), 1, now)
    if not wait and channel_id is not None:
        wait = await _take(f"{base}:c{channel_id}:m:{int(now // 60)}", count, group_per_minute(), 60, now)
        if wait:
            await kv.client().decrby(f"{base}:s:{int(now)}", count)
    if wait:
        raise FloodWaitError(seconds=wait)
