"""Writing new channel messages: one statement per channel per turn (group commit).

Every new message of a channel (a send, a forward, an album) is written by
:func:`write_messages`. Concurrent writers of one channel in this process queue behind
the statement in flight and go together in the next one: one id and pts allocation
(Redis), one ``INSERT ... unnest`` writing the messages, their events, the channel's
counters and each sender's read state, one commit. A lone send is written at once;
under load the statements grow with the queue instead of the queue with the load.

Concurrent sends to a channel never ran side by side anyway: each raises the
channel row's top and pts, so they waited for one another's commit on its row lock.
Queueing them here instead lets PostgreSQL take one lock, one commit and one WAL flush
for all of them, and the listener one allocation and one round trip.

What each send keeps as its own:
- its rows stay contiguous in ids and pts, in its order (an album's messages, a
  forward's batch); a group is never split across statements;
- its sender, silent flag, signature, send-as peer and the channel snapshot it was
  checked against (noforwards, discussion link);
- its failure: a statement that fails on one group's data (``DataError``,
  ``IntegrityError``) is retried group by group, so one bad message fails only its
  own send. The failed statement's pts range became a noop (``with_pts``), and each
  retry takes a fresh range.

A send whose caller went away before its statement started is dropped (as before: it
had not been written); once started, it is written like the rest.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field

import orjson
import psycopg

from edge_app import metrics
from message_core.clock import now
from message_core.send_origin import FROM_SCHEDULED

from ..domain import ChannelEvent
from .common import with_pts
from .mentions import mentioned_user_ids

log = logging.getLogger("telesrv.channels.writes")

# Rows per statement. A larger group (none is: forwards and albums are capped lower)
# still goes whole, alone.
BATCH_ROWS_MAX = 100

# The rows go in as one JSON document: each message's durable snapshot (stored as its
# event's payload as it is), random id and the users its event concerns. One orjson
# call instead of two dozen arrays dumped element by element in Python.
_INSERT = """
WITH r AS MATERIALIZED (
  SELECT (e.v->>'r')::bigint AS random_id, e.v->'u' AS users, e.v->'s' AS payload, s.*
  FROM jsonb_array_elements(%(rows)s::jsonb) AS e(v),
    jsonb_to_record(e.v->'s') AS s(id int, sender_user_id bigint, silent bool, noforwards bool, post_author text,
      message text, entities jsonb, reply_to_msg_id int, reply_to_top_id int, reply_to_user_id bigint,
      fwd_from jsonb, pts int, media jsonb, grouped_id bigint, forum_topic bool, send_as_channel_id bigint,
      discussion_channel_id bigint, reply_markup jsonb, via_bot_id bigint)
), ins AS (
  INSERT INTO channel_messages (channel_id, id, random_id, sender_user_id, date, edit_date, post, silent,
    noforwards, post_author, message, entities, reply_to_msg_id, reply_to_top_id, reply_to_user_id, fwd_from,
    action, pts, deleted, media, grouped_id, forum_topic, send_as_channel_id, discussion_channel_id,
    reply_markup, via_bot_id)
  SELECT %(c)s, r.id, r.random_id, r.sender_user_id, %(d)s, 0, %(post)s, r.silent, r.noforwards, r.post_author,
    r.message, r.entities, r.reply_to_msg_id, r.reply_to_top_id, r.reply_to_user_id, r.fwd_from, NULL, r.pts,
    false, r.media, r.grouped_id, r.forum_topic, r.send_as_channel_id, r.discussion_channel_id, r.reply_markup,
    COALESCE(r.via_bot_id, 0)
  FROM r
  ON CONFLICT (channel_id, sender_user_id, random_id) DO NOTHING
  RETURNING id
), ev AS (
  INSERT INTO channel_update_events (channel_id, pts, pts_count, type, date, message_id, message_ids,
    sender_user_id, user_ids, payload)
  SELECT %(c)s, r.pts, 1, 'new_message', %(d)s, r.id, '[]', r.sender_user_id, r.users, r.payload
  FROM r WHERE r.id IN (SELECT id FROM ins)
), noop AS (
  INSERT INTO channel_update_events (channel_id, pts, pts_count, type, date, message_id, message_ids,
    sender_user_id, user_ids, payload)
  SELECT %(c)s, r.pts, 1, 'noop', %(d)s, 0, '[]', 0, '[]', NULL
  FROM r WHERE r.id NOT IN (SELECT id FROM ins)
), ch AS (
  UPDATE channels SET top_message_id = GREATEST(top_message_id, %(top)s),
    top_message_date = GREATEST(top_message_date, %(d)s), pts = GREATEST(pts, %(last_pts)s)
  WHERE id = %(c)s
), mem AS (
  UPDATE channel_members m SET read_inbox_max_id = GREATEST(m.read_inbox_max_id, s.top),
    read_inbox_date = CASE WHEN m.read_inbox_max_id < s.top THEN %(d)s ELSE m.read_inbox_date END,
    slowmode_last_send_date = %(d)s
  FROM unnest(%(by)s::bigint[], %(by_top)s::int[]) AS s(user_id, top)
  -- the senders by value as well: an index condition on the key, or the generic plan
  -- hash-joins every member of the channel (50,003 rows read per send in a 50k group)
  WHERE m.channel_id = %(c)s AND m.user_id = ANY(%(by)s::bigint[]) AND m.user_id = s.user_id
), dlg AS (
  -- dialogs are distributed by user: the senders by value name their shards
  UPDATE channel_dialogs d SET top_message_id = GREATEST(d.top_message_id, s.top),
    top_message_date = GREATEST(d.top_message_date, %(d)s),
    read_inbox_max_id = GREATEST(d.read_inbox_max_id, s.top), unread_count = 0, unread_mark = false
  FROM unnest(%(by)s::bigint[], %(by_top)s::int[]) AS s(user_id, top)
  WHERE d.user_id = s.user_id AND d.user_id = ANY(%(by)s::bigint[]) AND d.channel_id = %(c)s
)
SELECT id FROM ins
"""


@dataclass
class _Group:
    """One caller's rows and what they were checked against."""

    channel: dict
    sender: int
    rows: list[dict]
    silent: bool
    post_author: str
    send_as: int
    done: asyncio.Future = field(repr=False)


