"""Reactions to channel messages (``channel_message_reactions``) and the author's
unread reactions.

A user's current reactions to a message are rows keyed by (channel, message, user,
reaction); the message row keeps the totals (``reaction_counts``) in the same
transaction, so rendering a page reads totals with the messages and needs one bounded
query for the viewer's own choice and the few newest reactors
(:func:`attach`). A reaction by someone other than the message's author is unread
for the author until they read it (getUnreadReactions / readReactions /
readMessageContents); ``channel_dialogs.unread_reactions_count`` is recounted from
those rows whenever they change.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from message_core import db, limits
from message_core import reactions as rx
from message_core.clock import now

from .. import notify
from ..errors import (
    ChannelPrivateError,
    LimitInvalidError,
    MessageIdInvalidError,
    OffsetInvalidError,
)
from .common import is_active, jsonb, load_channel, load_member, load_visible_message, require_visible
from .unread_pages import unread_window

READ_BATCH = 1000  # unread reactions cleared per readReactions call
PUSH_CLEARED_MAX = 100  # cleared messages re-sent to the author's sessions


@dataclass(slots=True)
class ReactionChange:
    channel: dict
    member: dict | None
    msg_id: int
    summary: dict | None  # the actor's view of the message's reactions
    added: list[str] = field(default_factory=list)
    user_ids: set[int] = field(default_factory=set)


# --- rendering -------------------------------------------------------------------------

_ATTACH = """
SELECT m.id, m.views_count, m.forwards_count, m.reaction_counts,
  CASE WHEN m.reaction_counts IS NULL THEN NULL ELSE
    (SELECT json_agg(r.reaction_value ORDER BY r.chosen_order) FROM channel_message_reactions r
     WHERE r.channel_id = %(c)s AND r.message_id = m.id AND r.user_id = %(v)s) END AS mine,
  CASE WHEN m.reaction_counts IS NULL OR NOT %(recent)s THEN NULL ELSE
    (SELECT json_agg(x) FROM (SELECT r.user_id, r.reaction_value AS reaction, r.date, r.big,
       r.unread AND r.author_user_id = %(v)s AS unread
     FROM channel_message_reactions r WHERE r.channel_id = %(c)s AND r.message_id = m.id
     ORDER BY r.date DESC, r.user_id DESC LIMIT %(n)s) x) END AS recent
FROM channel_messages m WHERE m.channel_id = %(c)s AND m.id = ANY(%(ids)s)
"""


def shows_reactors(channel: dict) -> bool:
    """Who reacted is shown in groups; a broadcast channel shows only the totals."""
    return not channel["broadcast"]


async def attach(viewer_id: int, channel: dict, messages: list[dict], conn=None) -> None:
    """Give each live message of a page its current ``reactions`` summary (as the
    viewer sees it), ``views_count`` and ``forwards_count``: one query for the page,
    whatever its size (at most a page of ids)."""
    ids = [m["id"] for m in messages if m and not m.get("empty") and not m.get("action")]
    if not ids:
        return
    params = {
        "c": channel["id"],
        "v": viewer_id,
        "ids": ids,
        "recent": shows_reactors(channel),
        "n": rx.RECENT_SHOWN,
    }
    if conn is None:
        async with db.connection() as own:
            rows = await (await own.execute(_ATTACH, params)).fetchall()
    else:
        rows = await (await conn.execute(_ATTACH, params)).fetchall()
    found = {r["id"]: r for r in rows}
    for m in messages:
        r = found.get(m.get("id")) if m and not m.get("empty") else None
        if r is None:
            continue
        m["views_count"] = r["views_count"]
        m["forwards_count"] = r["forwards_count"]
        m["reactions"] = rx.summary(r["reaction_counts"], r["mine"], r["recent"])


async def attach_fresh(viewer_id: int, channel: dict, rows: list[dict], conn=None) -> None:
    """``attach`` for rows just read from channel_messages: their views and forwards
    are current, and a row without reactions renders the same with or without a
    summary, so only the rows with reactions are queried (on most pages, none)."""
    await attach(viewer_id, channel, [m for m in rows if m and m.get("reaction_counts")], conn)


def reactor_ids(messages: list[dict]) -> set[int]:
    return {r["user_id"] for m in messages if m for r in ((m.get("reactions") or {}).get("recent") or ())}


async def current(viewer_id: int, channel: dict, msg_id: int, conn=None) -> dict | None:
    m = {"id": msg_id, "channel_id": channel["id"]}
    await attach(viewer_id, channel, [m], conn)
    return m.get("reactions")


# --- sendReaction ------------------------------------------------------------------------


def _check_member(channel: dict, member: dict | None) -> None:
    if channel["deleted"] or not is_active(member):
        raise ChannelPrivateError()
    require_visible(channel, member)


_RECOUNT = """
UPDATE channel_dialogs SET unread_reactions_count = (
  SELECT count(DISTINCT r.message_id) FROM channel_message_reactions r
  JOIN channel_messages m ON m.channel_id = r.channel_id AND m.id = r.message_id AND NOT m.deleted
  WHERE r.channel_id = %(c)s AND r.author_user_id = %(a)s AND r.unread)
