"""No permanent pts holes: every allocated pts ends up as an event or a noop.

A pts range is allocated in Redis before its event is written to PostgreSQL, so a crash
or a database outage between the two would leave a hole below the channel's pts that
clients could never get past. The allocation is journalled atomically with it
(``counters``); then

* the writer settles the entry once its event, or on failure its noop, is committed;
* the repair job (start-up, then every ``REPAIR_INTERVAL``) fills entries older than
  ``REPAIR_AFTER`` with noops - an event that did commit keeps its slot, the noop is
  only written where nothing is - so a hole lasts at most about
  ``REPAIR_AFTER + REPAIR_INTERVAL`` seconds;
* a reader (updates.getChannelDifference) that meets a hole waits up to ``HOLE_WAIT``
  for it to commit, then fills it at once (its journal entries, or, journal lost with a
  Redis flush, the missing sub-ranges).

A writer whose range was filled before it committed gets a unique violation on the pts
log and runs again on a fresh range (``common.with_pts``), so filling never loses an
operation. See docs/reliability.md.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time

from message_core import db

from .. import counters
from .common import write_noop

log = logging.getLogger("telesrv.channels.pts")

REPAIR_AFTER = float(os.environ.get("TELESRV_PTS_REPAIR_AFTER", "10"))
REPAIR_INTERVAL = float(os.environ.get("TELESRV_PTS_REPAIR_INTERVAL", "5"))
HOLE_WAIT = 1.0


async def repair_pending(
    older_than: float = REPAIR_AFTER, channel_id: int | None = None, pts_range: tuple[int, int] | None = None
) -> int:
    """Fill journalled allocations pending for longer than ``older_than`` seconds (of one
    channel, within ``pts_range``) with noops; returns how many needed a look."""
    entries = await counters.pending(older_than, channel_id)
    done: dict[int, list[str]] = {}
    for cid, last, count in entries:
        if pts_range is not None and not pts_range[0] <= last <= pts_range[1]:
            continue
        await write_noop(cid, last, count)
        done.setdefault(cid, []).append(counters.pending_member(last, count))
    for cid, members in done.items():
        await counters.settle(cid, members)
    return sum(len(m) for m in done.values())


async def run_repair_job() -> None:
    """The listener's background job (registered in ``ChannelsConfig.ready``)."""
    while True:
        try:
            n = await repair_pending()
            if n:
                log.warning("settled %d pts allocations left uncommitted (noop where nothing was written)", n)
        except Exception as exc:
            log.warning("pts repair postponed: %s", exc)
        await asyncio.sleep(REPAIR_INTERVAL)


async def _gaps(conn, channel_id: int, lo: int, hi: int) -> list[tuple[int, int]]:
    cur = await conn.execute(
        "SELECT pts, pts_count FROM channel_update_events WHERE channel_id = %s AND pts BETWEEN %s AND %s"
        " ORDER BY pts",
        (channel_id, lo, hi),
    )
    gaps, expected = [], lo
    for r in await cur.fetchall():
        start = r["pts"] - r["pts_count"] + 1
        if start > expected:
            gaps.append((expected, start - 1))
        expected = max(expected, r["pts"] + 1)
    if expected <= hi:
        gaps.append((expected, hi))
    return gaps


async def fill_hole(channel_id: int, lo: int, hi: int) -> None:
    """pts ``lo..hi`` are missing below committed events: wait briefly for their writers,
    then fill whatever is still missing with noops."""
    deadline = time.monotonic() + HOLE_WAIT
    while True:
        async with db.connection() as conn:
            if not await _gaps(conn, channel_id, lo, hi):
                return
        if time.monotonic() >= deadline:
            break
        await asyncio.sleep(0.05)
    await repair_pending(0, channel_id, (lo, hi))
    async with db.connection() as conn:
        gaps = await _gaps(conn, channel_id, lo, hi)
    for a, b in gaps:  # not journalled (Redis lost it): nothing can still commit there
        await write_noop(channel_id, b, b - a + 1)
    if gaps:
        log.warning("channel %d: filled unjournalled pts hole %s", channel_id, gaps)