# Per event loop (tests run several), per channel: the groups waiting for the next
# statement. A channel has an entry exactly while its drain task runs.
_queues: dict[asyncio.AbstractEventLoop, dict[int, list[_Group]]] = {}
_draining: set[asyncio.Task] = set()  # referenced until done (the loop keeps weak refs)


async def write_messages(
    channel: dict, sender: int, rows: list[dict], *, silent: bool, post_author: str, send_as: int = 0
) -> list[ChannelEvent]:
    """Insert ``rows`` (message, entities, reply, fwd, media, random_id, ...) as new
    messages of ``channel`` from ``sender`` with contiguous ids and pts. A row whose
    random_id was already used (a concurrent retry) gets no event here: a noop holds its
    pts slot. ``send_as``: the channel the messages are sent as (0: the sender). A
    linked broadcast's posts name their discussion group at once (their roots follow:
    discussion.create_roots)."""
    if not rows:
        return []
    if FROM_SCHEDULED.get():
        rows = [{**r, "from_scheduled": True} for r in rows]
    loop = asyncio.get_running_loop()
    group = _Group(channel, sender, rows, silent, post_author, send_as, loop.create_future())
    channels = _queues.setdefault(loop, {})
    queue = channels.get(channel["id"])
    if queue is None:
        queue = channels[channel["id"]] = []
        task = loop.create_task(_drain(loop, channel["id"], queue))
        _draining.add(task)
        task.add_done_callback(_draining.discard)
    queue.append(group)
    return await group.done


async def _drain(loop: asyncio.AbstractEventLoop, channel_id: int, queue: list[_Group]) -> None:
    batch: list[_Group] = []
    try:
        while queue:
            batch = _take(queue)
            if batch:
                await _commit(channel_id, batch)
            batch = []
    finally:
        channels = _queues.get(loop, {})
        channels.pop(channel_id, None)
        if not channels:
            _queues.pop(loop, None)
        for group in [*batch, *queue]:  # only if this task itself was cancelled (the loop is closing)
            if not group.done.done():
                group.done.cancel()


def _take(queue: list[_Group]) -> list[_Group]:
    """The next statement's groups, in arrival order, up to BATCH_ROWS_MAX rows (the
    first group goes whatever its size); callers that went away are dropped."""
    batch: list[_Group] = []
    size = 0
    while queue:
        group = queue[0]
        if group.done.cancelled():
            queue.pop(0)
            continue
        if batch and size + len(group.rows) > BATCH_ROWS_MAX:
            break
        batch.append(queue.pop(0))
        size += len(group.rows)
    return batch


