"""The Redis connection of bots_app (flood counters, query brokers): one client per
event loop, keys under the deployment's prefix."""

from __future__ import annotations

import asyncio

import redis.asyncio as aioredis
from django.conf import settings

_clients: dict[asyncio.AbstractEventLoop, aioredis.Redis] = {}


def client() -> aioredis.Redis:
    loop = asyncio.get_running_loop()
    found = _clients.get(loop)
    if found is None:
        found = _clients[loop] = aioredis.Redis.from_url(settings.REDIS_URL)
    return found


def key(*parts) -> str:
    prefix = settings.CACHES["default"].get("KEY_PREFIX") or "telesrv"
    return ":".join([prefix, "bots", *(str(p) for p in parts)])
