"""Played voice notes and round videos in channels (``channel_media_reads``): each is
``media_unread`` for a member until they play it, and for its sender until anyone
else has ("listened"). channels.readMessageContents records plays and reads the
viewer's mentions among the ids."""

from __future__ import annotations

from media_app.value_media import PLAYED_KINDS, plays_once
from message_core import db, limits
from message_core.clock import now

from .. import notify
from ..errors import ChannelPrivateError, LimitInvalidError
from .common import is_active, load_channel, load_member, require_visible


def _played(messages: list[dict]) -> list[dict]:
    return [m for m in messages if m and not m.get("empty") and plays_once(m.get("media"))]


async def attach(viewer_id: int, channel_id: int, messages: list[dict], conn=None) -> None:
    """Set ``media_unread`` on the page's voice notes and round videos as the viewer
    sees them: one query, none for a page without them."""
    shown = _played(messages)
    if not shown:
        return
    sql = (
        "SELECT message_id, bool_or(user_id = %(v)s) AS mine, bool_or(user_id <> %(v)s) AS others"
        " FROM channel_media_reads WHERE channel_id = %(c)s AND message_id = ANY(%(ids)s) GROUP BY message_id"
    )
    params = {"v": viewer_id, "c": channel_id, "ids": [m["id"] for m in shown]}
    if conn is None:
        rows = await db.fetchall(sql, params)
    else:
        rows = await (await conn.execute(sql, params)).fetchall()
    found = {r["message_id"]: r for r in rows}
    for m in shown:
        r = found.get(m["id"]) or {"mine": False, "others": False}
        m["media_unread"] = not (r["others"] if m.get("sender_user_id") == viewer_id else r["mine"])


def mark_fresh(message: dict | None) -> None:
    """A new voice note or round video: nobody has played it yet."""
    if message and plays_once(message.get("media")):
        message["media_unread"] = True


async def do_read_media(
    user_id: int, channel_id: int, ids: list[int]
) -> tuple[list[int], dict[int, list[int]]]:
    """Record that the user played these messages (those that play once and that they
    did not send) and read their mentions among them. Returns (the ids that changed for
    the user, {sender: ids now listened for the first time})."""
    if len(ids) > limits.GET_IDS_MAX:
        raise LimitInvalidError()
    valid = [i for i in ids if 0 < i <= limits.MAX_MESSAGE_ID]
    if not valid:
        return [], {}
    async with db.connection() as conn, conn.transaction():
        channel = await load_channel(conn, channel_id)
        if channel is None:
            raise ChannelPrivateError()
        member = await load_member(conn, channel_id, user_id)
        require_visible(channel, member, allow_public_preview=True)
        if not is_active(member):
            return [], {}
        cur = await conn.execute(
            "WITH played AS (SELECT id, sender_user_id FROM channel_messages WHERE channel_id = %(c)s"
            "  AND id = ANY(%(ids)s) AND NOT deleted AND sender_user_id <> %(u)s AND media->>'kind' = ANY(%(k)s)"
            "  AND id > %(floor)s),"
            " first AS (SELECT p.id FROM played p WHERE NOT EXISTS (SELECT 1 FROM channel_media_reads r"
            "  WHERE r.channel_id = %(c)s AND r.message_id = p.id AND r.user_id <> p.sender_user_id)),"
            " ins AS (INSERT INTO channel_media_reads (channel_id, message_id, user_id, date)"
            "  SELECT %(c)s, id, %(u)s, %(t)s FROM played ON CONFLICT DO NOTHING RETURNING message_id)"
            " SELECT ins.message_id, p.sender_user_id, (ins.message_id IN (SELECT id FROM first)) AS first"
            " FROM ins JOIN played p ON p.id = ins.message_id",
            {"c": channel_id, "ids": valid, "u": user_id, "k": list(PLAYED_KINDS), "t": now(),
             "floor": member["available_min_id"]},
        )  # fmt: skip
        rows = await cur.fetchall()
        cur = await conn.execute(
            "DELETE FROM channel_unread_mentions WHERE user_id = %s AND channel_id = %s AND message_id = ANY(%s)"
            " RETURNING message_id",
            (user_id, channel_id, valid),
        )
        mentions = [r["message_id"] for r in await cur.fetchall()]
    changed = sorted({r["message_id"] for r in rows} | set(mentions))
    listened: dict[int, list[int]] = {}
    for r in rows:
        if r["first"] and r["sender_user_id"]:
            listened.setdefault(r["sender_user_id"], []).append(r["message_id"])
    if changed:
        await notify.publish(
            "channel.contents_read", {"channel_id": channel_id, "user_id": user_id, "ids": changed}
        )
    for sender, sids in listened.items():
        await notify.publish(
            "channel.contents_read",
            {"channel_id": channel_id, "user_id": sender, "ids": sorted(sids), "other": True},
        )
    return changed, listened