def _one_groups_fault(exc: Exception) -> bool:
    """The statement failed on some row's data, not on the database or the statement."""
    return isinstance(exc, psycopg.DataError | psycopg.IntegrityError)


async def _commit(channel_id: int, batch: list[_Group]) -> None:
    try:
        results = await _write(channel_id, batch)
    except Exception as exc:
        if len(batch) > 1 and _one_groups_fault(exc):
            log.info("channel %d: a statement of %d sends failed (%s); writing them one by one",
                     channel_id, len(batch), type(exc).__name__)  # fmt: skip
            for group in batch:
                await _commit(channel_id, [group])
            return
        for group in batch:
            if not group.done.done():
                group.done.set_exception(exc)
        return
    metrics.SEND_BATCH_ROWS.observe(sum(len(g.rows) for g in batch))
    for group, events in zip(batch, results, strict=True):
        if not group.done.done():
            group.done.set_result(events)


async def _write(channel_id: int, batch: list[_Group]) -> list[list[ChannelEvent]]:
    """One statement for ``batch``; each group's events (its inserted rows)."""
    rows = [(g, r) for g in batch for r in g.rows]
    n = len(rows)
    date = now()
    post = bool(batch[0].channel["broadcast"])  # a channel's kind never changes

    async def body(conn, last_id, last_pts):
        ids = list(range(last_id - n + 1, last_id + 1))
        ptss = list(range(last_pts - n + 1, last_pts + 1))
        snaps = [
            _snapshot(g, r, mid, pts, date, post) for (g, r), mid, pts in zip(rows, ids, ptss, strict=True)
        ]
        by_top: dict[int, int] = {}  # each sender's newest id: their own read state
        for s in snaps:
            by_top[s["sender_user_id"]] = s["id"]
        doc = [
            {"r": r["random_id"], "u": sorted({s["sender_user_id"], *mentioned_user_ids(s)}), "s": s}
            for (_, r), s in zip(rows, snaps, strict=True)
        ]
        cur = await conn.execute(
            _INSERT,
            {
                "c": channel_id,
                "d": date,
                "post": post,
                "rows": orjson.dumps(doc).decode(),
                "by": list(by_top),
                "by_top": list(by_top.values()),
                "top": last_id,
                "last_pts": last_pts,
            },
        )
        inserted = {r["id"] for r in await cur.fetchall()}
        out: dict[int, list[ChannelEvent]] = {id(g): [] for g in batch}
        for (g, r), snap in zip(rows, snaps, strict=True):
            if snap["id"] in inserted:
                out[id(g)].append(
                    ChannelEvent(
                        channel_id, snap["pts"], 1, "new_message", date, snap, random_id=r["random_id"]
                    )
                )
        return [out[id(g)] for g in batch]

    return await with_pts(channel_id, n, body, message_ids=n, single_statement=True)


def _snapshot(g: _Group, r: dict, mid: int, pts: int, date: int, post: bool) -> dict:
    """The durable form of one new message (what its event stores and clients render)."""
    channel = g.channel
    return {
        "channel_id": channel["id"],
        "id": mid,
        "sender_user_id": g.sender,
        "date": date,
        "edit_date": 0,
        "post": post,
        "silent": g.silent,
        "noforwards": bool(channel["noforwards"] or r.get("noforwards")),
        "post_author": g.post_author,
        "message": r["message"],
        "entities": r["entities"],
        "reply_to_msg_id": r.get("reply_to_msg_id", 0),
        "reply_to_top_id": r.get("reply_to_top_id", 0),
        "reply_to_user_id": r.get("reply_to_user_id", 0),
        "forum_topic": bool(r.get("forum_topic")),
        "quote": r.get("quote"),
        "fwd_from": r.get("fwd_from"),
        "action": None,
        "pts": pts,
        "deleted": False,
        "media": r.get("media"),
        "grouped_id": r.get("grouped_id", 0),
        "send_as_channel_id": g.send_as,
        "discussion_channel_id": (channel.get("linked_chat_id") or 0) if post else 0,
        "discussion_message_id": 0,
        "replies_count": 0,
        "replies_max_id": 0,
        "replies_pts": 0,
        "recent_repliers": None,
        "reply_markup": r.get("reply_markup"),
        "via_bot_id": r.get("via_bot_id", 0),
        # Only on a message the scheduler sent (its snapshot: the push and difference).
        **({"from_scheduled": True} if r.get("from_scheduled") else {}),
    }
