"""Jobs run one at a time per key and side by side across keys.

An edge's pushes must reach each session in order (a channel's events in pts order, a
user's account updates in pts order), but one slow render must not hold up every
other channel or user behind the edge's single subscriber loop. Each key (a channel,
a user) gets a queue and a worker task while it has work; an idle worker ends.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Hashable

log = logging.getLogger("telesrv.edge.serial_jobs")

Job = Callable[[], Awaitable[None]]
YIELD_EVERY = 32


class SerialJobs:
    def __init__(self, name: str, idle_seconds: float = 30.0) -> None:
        self.name = name
        self.idle_seconds = idle_seconds
        self._queues: dict[Hashable, asyncio.Queue] = {}

    def put(self, key: Hashable, job: Job) -> None:
        q = self._queues.get(key)
        if q is None:
            q = self._queues[key] = asyncio.Queue()
            asyncio.get_running_loop().create_task(self._drain(key, q))
        q.put_nowait(job)

    def busy_keys(self) -> int:
        return len(self._queues)

    async def _drain(self, key: Hashable, q: asyncio.Queue) -> None:
        try:
            taken = 0
            while True:
                if q.empty():
                    # Waiting for the next job, with a timer: an idle worker ends. A job
                    # already waiting is taken at once: wait_for would wrap each get in a
                    # task and a timer and end the loop's turn after every job, and a busy
                    # channel's fan-out could not run through its backlog in one turn
                    # (docs/performance.md, third round).
                    try:
                        job = await asyncio.wait_for(q.get(), timeout=self.idle_seconds)
                    except TimeoutError:
                        if q.empty():
                            return
                        continue
                else:
                    taken += 1
                    if taken % YIELD_EVERY == 0:  # jobs that finish without waiting: let others run
                        await asyncio.sleep(0)
                        continue
                    job = q.get_nowait()
                try:
                    await job()
                except Exception:
                    log.exception("%s %s: job failed", self.name, key)
        finally:
            if self._queues.get(key) is q:
                del self._queues[key]
                if not q.empty():  # raced with a new job: keep going in a fresh worker
                    for _ in range(q.qsize()):
                        self.put(key, q.get_nowait())
