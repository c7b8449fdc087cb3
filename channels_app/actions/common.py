"""Shared pieces of the channel domain actions: clock, row loads, pts-guarded writes."""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import psycopg

from edge_app import metrics
from media_app.value_media import media_user_ids
from message_core import db
from message_core.clock import now
from message_core.text import mention_user_ids

from .. import counters, notify
from ..domain import ChannelEvent
from ..errors import ChannelInvalidError, ChannelPrivateError

CHANNEL_COLUMNS = (
    "id, access_hash, title, about, username, creator_user_id, broadcast, megagroup, forum, signatures,"
    " pre_history_hidden, participants_hidden, noforwards, slowmode_seconds, ttl_period, date,"
    " participants_count, admins_count, kicked_count, banned_count, default_banned_rights,"
    " top_message_id, top_message_date, pinned_message_id, pts, deleted, available_reactions, reactions_limit, photo,"
    " color, color_background_emoji_id, profile_color, profile_background_emoji_id, emoji_status_document_id,"
    " emoji_status_until, autotranslation, restricted_sponsored, send_paid_messages_stars, broadcast_messages_allowed,"
    " linked_chat_id, forum_tabs, bot_members, call_id, call_access_hash, call_not_empty"
)
MEMBER_COLUMNS = (
    "channel_id, user_id, inviter_user_id, role, status, joined_at, left_at, admin_rights, promoted_by,"
    " banned_rights, banned_until, kicked_by, rank, available_min_id, available_min_pts,"
    " read_inbox_max_id, read_inbox_date, read_outbox_max_id, slowmode_last_send_date"
)
MESSAGE_COLUMNS = (
    "channel_id, id, random_id, sender_user_id, date, edit_date, post, silent, noforwards, post_author,"
    " message, entities, reply_to_msg_id, reply_to_top_id, reply_to_user_id, fwd_from, action, pts, deleted,"
    " views_count, forwards_count, reaction_counts, media, grouped_id, forum_topic, send_as_channel_id,"
    " discussion_channel_id, discussion_message_id, replies_count, replies_max_id, replies_pts, recent_repliers,"
    " reply_markup, via_bot_id"
)


async def load_visible_message(
    conn, channel_id: int, msg_id: int, available_min_id: int, columns: str = MESSAGE_COLUMNS
) -> dict | None:
    """The live message ``msg_id`` if it lies in the member's visible history
    (``id > available_min_id``), else None."""
    cur = await conn.execute(
        f"SELECT {columns} FROM channel_messages WHERE channel_id = %s AND id = %s AND NOT deleted AND id > %s",
        (channel_id, msg_id, available_min_id),
    )
    return await cur.fetchone()


async def mark_pinned(conn, channel_id: int, rows: list[dict]) -> None:
    """Set ``pinned`` on the rows that are pinned in the channel (the pin list lives in
    channel_pinned_messages, not in the message rows)."""
    ids = [r["id"] for r in rows if r and not r.get("empty")]
    if not ids:
        return
    cur = await conn.execute(
        "SELECT message_id FROM channel_pinned_messages WHERE channel_id = %s AND message_id = ANY(%s)",
        (channel_id, ids),
    )
    pinned = {r["message_id"] for r in await cur.fetchall()}
    for r in rows:
        if r and not r.get("empty"):
            r["pinned"] = r["id"] in pinned


log = logging.getLogger("telesrv.channels")

# Times an operation takes a fresh pts range after a reader (or the repair job) gave its
# range up for lost and filled it with a noop (see actions.pts_repair).
PTS_ATTEMPTS = 3


def jsonb(value: Any) -> str | None:
    return None if value is None else json.dumps(value, separators=(",", ":"))


async def load_channel(conn, channel_id: int, *, lock: bool = False) -> dict | None:
    sql = f"SELECT {CHANNEL_COLUMNS} FROM channels WHERE id = %s" + (" FOR UPDATE" if lock else "")
    cur = await conn.execute(sql, (channel_id,))
    return await cur.fetchone()


async def load_member(conn, channel_id: int, user_id: int, *, lock: bool = False) -> dict | None:
    sql = f"SELECT {MEMBER_COLUMNS} FROM channel_members WHERE channel_id = %s AND user_id = %s" + (
        " FOR UPDATE" if lock else ""
    )
    cur = await conn.execute(sql, (channel_id, user_id))
    return await cur.fetchone()


