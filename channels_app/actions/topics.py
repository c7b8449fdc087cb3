"""Forum topics of a megagroup: the stored topics (``channel_forum_topics``), the virtual
General topic (id 1), where a message sent into a forum lands, and topic mutations.

A topic's id is the id of its ``topicCreate`` root service message; messages in it keep
``reply_to_top_id = topic id`` and ``forum_topic``, so the thread index of
``channel_messages`` serves a topic's history (messages.getReplies) unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import psycopg

from message_core import db, limits

from .. import notify
from ..domain import ChannelChange, ChannelEvent
from ..errors import (
    ChannelForumMissingError,
    ChatAdminRequiredError,
    LimitInvalidError,
    PinnedTooMuchError,
    ReplyMessageIdInvalidError,
    TopicClosedError,
    TopicDeletedError,
    TopicIdInvalidError,
    TopicNotModifiedError,
    TopicsEmptyError,
    TopicTitleEmptyError,
)
from ..rights import banned_bit, effective_banned, has_admin_right, is_admin
from .admin import load_for_actor
from .common import (
    MESSAGE_COLUMNS,
    insert_service_message,
    load_channel,
    load_member,
    now,
    require_visible,
    with_pts,
)

GENERAL_TOPIC_ID = 1
GENERAL_TITLE = "General"
# The six colours Telegram clients offer for a topic icon (RGB); anything else is mapped
# to the first, as Telegram does.
ICON_COLORS = (0x6FB9F0, 0xFFD67E, 0xCB86DB, 0x8EEE98, 0xFF93B2, 0xFB6F5F)

TOPIC_COLUMNS = (
    "channel_id, id, title, icon_color, icon_emoji_id, creator_user_id, date, closed, hidden,"
    " pinned_order, top_message_id, top_message_date, deleted"
)


@dataclass
class TopicPage:
    """Topics with what a client shows on each: its top message and the viewer's state."""

    channel: dict
    member: dict | None
    topics: list[dict]
    messages: list[dict] = field(default_factory=list)
    count: int = 0


def require_forum(channel: dict) -> None:
    if not channel["megagroup"] or not channel["forum"]:
        raise ChannelForumMissingError()


def _may_manage(member: dict | None, channel: dict) -> bool:
    return has_admin_right(member, "manage_topics")


def _may_create(member: dict | None, channel: dict) -> bool:
    if is_admin(member):
        return _may_manage(member, channel)
    return not effective_banned(member, channel, now()) & banned_bit("manage_topics")


async def load_topic(conn, channel_id: int, topic_id: int, *, lock: bool = False) -> dict | None:
    sql = f"SELECT {TOPIC_COLUMNS} FROM channel_forum_topics WHERE channel_id = %s AND id = %s"
    cur = await conn.execute(sql + (" FOR UPDATE" if lock else ""), (channel_id, topic_id))
    return await cur.fetchone()


def general_topic(channel: dict) -> dict:
    return {
        "channel_id": channel["id"],
        "id": GENERAL_TOPIC_ID,
        "title": GENERAL_TITLE,
        "icon_color": ICON_COLORS[0],
        "icon_emoji_id": 0,
        "creator_user_id": channel["creator_user_id"],
        "date": channel["date"],
        "closed": False,
        "hidden": False,
        "pinned_order": 0,
        "top_message_id": channel["top_message_id"],
        "top_message_date": channel["top_message_date"],
        "deleted": False,
    }


async def topic_for_send(
    conn, channel: dict, member: dict | None, reply_to_msg_id: int, top_msg_id: int, target: dict | None
) -> int:
    """The stored topic a message sent into a forum lands in (0: General), checked: it
    exists, is not deleted, and is open (closed or hidden topics take only admins with
    manage_topics and the topic's creator). ``target``: the replied-to message, if any."""
    topic_id = top_msg_id if top_msg_id and top_msg_id != GENERAL_TOPIC_ID else 0
    if target is not None:
        in_topic = target["reply_to_top_id"] if target.get("forum_topic") else 0
        if (target.get("action") or {}).get("_") == "topicCreate":
            in_topic = target["id"]
        if top_msg_id and in_topic != topic_id:
            raise ReplyMessageIdInvalidError()  # a reply to a message of another topic
        topic_id = in_topic
    if not topic_id:
        return 0
    if not 0 < topic_id <= limits.MAX_MESSAGE_ID:
        raise TopicIdInvalidError()
    topic = await load_topic(conn, channel["id"], topic_id)
    if topic is None:
        raise TopicIdInvalidError()
    if topic["deleted"]:
        raise TopicDeletedError()
    if (topic["closed"] or topic["hidden"]) and not (
        _may_manage(member, channel) or topic["creator_user_id"] == member["user_id"]
    ):
        raise TopicClosedError()
    return topic_id