WHERE user_id = %(a)s AND channel_id = %(c)s
"""


# The channel, the member and the message (locked: its totals change with the rows)
# with the user's current reactions to it, in one round trip.
_LOAD = """
SELECT row_to_json(c) AS channel,
  (SELECT row_to_json(m) FROM channel_members m WHERE m.channel_id = %(c)s AND m.user_id = %(u)s) AS member,
  (SELECT row_to_json(x) FROM (SELECT id, sender_user_id, action, reaction_counts FROM channel_messages
     WHERE channel_id = %(c)s AND id = %(m)s AND NOT deleted FOR UPDATE) x) AS msg,
  (SELECT json_agg(row_to_json(r)) FROM (SELECT reaction_value, date, big, unread FROM channel_message_reactions
     WHERE channel_id = %(c)s AND message_id = %(m)s AND user_id = %(u)s) r) AS old
FROM channels c WHERE c.id = %(c)s
"""

# Replace the user's rows, store the new totals and (another user's reaction) recount
# the author's badge, as one statement.
_WRITE = """
WITH del AS (
  DELETE FROM channel_message_reactions WHERE channel_id = %(c)s AND message_id = %(m)s AND user_id = %(u)s
), ins AS (
  INSERT INTO channel_message_reactions (channel_id, message_id, user_id, reaction_type, reaction_value,
    chosen_order, big, unread, author_user_id, date)
  SELECT %(c)s, %(m)s, %(u)s, 'emoji', r.v, r.o, r.b, r.n, %(a)s, r.d
  FROM unnest(%(v)s::text[], %(o)s::int[], %(b)s::bool[], %(n)s::bool[], %(d)s::int[]) AS r(v, o, b, n, d)
  ON CONFLICT DO NOTHING RETURNING message_id, unread
), msg AS (
  UPDATE channel_messages SET reaction_counts = %(counts)s::jsonb WHERE channel_id = %(c)s AND id = %(m)s
)
UPDATE channel_dialogs SET unread_reactions_count = (
  SELECT count(DISTINCT message_id) FROM (
    SELECT r.message_id FROM channel_message_reactions r
    JOIN channel_messages m ON m.channel_id = r.channel_id AND m.id = r.message_id AND NOT m.deleted
    WHERE r.channel_id = %(c)s AND r.author_user_id = %(a)s AND r.unread
      AND NOT (r.message_id = %(m)s AND r.user_id = %(u)s)
    UNION ALL SELECT message_id FROM ins WHERE unread) s)