def _qualified(alias: str, columns: str) -> str:
    return ", ".join(f"{alias}.{c.strip()}" for c in columns.split(","))


# The two rows share no column name; the member's key probe is explicit, so a generic
# plan prunes channel_members to one partition. Parameters: %(c)s channel, %(u)s user.
CHANNEL_WITH_MEMBER = (
    f"SELECT {_qualified('c', CHANNEL_COLUMNS)}, {_qualified('m', MEMBER_COLUMNS)} FROM channels c"
    f" LEFT JOIN LATERAL (SELECT {MEMBER_COLUMNS} FROM channel_members"
    "   WHERE channel_id = %(c)s AND user_id = %(u)s) m ON true"
    " WHERE c.id = %(c)s"
)
_MEMBER_KEYS = tuple(c.strip() for c in MEMBER_COLUMNS.split(","))


def channel_and_member(row: dict | None) -> tuple[dict | None, dict | None]:
    """A ``CHANNEL_WITH_MEMBER`` row as (channel or None, the member row or None)."""
    if row is None:
        return None, None
    member = {k: row.pop(k) for k in _MEMBER_KEYS}
    return row, (member if member["user_id"] is not None else None)


async def load_channel_with_member(conn, channel_id: int, user_id: int) -> tuple[dict | None, dict | None]:
    """``load_channel`` and ``load_member`` in one round trip: (channel or None, the
    user's member row or None)."""
    cur = await conn.execute(CHANNEL_WITH_MEMBER, {"c": channel_id, "u": user_id})
    return channel_and_member(await cur.fetchone())


async def load_channel_and_member(channel_id: int, user_id: int) -> tuple[dict, dict | None]:
    """The channel (raising CHANNEL_INVALID when absent) and the viewer's member row."""
    async with db.connection() as conn:
        channel, member = await load_channel_with_member(conn, channel_id, user_id)
    if channel is None:
        raise ChannelInvalidError()
    return channel, member


def is_active(member: dict | None) -> bool:
    return member is not None and member["status"] == "active"


def may_address(
    channel: dict, member: dict | None, access_hash: int | None, *, preview: bool = False
) -> bool:
    """Whether an InputChannel carrying ``access_hash`` reaches ``channel`` for this
    member: a non-zero hash must match; hash 0 (min / internal paths) needs membership,
    or with ``preview`` a public username."""
    if access_hash:
        return access_hash == channel["access_hash"]
    return is_active(member) or (preview and bool(channel["username"]))


def message_snapshot(row: dict) -> dict:
    """The durable domain form of a message (what events store and tl_convert renders)."""
    snap = {k: row[k] for k in MESSAGE_COLUMNS.replace(" ", "").split(",") if k in row}
    snap.pop("random_id", None)
    return snap


async def write_noop(channel_id: int, pts: int, pts_count: int) -> None:
    """Fill an allocated pts range whose transaction failed, so clients see no gap.
    A range whose event did commit keeps it (same key: nothing is written)."""
    async with db.connection() as conn, conn.transaction():
        await conn.execute(
            "INSERT INTO channel_update_events (channel_id, pts, pts_count, type, date, message_id,"
            " message_ids, sender_user_id, user_ids, payload)"
            " VALUES (%s, %s, %s, 'noop', %s, 0, '[]', 0, '[]', NULL) ON CONFLICT DO NOTHING",
            (channel_id, pts, pts_count, now()),
        )
        await conn.execute("UPDATE channels SET pts = GREATEST(pts, %s) WHERE id = %s", (pts, channel_id))
    # Live pushes of later pts wait for this range (channels_app.push orders them).
    await notify.publish("channel.noop", {"channel_id": channel_id, "pts": pts, "pts_count": pts_count})
    metrics.PTS_NOOP_FILLS.inc(pts_count)


