"""Blocking ORM work from the listener's event loop.

``asgiref.sync_to_async`` runs every call in one thread-sensitive thread by default, so
all of a listener's ORM work queues behind each other: in a busy group the renders of
many viewers (a profile each) wait in one line, and every request behind them stalls.
:func:`in_thread` runs the work in the event loop's default pool instead: calls for
different users proceed side by side (each pool thread keeps its own database
connection), without asgiref's per-call bookkeeping (measured: 1.4 ms CPU per
private send). Only for self-contained work: one call must not rely on a transaction
or connection state left by another.
"""

from __future__ import annotations

import asyncio
import functools


def in_thread(fn):
    @functools.wraps(fn)
    async def run(*args, **kwargs):
        return await asyncio.to_thread(fn, *args, **kwargs)

    return run
