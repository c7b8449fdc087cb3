"""Who else hears of a vote or a poll's closing, without polls_app importing them
(botapi_app: the bot that sent the poll gets ``poll`` and ``poll_answer`` updates).
Called by the handler after the change committed; each listener is awaited, and a
failing one is logged, never failing the vote."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

log = logging.getLogger("telesrv.polls")

# async fn(poll_id, voter_id or 0 for a closing) -> None
Listener = Callable[[int, int], Awaitable[None]]
_listeners: list[Listener] = []


def register(fn: Listener) -> Listener:
    if fn not in _listeners:
        _listeners.append(fn)
    return fn


async def changed(poll_id: int, voter_id: int = 0) -> None:
    for fn in list(_listeners):
        try:
            await fn(poll_id, voter_id)
        except Exception:
            log.exception("poll listener %r failed for poll %d", fn, poll_id)