async def with_pts(
    channel_id: int,
    pts_count: int,
    body: Callable[[Any, int | None, int], Awaitable[Any]],
    *,
    message_ids: int = 0,
    single_statement: bool = False,
) -> Any:
    """Allocate ``pts_count`` pts (and ``message_ids`` message ids), then run ``body``
    in one transaction; if it fails, the pts range becomes a ``noop`` event.

    ``body(conn, last_message_id, last_pts)``. ``single_statement``: the body runs one
    statement, atomic on its own in autocommit, which saves BEGIN/COMMIT round trips.

    The allocation is journalled in Redis until its event or noop is committed; if
    neither can be (the process dies, PostgreSQL is down), the repair job writes the
    noop later. If a reader filled the range first (it waited too long for it), the body
    runs again on a fresh range.
    """
    for attempt in range(PTS_ATTEMPTS):
        last_pts = None
        try:
            # The connection first: a range allocated while the request still queued for
            # the pool would hold every later event of the channel back (push_order).
            async with db.connection() as conn:
                if message_ids:
                    last_id, last_pts = await counters.allocate(
                        [
                            (counters.msg_id_key(channel_id), message_ids),
                            (counters.pts_key(channel_id), pts_count),
                        ],
                        journal_channel=channel_id,
                    )
                else:
                    last_id, last_pts = None, await counters.next_pts(channel_id, pts_count)
                if single_statement:
                    result = await body(conn, last_id, last_pts)
                else:
                    async with conn.transaction():
                        result = await body(conn, last_id, last_pts)
        except psycopg.errors.UniqueViolation as exc:
            if not _pts_taken(exc) or attempt == PTS_ATTEMPTS - 1:
                await _give_up(channel_id, last_pts, pts_count)
                raise
            counters.settle_soon(channel_id, last_pts, pts_count)  # the noop is there
            log.info("channel %d: pts %d was filled before its commit; retrying", channel_id, last_pts)
            continue
        except BaseException:
            if last_pts is not None:
                await _give_up(channel_id, last_pts, pts_count)
            raise
        counters.settle_soon(channel_id, last_pts, pts_count)
        return result
    raise AssertionError("unreachable")


def _pts_taken(exc: psycopg.errors.UniqueViolation) -> bool:
    """The violated key is the pts log's: someone else's noop holds this pts."""
    return (exc.diag.table_name or "").startswith("channel_update_events")


async def _give_up(channel_id: int, last_pts: int, pts_count: int) -> None:
    """The operation failed: its pts range becomes a noop now, or (database away) stays
    journalled for the repair job."""
    try:
        await write_noop(channel_id, last_pts, pts_count)
    except Exception as exc:
        log.warning("channel %d: noop for pts %d left to the repair job: %s", channel_id, last_pts, exc)
        return
    counters.settle_soon(channel_id, last_pts, pts_count)


async def insert_event(
    conn,
    *,
    channel_id: int,
    pts: int,
    pts_count: int,
    type: str,
    date: int,
    message_id: int = 0,
    message_ids: list[int] | None = None,
    sender_user_id: int = 0,
    user_ids: list[int] | None = None,
    payload: dict | None = None,
) -> None:
    await conn.execute(
        "INSERT INTO channel_update_events (channel_id, pts, pts_count, type, date, message_id, message_ids,"
        " sender_user_id, user_ids, payload) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
        (
            channel_id,
            pts,
            pts_count,
            type,
            date,
            message_id,
            jsonb(message_ids or []),
            sender_user_id,
            jsonb(user_ids or []),
            jsonb(payload),
        ),
    )


def require_visible(channel: dict, member: dict | None, *, allow_public_preview: bool = False) -> None:
    """CHANNEL_PRIVATE unless the viewer may read the channel."""
    if channel["deleted"]:
        raise ChannelPrivateError()
    if is_active(member):
        from ..rights import banned_bit, effective_banned

        if member["role"] == "member" and effective_banned(member, {"default_banned_rights": 0}, now()) & (
            banned_bit("view_messages")
        ):
            raise ChannelPrivateError()
        return
    if member is not None and member["status"] in ("kicked", "banned"):
        raise ChannelPrivateError()
    if allow_public_preview and channel["username"]:
        return
    raise ChannelPrivateError()


def replies_refs(m: dict, user_ids: set[int], channel_ids: set[int]) -> None:
    """The peers a post's messageReplies names: the discussion group, recent repliers."""
    if m.get("discussion_channel_id"):
        channel_ids.add(m["discussion_channel_id"])
    for peer in m.get("recent_repliers") or ():
        (user_ids if peer > 0 else channel_ids).add(abs(peer))