WHERE %(recount)s AND user_id = %(a)s AND channel_id = %(c)s
"""


async def do_send_reaction(
    user_id: int, channel_id: int, msg_id: int, reactions: list[str], *, big: bool = False
) -> ReactionChange:
    """messages.sendReaction in a channel: the user's reactions to the message become
    ``reactions`` (empty: none). Returns the actor's view; publishes the change."""
    if not 0 < msg_id <= limits.MAX_MESSAGE_ID:
        raise MessageIdInvalidError()
    date = now()
    async with db.connection() as conn:
        async with conn.transaction():
            cur = await conn.execute(_LOAD, {"c": channel_id, "u": user_id, "m": msg_id})
            row = await cur.fetchone()
            if row is None:
                raise ChannelPrivateError()
            channel, member, msg = row["channel"], row["member"], row["msg"]
            _check_member(channel, member)
            chosen = rx.check_choice(reactions, channel.get("available_reactions"))
            if msg is None or msg["id"] <= member["available_min_id"] or msg["action"] is not None:
                raise MessageIdInvalidError()
            old = {r["reaction_value"]: r for r in row["old"] or ()}
            removed = [r for r in old if r not in chosen]
            added = [r for r in chosen if r not in old]
            counts = rx.apply_counts(msg["reaction_counts"], removed, [])
            if added:
                rx.check_uniq(counts or {}, chosen, channel.get("reactions_limit") or 0)
            author = msg["sender_user_id"]
            if removed or added:
                keep = [old.get(r) for r in chosen]
                await conn.execute(
                    _WRITE,
                    {
                        "c": channel_id, "m": msg_id, "u": user_id, "a": author, "v": chosen,
                        "o": list(range(len(chosen))),
                        "b": [k["big"] if k else big for k in keep],
                        "n": [k["unread"] if k else author != user_id for k in keep],
                        "d": [k["date"] if k else date for k in keep],
                        "counts": jsonb(rx.apply_counts(counts, [], added)),
                        "recount": author != user_id,
                    },
                )  # fmt: skip
        summary = await current(user_id, channel, msg_id, conn)
    if removed or added:
        # old / new / date / bot_members: for the bots' message_reaction updates.
        await notify.publish(
            "channel.reactions",
            {"channel_id": channel_id, "msg_id": msg_id, "actor": user_id, "author": author,
             "old": list(old), "new": chosen, "date": date, "bot_members": channel.get("bot_members", 1)},
        )  # fmt: skip
    users = {user_id} | {r["user_id"] for r in (summary or {}).get("recent", ())}
    return ReactionChange(channel, member, msg_id, summary, added=added, user_ids=users)


# --- reading the reactions -----------------------------------------------------------------


def _encode_offset(row: dict) -> str:
    return f"{row['date']}:{row['user_id']}:{row['reaction']}"


def _decode_offset(offset: str) -> tuple[int, int, str]:
    try:
        date, user, reaction = offset.split(":", 2)
        return int(date), int(user), reaction
    except ValueError:
        raise OffsetInvalidError() from None


async def reactions_list(
    viewer_id: int, channel_id: int, msg_id: int, *, reaction: str | None, offset: str | None, limit: int
) -> tuple[int, list[dict], str | None, dict, dict | None]:
    """messages.getMessageReactionsList: who reacted, newest first, a keyset page
    ((date, user, reaction) below the offset's), optionally one reaction only.
    Returns (count, rows, next offset, channel, member)."""
    if limit < 0:
        raise LimitInvalidError()
    limit = min(limit or rx.LIST_PAGE_MAX, rx.LIST_PAGE_MAX)
    if offset is not None and len(offset) > 64:
        raise OffsetInvalidError()
    async with db.connection() as conn:
        channel = await load_channel(conn, channel_id)
        if channel is None:
            raise ChannelPrivateError()
        member = await load_member(conn, channel_id, viewer_id)
        require_visible(channel, member, allow_public_preview=True)
        floor = member["available_min_id"] if is_active(member) else 0
        msg = await load_visible_message(conn, channel_id, msg_id, floor, "reaction_counts")
        if msg is None:
            raise MessageIdInvalidError()
        counts = msg["reaction_counts"] or {}
        where, params = ["channel_id = %(c)s", "message_id = %(m)s"], {"c": channel_id, "m": msg_id}
        if reaction is not None:
            reaction = rx.canonical(reaction)
            where += ["reaction_type = 'emoji'", "reaction_value = %(r)s"]
            params["r"] = reaction
        if offset:
            params["od"], params["ou"], params["or"] = _decode_offset(offset)
            where.append("(date, user_id, reaction_value) < (%(od)s, %(ou)s, %(or)s)")
        cur = await conn.execute(
            "SELECT user_id, reaction_value AS reaction, date, big, unread AND author_user_id = %(v)s AS unread"
            f" FROM channel_message_reactions WHERE {' AND '.join(where)}"
            " ORDER BY date DESC, user_id DESC, reaction_value DESC LIMIT %(n)s",
            {**params, "v": viewer_id, "n": limit + 1},
        )
        rows = await cur.fetchall()
    more = len(rows) > limit
    rows = rows[:limit]
    total = counts.get(reaction, 0) if reaction is not None else sum(counts.values())
    return total, rows, _encode_offset(rows[-1]) if more and rows else None, channel, member


# --- the author's unread reactions -------------------------------------------------------------


