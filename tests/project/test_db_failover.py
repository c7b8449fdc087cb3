"""Connections follow the primary (docs/operations.md, "PostgreSQL failover"): a host
list becomes one libpq multi-host connection that only a writable node accepts, and a
connection whose node became read-only (a demoted primary) is dropped by the ORM and by
the pools, so its replacement finds the new primary. The failover itself, with a real
standby promoted under load: tests/e2e/test_failover.py."""

from __future__ import annotations

import psycopg
import pytest
from django.db import connection

from edge_app.db_backend.conninfo import conninfo
from edge_app.db_backend.liveness import PrimaryPool, pool_options
from edge_app.dispatcher import db_connection_lost
from message_core import db as channel_db
from telesrv_project.db_hosts import database_hosts, parse_hosts

pytestmark = pytest.mark.django_db(transaction=True)


def test_host_lists_become_libpq_multi_host_parameters():
    assert parse_hosts("h1:5432, h2:5433,h3", "6000") == ("h1,h2,h3", "5432,5433,6000")
    assert parse_hosts("[::1]:5433,10.0.0.2", "5432") == ("::1,10.0.0.2", "5433,5432")
    with pytest.raises(ValueError):
        parse_hosts("h1:port", "5432")
    with pytest.raises(ValueError):
        parse_hosts(" , ", "5432")
    # Without a list, the single host and port stay the default.
    single = database_hosts("", "db.local", "6543", session_attrs="read-write", connect_timeout="5")
    assert single["HOST"] == "db.local" and single["PORT"] == "6543"
    assert single["OPTIONS"] == {"target_session_attrs": "read-write", "connect_timeout": "5"}


def test_connections_give_up_a_node_that_vanishes_without_a_reset():
    # tests/e2e/test_partitions.py cuts a primary's network; these bound the wait.
    opts = database_hosts("", "db", "5432", session_attrs="read-write", connect_timeout="2", tcp_timeout="5")
    assert opts["OPTIONS"]["tcp_user_timeout"] == "5000" and opts["OPTIONS"]["keepalives_idle"] == "5"
    info = psycopg.conninfo.conninfo_to_dict(conninfo())
    assert info["tcp_user_timeout"] == "5000" and info["keepalives"] == "1"
    with connection.cursor() as cur:  # the ORM's connections carry them too
        assert cur.connection.info.get_parameters()["tcp_user_timeout"] == "5000"


def test_pools_connect_only_to_a_writable_node():
    info = psycopg.conninfo.conninfo_to_dict(conninfo())
    assert info["target_session_attrs"] == "read-write"


def test_a_host_list_skips_a_node_that_is_down():
    s = connection.settings_dict
    dead = psycopg.conninfo.make_conninfo(conninfo(), host=f"127.0.0.1,{s['HOST']}", port=f"1,{s['PORT']}")
    with psycopg.connect(dead, autocommit=True) as conn:
        assert conn.execute("SHOW transaction_read_only").fetchone()[0] == "off"


def orm_session() -> tuple[int, str]:
    with connection.cursor() as cur:
        cur.execute("SELECT pg_backend_pid(), current_setting('transaction_read_only')")
        return cur.fetchone()


def test_orm_connection_to_a_read_only_node_is_replaced():
    pid, _ = orm_session()
    with connection.cursor() as cur:
        # What a demoted node looks like to the session: writes refused from now on.
        cur.execute("SET default_transaction_read_only = on")
    again, read_only = orm_session()
    assert again != pid and read_only == "off"


async def _primary_pool():
    options, check = pool_options(writes=True)
    pool = PrimaryPool(conninfo(), min_size=1, max_size=1, open=False, kwargs={"autocommit": True}, **options)
    check.pool = pool
    await pool.open(wait=True, timeout=10)
    return pool, check


async def _session(pool) -> tuple[int, str]:
    async with pool.connection() as conn:
        cur = await conn.execute("SELECT pg_backend_pid(), current_setting('transaction_read_only')")
        return await cur.fetchone()


async def test_pool_drops_a_connection_whose_write_was_refused_as_read_only():
    pool, check = await _primary_pool()
    try:
        pid, _ = await _session(pool)
        with pytest.raises(psycopg.errors.ReadOnlySqlTransaction) as refused:
            async with pool.connection() as conn:
                assert conn.info.backend_pid == pid  # the one connection of the pool
                await conn.execute("SET default_transaction_read_only = on")
                await conn.execute("CREATE TABLE failover_probe (x int)")
        # The dispatcher runs an idempotent request again on such an error.
        assert db_connection_lost(refused.value)
        again, read_only = await _session(pool)
        assert again != pid and read_only == "off"
        assert check.replaced >= 1
    finally:
        await pool.close()


async def test_pool_drops_an_idle_connection_to_a_read_only_node_when_taken():
    pool, check = await _primary_pool()
    try:
        async with pool.connection() as conn:
            pid = conn.info.backend_pid
            await conn.execute("SET default_transaction_read_only = on")  # no error: back to the pool
        again, read_only = await _session(pool)
        assert again != pid and read_only == "off"
        assert check.replaced == 1
    finally:
        await pool.close()


async def test_messages_pool_is_a_primary_pool_and_reads_fall_back_to_it():
    try:
        pool = await channel_db.get_pool()
        assert isinstance(pool, PrimaryPool)
        # No TELESRV_DB_REPLICA_HOSTS: lag-tolerant reads use the primary's pool.
        assert await channel_db.get_read_pool() is pool
        assert (await channel_db.fetchone_lagging("SELECT 1 AS one"))["one"] == 1
    finally:
        await channel_db.close_pools()


def test_a_refused_write_wrapped_by_django_counts_as_a_lost_database():
    import django.db

    try:
        with connection.cursor() as cur:
            cur.execute("SET default_transaction_read_only = on")
            cur.execute("CREATE TABLE failover_probe (x int)")
    except django.db.Error as exc:
        assert db_connection_lost(exc)
    else:
        pytest.fail("the write was not refused")


def test_settings_turn_host_lists_into_the_primary_and_replica_aliases():
    from tests.project.test_settings import _setting

    got = _setting(
        "([(a, d['HOST'], d['PORT'], d['OPTIONS']['target_session_attrs'])"
        " for a, d in sorted(settings.DATABASES.items())], settings.READ_DATABASE)",
        TELESRV_DB_HOSTS="10.0.0.5:5432,10.0.0.7:5433",
        TELESRV_DB_REPLICA_HOSTS="10.0.0.7:5433,10.0.0.8",
        TELESRV_DB_PORT="6000",
    )
    assert got == repr(
        (
            [
                ("default", "10.0.0.5,10.0.0.7", "5432,5433", "read-write"),
                ("replica", "10.0.0.7,10.0.0.8", "5433,6000", "prefer-standby"),
            ],
            "replica",
        )
    )
