"""Who read a message in a small megagroup (messages.getMessageReadParticipants).

The design's rules: only megagroups of at most READ_MARK_SIZE_MAX members with
visible participants; the message must be visible to the requester and not older than
READ_MARK_EXPIRE; a reader is an active member (not banned from viewing) whose
history includes the message (``available_min_id < msg_id``), whose inbox mark covers
it and who has a recorded read date; never the requester, nor the message's sender
(who marks the chat read by posting); at most READERS_MAX, newest
reads first. Served by ``channel_members_read_idx``."""

from __future__ import annotations

from message_core import db, limits
from message_core.clock import now

from ..errors import ChannelPrivateError, MessageIdInvalidError
from ..rights import banned_bit
from .common import is_active, load_channel, load_member, load_visible_message, require_visible

READ_MARK_SIZE_MAX = 50  # appConfig chat_read_mark_size_threshold
READ_MARK_EXPIRE = 7 * 86400  # appConfig chat_read_mark_expire_period
READERS_MAX = 50


async def read_participants(viewer_id: int, channel_id: int, msg_id: int) -> list[tuple[int, int]]:
    """[(user_id, read date)] of the message's readers, as the design bounds them."""
    if not 0 < msg_id <= limits.MAX_MESSAGE_ID:
        raise MessageIdInvalidError()
    async with db.connection() as conn:
        channel = await load_channel(conn, channel_id)
        if channel is None:
            raise ChannelPrivateError()
        member = await load_member(conn, channel_id, viewer_id)
        require_visible(channel, member)
        if not is_active(member):
            raise ChannelPrivateError()
        msg = await load_visible_message(
            conn, channel_id, msg_id, member["available_min_id"], "date, sender_user_id"
        )
        if msg is None:
            raise MessageIdInvalidError()
        if (
            not channel["megagroup"]
            or channel["participants_hidden"]
            or channel["participants_count"] > READ_MARK_SIZE_MAX
            or now() - msg["date"] > READ_MARK_EXPIRE
        ):
            return []
        cur = await conn.execute(
            "SELECT user_id, read_inbox_date FROM channel_members WHERE channel_id = %(c)s AND status = 'active'"
            " AND read_inbox_max_id >= %(m)s AND available_min_id < %(m)s AND read_inbox_date > 0"
            " AND user_id <> %(v)s AND user_id <> %(s)s AND (role <> 'member' OR banned_rights & %(view)s = 0"
            "  OR (banned_until > 0 AND banned_until <= %(now)s))"
            " ORDER BY read_inbox_date DESC, user_id DESC LIMIT %(n)s",
            {"c": channel_id, "m": msg_id, "v": viewer_id, "s": msg["sender_user_id"], "view": banned_bit("view_messages"),
             "now": now(), "n": READERS_MAX},
        )  # fmt: skip
        return [(r["user_id"], r["read_inbox_date"]) for r in await cur.fetchall()]
