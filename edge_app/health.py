"""Liveness and readiness of a telesrv process (the admin and each listener).

``/healthz``: the process answers. ``/readyz``: PostgreSQL answers, every migration is
applied, and Redis answers a PING; a load balancer sends clients only to ready processes.
"""

from __future__ import annotations

import json
import time

from edge_app import metrics

REDIS_TIMEOUT = 2.0


def _postgres() -> str | None:
    from django.db import connection

    try:
        with connection.cursor() as cur:
            cur.execute("SELECT 1")
    except Exception as exc:
        return f"unreachable: {type(exc).__name__}"
    return None


def pending_migrations() -> list[str]:
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    executor = MigrationExecutor(connection)
    plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
    return [f"{migration.app_label}.{migration.name}" for migration, _ in plan]


def _redis() -> str | None:
    from edge_app import redis_conn

    client = None
    try:
        # A cluster client reads the slot map when it is made: that can fail already.
        client = redis_conn.probe_client(REDIS_TIMEOUT)
        start = time.perf_counter()
        client.ping()
        metrics.REDIS_SECONDS.observe(time.perf_counter() - start)
    except Exception as exc:
        return f"unreachable: {type(exc).__name__}"
    finally:
        if client is not None:
            client.close()
    return None


def readiness() -> tuple[bool, dict[str, str]]:
    """Synchronous (Django ORM): the listener runs it in a worker thread."""
    checks: dict[str, str] = {}
    problem = _postgres()
    checks["postgresql"] = problem or "ok"
    if problem is None:
        try:
            pending = pending_migrations()
        except Exception as exc:
            checks["migrations"] = f"unknown: {type(exc).__name__}"
        else:
            checks["migrations"] = (
                f"{len(pending)} not applied: {', '.join(pending[:5])}" if pending else "ok"
            )
    else:
        checks["migrations"] = "unknown: no database"
    checks["redis"] = _redis() or "ok"
    return all(v == "ok" for v in checks.values()), checks


def readiness_body(ready: bool, checks: dict[str, str]) -> bytes:
    return json.dumps({"ready": ready, "checks": checks}, sort_keys=True).encode() + b"\n"


def readiness_in_worker_thread() -> tuple[bool, dict[str, str]]:
    """``readiness`` from a thread of its own: closes the thread's database connection
    afterwards (the listener's threads are not in a request cycle that would)."""
    from django.db import connection

    try:
        return readiness()
    finally:
        connection.close()
