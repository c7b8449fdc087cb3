"""The Redis connection of bots_app (flood counters, query brokers): the event loop's
client of ``edge_app.redis_conn``, keys under the deployment's prefix. Every command
names one key (or keys of one hash tag), so a Redis Cluster serves them too."""

from __future__ import annotations

from edge_app import redis_conn


def client():
    return redis_conn.client()


def key(*parts) -> str:
    return ":".join([redis_conn.key_prefix(), "bots", *(str(p) for p in parts)])
