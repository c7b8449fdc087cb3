"""Calls made in one turn of the event loop, gathered into one round trip per key.

Requests that arrive together (read from several connections in one poll of the loop,
or resumed together by one group-committed statement) reach the same step in the same
turn. A :class:`TurnBatcher` lets each caller await its own result while the work is
done once per key for all of them: one Redis script call for one channel's publishes
(``push_order``), one query for one channel's send checks
(``channels_app.actions.send_context``). A lone caller pays one extra loop turn.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Hashable, Sequence
from typing import Any


class TurnBatcher:
    """``await batcher.submit(key, item)`` -> this item's result of
    ``run(key, items)``, which gets every item submitted under ``key`` in the same loop
    turn and returns one result per item, in order. If ``run`` raises, every caller of
    that batch gets the exception."""

    def __init__(self, run: Callable[[Any, list], Awaitable[Sequence]]) -> None:
        self._run = run
        self._pending: dict[tuple[asyncio.AbstractEventLoop, Hashable], list[tuple[Any, asyncio.Future]]] = {}
        self._tasks: set[asyncio.Task] = set()  # referenced until done (the loop keeps weak refs)

    async def submit(self, key: Hashable, item: Any) -> Any:
        loop = asyncio.get_running_loop()
        slot = (loop, key)
        batch = self._pending.get(slot)
        if batch is None:
            batch = self._pending[slot] = []
            # Its first step runs after what this turn already scheduled: their items join.
            task = loop.create_task(self._flush(slot))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        done = loop.create_future()
        batch.append((item, done))
        return await done

    async def _flush(self, slot: tuple[asyncio.AbstractEventLoop, Hashable]) -> None:
        batch = self._pending.pop(slot)
        try:
            results = await self._run(slot[1], [item for item, _ in batch])
        except Exception as exc:
            for _, done in batch:
                if not done.done():
                    done.set_exception(exc)
            return
        except BaseException:  # cancelled: the loop is closing
            for _, done in batch:
                done.cancel()
            raise
        for (_, done), result in zip(batch, results, strict=True):
            if not done.done():
                done.set_result(result)
