"""Which PostgreSQL node each database alias reaches, and the standbys its primary
streams to, read at scrape time for ``/metrics`` (docs/operations.md, "High
availability with Patroni"): a failover shows as ``telesrv_db_node_info`` naming
another node, a lost synchronous standby as ``telesrv_db_standbys{sync_state="sync"}``
falling to 0, replication falling behind as ``telesrv_db_replay_lag_bytes``.

Each scrape opens its own short connection per alias (libpq's multi-host list of the
alias, as every other connection of the process), so it neither borrows a pooled
connection nor touches Django's connection of the scraping thread. The columns of
``pg_stat_replication`` need a superuser or the ``pg_monitor`` role.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator

from prometheus_client.core import GaugeMetricFamily

log = logging.getLogger("telesrv.db")

_NODE = "SELECT host(inet_server_addr()), inet_server_port(), pg_is_in_recovery()"
_STANDBYS = """
SELECT application_name, sync_state,
       coalesce(pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn), 0)::float8,
       coalesce(extract(epoch FROM replay_lag), 0)::float8
  FROM pg_stat_replication
 WHERE state = 'streaming'
"""
SYNC_STATES = ("sync", "quorum", "potential", "async")


def _aliases() -> list[str]:
    from django.conf import settings

    return [a for a in ("default", "replica") if a in settings.DATABASES]


def _probe(alias: str) -> tuple[str, bool, list[tuple]]:
    """(node "host:port", in recovery, streaming standbys of a primary)."""
    import psycopg

    from edge_app.db_backend.conninfo import conninfo

    with psycopg.connect(conninfo(alias), autocommit=True) as conn:
        host, port, standby = conn.execute(_NODE).fetchone()
        standbys = [] if standby else conn.execute(_STANDBYS).fetchall()
    return f"{host or 'local'}:{port or ''}", standby, standbys


def _families() -> tuple[GaugeMetricFamily, ...]:
    node = GaugeMetricFamily(
        "telesrv_db_node_info",
        "1 for the PostgreSQL node each database alias reaches ('default': the primary,"
        " 'replica': lag-tolerant reads), with its role",
        labels=["alias", "node", "role"],
    )
    up = GaugeMetricFamily("telesrv_db_up", "1 if the alias's node answered this scrape", labels=["alias"])
    standbys = GaugeMetricFamily(
        "telesrv_db_standbys",
        "Standbys streaming from the primary, by sync_state (sync: a commit waits for it)",
        labels=["sync_state"],
    )
    lag_bytes = GaugeMetricFamily(
        "telesrv_db_replay_lag_bytes",
        "WAL the standby has not replayed yet, seen from the primary",
        labels=["standby", "sync_state"],
    )
    lag_seconds = GaugeMetricFamily(
        "telesrv_db_replay_lag_seconds",
        "pg_stat_replication.replay_lag (0 once the standby is idle and caught up)",
        labels=["standby", "sync_state"],
    )
    return node, up, standbys, lag_bytes, lag_seconds


class DatabaseNodes:
    def describe(self) -> tuple[GaugeMetricFamily, ...]:
        """The families without samples: registering the collector must not connect."""
        return _families()

    def collect(self) -> Iterator[GaugeMetricFamily]:
        node, up, standbys, lag_bytes, lag_seconds = families = _families()
        for alias in _aliases():
            try:
                where, standby, streaming = _probe(alias)
            except Exception as exc:
                log.warning(
                    "metrics: database alias %s unreachable: %s",
                    alias,
                    str(exc).splitlines()[0] if str(exc) else type(exc).__name__,
                )
                up.add_metric([alias], 0)
                continue
            up.add_metric([alias], 1)
            node.add_metric([alias, where, "standby" if standby else "primary"], 1)
            if alias != "default":
                continue
            counts = dict.fromkeys(SYNC_STATES, 0)
            for name, state, behind, seconds in streaming:
                counts[state] = counts.get(state, 0) + 1
                lag_bytes.add_metric([name, state], behind)
                lag_seconds.add_metric([name, state], seconds)
            for state, n in counts.items():
                standbys.add_metric([state], n)
        yield from families