async def touch_topic(channel_id: int, topic_id: int, message_id: int, date: int) -> None:
    """The topic's top message after a send into it (outside the send's statement)."""
    async with db.connection() as conn:
        await conn.execute(
            "UPDATE channel_forum_topics SET top_message_id = GREATEST(top_message_id, %s),"
            " top_message_date = GREATEST(top_message_date, %s) WHERE channel_id = %s AND id = %s",
            (message_id, date, channel_id, topic_id),
        )


async def mark_deleted(channel_id: int, topic_id: int) -> None:
    async with db.connection() as conn:
        await conn.execute(
            "UPDATE channel_forum_topics SET deleted = true, pinned_order = 0 WHERE channel_id = %s AND id = %s",
            (channel_id, topic_id),
        )


async def _publish(event: ChannelEvent, actor_id: int) -> None:
    await notify.publish(
        "channel.event", {"event": event.to_payload(), "extra_user_ids": [], "exclude_user_id": actor_id}
    )


def _clean_title(title: str | None) -> str:
    title = (title or "").strip()
    if not title:
        raise TopicTitleEmptyError()
    return title[: limits.FORUM_TOPIC_TITLE_MAX]


async def _created_by_random_id(channel_id: int, actor_id: int, random_id: int) -> ChannelEvent | None:
    """The durable new_message event of the topic root this random id created."""
    row = await db.fetchone(
        "SELECT e.pts, e.date, e.payload FROM channel_messages m"
        " JOIN channel_update_events e ON e.channel_id = m.channel_id AND e.pts = m.pts"
        " WHERE m.channel_id = %s AND m.sender_user_id = %s AND m.random_id = %s AND e.channel_id = %s"
        " AND m.action IS NOT NULL",
        (channel_id, actor_id, random_id, channel_id),
    )
    if row is None:
        return None
    return ChannelEvent(
        channel_id, row["pts"], 1, "new_message", row["date"], row["payload"], random_id=random_id
    )


async def do_create_topic(
    actor_id: int,
    channel_id: int,
    title: str,
    icon_color: int | None,
    icon_emoji_id: int | None,
    random_id: int = 0,
) -> ChannelChange:
    """messages.createForumTopic: the topicCreate root message on the channel's pts and
    the topic row keyed by its id, in one transaction. ``random_id`` is stored on the
    root: a retry with it answers the topic it already created."""
    title = _clean_title(title)
    channel, member = await load_for_actor(channel_id, actor_id)
    require_forum(channel)
    if not _may_create(member, channel):
        raise ChatAdminRequiredError()
    if random_id:
        earlier = await _created_by_random_id(channel_id, actor_id, random_id)
        if earlier is not None:
            return ChannelChange(
                channel=channel, events=[earlier], user_ids={actor_id}, member=member, duplicate=True
            )
    color = icon_color if icon_color in ICON_COLORS else ICON_COLORS[0]
    emoji = int(icon_emoji_id or 0)
    date = now()
    action = {"_": "topicCreate", "title": title, "icon_color": color, "icon_emoji_id": emoji or None}

    async def body(conn, msg_id, pts):
        locked = await load_channel(conn, channel_id, lock=True)
        require_forum(locked)
        await conn.execute(
            "INSERT INTO channel_forum_topics (channel_id, id, title, icon_color, icon_emoji_id, creator_user_id,"
            " date, closed, hidden, pinned_order, top_message_id, top_message_date, deleted)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s, false, false, 0, %s, %s, false)",
            (channel_id, msg_id, title, color, emoji, actor_id, date, msg_id, date),
        )
        return await insert_service_message(
            conn, locked, msg_id, pts, actor_id, action, date, random_id=random_id or None
        )

    try:
        event = await with_pts(channel_id, 1, body, message_ids=1)
    except psycopg.errors.UniqueViolation:
        earlier = await _created_by_random_id(channel_id, actor_id, random_id) if random_id else None
        if earlier is None:
            raise
        # A concurrent retry created it first (this attempt's pts became a noop).
        return ChannelChange(
            channel=channel, events=[earlier], user_ids={actor_id}, member=member, duplicate=True
        )
    await _publish(event, actor_id)
    event.random_id = random_id or None
    return ChannelChange(channel=channel, events=[event], user_ids={actor_id}, member=member)


