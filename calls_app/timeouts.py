"""The listener's background job that ends unanswered calls as missed (and accepted
calls the caller never confirmed as disconnected) when the config's ring, receive and
connect timeouts pass. Every listener runs it; ``actions.claim_timed_out`` claims
rows with ``FOR UPDATE SKIP LOCKED`` and ends each in its transaction, so a call ends
once however many workers look."""

from __future__ import annotations

import asyncio
import logging
import time

from edge_app.alarm import seconds_until
from edge_app.orm_threads import in_thread

from . import actions
from .rpc import after_end

log = logging.getLogger("telesrv.calls")

POLL_SECONDS = 1.0  # while calls are ending or the database fails
IDLE_SECONDS = 5.0  # at most this long between looks otherwise (a call rung elsewhere)


def _claim_and_next() -> tuple[list, int | None]:
    return actions.claim_timed_out(), actions.next_timeout()


async def end_timed_out() -> int:
    """End what timed out; how many calls."""
    return (await _end_timed_out())[0]


async def _end_timed_out() -> tuple[int, int | None]:
    ended, ahead = await in_thread(_claim_and_next)()
    for e in ended:
        try:
            await after_end(e)
        except Exception:
            log.exception("call %s: the timeout's pushes failed", e.call["id"])
    return len(ended), ahead


async def run_timeout_job() -> None:
    """Sleeps until the next call's deadline (woken when a call rings or is accepted
    here), at most IDLE_SECONDS."""
    rung = actions.timeout_alarm.arm()
    while True:
        delay = POLL_SECONDS
        try:
            ended, ahead = await _end_timed_out()
            if not ended:
                delay = seconds_until(ahead, time.time(), IDLE_SECONDS)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.warning("call timeouts postponed: %s", exc)
        await actions.timeout_alarm.sleep(rung, delay)
