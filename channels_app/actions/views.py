"""Post views (``channel_message_viewers``) and forward counts of broadcast posts.

A viewer counts once per post: the viewer row's primary key deduplicates, and only a
row that was really inserted adds one to ``channel_messages.views_count`` (no count
over viewers is ever taken). The author's own views are not recorded: the shown counter
already includes them (``message_core.tl_convert.post_views``). At most a page of ids
per call."""

from __future__ import annotations

from message_core import db, limits
from message_core.clock import now

from ..errors import LimitInvalidError
from .common import is_active

_RECORD = """
WITH vis AS (
  SELECT id FROM channel_messages WHERE channel_id = %(c)s AND id = ANY(%(ids)s) AND NOT deleted
    AND action IS NULL AND id > %(floor)s AND sender_user_id <> %(v)s
), ins AS (
  INSERT INTO channel_message_viewers (channel_id, message_id, viewer_user_id, date)
  SELECT %(c)s, id, %(v)s, %(d)s FROM vis ON CONFLICT DO NOTHING RETURNING message_id
)
UPDATE channel_messages SET views_count = views_count + 1
WHERE channel_id = %(c)s AND id IN (SELECT message_id FROM ins)
"""


async def do_record_views(viewer_id: int, channel: dict, member: dict | None, ids: list[int]) -> None:
    """messages.getMessagesViews(increment=true) on a broadcast channel: count the
    viewer once for each visible, live post among ``ids`` (caller checked visibility)."""
    if len(ids) > limits.GET_IDS_MAX:
        raise LimitInvalidError()
    valid = sorted({i for i in ids if 0 < i <= limits.MAX_MESSAGE_ID})
    if not valid or not channel["broadcast"]:
        return
    floor = member["available_min_id"] if is_active(member) else 0
    async with db.connection() as conn:
        await conn.execute(
            _RECORD, {"c": channel["id"], "ids": valid, "floor": floor, "v": viewer_id, "d": now()}
        )


async def do_count_forwards(channel_id: int, ids: list[int]) -> None:
    """Posts of a broadcast channel were forwarded once more (message.forwards)."""
    valid = sorted({i for i in ids if 0 < i <= limits.MAX_MESSAGE_ID})[: limits.FORWARD_IDS_MAX]
    if not valid:
        return
    async with db.connection() as conn:
        await conn.execute(
            "UPDATE channel_messages SET forwards_count = forwards_count + 1"
            " WHERE channel_id = %s AND id = ANY(%s) AND NOT deleted",
            (channel_id, valid),
        )
