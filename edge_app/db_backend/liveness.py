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
from typing import Any

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


class _PoolCheck:
    """psycopg_pool ``check=`` callback: the cheap test, a round trip only when the socket
    is readable; on a dead connection the pool's other idle connections are checked in
    the background too (a restart kills them all, and the pool would otherwise meet them
    one by one with backoff sleeps in between)."""

    def __init__(self) -> None:
        self.pool: Any = None
        self._purging: asyncio.Task | None = None
        self.replaced = 0

    async def __call__(self, conn: Any) -> None:
        if not looks_dead(conn):
            return
        try:
            await conn.execute("")  # consumes a notice, or raises on a closed server
            return
        except Exception:
            self.replaced += 1
            self._purge()
            raise

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


def pool_options() -> tuple[dict, _PoolCheck]:
    """Keyword arguments for a listener AsyncConnectionPool that replaces dead
    connections; call ``check.pool = pool`` once the pool exists."""
    check = _PoolCheck()
    options = {
        "check": check,
        "reconnect_timeout": RECONNECT_TIMEOUT,
        "reconnect_failed": _reconnect_failed,
        "timeout": WAIT_TIMEOUT,
    }
    return options, check