async def recount_after_delete(conn, channel_id: int, ids: list[int]) -> None:
    """Deleted messages take their unread reactions off their authors' badges (in the
    delete's transaction; only authors with unread reactions on ``ids`` are touched)."""
    await conn.execute(
        "UPDATE channel_dialogs d SET unread_reactions_count = (SELECT count(DISTINCT r.message_id)"
        " FROM channel_message_reactions r JOIN channel_messages m ON m.channel_id = r.channel_id"
        "  AND m.id = r.message_id AND NOT m.deleted"
        " WHERE r.channel_id = %(c)s AND r.author_user_id = d.user_id AND r.unread)"
        " WHERE d.channel_id = %(c)s AND d.user_id IN (SELECT DISTINCT author_user_id"
        "  FROM channel_message_reactions WHERE channel_id = %(c)s AND message_id = ANY(%(ids)s) AND unread)",
        {"c": channel_id, "ids": ids},
    )


_UNREAD = (
    " FROM channel_message_reactions r JOIN channel_messages m ON m.channel_id = r.channel_id"
    " AND m.id = r.message_id AND NOT m.deleted"
)


async def unread_reaction_ids(
    user_id: int, channel_id: int, *, offset_id: int = 0, add_offset: int = 0, limit: int = 100,
    max_id: int = 0, min_id: int = 0,
) -> tuple[list[int], int]:  # fmt: skip
    """messages.getUnreadReactions: the author's messages with unread reactions,
    newest first, and their total; paged as ``unread_pages`` says."""
    w = unread_window(
        "r.message_id", ["r.channel_id = %(c)s", "r.author_user_id = %(u)s", "r.unread"],
        {"u": user_id, "c": channel_id}, offset_id=offset_id, add_offset=add_offset, limit=limit,
        max_id=max_id, min_id=min_id,
    )  # fmt: skip
    async with db.connection() as conn:
        cur = await conn.execute(f"SELECT DISTINCT r.message_id{_UNREAD} WHERE {w.sql()}", w.bind())
        ids = [r["message_id"] for r in await cur.fetchall()]
        cur = await conn.execute(
            "SELECT unread_reactions_count FROM channel_dialogs WHERE user_id = %s AND channel_id = %s",
            (user_id, channel_id),
        )
        row = await cur.fetchone()
    return w.cut(ids), (row or {}).get("unread_reactions_count", 0)


async def _clear(user_id: int, channel_id: int, ids: list[int] | None) -> tuple[dict, list[int], bool]:
    """Mark the author's unread reactions read (on ``ids``, or the oldest batch),
    recount the dialog; (channel, cleared message ids, whether more remain)."""
    async with db.connection() as conn, conn.transaction():
        channel = await load_channel(conn, channel_id)
        if channel is None:
            raise ChannelPrivateError()
        member = await load_member(conn, channel_id, user_id)
        _check_member(channel, member)
        if ids is None:
            cur = await conn.execute(
                "UPDATE channel_message_reactions SET unread = false WHERE (channel_id, message_id, user_id,"
                " reaction_value) IN (SELECT channel_id, message_id, user_id, reaction_value"
                "  FROM channel_message_reactions WHERE channel_id = %s AND author_user_id = %s AND unread"
                "  LIMIT %s) RETURNING message_id",
                (channel_id, user_id, READ_BATCH),
            )
        else:
            cur = await conn.execute(
                "UPDATE channel_message_reactions SET unread = false WHERE channel_id = %s"
                " AND author_user_id = %s AND unread AND message_id = ANY(%s) RETURNING message_id",
                (channel_id, user_id, ids),
            )
        touched = [r["message_id"] for r in await cur.fetchall()]
        if touched:
            await conn.execute(_RECOUNT, {"c": channel_id, "a": user_id})
    more = ids is None and len(touched) >= READ_BATCH
    cleared = sorted(set(touched), reverse=True)
    if cleared:
        await notify.publish(
            "channel.reactions_read",
            {"user_id": user_id, "channel_id": channel_id, "broadcast": bool(channel["broadcast"]),
             "ids": cleared[:PUSH_CLEARED_MAX]},
        )  # fmt: skip
    return channel, cleared, more


async def do_read_reactions(user_id: int, channel_id: int) -> tuple[dict, list[int], bool]:
    """messages.readReactions: one batch of the author's unread reactions in the channel."""
    return await _clear(user_id, channel_id, None)


async def do_read_contents(user_id: int, channel_id: int, ids: list[int]) -> tuple[dict, list[int]]:
    """channels.readMessageContents: the contents of these messages were seen, so their
    reactions are no longer unread for their author."""
    if len(ids) > limits.GET_IDS_MAX:
        raise LimitInvalidError()
    valid = [i for i in ids if 0 < i <= limits.MAX_MESSAGE_ID]
    channel, cleared, _ = await _clear(user_id, channel_id, valid)
    return channel, cleared
