"""The listener's background job that ends unanswered calls as missed (and accepted
calls the caller never confirmed as disconnected) when the config's ring, receive and
connect timeouts pass. Every listener runs it; ``actions.claim_timed_out`` claims
rows with ``FOR UPDATE SKIP LOCKED`` and ends each in its transaction, so a call ends
once however many workers look."""

from __future__ import annotations

import asyncio
import logging

from edge_app.orm_threads import in_thread

from . import actions
from .rpc import after_end

log = logging.getLogger("telesrv.calls")

POLL_SECONDS = 1.0


async def end_timed_out() -> int:
    ended = await in_thread(actions.claim_timed_out)()
    for e in ended:
        try:
            await after_end(e)
        except Exception:
            log.exception("call %s: the timeout's pushes failed", e.call["id"])
    return len(ended)


async def run_timeout_job() -> None:
    while True:
        try:
            await end_timed_out()
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.warning("call timeouts postponed: %s", exc)
        await asyncio.sleep(POLL_SECONDS)
