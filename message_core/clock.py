"""The server clock every stored date comes from (seconds, as TL dates are)."""

from __future__ import annotations

import time


def now() -> int:
    return int(time.time())