async def do_edit_topic(
    actor_id: int,
    channel_id: int,
    topic_id: int,
    *,
    title: str | None = None,
    icon_emoji_id: int | None = None,
    closed: bool | None = None,
    hidden: bool | None = None,
) -> ChannelChange | None:
    """messages.editForumTopic: title, icon and closed by the topic's creator or an admin
    with manage_topics, hidden by such an admin only. A change writes a topicEdit
    service message into the topic; nothing to change: TOPIC_NOT_MODIFIED. The
    virtual General topic is not editable here (TOPIC_ID_INVALID)."""
    channel, member = await load_for_actor(channel_id, actor_id)
    require_forum(channel)
    if not GENERAL_TOPIC_ID < topic_id <= limits.MAX_MESSAGE_ID:
        raise TopicIdInvalidError()
    manager = _may_manage(member, channel)
    if hidden is not None and not manager:
        raise ChatAdminRequiredError()
    if title is not None:
        title = _clean_title(title)
    date = now()

    async def body(conn, msg_id, pts):
        topic = await load_topic(conn, channel_id, topic_id, lock=True)
        if topic is None:
            raise TopicIdInvalidError()
        if topic["deleted"]:
            raise TopicDeletedError()
        if not manager and topic["creator_user_id"] != actor_id:
            raise ChatAdminRequiredError()
        changes, action = {}, {"_": "topicEdit"}
        if title is not None and title != topic["title"]:
            changes["title"] = action["title"] = title
        if icon_emoji_id is not None and int(icon_emoji_id) != topic["icon_emoji_id"]:
            changes["icon_emoji_id"] = action["icon_emoji_id"] = int(icon_emoji_id)
        if closed is not None and bool(closed) != topic["closed"]:
            changes["closed"] = action["closed"] = bool(closed)
        if hidden is not None and bool(hidden) != topic["hidden"]:
            changes["hidden"] = action["hidden"] = bool(hidden)
        if not changes:
            raise TopicNotModifiedError()
        sets = ", ".join(f"{k} = %({k})s" for k in changes)
        await conn.execute(
            f"UPDATE channel_forum_topics SET {sets}, top_message_id = %(m)s, top_message_date = %(d)s"
            " WHERE channel_id = %(c)s AND id = %(t)s",
            {**changes, "m": msg_id, "d": date, "c": channel_id, "t": topic_id},
        )
        locked = await load_channel(conn, channel_id, lock=True)
        return await insert_service_message(
            conn, locked, msg_id, pts, actor_id, action, date, topic_id=topic_id
        )

    event = await with_pts(channel_id, 1, body, message_ids=1)
    await _publish(event, actor_id)
    return ChannelChange(channel=channel, events=[event], user_ids={actor_id}, member=member)


async def _with_top_messages(conn, channel: dict, member: dict | None, topics: list[dict]) -> list[dict]:
    """Each topic's top message (visible to the viewer) and the viewer's unread count,
    counted over at most HISTORY_LIMIT messages per topic so a page stays bounded."""
    amin = member["available_min_id"] if member else 0
    read = member["read_inbox_max_id"] if member else 0
    me = member["user_id"] if member else 0
    ids = [t["top_message_id"] for t in topics if t["top_message_id"] > amin]
    cur = await conn.execute(
        f"SELECT {MESSAGE_COLUMNS} FROM channel_messages WHERE channel_id = %s AND id = ANY(%s) AND NOT deleted",
        (channel["id"], ids),
    )
    messages = {m["id"]: m for m in await cur.fetchall()}
    for t in topics:
        if t["id"] == GENERAL_TOPIC_ID:
            where, params = "reply_to_top_id = 0", []
        else:
            where, params = "reply_to_top_id = %s", [t["id"]]
        cur = await conn.execute(
            f"SELECT count(*) AS n FROM (SELECT 1 FROM channel_messages WHERE channel_id = %s AND {where}"
            " AND id > %s AND sender_user_id <> %s AND NOT deleted ORDER BY id DESC LIMIT %s) s",
            [channel["id"], *params, max(read, amin), me, limits.HISTORY_LIMIT],
        )
        t["unread_count"] = (await cur.fetchone())["n"]
        t["read_inbox_max_id"] = read
        t["read_outbox_max_id"] = member["read_outbox_max_id"] if member else 0
        if t["top_message_id"] not in messages:
            t["top_message_id"] = t["id"] if t["id"] in messages else 0
    return [
        messages[i] for i in sorted({t["top_message_id"] for t in topics} & messages.keys(), reverse=True)
    ]


