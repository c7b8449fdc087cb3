"""Request storms: a token bucket per permanent auth key, answered with FLOOD_WAIT_X.

A client gets ``burst`` requests at once and ``rate`` per second after that; beyond it,
each request is refused with the seconds until a token is back (what Telegram's
FLOOD_WAIT_X tells clients, which sleep and retry). Memory is bounded: the least
recently seen keys are forgotten first (a forgotten key starts with a full bucket).
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict

MAX_TRACKED = 200_000


class RequestRateLimit:
    def __init__(self, rate: float, burst: float, *, clock=time.monotonic) -> None:
        self.rate = rate
        self.burst = max(burst, 1.0)
        self._clock = clock
        self._buckets: OrderedDict[int, tuple[float, float]] = OrderedDict()  # key -> (tokens, at)

    @property
    def enabled(self) -> bool:
        return self.rate > 0

    def take(self, key: int) -> int:
        """0 if the request may run, else the seconds the client must wait."""
        if self.rate <= 0:
            return 0
        now = self._clock()
        tokens, at = self._buckets.pop(key, (self.burst, now))
        tokens = min(self.burst, tokens + (now - at) * self.rate)
        if tokens >= 1:
            self._buckets[key] = (tokens - 1, now)
            wait = 0
        else:
            self._buckets[key] = (tokens, now)
            wait = max(1, math.ceil((1 - tokens) / self.rate))
        while len(self._buckets) > MAX_TRACKED:
            self._buckets.popitem(last=False)
        return wait
