"""A listener's side of ordered streams: a channel's events reach it in pts order.

``edge_app.push_order`` releases a stream's events in order on Redis and stamps each
with ``prev``, the end of the event released before it, and ``stop``, its own end.
Two publishers can still hand their released events to a listener's channel in the
opposite order (each publishes after its own script call), so the listener puts them
back in order here: an event whose ``prev`` lies beyond what it has seen waits for
its predecessor at most ``HOLD`` seconds (a publisher that died between release and
publish), then goes on; the client sees the gap and asks getChannelDifference.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from collections.abc import Callable
from typing import Any

HOLD = 1.0
# A stream not heard from for this long starts afresh (a lease given up and taken
# again: the events in between went to other listeners or nowhere).
FORGET = 60.0


class StreamOrder:
    def __init__(self, release: Callable[[Any], None], hold: float = HOLD) -> None:
        self._release = release
        self._hold = hold
        self._last: dict[str, tuple[int, float]] = {}
        self._held: dict[str, list[tuple[int, int, int, Any]]] = {}
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._seq = itertools.count()
        self.waited_out = 0  # releases forced by HOLD (a lost predecessor)

    def accept(self, tag: str, prev: int, stop: int, event: Any) -> None:
        """Release ``event`` (covering ``prev+1..stop``) now or once its predecessor came."""
        now = time.monotonic()
        seen = self._last.get(tag)
        if prev < 0:  # late after a skipped hole: at once, the client recovers it
            self._release(event)
            return
        if seen is None or (now - seen[1] > FORGET and tag not in self._held):
            self._last[tag] = (stop, now)
            self._release(event)
            self._drain(tag)
            return
        if prev <= seen[0]:
            self._last[tag] = (max(seen[0], stop), now)
            self._release(event)
            self._drain(tag)
            return
        heapq.heappush(self._held.setdefault(tag, []), (prev, next(self._seq), stop, event))
        if tag not in self._timers:
            self._timers[tag] = asyncio.get_running_loop().call_later(self._hold, self._give_up, tag)

    def forget(self, tag: str) -> None:
        """This listener no longer follows the stream: release what waits, start afresh."""
        self._flush(tag)
        self._last.pop(tag, None)

    def _drain(self, tag: str) -> None:
        heap = self._held.get(tag)
        while heap and heap[0][0] <= self._last[tag][0]:
            _, _, stop, event = heapq.heappop(heap)
            last = self._last[tag][0]
            self._last[tag] = (max(last, stop), time.monotonic())
            self._release(event)
        if not heap:
            self._held.pop(tag, None)
            timer = self._timers.pop(tag, None)
            if timer is not None:
                timer.cancel()

    def _give_up(self, tag: str) -> None:
        self._timers.pop(tag, None)
        if self._held.get(tag):
            self.waited_out += 1
        self._flush(tag)

    def _flush(self, tag: str) -> None:
        heap = self._held.pop(tag, [])
        timer = self._timers.pop(tag, None)
        if timer is not None:
            timer.cancel()
        while heap:
            _, _, stop, event = heapq.heappop(heap)
            last = self._last.get(tag, (0, 0.0))[0]
            self._last[tag] = (max(last, stop), time.monotonic())
            self._release(event)

    def __len__(self) -> int:
        return sum(len(h) for h in self._held.values())
