"""The owner's unread mentions (``channel_unread_mentions``, partitioned by owner).

A message that mentions users (mention-name entities, resolved @usernames) gets one row
per mentioned active member who can see it, has not read past it and did not send it;
at most MENTIONS_PER_MESSAGE per message, so a post costs O(mentions), never O(members).
Reading the history up to a message, or messages.readMentions, clears rows; a deleted
message's rows are skipped by every reader (joined against the live message) and so
need no fan-out delete. ``mentioned`` on each viewer's copy of a message comes from the
entities (tl_convert); this store answers the dialog badge and getUnreadMentions.
"""

from __future__ import annotations

from message_core import db
from message_core.text import mention_user_ids

from .common import load_channel
from .unread_pages import unread_window

MENTIONS_PER_MESSAGE = 100
READ_MENTIONS_BATCH = 1000


def mentioned_user_ids(m: dict) -> list[int]:
    """Users a message mentions for their badge and ``mentioned`` flag: its mention
    entities, and in a megagroup the author it replies to; never its own sender."""
    if not m.get("entities") and not m.get("reply_to_user_id"):
        return []
    ids = set(mention_user_ids(m.get("entities")))
    if m.get("reply_to_user_id"):
        ids.add(int(m["reply_to_user_id"]))
    ids.discard(m.get("sender_user_id"))
    return sorted(ids)


# The mentioned members who can still read the message get an unread mention. Each is
# one probe of the membership key, its status checked above the LIMIT 1: beside the key,
# ``status = 'active'`` let the partial index of active members (channel_id,
# read_inbox_max_id, user_id) serve, a walk over every member who had not read that far.
RECORD_MENTIONS = (
    "INSERT INTO channel_unread_mentions (user_id, channel_id, message_id)"
    " SELECT m.user_id, %(c)s, %(m)s FROM unnest(%(u)s::bigint[]) AS u(id)"
    " CROSS JOIN LATERAL (SELECT user_id, status, read_inbox_max_id, available_min_id FROM channel_members"
    "   WHERE channel_id = %(c)s AND user_id = u.id LIMIT 1) m"
    " WHERE m.status = 'active' AND m.read_inbox_max_id < %(m)s AND m.available_min_id < %(m)s"
    " ON CONFLICT DO NOTHING"
)


async def record_mentions(channel_id: int, message_id: int, sender_id: int, user_ids: list[int]) -> None:
    candidates = [u for u in dict.fromkeys(user_ids) if u != sender_id][:MENTIONS_PER_MESSAGE]
    if not candidates:
        return
    async with db.connection() as conn:
        await conn.execute(RECORD_MENTIONS, {"c": channel_id, "m": message_id, "u": candidates})


async def do_update_mentions(
    channel_id: int, message_id: int, sender_id: int, before: list[int], after: list[int]
) -> None:
    """An edit: users no longer mentioned lose the row, newly mentioned ones get one."""
    removed = sorted(set(before) - set(after))
    if removed:
        async with db.connection() as conn:
            await conn.execute(
                "DELETE FROM channel_unread_mentions WHERE user_id = ANY(%s) AND channel_id = %s AND message_id = %s",
                (removed, channel_id, message_id),
            )
    await record_mentions(channel_id, message_id, sender_id, [u for u in after if u not in before])


async def clear_read(conn, user_id: int, channel_id: int, max_id: int) -> None:
    """Reading the history up to ``max_id`` reads its mentions too (as Telegram does)."""
    await conn.execute(
        "DELETE FROM channel_unread_mentions WHERE user_id = %s AND channel_id = %s AND message_id <= %s",
        (user_id, channel_id, max_id),
    )


_LIVE = (
    " FROM channel_unread_mentions u JOIN channel_messages m ON m.channel_id = u.channel_id"
    " AND m.id = u.message_id AND NOT m.deleted"
)


async def unread_mention_counts(conn, user_id: int, channel_ids: list[int]) -> dict[int, int]:
    if not channel_ids:
        return {}
    cur = await conn.execute(
        # The messages' channels named by value too: the join alone would not pin their
        # shards (telesrv_project/sharding.py).
        f"SELECT u.channel_id, count(*) AS n{_LIVE} WHERE u.user_id = %s AND u.channel_id = ANY(%s)"
        " AND m.channel_id = ANY(%s) GROUP BY u.channel_id",
        (user_id, list(channel_ids), list(channel_ids)),
    )
    return {r["channel_id"]: r["n"] for r in await cur.fetchall()}


async def unread_mention_ids(
    user_id: int, channel_id: int, *, offset_id: int = 0, add_offset: int = 0, limit: int = 100,
    max_id: int = 0, min_id: int = 0,
) -> tuple[list[int], int]:  # fmt: skip
    """messages.getUnreadMentions: (ids newest first, total), paged as
    ``unread_pages`` says."""
    w = unread_window(
        "u.message_id", ["u.user_id = %(u)s", "u.channel_id = %(c)s"], {"u": user_id, "c": channel_id},
        offset_id=offset_id, add_offset=add_offset, limit=limit, max_id=max_id, min_id=min_id,
    )  # fmt: skip
    async with db.connection() as conn:
        cur = await conn.execute(f"SELECT u.message_id{_LIVE} WHERE {w.sql()}", w.bind())
        ids = [r["message_id"] for r in await cur.fetchall()]
        total = (await unread_mention_counts(conn, user_id, [channel_id])).get(channel_id, 0)
    return w.cut(ids), total


async def do_read_mentions(user_id: int, channel_id: int) -> tuple[int, bool]:
    """messages.readMentions: one batch; (channel pts, whether rows remain)."""
    async with db.connection() as conn, conn.transaction():
        cur = await conn.execute(
            "DELETE FROM channel_unread_mentions WHERE (user_id, channel_id, message_id) IN"
            " (SELECT user_id, channel_id, message_id FROM channel_unread_mentions"
            "  WHERE user_id = %s AND channel_id = %s LIMIT %s) RETURNING 1",
            (user_id, channel_id, READ_MENTIONS_BATCH),
        )
        done = len(await cur.fetchall())
        channel = await load_channel(conn, channel_id)
    return channel["pts"], done >= READ_MENTIONS_BATCH


async def unread_among(user_id: int, channel_id: int, messages: list[dict]) -> set[int]:
    """Which of these messages are the viewer's unread mentions (for ``media_unread``,
    which Telegram Desktop reads as "this mention is unread"). No query unless one of
    them mentions the viewer."""
    ids = [m["id"] for m in messages if m and user_id in mentioned_user_ids(m)]
    if not ids:
        return set()
    async with db.connection() as conn:
        cur = await conn.execute(
            "SELECT message_id FROM channel_unread_mentions WHERE user_id = %s AND channel_id = %s"
            " AND message_id = ANY(%s)",
            (user_id, channel_id, ids),
        )
        return {r["message_id"] for r in await cur.fetchall()}
