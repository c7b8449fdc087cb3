"""Changes of how a user renders for others (contacts, blocks, privacy rules, profile),
told to the layers above accounts that keep rendered users for a few seconds
(``message_core.context``) without accounts importing them.

Only this process hears it: another listener worker shows the old rendering until its
entry expires (seconds), as it does for a change made by the admin console.
"""

from __future__ import annotations

from collections.abc import Callable

_listeners: list[Callable[[set[int]], None]] = []


def on_user_render_change(fn: Callable[[set[int]], None]) -> Callable[[set[int]], None]:
    _listeners.append(fn)
    return fn


def user_render_changed(*user_ids: int) -> None:
    """``user_ids`` render differently now, for some viewers at least. Safe from any
    thread (the ORM actions run in pool threads)."""
    ids = {int(u) for u in user_ids}
    for fn in _listeners:
        fn(ids)
