"""Fetching pending link previews: right after a send (a task of the listener that
took it) and, for pages whose fetcher died, by a background job. A page is claimed
before it is fetched (one fetcher across workers and machines); whoever stores it
fills in the messages waiting for it and tells their viewers."""

from __future__ import annotations

import asyncio
import logging

from message_core import db

from . import actions, push

log = logging.getLogger("telesrv.webpages")

POLL_SECONDS = 1.0
_tasks: set[asyncio.Task] = set()


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

    task = asyncio.get_running_loop().create_task(run())
    _tasks.add(task)
    task.add_done_callback(_tasks.discard)


async def _orphans(limit: int = 10) -> list[dict]:
    # Messages still waiting for a page that is no longer pending (the filler died).
    return await db.fetchall(
        "SELECT w.id, w.url, w.state, w.data, w.date, w.fetched FROM webpages w WHERE w.state <> 'pending'"
        " AND w.id IN (SELECT DISTINCT webpage_id FROM webpage_refs) LIMIT %s",
        (limit,),
    )


async def run_fetch_job() -> None:
    """The listener's background job (registered in ``WebPagesConfig.ready``)."""
    while True:
        try:
            for row in await actions.claim_stale():
                await fill_and_announce(await actions.do_fetch(row))
            for row in await _orphans():
                await fill_and_announce(row)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.warning("link preview job postponed: %s", exc)
        await asyncio.sleep(POLL_SECONDS)
