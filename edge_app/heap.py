"""The listener's heap and the cyclic garbage collector.

What a listener holds once it has started (Django, the RPC registry, the TL tables of
53 layers: about 160,000 tracked containers) lives as long as the process, yet every
full collection walked all of it: about 90 ms with the event loop stopped. Under a
thousand sends a second a full collection came every two seconds, and those pauses
were the send's and getChannelDifference's p99 (bench/loadgen.py, docs/performance.md).
"""

from __future__ import annotations

import gc


def freeze_startup_heap() -> int:
    """Collect once, then move every object alive now into the collector's permanent
    generation, which no collection walks; returns how many were moved. Call it when
    the process has loaded what it serves with and before it serves. Objects made later
    are collected as before."""
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()
