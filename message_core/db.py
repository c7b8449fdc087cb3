"""The async PostgreSQL pool of the message hot paths (channel sends, history, differences
and reads; private sends).

One pool per event loop: the edge runs one loop, tests and benchmarks may run several
in sequence. Connection settings are Django's (so pytest-django's test database is
used automatically).
"""

from __future__ import annotations

import asyncio
import os
from contextlib import asynccontextmanager

import orjson
from psycopg.rows import dict_row
from psycopg.types.json import set_json_loads
from psycopg_pool import AsyncConnectionPool

from edge_app import metrics
from edge_app.db_backend.liveness import pool_options

from .eager_reads import EagerReadConnection

POOL_SIZE = int(os.environ.get("TELESRV_CHANNEL_DB_POOL", "8"))

_pools: dict[asyncio.AbstractEventLoop, AsyncConnectionPool] = {}
# The listener runs one loop: its pool is the one to report.
metrics.watch_pool("messages", lambda: next(iter(_pools.values()), None))


def _conninfo() -> str:
    from django.db import connections

    s = connections["default"].settings_dict
    parts = {
        "dbname": s["NAME"],
        "user": s.get("USER") or "",
        "password": s.get("PASSWORD") or "",
        "host": s.get("HOST") or "",
        "port": str(s.get("PORT") or ""),
    }
    return " ".join(f"{k}='{v}'" for k, v in parts.items() if v)


# Prepared statements keep one generic plan. Every hot statement names its partition key
# (channel_id, user_id) as a parameter, and PostgreSQL's default ("auto") then never
# settles on the generic plan: costed without pruning, it looks 16 partitions dearer
# than a custom plan, so each execution was planned afresh, five partitioned tables for
# a send's statement. Run-time pruning takes the generic plan to the one partition at
# executor start. Measured (bench/loadgen.py, megagroup): PostgreSQL 1.32 -> 0.90 ms of
# CPU per send; getDialogs(100) of 800 groups p99 33 -> 25 ms. A generic plan knows no
# values, so statements for this pool look rows up by key in shapes no estimate can
# turn into a scan: LATERAL ... LIMIT 1 probes, conditions that would match a partial
# index kept above them (tests/channels_app: test_dialogs, test_push_fanout and
# test_statement_plans pin such plans).
PLAN_CACHE_MODE = "force_generic_plan"
# No JIT compilation: the pool's statements are short key lookups, and a generic plan's
# estimate (every partition, before pruning; more so on tables not yet analyzed) can
# pass jit_above_cost, after which each execution compiled its expressions anew:
# getDialogs(100) of 800 groups took 200 ms instead of 10 (bench/bench_dialogs.py on
# tables without statistics).
POOL_OPTIONS = f"-c plan_cache_mode={PLAN_CACHE_MODE} -c jit=off"


async def _configure(conn) -> None:
    # JSON columns (channels, members, message snapshots, entities) are most of what a
    # history page or a dialog list decodes: orjson takes a 100-dialog page's decoding
    # from about 6 ms to about 2 (bench/bench_dialogs.py). This pool's connections only;
    # Django's keep their own loaders.
    set_json_loads(orjson.loads, conn)


async def get_pool() -> AsyncConnectionPool:
    loop = asyncio.get_running_loop()
    pool = _pools.get(loop)
    if pool is None:
        options, check = pool_options()
        pool = AsyncConnectionPool(
            _conninfo(),
            connection_class=EagerReadConnection,
            min_size=1,
            max_size=POOL_SIZE,
            kwargs={
                "row_factory": dict_row,
                "autocommit": True,
                "prepare_threshold": 2,
                "options": POOL_OPTIONS,
            },
            configure=_configure,
            open=False,
            **options,
        )
        check.pool = pool
        _pools[loop] = pool
        await pool.open()
    return pool


@asynccontextmanager
async def connection():
    """A pooled connection in autocommit mode (wrap writes in ``conn.transaction()``)."""
    pool = await get_pool()
    async with pool.connection() as conn:
        yield conn


async def fetchone(sql: str, params=()):
    async with connection() as conn:
        cur = await conn.execute(sql, params)
        return await cur.fetchone()


async def fetchall(sql: str, params=()):
    async with connection() as conn:
        cur = await conn.execute(sql, params)
        return await cur.fetchall()


async def close_pools() -> None:
    """Close this loop's pool (tests and benchmarks call it before their loop ends)."""
    loop = asyncio.get_running_loop()
    pool = _pools.pop(loop, None)
    if pool is not None:
        await pool.close()
