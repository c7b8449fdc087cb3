"""An alarm clock for the listener's background jobs that wait for a due time
(scheduled messages, poll close dates, call timeouts): the job sleeps until the next
due time it read, and whatever writes a new or earlier due time in this process rings
the alarm so the job looks again at once. Polling a few times a second instead cost
each listener a transaction per poll whether anything was due or not.

``ring`` is safe from any thread (ORM code runs in pool threads) and does nothing
while no job waits on the alarm (tests, management commands).
"""

from __future__ import annotations

import asyncio
import contextlib


class Alarm:
    def __init__(self) -> None:
        # The waiting job's loop and event (one job per alarm and process).
        self._armed: tuple[asyncio.AbstractEventLoop, asyncio.Event] | None = None

    def arm(self) -> asyncio.Event:
        """Called by the job, on its loop, before it first sleeps."""
        event = asyncio.Event()
        self._armed = (asyncio.get_running_loop(), event)
        return event

    async def sleep(self, event: asyncio.Event, seconds: float) -> None:
        """Sleep ``seconds`` or until rung, whichever is first."""
        if seconds > 0 and not event.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(event.wait(), seconds)
        event.clear()

    def ring(self) -> None:
        armed = self._armed
        if armed is None:
            return
        loop, event = armed
        if loop.is_closed():
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            event.set()
        else:
            loop.call_soon_threadsafe(event.set)


def seconds_until(due: float | None, now: float, cap: float) -> float:
    """How long to sleep for a due time in whole seconds (``None``: nothing due), at
    most ``cap``: a row dated second S is due once the clock reads S."""
    if due is None:
        return cap
    return max(0.0, min(cap, due - now + 0.01))
