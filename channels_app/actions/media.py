"""Media in channel messages: who may send which kind."""

from __future__ import annotations

from message_core.clock import now
from tl.errors import ChatSendGifsForbiddenError, ChatSendMediaForbiddenError, ChatSendStickersForbiddenError

from ..rights import banned_bit, effective_banned, is_admin

# A media kind and the banned right that forbids it besides send_media.
KIND_RIGHT = {
    "photo": "send_photos",
    "video": "send_videos",
    "round": "send_roundvideos",
    "music": "send_audios",
    "voice": "send_voices",
    "gif": "send_gifs",
    "sticker": "send_stickers",
    "document": "send_docs",
    "poll": "send_polls",
    "dice": "send_stickers",  # Telegram files dice with stickers, GIFs and games
}
KIND_ERROR = {"send_stickers": ChatSendStickersForbiddenError, "send_gifs": ChatSendGifsForbiddenError}
# Kinds a text sender may post without the media right (as the Bot API's
# can_send_messages says: contacts, locations and venues).
PLAIN_KINDS = ("geo", "venue", "geo_live", "contact")


def check_media_rights(channel: dict, member: dict, media: dict) -> None:
    if channel["broadcast"] or is_admin(member):
        return
    banned = effective_banned(member, channel, now())
    if media.get("kind") in PLAIN_KINDS:
        if banned & banned_bit("send_plain"):
            raise ChatSendMediaForbiddenError()
        return
    right = KIND_RIGHT.get(media.get("kind") or "document", "send_docs")
    if banned & banned_bit("send_media"):
        raise ChatSendMediaForbiddenError()
    if banned & banned_bit(right):
        # Stickers and GIFs have errors of their own (the "send stickers and GIFs" right).
        raise KIND_ERROR.get(right, ChatSendMediaForbiddenError)()


async def can_view(viewer_id: int, channel_ids: list[int]) -> bool:
    """Whether the viewer may read any of these channels (a file one of them holds is
    theirs to download)."""
    from tl.errors import RpcError

    from .common import load_channel_and_member, require_visible

    for cid in channel_ids:
        try:
            channel, member = await load_channel_and_member(cid, viewer_id)
            require_visible(channel, member, allow_public_preview=True)
        except RpcError:
            continue
        return True
    return False


def media_condition(kinds: tuple[str, ...], *, alias: str = "", named: str = "") -> tuple[str, list | dict]:
    """SQL (and its parameters) for messages of these media kinds ("url": a link);
    ``alias`` qualifies the columns, ``named`` makes the parameter ``%(<named>)s`` (a
    dict) for statements with named parameters."""
    parts, params = [], []
    col = f"{alias}." if alias else ""
    media = [k for k in kinds if k != "url"]
    if media:
        parts.append(f"{col}media->>'kind' = ANY({f'%({named})s' if named else '%s'})")
        params.append(media)
    if "url" in kinds:
        parts.append(
            f"""({col}entities @> '[{{"type": "url"}}]' OR {col}entities @> '[{{"type": "textUrl"}}]')"""
        )
    sql = " AND (" + " OR ".join(parts) + ")"
    if named:
        return sql, {named: params[0]} if params else {}
    return sql, params


async def count_media(viewer_id: int, channel_id: int, kinds: tuple[str, ...]) -> tuple[int, bool]:
    """(count, inexact) of the visible messages of these kinds: exact within the newest
    COUNT_WINDOW messages, inexact beyond (no media index)."""
    from message_core import db
    from message_core.text import SEARCH_WINDOW

    from .common import is_active, load_channel, load_member, require_visible

    async with db.connection() as conn:
        channel = await load_channel(conn, channel_id)
        member = await load_member(conn, channel_id, viewer_id)
        require_visible(channel, member, allow_public_preview=True)
        floor = max(
            member["available_min_id"] if is_active(member) else 0, channel["top_message_id"] - SEARCH_WINDOW
        )
        sql, params = media_condition(kinds)
        cur = await conn.execute(
            f"SELECT count(*) AS n FROM channel_messages WHERE channel_id = %s AND NOT deleted AND id > %s{sql}",
            (channel_id, floor, *params),
        )
        n = (await cur.fetchone())["n"]
    return n, floor > 0 and channel["top_message_id"] > SEARCH_WINDOW


async def do_fill_web_page(channel_id: int, msg_ids: list[int], page: dict) -> list[int]:
    """Messages sent while their link preview was pending show the fetched page (their
    text and edit date stay: the page is not an edit). The ids filled in."""
    import json

    from message_core import db

    rows = await db.fetchall(
        "UPDATE channel_messages SET media = jsonb_set(media, '{webpage}', %s::jsonb)"
        " WHERE channel_id = %s AND id = ANY(%s) AND media->>'kind' = 'webpage'"
        " AND media->'webpage'->>'url' = %s RETURNING id",
        (json.dumps(page), channel_id, msg_ids, page["url"]),
    )
    return [r["id"] for r in rows]


async def media_dates(
    viewer_id: int, channel_id: int, kinds: tuple[str, ...], cap: int
) -> list[tuple[int, int]]:
    """(id, date) of the visible messages of these kinds, newest first, at most ``cap``
    (getSearchResultsCalendar / getSearchResultsPositions)."""
    from message_core import db

    from .common import is_active, load_channel, load_member, require_visible

    async with db.connection() as conn:
        channel = await load_channel(conn, channel_id)
        member = await load_member(conn, channel_id, viewer_id)
        require_visible(channel, member, allow_public_preview=True)
        floor = member["available_min_id"] if is_active(member) else 0
        sql, params = media_condition(kinds)
        cur = await conn.execute(
            "SELECT id, date FROM channel_messages WHERE channel_id = %s AND NOT deleted AND id > %s"
            f"{sql} ORDER BY id DESC LIMIT %s",
            (channel_id, floor, *params, cap),
        )
        return [(r["id"], r["date"]) for r in await cur.fetchall()]
