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
from edge_app.db_backend.conninfo import conninfo, writes_only
from edge_app.db_backend.liveness import PrimaryPool, pool_options

from .eager_reads import EagerReadConnection

POOL_SIZE = int(os.environ.get("TELESRV_CHANNEL_DB_POOL", "8"))

_pools: dict[asyncio.AbstractEventLoop, AsyncConnectionPool] = {}
# The lag-tolerant read pool (TELESRV_DB_REPLICA_HOSTS), when one is configured.
_read_pools: dict[asyncio.AbstractEventLoop, AsyncConnectionPool] = {}
metrics.watch_pool("messages_read", lambda: next(iter(_read_pools.values()), None))
# The listener runs one loop: its pool is the one to report.
metrics.watch_pool("messages", lambda: next(iter(_pools.values()), None))


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


def _new_pool(alias: str) -> AsyncConnectionPool:
    writes = writes_only(alias)
    options, check = pool_options(writes)
    pool = (PrimaryPool if writes else AsyncConnectionPool)(
        conninfo(alias),
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
    return pool


async def get_pool() -> AsyncConnectionPool:
    loop = asyncio.get_running_loop()
    pool = _pools.get(loop)
    if pool is None:
        pool = _pools[loop] = _new_pool("default")
        await pool.open()
    return pool


async def get_read_pool() -> AsyncConnectionPool:
    """The pool for reads that tolerate seconds of lag: a standby's when
    ``TELESRV_DB_REPLICA_HOSTS`` is set, else the primary's. Never for pts,
    differences or anything a client catches up with (docs/operations.md)."""
    from django.conf import settings

    if settings.READ_DATABASE == "default":
        return await get_pool()
    loop = asyncio.get_running_loop()
    pool = _read_pools.get(loop)
    if pool is None:
        pool = _read_pools[loop] = _new_pool(settings.READ_DATABASE)
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


@asynccontextmanager
async def read_connection():
    """:func:`connection` on the read pool (:func:`get_read_pool`): lag-tolerant reads only."""
    pool = await get_read_pool()
    async with pool.connection() as conn:
        yield conn


async def fetchall_lagging(sql: str, params=()):
    """:func:`fetchall` on the read pool: lag-tolerant reads only."""
    async with read_connection() as conn:
        cur = await conn.execute(sql, params)
        return await cur.fetchall()


async def fetchall_planned_for_values(sql: str, params=(), *, settings: tuple[str, ...] = ()) -> list:
    """:func:`fetchall_lagging` for a statement whose best plan depends on its values (a
    text pattern: a rare word through the trigram index, a common one in date order):
    planned for them, not with the pool's generic plan, which cannot tell the two apart.
    ``settings``: more ``SET LOCAL`` assignments for this statement only."""
    async with read_connection() as conn, conn.transaction():
        await conn.execute("SET LOCAL plan_cache_mode = force_custom_plan")
        for setting in settings:
            await conn.execute(f"SET LOCAL {setting}")
        cur = await conn.execute(sql, params)
        return await cur.fetchall()


async def fetchone_lagging(sql: str, params=()):
    async with read_connection() as conn:
        cur = await conn.execute(sql, params)
        return await cur.fetchone()


async def close_pools() -> None:
    """Close this loop's pools (tests and benchmarks call it before their loop ends)."""
    loop = asyncio.get_running_loop()
    for pools in (_pools, _read_pools):
        pool = pools.pop(loop, None)
        if pool is not None:
            await pool.close()
