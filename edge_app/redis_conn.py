"""The one place Redis connections come from (single Redis only in this version).

The contract (function names and signatures) is shared with the Redis Cluster version,
which replaces this module: ``redis+cluster://`` URLs select a cluster there. Key
names keep every key of one script or multi-key command under one ``hash_tag`` so the
same code runs on a cluster.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from django.conf import settings

_async: dict[asyncio.AbstractEventLoop, object] = {}
_sync: list = []


def is_cluster() -> bool:
    return settings.REDIS_URL.startswith("redis+cluster://")


def client():
    """An asyncio client for the running event loop (redis-py's asyncio connections
    belong to the loop that opened them)."""
    import redis.asyncio as aioredis

    loop = asyncio.get_running_loop()
    found = _async.get(loop)
    if found is None:
        for other in [lp for lp in _async if lp.is_closed()]:
            _async.pop(other, None)
        found = _async[loop] = aioredis.Redis.from_url(settings.REDIS_URL)
    return found


def sync_client():
    import redis

    if not _sync:
        _sync.append(redis.Redis.from_url(settings.REDIS_URL))
    return _sync[0]


def hash_tag(kind: str, ident: int | str) -> str:
    return "{" + f"{kind}:{ident}" + "}"


async def spublish(channel: str, data: bytes) -> None:
    await client().execute_command("SPUBLISH", channel, data)


async def sharded_messages(
    channels: list[str], ready: asyncio.Event | None = None
) -> AsyncIterator[tuple[str, bytes]]:
    import redis.asyncio as aioredis

    conn = aioredis.Redis.from_url(settings.REDIS_URL)
    pubsub = conn.pubsub()
    try:
        await pubsub.execute_command("SSUBSCRIBE", *channels)
        confirmed = 0
        while confirmed < len(channels):
            reply = await pubsub.parse_response(block=True)
            if reply and _text(reply[0]) == "ssubscribe":
                confirmed += 1
        if ready is not None:
            ready.set()
        while True:
            reply = await pubsub.parse_response(block=True)
            if reply and _text(reply[0]) == "smessage":
                yield _text(reply[1]), reply[2]
    finally:
        try:
            await pubsub.aclose()
            await conn.aclose()
        except Exception:
            pass


def _text(value) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
