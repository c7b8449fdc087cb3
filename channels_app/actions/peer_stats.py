"""Counts and lookups about peers that the messages.* compatibility answers show from
real data: thread reply counts, online members, the megagroups two users share."""

from __future__ import annotations

from accounts_app import full_user
from accounts_app.models import User
from message_core import db

from .common import is_active

ONLINE_COUNT_MAX = 10_000  # getOnlines counts at most this many online members
REPLIES_COUNT_MAX = 10_000  # getMessagesViews counts at most this many replies per thread
COMMON_CHATS_LIMIT = 100


async def thread_reply_counts(
    channel: dict, member: dict | None, roots: list[int]
) -> dict[int, tuple[int, int]]:
    """root id -> (replies, newest reply id) over the thread index, bounded per root."""
    if not roots:
        return {}
    floor = member["available_min_id"] if is_active(member) else 0
    rows = await db.fetchall(
        "SELECT r.root,"
        " (SELECT count(*) FROM (SELECT 1 FROM channel_messages m WHERE m.channel_id = %(c)s"
        "   AND m.reply_to_top_id = r.root AND NOT m.deleted AND m.id > %(f)s LIMIT %(cap)s) x) AS n,"
        " (SELECT max(m.id) FROM channel_messages m WHERE m.channel_id = %(c)s"
        "   AND m.reply_to_top_id = r.root AND NOT m.deleted AND m.id > %(f)s) AS top"
        " FROM unnest(%(r)s::int[]) AS r(root)",
        {"c": channel["id"], "r": roots, "f": floor, "cap": REPLIES_COUNT_MAX},
    )
    return {r["root"]: (r["n"], r["top"] or 0) for r in rows if r["n"]}


async def online_member_count(channel_id: int) -> int:
    """Active members whose status is online now (bounded count)."""
    row = await db.fetchone(
        "SELECT count(*) AS n FROM (SELECT 1 FROM channel_members m"
        f" JOIN {User._meta.db_table} u ON u.id = m.user_id"
        " WHERE m.channel_id = %s AND m.status = 'active' AND u.online_until > now() LIMIT %s) x",
        (channel_id, ONLINE_COUNT_MAX),
    )
    return row["n"] if row else 0


_COMMON = (
    "FROM user_channel_member_index a"
    " JOIN user_channel_member_index b ON b.user_id = %(other)s AND b.channel_id = a.channel_id"
    "  AND b.status = 'active' AND b.megagroup AND NOT b.broadcast AND NOT b.deleted"
    " JOIN channels c ON c.id = a.channel_id AND c.megagroup AND NOT c.broadcast AND NOT c.deleted"
    " WHERE a.user_id = %(me)s AND a.status = 'active' AND a.megagroup AND NOT a.broadcast AND NOT a.deleted"
)


async def common_channel_ids(
    me: int, other: int, *, max_id: int = 0, limit: int = COMMON_CHATS_LIMIT
) -> list[int]:
    """The active megagroups both users are in, newest id first, below ``max_id``."""
    if me == other or limit <= 0:
        return []
    rows = await db.fetchall(
        f"SELECT a.channel_id {_COMMON} AND (%(max)s = 0 OR a.channel_id < %(max)s)"
        " ORDER BY a.channel_id DESC LIMIT %(limit)s",
        {"me": me, "other": other, "max": max_id, "limit": limit},
    )
    return [r["channel_id"] for r in rows]


@full_user.register_common_chats_counter
async def common_chats_count(me: int, other: int) -> int:
    """users.getFullUser's common_chats_count (a user is in at most
    CHANNELS_PER_USER_MAX channels, so the count is bounded)."""
    if me == other:
        return 0
    row = await db.fetchone(f"SELECT count(*) AS n {_COMMON}", {"me": me, "other": other})
    return row["n"] if row else 0
