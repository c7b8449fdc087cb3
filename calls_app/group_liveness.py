"""The listener's background job that drops group-call participants who are gone.

A participant shows it is there by calling phone.checkGroupCall (Telegram's clients do,
every few seconds) or by any change of its own. One that checked once and stopped for
``LIVENESS_SECONDS`` is dropped; one that never checks is kept while its user has a
session on some listener, and dropped once none is left for that long. Every listener
runs it; a participant is removed once (``group_actions`` locks the call's row) and
the leave reaches the chat like any leave."""

from __future__ import annotations

import asyncio
import logging

from edge_app import presence
from message_core.clock import now

from . import group_actions, group_push

log = logging.getLogger("telesrv.calls.group")

POLL_SECONDS = 5.0


async def drop_stale(at: int | None = None) -> int:
    """Drop who has been gone for long enough by ``at`` (now); how many were dropped."""
    stale = await group_actions.stale_participants(now() if at is None else at)
    if not stale:
        return 0
    online, _ = await presence.listeners_of([u for _, u, checks in stale if not checks])
    here = {u for users in online.values() for u in users}
    keep = [(c, u) for c, u, checks in stale if not checks and u in here]
    if keep:
        await group_actions.keep_alive(keep)
    dropped = 0
    for call_id, user_id, checks in stale:
        if not checks and user_id in here:
            continue
        try:
            change = await group_actions.do_drop_participant(call_id, user_id)
            if change is not None:
                dropped += 1
                await group_push.publish(change)
        except Exception:
            log.exception("group call %s: dropping user %s failed", call_id, user_id)
    return dropped


async def run_liveness_job() -> None:
    while True:
        try:
            await drop_stale()
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.warning("group call liveness postponed: %s", exc)
        await asyncio.sleep(POLL_SECONDS)
