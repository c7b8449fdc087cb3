"""What a layer above private chats adds to every private send (messages, albums,
forwards) without private_app importing it: ``guards`` that may refuse a send before
anything is written (bots_app: a bot cannot start a chat, flood limits), and
``listeners`` that hear each delivered message after the commit (bots_app's service
bot, which lives inside the server and answers through ordinary messages).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

log = logging.getLogger("telesrv.private")

# async fn(sender_id, peer_id, count) -> None; raises the RpcError that refuses the send.
Guard = Callable[[int, int, int], Awaitable[None]]
# async fn(sender_id, peer_id, messages as the sender sees them) -> None.
Listener = Callable[[int, int, list[dict]], Awaitable[None]]

_guards: list[Guard] = []
_listeners: list[Listener] = []
_running: set[asyncio.Task] = set()


def register_guard(fn: Guard) -> Guard:
    if fn not in _guards:
        _guards.append(fn)
    return fn


def register_listener(fn: Listener) -> Listener:
    if fn not in _listeners:
        _listeners.append(fn)
    return fn


async def check(sender_id: int, peer_id: int, count: int) -> None:
    for guard in _guards:
        await guard(sender_id, peer_id, count)


async def _run(fn: Listener, sender_id: int, peer_id: int, messages: list[dict]) -> None:
    try:
        await fn(sender_id, peer_id, messages)
    except Exception:
        log.exception("private send listener %r failed for %d -> %d", fn, sender_id, peer_id)


def delivered(sender_id: int, peer_id: int, messages: list[dict]) -> None:
    """Hand the delivered messages to the listeners, each in a task of its own: the
    sender's answer does not wait for them."""
    for fn in _listeners:
        task = asyncio.get_running_loop().create_task(_run(fn, sender_id, peer_id, messages))
        _running.add(task)
        task.add_done_callback(_running.discard)