async def get_topics(
    viewer_id: int,
    channel_id: int,
    *,
    q: str = "",
    offset_date: int = 0,
    offset_id: int = 0,
    offset_topic: int = 0,
    limit: int = 0,
) -> TopicPage:
    """messages.getForumTopics: pinned topics first (on the first page), then by last
    activity, seeking below the offsets. General leads the first page unless a query
    is given that it does not match."""
    if limit < 0:
        raise LimitInvalidError()
    limit = min(limit or limits.FORUM_TOPICS_LIMIT, limits.FORUM_TOPICS_LIMIT)
    q = (q or "").strip()[: limits.SEARCH_QUERY_MAX]
    async with db.connection() as conn:
        channel = await load_channel(conn, channel_id)
        member = await load_member(conn, channel_id, viewer_id) if channel else None
        require_visible(channel, member, allow_public_preview=True)
        require_forum(channel)
        first = not (offset_date or offset_id or offset_topic)
        where, params = ["channel_id = %s", "NOT deleted"], [channel_id]
        if q:
            where.append("title ILIKE %s")
            params.append("%" + q.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%")
        if not first:
            # Message ids grow with time, so the top message id alone orders activity;
            # a client that sends only a date seeks on the date.
            if offset_id:
                where.append("pinned_order = 0 AND top_message_id < %s")
                params.append(min(max(offset_id, 0), limits.MAX_MESSAGE_ID))
            elif offset_date:
                where.append("pinned_order = 0 AND top_message_date < %s")
                params.append(offset_date)
            else:
                where.append("pinned_order = 0 AND id < %s")
                params.append(min(max(offset_topic, 0), limits.MAX_MESSAGE_ID))
        order = "(pinned_order = 0), pinned_order, " if first else ""
        cur = await conn.execute(
            f"SELECT {TOPIC_COLUMNS} FROM channel_forum_topics WHERE {' AND '.join(where)}"
            f" ORDER BY {order}top_message_id DESC LIMIT %s",
            [*params, limit],
        )
        topics = list(await cur.fetchall())
        cur = await conn.execute(
            "SELECT count(*) AS n FROM channel_forum_topics WHERE channel_id = %s AND NOT deleted",
            (channel_id,),
        )
        count = (await cur.fetchone())["n"] + 1
        if first and (not q or q.lower() in GENERAL_TITLE.lower()):
            topics = [general_topic(channel), *topics][:limit]
        messages = await _with_top_messages(conn, channel, member, topics)
    return TopicPage(channel, member, topics, messages, count)


async def get_topics_by_id(viewer_id: int, channel_id: int, ids: list[int]) -> TopicPage:
    """messages.getForumTopicsByID: in request order; unknown ids are left out, deleted
    ones come back as deleted."""
    if not ids:
        raise TopicsEmptyError()
    if len(ids) > limits.FORUM_TOPICS_LIMIT:
        raise LimitInvalidError()
    async with db.connection() as conn:
        channel = await load_channel(conn, channel_id)
        member = await load_member(conn, channel_id, viewer_id) if channel else None
        require_visible(channel, member, allow_public_preview=True)
        require_forum(channel)
        cur = await conn.execute(
            f"SELECT {TOPIC_COLUMNS} FROM channel_forum_topics WHERE channel_id = %s AND id = ANY(%s)",
            (channel_id, [i for i in ids if 0 < i <= limits.MAX_MESSAGE_ID]),
        )
        found = {t["id"]: t for t in await cur.fetchall()}
        found[GENERAL_TOPIC_ID] = general_topic(channel)
        topics, seen = [], set()
        for i in ids:
            if i in found and i not in seen:
                seen.add(i)
                topics.append(found[i])
        live = [t for t in topics if not t["deleted"]]
        messages = await _with_top_messages(conn, channel, member, live)
    return TopicPage(channel, member, topics, messages, len(topics))


async def pinned_order(conn, channel_id: int) -> list[int]:
    cur = await conn.execute(
        "SELECT id FROM channel_forum_topics WHERE channel_id = %s AND pinned_order > 0 AND NOT deleted"
        " ORDER BY pinned_order LIMIT %s",
        (channel_id, limits.FORUM_PINNED_TOPICS_MAX),
    )
    return [r["id"] for r in await cur.fetchall()]


async def _write_order(conn, channel_id: int, order: list[int]) -> None:
    await conn.execute(
        "UPDATE channel_forum_topics SET pinned_order = 0 WHERE channel_id = %s AND pinned_order > 0"
        " AND NOT (id = ANY(%s))",
        (channel_id, order),
    )
    await conn.execute(
        "UPDATE channel_forum_topics t SET pinned_order = o.n FROM unnest(%s::int[]) WITH ORDINALITY AS o(id, n)"
        " WHERE t.channel_id = %s AND t.id = o.id",
        (order, channel_id),
    )


async def _publish_order(channel_id: int, order: list[int]) -> None:
    await notify.publish("channel.topics_pinned", {"channel_id": channel_id, "order": order})


async def do_pin_topic(actor_id: int, channel_id: int, topic_id: int, pinned: bool) -> list[int]:
    """messages.updatePinnedForumTopic: manage_topics; at most FORUM_PINNED_TOPICS_MAX
    pinned (PINNED_TOO_MUCH). A new pin goes first. Returns the new pinned order."""
    channel, member = await load_for_actor(channel_id, actor_id)
    require_forum(channel)
    if not _may_manage(member, channel):
        raise ChatAdminRequiredError()
    if not GENERAL_TOPIC_ID < topic_id <= limits.MAX_MESSAGE_ID:
        raise TopicIdInvalidError()
    async with db.connection() as conn, conn.transaction():
        await load_channel(conn, channel_id, lock=True)  # one pin change at a time per forum
        topic = await load_topic(conn, channel_id, topic_id)
        if topic is None:
            raise TopicIdInvalidError()
        if topic["deleted"]:
            raise TopicDeletedError()
        order = await pinned_order(conn, channel_id)
        if pinned == (topic_id in order):
            return order  # nothing changes; Telegram answers the same updates
        if pinned:
            if len(order) >= limits.FORUM_PINNED_TOPICS_MAX:
                raise PinnedTooMuchError()
            order = [topic_id, *order]
        else:
            order = [i for i in order if i != topic_id]
        await _write_order(conn, channel_id, order)
    await _publish_order(channel_id, order)
    return order


async def do_reorder_pinned_topics(
    actor_id: int, channel_id: int, order: list[int], force: bool
) -> list[int]:
    """messages.reorderPinnedForumTopics: manage_topics. The order names pinned topics;
    with ``force`` it is the whole pinned set (unnamed ones are unpinned, named ones
    pinned), without it unnamed pinned topics keep their place after the named ones."""
    channel, member = await load_for_actor(channel_id, actor_id)
    require_forum(channel)
    if not _may_manage(member, channel):
        raise ChatAdminRequiredError()
    if len(order) > limits.FORUM_PINNED_TOPICS_MAX:
        raise PinnedTooMuchError()
    wanted = list(dict.fromkeys(i for i in order if GENERAL_TOPIC_ID < i <= limits.MAX_MESSAGE_ID))
    async with db.connection() as conn, conn.transaction():
        await load_channel(conn, channel_id, lock=True)
        cur = await conn.execute(
            "SELECT id FROM channel_forum_topics WHERE channel_id = %s AND id = ANY(%s) AND NOT deleted",
            (channel_id, wanted),
        )
        live = {r["id"] for r in await cur.fetchall()}
        current = await pinned_order(conn, channel_id)
        if force:
            new = [i for i in wanted if i in live]
        else:
            new = [i for i in wanted if i in live and i in current]
            new += [i for i in current if i not in new]
        if len(new) > limits.FORUM_PINNED_TOPICS_MAX:
            raise PinnedTooMuchError()
        await _write_order(conn, channel_id, new)
    await _publish_order(channel_id, new)
    return new
