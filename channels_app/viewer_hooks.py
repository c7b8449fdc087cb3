"""What a layer above adds to what members see, without channels_app importing it.

Messages it may hide from some members as they are delivered (pushes and
getChannelDifference): bots_app hides group messages from a bot in privacy mode. The
hidden message still moves the member's pts (an empty update in its place), so the
stream has no gap. ``async fn(viewer_id, member row, message snapshot) -> bool``
(True: hidden).

How many events one getChannelDifference page may carry for a member (bots may ask
far more than people, as on Telegram): ``async fn(viewer_id, requested) -> int | None``
(None: the default cap).

The ``bot_info`` of channels.getFullChannel: bots_app renders its bots' descriptions and
commands, ``async fn(channel_id, bot_ids, viewer_id, viewer_is_admin) -> [BotInfo]``.

The ``groupcall_default_join_as`` of channels.getFullChannel: calls_app keeps what each
user saved (phone.saveDefaultGroupCallJoinAs), ``async fn(channel_id, viewer_id) ->
("user" | "channel", id) | None``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

MessageFilter = Callable[[int, dict | None, dict], Awaitable[bool]]
_filters: list[MessageFilter] = []


def register_message_filter(fn: MessageFilter) -> MessageFilter:
    if fn not in _filters:
        _filters.append(fn)
    return fn


ViewerPrefetch = Callable[[list[int]], Awaitable[None]]
_prefetch: list[ViewerPrefetch] = []


def register_viewer_prefetch(fn: ViewerPrefetch) -> ViewerPrefetch:
    """``async fn(viewer_ids)``: read in one go what the message filters will ask of
    each of these viewers (a big channel's fan-out would otherwise ask once per viewer)."""
    if fn not in _prefetch:
        _prefetch.append(fn)
    return fn


async def prefetch(viewer_ids: list[int]) -> None:
    for fn in _prefetch:
        await fn(viewer_ids)


async def hidden(viewer_id: int, member: dict | None, message: dict | None) -> bool:
    if not _filters or not message:
        return False
    for fn in _filters:
        if await fn(viewer_id, member, message):
            return True
    return False


BotInfoRenderer = Callable[[int, list[int], int, bool], Awaitable[list]]
_bot_info: list[BotInfoRenderer] = []


def register_bot_info_renderer(fn: BotInfoRenderer) -> BotInfoRenderer:
    _bot_info[:] = [fn]
    return fn


async def bot_infos(channel_id: int, bot_ids: list[int], viewer_id: int, viewer_is_admin: bool) -> list:
    if not _bot_info or not bot_ids:
        return []
    return await _bot_info[0](channel_id, bot_ids, viewer_id, viewer_is_admin)


PageCap = Callable[[int, int], Awaitable[int | None]]
_page_caps: list[PageCap] = []


def register_difference_cap(fn: PageCap) -> PageCap:
    _page_caps[:] = [fn]
    return fn


async def difference_cap(viewer_id: int, requested: int, default: int) -> int:
    if not _page_caps:
        return default
    cap = await _page_caps[0](viewer_id, requested)
    return default if cap is None else cap


JoinAsReader = Callable[[int, int], Awaitable[tuple[str, int] | None]]
_join_as: list[JoinAsReader] = []


def register_default_join_as(fn: JoinAsReader) -> JoinAsReader:
    _join_as[:] = [fn]
    return fn


async def default_join_as(channel_id: int, viewer_id: int) -> tuple[str, int] | None:
    if not _join_as:
        return None
    return await _join_as[0](channel_id, viewer_id)
