"""What other apps add to users.getFullUser.

The channel module knows which supergroups two users share; it registers
``async fn(viewer_id, user_id) -> int`` here for ``userFull.common_chats_count``.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

log = logging.getLogger("telesrv.accounts")

CommonChatsCounter = Callable[[int, int], Awaitable[int]]
_common_chats_counter: CommonChatsCounter | None = None


def register_common_chats_counter(fn: CommonChatsCounter) -> CommonChatsCounter:
    global _common_chats_counter
    _common_chats_counter = fn
    return fn


async def common_chats_count(viewer_id: int, user_id: int) -> int:
    if viewer_id == user_id or _common_chats_counter is None:
        return 0
    try:
        return max(0, int(await _common_chats_counter(viewer_id, user_id)))
    except Exception:
        # A profile page must open even when the count cannot be had.
        log.exception("common chats count of %d for %d failed", user_id, viewer_id)
        return 0


# The chat kinds render a personal channel (account.updatePersonalChannel): ``async
# fn(viewer_id, channel_id) -> (chats, top message id)``, chats empty when the viewer
# may not see it.
PersonalChannelRenderer = Callable[[int, int], Awaitable[tuple[list, int]]]
_personal_channel_renderer: PersonalChannelRenderer | None = None


def register_personal_channel_renderer(fn: PersonalChannelRenderer) -> PersonalChannelRenderer:
    global _personal_channel_renderer
    _personal_channel_renderer = fn
    return fn


async def personal_channel(viewer_id: int, channel_id: int) -> tuple[list, int]:
    if not channel_id or _personal_channel_renderer is None:
        return [], 0
    try:
        return await _personal_channel_renderer(viewer_id, channel_id)
    except Exception:
        log.exception("personal channel %d for %d failed", channel_id, viewer_id)
        return [], 0


# media_app renders the background the viewer set for a private chat (userFull.wallpaper):
# ``fn(viewer_id, user_id) -> (TL WallPaper, overridden) | None``; synchronous, it runs in
# the thread that builds the userFull.
_wallpaper_renderer: Callable | None = None


def register_wallpaper_renderer(fn):
    global _wallpaper_renderer
    _wallpaper_renderer = fn
    return fn


def chat_wallpaper(viewer_id: int, user_id: int):
    if _wallpaper_renderer is None:
        return None
    try:
        return _wallpaper_renderer(viewer_id, user_id)
    except Exception:
        log.exception("wallpaper of %d for %d failed", user_id, viewer_id)
        return None
