"""updates.getChannelDifference over the durable channel pts log."""

from __future__ import annotations

from message_core import db, limits
from polls_app import actions as polls

from .. import viewer_hooks
from ..domain import ChannelEvent, Difference
from ..errors import ChannelInvalidError, ChannelPrivateError, PersistentTimestampInvalidError
from . import media_read, mentions, pts_repair, reactions
from .common import (
    CHANNEL_WITH_MEMBER,
    MESSAGE_COLUMNS,
    channel_and_member,
    is_active,
    may_address,
    message_refs,
    require_visible,
)
from .dialogs import COUNT_UNREAD, count_unread_params


def _visible_part(ev: dict, floor: int) -> dict | None:
    """The event as a viewer whose history starts after ``floor`` may see it."""
    if ev["type"] in ("new_message", "edit_message"):
        return ev if ev["message_id"] > floor else None
    if ev["type"] in ("delete_messages", "pin_messages"):
        # Partly visible: only the ids are cut; pts_count stays what the log says.
        ids = [i for i in ev["message_ids"] if i > floor]
        return {**ev, "message_ids": ids} if ids else None
    return None  # noop


async def get_channel_difference(
    viewer_id: int,
    channel_id: int,
    pts: int,
    limit: int,
    *,
    access_hash: int | None = None,
    force: bool = False,
) -> Difference:
    """``access_hash``: the InputChannel's, checked here as ``get_channel_for_viewer``
    checks it (None: an internal caller that named the channel itself)."""
    # Telegram clamps the page instead of refusing a large limit (Kurigram asks 10000
    # after being offline); a non-positive limit means the default page.
    cap = min(limit if limit > 0 else limits.DIFFERENCE_LIMIT, limits.DIFFERENCE_LIMIT)
    cap = await viewer_hooks.difference_cap(viewer_id, limit, cap)
    async with db.connection() as conn:
        # One round trip for a member catching up: the events after ``pts`` are read
        # beside the channel and membership they are checked against. Under load each
        # round trip waits out a turn of the busy loop, so this halves a call's latency.
        async with conn.pipeline():
            head = await conn.execute(CHANNEL_WITH_MEMBER, {"c": channel_id, "u": viewer_id})
            ahead = await conn.execute(_EVENTS_AFTER, {"c": channel_id, "start": pts, "n": cap + 1})
        channel, member = channel_and_member(await head.fetchone())
        rows = await ahead.fetchall()
        if channel is None:
            raise ChannelPrivateError() if access_hash is None else ChannelInvalidError()
        if access_hash is not None and not may_address(channel, member, access_hash):
            raise ChannelPrivateError()
        require_visible(channel, member)
        current = channel["pts"]
        if pts < 0 or pts > current:
            raise PersistentTimestampInvalidError()
        floor = member["available_min_id"] if is_active(member) else 0
        # Pre-join events are not the newcomer's to recover.
        start = max(pts, member["available_min_pts"] if is_active(member) else 0)
        if start >= current:
            return Difference("empty", channel, member, current, timeout=limits.DIFFERENCE_TIMEOUT)
        if current - start > cap:
            return await _too_long(conn, channel, member, floor, cap)
    if start != pts:
        rows = await _events_after(channel_id, start, cap)
    # pts are allocated before commit: a hole is a write still committing or one that
    # never will. Either way the answer waits for it to be settled (pts_repair), never
    # skipping it (the client would lose that pts) nor stopping short with an empty,
    # non-final difference (clients such as Telethon cannot recover from that).
    taken = None
    for _ in range(MAX_HOLE_FILLS):
        hole = _first_hole(rows[:cap], start)
        if hole is None:
            taken = rows[:cap]
            break
        await pts_repair.fill_hole(channel_id, *hole)
        rows = await _events_after(channel_id, start, cap)
    if taken is None:  # a storm of holes: a final, valid answer all the same
        async with db.connection() as conn:
            return await _too_long(conn, channel, member, floor, cap)
    new_pts = taken[-1]["pts"] if taken else start
    final = new_pts >= current
    new_messages, others = [], []
    for r in taken:
        part = _visible_part(r, floor)
        if part is None:
            continue
        if r["type"] in ("new_message", "edit_message") and await viewer_hooks.hidden(
            viewer_id, member, r["payload"]
        ):
            continue
        if r["type"] == "new_message":
            new_messages.append(_as_now(r))
        elif r["type"] == "edit_message":
            others.append(ChannelEvent(channel_id, r["pts"], 1, "edit_message", r["date"], r["payload"]))
        elif r["type"] in ("delete_messages", "pin_messages"):
            payload = r["payload"] if r["type"] == "pin_messages" else None
            others.append(
                ChannelEvent(
                    channel_id, r["pts"], r["pts_count"], r["type"], r["date"], payload, part["message_ids"]
                )
            )
    if not new_messages and not others:
        return Difference("empty", channel, member, new_pts, final=final, timeout=limits.DIFFERENCE_TIMEOUT)
    await reactions.attach_fresh(viewer_id, channel, new_messages)
    await polls.attach_results_async(viewer_id, new_messages + [e.message for e in others if e.message])
    await media_read.attach(viewer_id, channel_id, new_messages + [e.message for e in others if e.message])
    users, chans = set(), {channel_id}
    message_refs(new_messages, users, chans)
    message_refs([e.message for e in others], users, chans)
    return Difference(
        "difference", channel, member, new_pts, final=final, timeout=limits.DIFFERENCE_TIMEOUT,
        new_messages=new_messages, other_events=others, user_ids=users, channel_ids=chans,
        unread_mentions=await mentions.unread_among(viewer_id, channel_id, new_messages),
    )  # fmt: skip


