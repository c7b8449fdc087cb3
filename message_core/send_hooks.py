"""What a layer above the chat kinds adds to every send of both (messages, albums,
forwards) without them importing it: ``guards`` that may refuse a send before anything
is written (bots_app: a bot cannot start a private chat, bots' flood limits), and
``listeners`` that hear each delivered private message, and each new message of a
channel sent with ``channels_app.actions.messages.do_send_message``, after the commit
(bots_app's service bot, which lives inside the server and answers through ordinary
messages; botapi_app's update queues).

``kind`` is "user" (a private chat; ``peer_id`` the other user) or "channel". ``chat``
is the channel row the send checked (None for a private chat): what a listener can
decide from it (``bot_members``) costs it nothing.

``edit_listeners`` hear edits of both kinds the same way (``messages`` as the editor
sees them after the edit).
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable

log = logging.getLogger("telesrv.messages")

# async fn(sender_id, kind, peer_id, count) -> None; raises the RpcError that refuses the send.
Guard = Callable[[int, str, int, int], Awaitable[None]]
# async fn(sender_id, kind, peer_id, messages as the sender sees them, chat) -> None.
Listener = Callable[[int, str, int, list[dict], dict | None], Awaitable[None]]

_guards: list[Guard] = []
_listeners: list[Listener] = []
_edit_listeners: list[Listener] = []
_running: set[asyncio.Task] = set()
# chat -> (the task running its listeners, the sends and edits waiting for it)
_drains: dict[tuple, tuple[asyncio.Task, deque]] = {}


def register_guard(fn: Guard) -> Guard:
    if fn not in _guards:
        _guards.append(fn)
    return fn


def register_listener(fn: Listener) -> Listener:
    if fn not in _listeners:
        _listeners.append(fn)
    return fn


def register_edit_listener(fn: Listener) -> Listener:
    if fn not in _edit_listeners:
        _edit_listeners.append(fn)
    return fn


async def check(sender_id: int, kind: str, peer_id: int, count: int) -> None:
    for guard in _guards:
        await guard(sender_id, kind, peer_id, count)


async def _run(
    fn: Listener, sender_id: int, kind: str, peer_id: int, messages: list[dict], chat: dict | None
) -> None:
    try:
        await fn(sender_id, kind, peer_id, messages, chat)
    except Exception:
        log.exception("send listener %r failed for %d -> %s %d", fn, sender_id, kind, peer_id)


def delivered(
    sender_id: int, kind: str, peer_id: int, messages: list[dict], chat: dict | None = None
) -> None:
    """Hand the delivered messages to the listeners, each in a task of its own: the
    sender's answer does not wait for them."""
    _spawn(_listeners, sender_id, kind, peer_id, messages, chat)


def edited(editor_id: int, kind: str, peer_id: int, messages: list[dict], chat: dict | None = None) -> None:
    """Hand edited messages to the edit listeners, as :func:`delivered` does."""
    _spawn(_edit_listeners, editor_id, kind, peer_id, messages, chat)


def _chat_key(kind: str, sender_id: int, peer_id: int) -> tuple:
    return (kind, peer_id) if kind != "user" else (kind, min(sender_id, peer_id), max(sender_id, peer_id))


def _spawn(listeners, sender_id, kind, peer_id, messages, chat) -> None:
    """The listeners of each send or edit run in turn, after the previous send's of the
    same chat: a message and its quick edit are heard in that order (a bot must get
    ``message`` before ``edited_message``), different chats at once. One task per chat
    drains that chat's queue: a busy chat does not pay a task and a wait per send."""
    if not listeners:
        return
    loop = asyncio.get_running_loop()
    key = _chat_key(kind, sender_id, peer_id)
    item = (list(listeners), sender_id, kind, peer_id, messages, chat)
    drain = _drains.get(key)
    if drain is not None and not drain[0].done() and drain[0].get_loop() is loop:
        drain[1].append(item)
        return
    # none running, or one left behind by an earlier event loop
    queue = deque([item])
    task = loop.create_task(_drain(key, queue))
    _drains[key] = (task, queue)
    _running.add(task)
    task.add_done_callback(_running.discard)


async def _drain(key: tuple, queue: deque) -> None:
    try:
        while queue:
            listeners, *args = queue.popleft()
            for fn in listeners:
                await _run(fn, *args)
    finally:
        drain = _drains.get(key)
        if drain is not None and drain[1] is queue:
            del _drains[key]
