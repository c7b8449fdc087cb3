"""Is an idle PostgreSQL connection still connected?

A server that restarts (or is killed) closes every client socket: the FATAL message and
the FIN are already waiting in the socket of each idle connection, but psycopg notices
only when it next sends a query, which then fails. An idle connection has nothing to
read, so "readable" is the cheap signal (one poll(2), no round trip) that it must be
checked before use; only then does it cost a round trip.

Used by the Django backend (``edge_app.db_backend.base``) before every cursor, and
by every psycopg pool of the listener (:func:`pool_options`) when a connection is taken.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import select
from contextlib import asynccontextmanager
from typing import Any

from psycopg_pool import AsyncConnectionPool

log = logging.getLogger("telesrv.db")

# A pool that lost its server retries connecting for this long per attempt (then starts a
# fresh attempt on the next request) instead of psycopg_pool's 5-minute exponential
# backoff, so service resumes about a second after PostgreSQL is back.
RECONNECT_TIMEOUT = float(os.environ.get("TELESRV_DB_RECONNECT_SECONDS", "2"))
# How long a request waits for a pooled connection (PostgreSQL down: the request waits
# for it to come back rather than failing at once).
WAIT_TIMEOUT = float(os.environ.get("TELESRV_DB_WAIT_SECONDS", "15"))


def has_input(fd: int) -> bool:
    """True if ``fd`` is readable now (data, EOF or error) - for an idle connection,
    the server has hung up or sent something unsolicited."""
    poller = select.poll()
    poller.register(fd, select.POLLIN | select.POLLERR | select.POLLHUP)
    return bool(poller.poll(0))


def looks_dead(conn: Any) -> bool:
    """``conn`` (a psycopg connection, sync or async) is closed or its socket says the
    server went away (or sent something worth a real check)."""
    if conn.closed or getattr(conn, "broken", False):
        return True
    try:
        return has_input(conn.pgconn.socket)
    except Exception:
        return True


def on_read_only_node(conn: Any) -> bool:
    """The server said (no round trip: PostgreSQL 14+ reports both settings to every
    session whenever they change) that this session cannot write: a standby, or a node
    made read-only. libpq's ``target_session_attrs=read-write`` decides on the same
    two settings when connecting."""
    try:
        # libpq's own answer (bytes): ``conn.info`` decodes through the connection's
        # encoding on every call, and this runs each time a pooled connection is taken.
        status = conn.pgconn.parameter_status
        return status(b"in_hot_standby") == b"on" or status(b"default_transaction_read_only") == b"on"
    except Exception:
        return False


def is_read_only_error(exc: BaseException | None) -> bool:
    """``exc`` (or what it was raised from) is SQLSTATE 25006, a write refused because
    the session is read-only: the node this connection reaches is no longer the
    primary."""
    from psycopg.errors import ReadOnlySqlTransaction

    seen = 0
    while exc is not None and seen < 8:
        if isinstance(exc, ReadOnlySqlTransaction):
            return True
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return False


class ReadOnlyNode(Exception):
    """A pooled connection of a primary pool reaches a read-only node (dropped)."""


class _PoolCheck:
    """psycopg_pool ``check=`` callback: the cheap test, a round trip only when the socket
    is readable; on a dead connection the pool's other idle connections are checked in
    the background too (a restart kills them all, and the pool would otherwise meet them
    one by one with backoff sleeps in between)."""

    def __init__(self, writes: bool = False) -> None:
        self.pool: Any = None
        self._purging: asyncio.Task | None = None
        self.replaced = 0
        # A pool of the primary also drops connections to a node that became read-only
        # (a failover demoted it), and libpq's target_session_attrs then finds the new
        # primary for the replacement.
        self.writes = writes

    async def __call__(self, conn: Any) -> None:
        if self.writes and on_read_only_node(conn):
            # Closed, or the pool would put it back: it is not broken, only on the
            # wrong node.
            await conn.close()
            self.dropped_read_only()
            raise ReadOnlyNode("connection to a read-only PostgreSQL node")
        if not looks_dead(conn):
            return
        try:
            await conn.execute("")  # consumes a notice, or raises on a closed server
            return
        except Exception:
            self.replaced += 1
            self._purge()
            raise

    def dropped_read_only(self) -> None:
        self.replaced += 1
        log.warning("PostgreSQL node became read-only: dropping its connections")
        self._purge()

    def _purge(self) -> None:
        if self.pool is None or (self._purging is not None and not self._purging.done()):
            return
        log.warning("PostgreSQL connection lost: checking the pool's idle connections")
        self._purging = asyncio.get_running_loop().create_task(self._check_all())

    async def _check_all(self) -> None:
        try:
            await self.pool.check()
        except Exception:
            log.exception("pool check failed")


async def _reconnect_failed(pool: Any) -> None:
    """psycopg_pool gives up a reconnection attempt after ``reconnect_timeout`` and tries
    again only when a new request arrives; requests already queued would wait out their
    whole timeout even once the server is back. One more request, if any are waiting,
    starts the next attempt."""
    if pool.closed or not pool.get_stats().get("requests_waiting"):
        return
    asyncio.get_running_loop().create_task(_ask_for_connection(pool))


async def _ask_for_connection(pool: Any) -> None:
    with contextlib.suppress(Exception):
        async with pool.connection(timeout=RECONNECT_TIMEOUT):
            pass


def pool_options(writes: bool = False) -> tuple[dict, _PoolCheck]:
    """Keyword arguments for a listener AsyncConnectionPool that replaces dead
    connections (and, for a pool of the primary, ``writes``, connections to a read-only
    node); call ``check.pool = pool`` once the pool exists."""
    check = _PoolCheck(writes)
    options = {
        "check": check,
        "reconnect_timeout": RECONNECT_TIMEOUT,
        "reconnect_failed": _reconnect_failed,
        "timeout": WAIT_TIMEOUT,
    }
    return options, check


class PrimaryPool(AsyncConnectionPool):
    """A pool of the primary: a connection whose write was refused as read-only
    (SQLSTATE 25006; the node was demoted while the connection was open) is closed
    instead of going back to the pool, and the other idle ones are checked. The error
    still reaches the caller, where the dispatcher's retry after a lost database
    (edge_app/dispatcher.py) runs the request again on the new primary. The check of
    the idle connections that follows (``pool.check()``) drops every other connection
    to a read-only node: the round trip brings the node's new settings."""

    @staticmethod
    async def check_connection(conn: Any) -> None:
        await AsyncConnectionPool.check_connection(conn)
        if on_read_only_node(conn):
            await conn.close()
            raise ReadOnlyNode("connection to a read-only PostgreSQL node")

    @asynccontextmanager
    async def connection(self, timeout: float | None = None):
        async with super().connection(timeout) as conn:
            try:
                yield conn
            except Exception as exc:
                if is_read_only_error(exc):
                    await conn.close()  # a closed connection is replaced, not reused
                    check = self._check
                    if isinstance(check, _PoolCheck):
                        check.dropped_read_only()
                raise
