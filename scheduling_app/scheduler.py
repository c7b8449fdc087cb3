"""The listener's background job that sends scheduled messages when they are due.

Every listener machine runs it; rows are claimed with ``FOR UPDATE SKIP LOCKED`` and a
lease (``actions.claim_due``), so several of them never send one message twice, and a
message due while no listener ran is sent by the first one that starts.

It sleeps until the next due time (``actions.next_due``), woken early when this process
schedules or moves a message (``actions.due_alarm``); it looks every ONLINE_SECONDS while "send
when online" messages wait for their peers, and at least every IDLE_SECONDS for what
another listener scheduled, a lapsed claim or a send put off by slow mode.
"""

from __future__ import annotations

import asyncio
import logging
import time

from asgiref.sync import sync_to_async

from edge_app.alarm import seconds_until
from private_app.service_messages import send_service_message
from tl.errors import FloodWaitError, SlowmodeWaitError

from . import actions, push

log = logging.getLogger("telesrv.scheduling")

ONLINE_SECONDS = 1.0
IDLE_SECONDS = 5.0


async def _name(user_id: int) -> str:
    from accounts_app.models import User

    def load():
        u = User.objects.filter(id=user_id).only("first_name", "last_name").first()
        return " ".join(p for p in (u.first_name, u.last_name) if p) if u else ""

    return await sync_to_async(load)()


async def deliver(group: list[dict]) -> actions.Delivery:
    """Send one claimed group (as its sender) and tell those who manage it what became
    of it."""
    owner = group[0]["owner_id"]
    d = await actions.do_deliver(group, sender_name=lambda: _name(owner))
    if isinstance(d.error, FloodWaitError | SlowmodeWaitError):
        return d  # kept for a later try
    kind, peer_id = d.chat
    who = await actions.audience(owner, d.chat)
    await push.push_deleted(who, kind, peer_id, [r["id"] for r in group], d.sent)
    if d.error is not None:
        # Telegram drops a scheduled message it can no longer send and tells its sender.
        log.info("scheduled messages %s dropped: %s", [r["id"] for r in group], d.error.message)
        try:
            await send_service_message(
                owner,
                f"{len(group)} scheduled message(s) could not be sent ({d.error.message}) and were deleted.",
            )
        except Exception as exc:  # the notice is best effort; the drop stands
            log.warning("scheduled drop notice to %s failed: %s", owner, exc)
    return d


async def deliver_due(*, when_online: bool = True) -> int:
    """Send what is due now; how many groups were claimed."""
    groups = await actions.claim_due(when_online=when_online)
    for group in groups:
        try:
            await deliver(group)
        except Exception:
            # Left claimed: the lease lapses and the (idempotent) send is tried again.
            log.exception("scheduled delivery of %s failed", [r["id"] for r in group])
    return len(groups)


async def run_scheduler_job() -> None:
    """The listener's background job (registered in ``SchedulingConfig.ready``)."""
    rung = actions.due_alarm.arm()
    while True:
        delay = ONLINE_SECONDS
        try:
            while await deliver_due() >= actions.CLAIM_GROUPS:
                pass
            due, when_online = await actions.next_due()
            delay = seconds_until(due, time.time(), ONLINE_SECONDS if when_online else IDLE_SECONDS)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.warning("scheduled delivery postponed: %s", exc)
        await actions.due_alarm.sleep(rung, delay)
