"""A channel's notification settings for one member, kept on the member's channel
dialog (``channel_dialogs.notify_settings``); accounts_app.notify_settings owns the
rules and the account update log."""

from __future__ import annotations

from message_core import db, limits

from ..errors import ChannelPrivateError
from .common import jsonb


async def write_dialog_notify_settings(user_id: int, channel_id: int, settings: dict) -> None:
    """CHANNEL_PRIVATE when the user has no dialog with the channel (not a member)."""
    async with db.connection() as conn:
        cur = await conn.execute(
            "UPDATE channel_dialogs SET notify_settings = %s::jsonb WHERE user_id = %s AND channel_id = %s"
            " RETURNING 1",
            (jsonb(settings), user_id, channel_id),
        )
        if await cur.fetchone() is None:
            raise ChannelPrivateError()


async def read_dialog_notify_settings(user_id: int, channel_ids: list[int]) -> dict[int, dict]:
    if not channel_ids:
        return {}
    async with db.connection() as conn:
        cur = await conn.execute(
            "SELECT channel_id, notify_settings FROM channel_dialogs WHERE user_id = %s AND channel_id = ANY(%s)",
            (user_id, list(channel_ids)[: limits.CHANNELS_PER_USER_MAX]),
        )
        return {r["channel_id"]: r["notify_settings"] or {} for r in await cur.fetchall()}


async def dialog_notify_exceptions(user_id: int, limit: int) -> list[tuple[int, str, dict]]:
    """``[(channel_id, "chats"|"broadcasts", settings)]`` of dialogs with their own settings."""
    async with db.connection() as conn:
        cur = await conn.execute(
            "SELECT d.channel_id, d.notify_settings, c.broadcast FROM channel_dialogs d"
            " JOIN channels c ON c.id = d.channel_id"
            " WHERE d.user_id = %s AND d.notify_settings <> '{}'::jsonb ORDER BY d.channel_id LIMIT %s",
            (user_id, limit),
        )
        return [
            (r["channel_id"], "broadcasts" if r["broadcast"] else "chats", r["notify_settings"])
            for r in await cur.fetchall()
        ]


async def reset_dialog_notify_settings(user_id: int) -> list[int]:
    async with db.connection() as conn:
        cur = await conn.execute(
            "UPDATE channel_dialogs SET notify_settings = '{}'::jsonb"
            " WHERE user_id = %s AND notify_settings <> '{}'::jsonb RETURNING channel_id",
            (user_id,),
        )
        return [r["channel_id"] for r in await cur.fetchall()]