MAX_HOLE_FILLS = 20


# A page of the log, with the views, forwards and reaction totals that the messages it
# creates have now (an event's snapshot is of its time). LIMIT 1 keeps each message a
# key probe: a generic plan would otherwise join the channel's whole history.
_EVENTS_AFTER = """
SELECT e.pts, e.pts_count, e.type, e.date, e.message_id, e.message_ids, e.payload,
  m.id AS now_id, m.views_count, m.forwards_count, m.reaction_counts
FROM channel_update_events e
LEFT JOIN LATERAL (SELECT id, views_count, forwards_count, reaction_counts FROM channel_messages
  WHERE channel_id = %(c)s AND id = e.message_id AND e.type = 'new_message' LIMIT 1) m ON true
WHERE e.channel_id = %(c)s AND e.pts > %(start)s ORDER BY e.pts ASC LIMIT %(n)s
"""


async def _events_after(channel_id: int, start: int, cap: int) -> list[dict]:
    async with db.connection() as conn:
        cur = await conn.execute(_EVENTS_AFTER, {"c": channel_id, "start": start, "n": cap + 1})
        return await cur.fetchall()


def _as_now(row: dict) -> dict:
    """A new_message event's snapshot with the message's current counters; its
    reactions as the viewer sees them are attached for the few that have any."""
    message = dict(row["payload"])
    if row["now_id"] is not None and not message.get("action"):
        message["views_count"] = row["views_count"]
        message["forwards_count"] = row["forwards_count"]
        message["reaction_counts"] = row["reaction_counts"]
    return message


def _first_hole(rows: list[dict], start: int) -> tuple[int, int] | None:
    """The first missing pts range (lo, hi) before one of ``rows``."""
    expected = start
    for r in rows:
        first = r["pts"] - r["pts_count"] + 1
        if first > expected + 1:
            return expected + 1, first - 1
        expected = max(expected, r["pts"])
    return None


async def _too_long(conn, channel: dict, member: dict, floor: int, cap: int) -> Difference:
    """channelDifferenceTooLong: the dialog at the current pts and the latest page."""
    read = max(member["read_inbox_max_id"], floor)
    async with conn.pipeline():  # the page and the unread count in one round trip
        page = await conn.execute(
            f"SELECT {MESSAGE_COLUMNS} FROM channel_messages WHERE channel_id = %s AND NOT deleted AND id > %s"
            " ORDER BY id DESC LIMIT %s",
            (channel["id"], floor, cap),
        )
        unread = await conn.execute(COUNT_UNREAD, count_unread_params(channel["id"], read))
    messages = await page.fetchall()
    unread_count = (await unread.fetchone())["n"]
    await reactions.attach_fresh(member["user_id"], channel, messages, conn)
    await polls.attach_results_async(member["user_id"], messages)
    await media_read.attach(member["user_id"], channel["id"], messages, conn)
    users, chans = set(), {channel["id"]}
    message_refs(messages, users, chans)
    top = messages[0]["id"] if messages else 0  # the newest live, visible message
    dialog = {
        "top_message": top,
        "read_inbox_max_id": read,
        "read_outbox_max_id": member["read_outbox_max_id"],
        "unread_count": unread_count,
        "pts": channel["pts"],
    }
    return Difference(
        "too_long", channel, member, channel["pts"], final=True, timeout=limits.DIFFERENCE_TIMEOUT,
        messages=messages, dialog=dialog, user_ids=users, channel_ids=chans,
        unread_mentions=await mentions.unread_among(member["user_id"], channel["id"], messages),
    )  # fmt: skip