def message_refs(messages, user_ids: set[int], channel_ids: set[int]) -> None:
    """Collect the peers a client needs to render these messages (sender, forward and
    action headers) so every response, difference and push can carry them."""
    for m in messages:
        if not m:
            continue
        if m.get("send_as_channel_id"):
            # Sent as a channel: the user behind it is not named (anonymous admins).
            channel_ids.add(m["send_as_channel_id"])
        elif m.get("sender_user_id") and not m.get("post"):
            # A broadcast post names no sender (from_id is empty): the admin who posted
            # is neither needed by nor shown to subscribers.
            user_ids.add(m["sender_user_id"])
        channel_ids.add(m["channel_id"])
        if m.get("via_bot_id"):
            user_ids.add(m["via_bot_id"])
        user_ids.update(media_user_ids(m.get("media")))
        replies_refs(m, user_ids, channel_ids)
        for r in (m.get("reactions") or {}).get("recent") or ():
            user_ids.add(r["user_id"])
        fwd = m.get("fwd_from")
        if fwd:
            if fwd.get("from_user_id"):
                user_ids.add(fwd["from_user_id"])
            if fwd.get("from_channel_id"):
                channel_ids.add(fwd["from_channel_id"])
            if fwd.get("saved_from_channel_id"):
                channel_ids.add(fwd["saved_from_channel_id"])
        action = m.get("action")
        if action:
            user_ids.update(action.get("users") or [])
            if action.get("user_id"):
                user_ids.add(action["user_id"])
            if action.get("inviter_id"):
                user_ids.add(action["inviter_id"])
        # messageEntityMentionName names its user
        user_ids.update(mention_user_ids(m.get("entities")))


PARTICIPANT_USER_FIELDS = ("user_id", "inviter_user_id", "promoted_by", "kicked_by")


def participant_refs(rows, user_ids: set[int]) -> set[int]:
    """Every user a participant (row or snapshot) names: itself, who invited, promoted
    or banned it, so an answer carrying it carries them too."""
    for r in rows:
        if r:
            user_ids.update(int(r[k]) for k in PARTICIPANT_USER_FIELDS if r.get(k))
    return user_ids


async def insert_service_message(
    conn,
    channel: dict,
    msg_id: int,
    pts: int,
    sender: int,
    action: dict,
    date: int,
    *,
    topic_id: int = 0,
    random_id: int | None = None,
):
    """Service message + its new_message event + the channel's top/pts, in one statement each.
    ``topic_id``: the forum topic it belongs to (a topic edit), replying to the topic root.
    ``random_id``: the client's, for a service message a client asked for (a new topic),
    so a retry finds it (the sender's random ids are unique per channel)."""
    row = {
        "channel_id": channel["id"],
        "id": msg_id,
        "sender_user_id": sender,
        "date": date,
        "edit_date": 0,
        "post": bool(channel["broadcast"]),
        "silent": False,
        "noforwards": False,
        "post_author": "",
        "message": "",
        "entities": [],
        "reply_to_msg_id": topic_id,
        "reply_to_top_id": topic_id,
        "forum_topic": bool(topic_id),
        "fwd_from": None,
        "action": action,
        "pts": pts,
        "deleted": False,
    }
    await conn.execute(
        "INSERT INTO channel_messages (channel_id, id, random_id, sender_user_id, date, edit_date, post, silent,"
        " noforwards, post_author, message, entities, reply_to_msg_id, reply_to_top_id, forum_topic, fwd_from,"
        " action, pts, deleted)"
        " VALUES (%s, %s, %s, %s, %s, 0, %s, false, false, '', '', '[]', %s, %s, %s, NULL, %s, %s, false)",
        (
            channel["id"],
            msg_id,
            random_id or None,
            sender,
            date,
            row["post"],
            topic_id,
            topic_id,
            bool(topic_id),
            jsonb(action),
            pts,
        ),
    )
    await insert_event(
        conn,
        channel_id=channel["id"],
        pts=pts,
        pts_count=1,
        type="new_message",
        date=date,
        message_id=msg_id,
        sender_user_id=sender,
        user_ids=sorted(set(action.get("users") or []) | {sender}),
        payload=row,
    )
    await conn.execute(
        "UPDATE channels SET top_message_id = GREATEST(top_message_id, %(m)s),"
        " top_message_date = GREATEST(top_message_date, %(d)s), pts = GREATEST(pts, %(p)s) WHERE id = %(c)s",
        {"m": msg_id, "d": date, "p": pts, "c": channel["id"]},
    )
    return ChannelEvent(channel["id"], pts, 1, "new_message", date, row)
