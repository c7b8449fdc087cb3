"""The server's Prometheus metrics, in one place so any layer above the edge can import
and count them (``mtproto`` does not: it knows nothing of Prometheus or Django; what it
holds, connections and sessions, is read from the running server at scrape time).

Served on the listener's health port (``/metrics``) and by the admin (``/metrics``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

from prometheus_client import REGISTRY, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

RPC_CALLS = Counter(
    "telesrv_rpc_calls",
    "RPC calls answered, by TL method and error ('' = success)",
    ["method", "error"],
)
RPC_SECONDS = Histogram(
    "telesrv_rpc_duration_seconds",
    "Time to answer one RPC call, by TL method and error",
    ["method", "error"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
)
PUSHES_SENT = Counter("telesrv_pushes_sent", "Updates pushed to a live session")
PUSHES_DROPPED = Counter(
    "telesrv_pushes_dropped",
    "Updates that could not be pushed (session gone, rendering or sending failed), by reason",
    ["reason"],
)
PTS_ALLOCATED = Counter("telesrv_pts_allocated", "Channel pts values allocated")
PTS_NOOP_FILLS = Counter(
    "telesrv_pts_noop_fills", "Channel pts values filled with a noop event (an allocation whose write failed)"
)
SEND_BATCH_ROWS = Histogram(
    "telesrv_send_batch_rows",
    "New channel messages written by one statement (sends of one channel grouped while the previous one ran)",
    buckets=(1, 2, 4, 8, 16, 32, 64, 100),
)
AUTH_KEYS_CREATED = Counter(
    "telesrv_auth_keys_created", "Auth keys created by key exchanges, by kind", ["kind"]
)
REDIS_SECONDS = Histogram(
    "telesrv_redis_latency_seconds",
    "Round trip of a Redis PING (health checks and scrapes)",
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0),
)

_NUMBER = re.compile(r"\d+")


def error_label(exc: BaseException | None) -> str:
    """An RPC error's name with its number folded (FLOOD_WAIT_17 -> FLOOD_WAIT_X), so
    the label set stays small."""
    if exc is None:
        return ""
    message = getattr(exc, "message", None) or type(exc).__name__
    return _NUMBER.sub("X", str(message))[:64]


def observe_rpc(method: str, error: str, seconds: float) -> None:
    RPC_CALLS.labels(method, error).inc()
    RPC_SECONDS.labels(method, error).observe(seconds)


# --- read at scrape time -------------------------------------------------------------

_pools: dict[str, Callable[[], Any]] = {}


def watch_pool(name: str, get_pool: Callable[[], Any]) -> None:
    """Report a psycopg_pool pool (``get_pool()`` returns it or None) at each scrape."""
    _pools[name] = get_pool


class _LiveCollector:
    """Connections by transport, sessions and PostgreSQL pool use of the running edge."""

    def collect(self) -> Iterator[GaugeMetricFamily]:
        from edge_app import current

        conns = GaugeMetricFamily(
            "telesrv_connections", "Open MTProto connections, by transport", labels=["transport"]
        )
        sessions = GaugeMetricFamily("telesrv_sessions", "Live MTProto sessions in this process")
        refusals = CounterMetricFamily(
            "telesrv_connection_refusals",
            "Connections the listener refused or cut, by reason",
            labels=["reason"],
        )
        edge = current.get()
        if edge is not None:
            by_kind: dict[str, int] = {}
            for conn in list(getattr(edge, "_connections", ())):
                stream = getattr(conn, "transport", None)
                kind = getattr(stream, "kind", None) or "undetected"
                if getattr(stream, "obfuscated", False):
                    kind = f"obfuscated-{kind}"
                if getattr(stream, "websocket", None) is not None:
                    kind = f"websocket-{kind}"
                by_kind[kind] = by_kind.get(kind, 0) + 1
            for kind, n in sorted(by_kind.items()):
                conns.add_metric([kind], n)
            sessions.add_metric([], len(edge.sessions))
            for reason, n in sorted(getattr(edge, "refusals", {}).items()):
                refusals.add_metric([reason], n)
        yield conns
        yield sessions
        yield refusals
        size = GaugeMetricFamily(
            "telesrv_pg_pool_connections", "PostgreSQL pool connections", labels=["pool"]
        )
        idle = GaugeMetricFamily("telesrv_pg_pool_idle", "Idle PostgreSQL pool connections", labels=["pool"])
        waiting = GaugeMetricFamily(
            "telesrv_pg_pool_waiting", "Requests waiting for a pooled connection", labels=["pool"]
        )
        for name, get_pool in sorted(_pools.items()):
            pool = get_pool()
            if pool is None:
                continue
            stats = pool.get_stats()
            size.add_metric([name], stats.get("pool_size", 0))
            idle.add_metric([name], stats.get("pool_available", 0))
            waiting.add_metric([name], stats.get("requests_waiting", 0))
        yield size
        yield idle
        yield waiting


REGISTRY.register(_LiveCollector())


def exposition(registry: CollectorRegistry = REGISTRY) -> bytes:
    return generate_latest(registry)
