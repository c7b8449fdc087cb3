"""Fetching pending link previews: right after a send (a task of the listener that
took it) and, for pages whose fetcher died, by a background job. A page is claimed
before it is fetched (one fetcher across workers and machines); whoever stores it
fills in the messages waiting for it and tells their viewers."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

from message_core import db

from . import actions, push

log = logging.getLogger("telesrv.webpages")

POLL_SECONDS = 1.0
# The job's pace while it finds nothing: it doubles up to this. A page this process
# starts wakes it and puts it back to POLL_SECONDS for a while (a fetch that fails
# leaves work behind); a fetcher that died on another machine is found within this
# plus its lease.
IDLE_SECONDS = 8.0
_tasks: set[asyncio.Task] = set()
# The running job's loop and the event a page started here sets (wakes it).
_work: tuple[asyncio.AbstractEventLoop, asyncio.Event] | None = None


async def fill_and_announce(row: dict) -> None:
    chats = await actions.do_fill_messages(row)
    if chats:
        await push.announce(actions.page_dict(row), chats)


async def complete(page_id: int) -> None:
    """Fetch the page if no one else is, then fill in its waiting messages; a page
    already fetched only fills them in."""
    row = await actions.claim(page_id)
    if row is not None:
        row = await actions.do_fetch(row)
    else:
        row = await actions.state_of(page_id)
    if row is not None and row["state"] != "pending":
        await fill_and_announce(row)


async def preview_now(url: str) -> dict | None:
    """The page of ``url``, fetched now if it is not cached (a client waiting for a
    preview); messages already waiting for it are filled in at once."""
    page = await actions.do_preview(url, wait=True)
    if page is not None and not page.get("pending"):
        row = await actions.state_of(page["id"])
        if row is not None:
            await fill_and_announce(row)
    return page


def start(page_id: int) -> None:
    """Complete the page in the background of this process."""

    async def run():
        try:
            await complete(page_id)
        except Exception:
            log.exception("link preview %d failed", page_id)

    loop = asyncio.get_running_loop()
    task = loop.create_task(run())
    _tasks.add(task)
    task.add_done_callback(_tasks.discard)
    if _work is not None and _work[0] is loop:
        _work[1].set()


async def _orphans(limit: int = 10) -> list[dict]:
    # Messages still waiting for a page that is no longer pending (the filler died).
    return await db.fetchall(
        "SELECT w.id, w.url, w.state, w.data, w.date, w.fetched FROM webpages w WHERE w.state <> 'pending'"
        " AND w.id IN (SELECT DISTINCT webpage_id FROM webpage_refs) LIMIT %s",
        (limit,),
    )


async def run_fetch_job() -> None:
    """The listener's background job (registered in ``WebPagesConfig.ready``)."""
    global _work
    work = asyncio.Event()
    _work = (asyncio.get_running_loop(), work)
    delay = POLL_SECONDS
    last_work = 0.0
    while True:
        found = work.is_set()
        work.clear()
        try:
            for row in await actions.claim_stale():
                found = True
                await fill_and_announce(await actions.do_fetch(row))
            for row in await _orphans():
                found = True
                await fill_and_announce(row)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            found = True
            log.warning("link preview job postponed: %s", exc)
        if found:
            last_work = time.monotonic()
        # the usual pace until a page started here would be retried, then backing off
        recent = time.monotonic() - last_work < actions.PENDING_RETRY_SECONDS + 2 * POLL_SECONDS
        delay = POLL_SECONDS if recent else min(IDLE_SECONDS, delay * 2)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(work.wait(), delay)
