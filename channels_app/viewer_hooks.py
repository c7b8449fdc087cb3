"""Messages a layer above may hide from some members as they are delivered (pushes and
getChannelDifference): bots_app hides group messages from a bot in privacy mode. The
hidden message still moves the member's pts (an empty update in its place), so the
stream has no gap.

``async fn(viewer_id, member row, message snapshot) -> bool`` (True: hidden).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

MessageFilter = Callable[[int, dict | None, dict], Awaitable[bool]]
_filters: list[MessageFilter] = []


def register_message_filter(fn: MessageFilter) -> MessageFilter:
    if fn not in _filters:
        _filters.append(fn)
    return fn


async def hidden(viewer_id: int, member: dict | None, message: dict | None) -> bool:
    if not _filters or not message:
        return False
    for fn in _filters:
        if await fn(viewer_id, member, message):
            return True
    return False
