"""Long polls (getUpdates) waiting in this process, by bot: logOut and close end them
at once."""

from __future__ import annotations

import asyncio
import contextlib

# The getUpdates calls of each bot waiting in this process, ended by logOut / close.
_polls: dict[int, set[asyncio.Event]] = {}


async def until_closed(bot_id: int, updates):
    """``updates`` (a getUpdates awaitable), or [] at once when the bot calls close or
    logOut meanwhile. Nothing is lost: unconfirmed updates stay queued."""
    closing = asyncio.Event()
    _polls.setdefault(bot_id, set()).add(closing)
    task = asyncio.ensure_future(updates)
    closer = asyncio.ensure_future(closing.wait())
    try:
        done, _ = await asyncio.wait({task, closer}, return_when=asyncio.FIRST_COMPLETED)
        if task in done:
            return task.result()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        return []
    finally:
        closer.cancel()
        if not task.done():
            task.cancel()  # the client went away (the handler was cancelled)
        waiting = _polls.get(bot_id)
        if waiting is not None:
            waiting.discard(closing)
            if not waiting:
                _polls.pop(bot_id, None)


def end_polls(bot_id: int) -> None:
    # Not queue.wake too: a wake landing with the cancel lets Python 3.11's wait_for
    # swallow the cancel, and the poll would run on to its timeout.
    for closing in list(_polls.get(bot_id, ())):
        closing.set()
