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

from edge_app.db_metrics import DatabaseNodes

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
UPDATES_MISSING_PEERS = Counter(
    "telesrv_updates_missing_peers",
    "Updates sent to a client naming a user or chat they did not carry (edge_app.peer_check;"
    " 0 when every renderer is right), by update and kind of peer",
    ["update", "kind"],
)
PUSH_EVENTS_RECEIVED = Counter(
    "telesrv_push_events_received",
    "Push events this process received from Redis, by channel kind (listener: its own"
    " targeted channel; broadcast: deployment-wide; service: the Bot API's)",
    ["channel"],
)
PUSH_EVENTS_SENT = Counter(
    "telesrv_push_events_sent",
    "Push events this process published, by channel kind (one per receiving listener)",
    ["channel"],
)
PUSH_EVENTS_UNWANTED = Counter(
    "telesrv_push_events_unwanted",
    "Targeted push events received that concerned none of this listener's sessions"
    " (0 outside the moments a presence lease changes)",
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
        yield conns
        yield sessions
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


# Why connections and requests were refused or cut, read from the running listener:
# what docs/reliability.md's alerts watch (docs/operations.md, "Alerts"). Every reason
# is exported from the start, 0 until it happens, so rate() works at once.
LISTENER_REFUSALS = (
    "connections",  # the process's connection cap
    "connections_per_ip",
    "frame_deadline",  # a packet not completed in time (slow-loris)
    "frame_too_large",
    "bad_frame",
    "exchange_timeout",  # a key-exchange step not answered in time: closed, the client starts over
    # PROXY protocol (docs/operations.md, HAProxy): a header from a peer that is no trusted
    # balancer; a trusted balancer's connection without one, with a bad one, or too late.
    "proxy_untrusted",
    "proxy_header_missing",
    "proxy_header_bad",
    "proxy_header_timeout",
)
DISPATCHER_REFUSALS = ("flood_wait", "db_retry")


class _RefusalCollector:
    def collect(self) -> Iterator[CounterMetricFamily]:
        from edge_app import current

        edge = current.get()
        if edge is None:
            return
        refusals = CounterMetricFamily(
            "telesrv_refusals",
            "Connections refused or cut by the listener's limits, and requests answered FLOOD_WAIT or"
            " re-run after losing PostgreSQL, by reason",
            labels=["reason"],
        )
        counted = getattr(edge, "refusals", {})
        for reason in LISTENER_REFUSALS:
            refusals.add_metric([reason], counted.get(reason, 0))
        dispatched = getattr(getattr(edge, "dispatcher", None), "counters", {})
        for reason in DISPATCHER_REFUSALS:
            refusals.add_metric([reason], dispatched.get(reason, 0))
        yield refusals
        gone = CounterMetricFamily(
            "telesrv_connections_gone_while_writing",
            "Connections whose client went away while an answer was being written (closed quietly)",
        )
        gone.add_metric([], getattr(edge, "gone_while_writing", 0))
        yield gone
        overdue = CounterMetricFamily(
            "telesrv_requests_overdue",
            "Requests still running at their deadline: answered -503 Timeout and cancelled",
        )
        overdue.add_metric([], getattr(edge.sessions, "overdue_requests", 0))
        yield overdue
        fingerprint = getattr(getattr(edge, "rsa_key", None), "fingerprint", None)
        if fingerprint is not None:
            key = GaugeMetricFamily(
                "telesrv_server_key_info",
                "1, labelled with the fingerprint of the RSA key this listener answers key exchanges"
                " with: every listener of an installation must show the same one",
                labels=["fingerprint"],
            )
            key.add_metric([f"{fingerprint & 0xFFFFFFFFFFFFFFFF:016x}"], 1)
            yield key


class _BuildInfo:
    def collect(self) -> Iterator[GaugeMetricFamily]:
        import platform

        from django.conf import settings

        info = GaugeMetricFamily(
            "telesrv_build_info",
            "The running release (CHANGELOG.md), its commit if the build recorded one, and Python",
            labels=["version", "commit", "python"],
        )
        info.add_metric(
            [settings.TELESRV_VERSION, getattr(settings, "BUILD_COMMIT", ""), platform.python_version()], 1
        )
        yield info


REGISTRY.register(_LiveCollector())
REGISTRY.register(_RefusalCollector())
REGISTRY.register(_BuildInfo())
REGISTRY.register(DatabaseNodes())

# What only a listener measures: the admin process's /metrics leaves these out (they
# would read 0 there forever and look like a listener that does nothing).
LISTENER_ONLY = frozenset(
    {
        "telesrv_rpc_calls",
        "telesrv_rpc_duration_seconds",
        "telesrv_pushes_sent",
        "telesrv_pushes_dropped",
        "telesrv_send_batch_rows",
        "telesrv_auth_keys_created",
        "telesrv_connections",
        "telesrv_sessions",
        "telesrv_refusals",
        "telesrv_requests_overdue",
        "telesrv_server_key_info",
    }
)


class _Without:
    def __init__(self, registry: CollectorRegistry, names: frozenset[str]) -> None:
        self.registry = registry
        self.names = names

    def collect(self):
        for family in self.registry.collect():
            if family.name not in self.names:
                yield family


def exposition(registry: CollectorRegistry = REGISTRY, *, process: str = "listener") -> bytes:
    """The text exposition; ``process="admin"`` leaves out what only a listener measures."""
    if process == "admin":
        return generate_latest(_Without(registry, LISTENER_ONLY))
    return generate_latest(registry)
