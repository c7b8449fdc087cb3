"""Where domain actions announce what happened, after their transaction committed.

The domain does not know how pushes travel; ``channels_app.push`` installs the sink
that publishes to every edge (``edge_app.push``), tests install recorders.
An event names the channel and, for pts events, carries the durable snapshot, so the
edge can render it per viewer without reading the database again.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

log = logging.getLogger(__name__)

Sink = Callable[[str, dict], Awaitable[None]]
_sinks: list[Sink] = []


def add_sink(sink: Sink) -> None:
    if sink not in _sinks:
        _sinks.append(sink)


def remove_sink(sink: Sink) -> None:
    if sink in _sinks:
        _sinks.remove(sink)


async def publish(kind: str, payload: dict) -> None:
    # A push failure must not fail the RPC: the durable log is the source of truth and
    # clients recover through getChannelDifference.
    for sink in list(_sinks):
        try:
            await sink(kind, payload)
        except Exception:
            log.exception("channel push sink failed for %s", kind)
