"""The owner's channel dialogs: list with the design's order and seek cursor, pins,
folders, manual unread marks.

Everything is decided in SQL, with ``LIMIT``, one statement per page:

- Order: ``pinned DESC, pinned_order DESC, top_date DESC, top_id DESC, channel_id DESC``
  where ``top`` is the viewer's *visible* top message: the newest non-deleted message
  above the member's ``available_min_id`` (local clear / hidden prehistory), found with
  one probe of ``channel_messages_history_idx`` (``(channel_id, id DESC) WHERE NOT
  deleted``). ``channels.top_message_id`` is recomputed on delete, but a deleted or
  hidden top is never shown: a dialog with nothing visible sorts by the later of the
  channel's creation and the viewer's join date and has ``top_message = 0``.
- Per-dialog lookups in every plan: the channel, the viewer's membership and the probe
  are one ``LATERAL (... LIMIT 1)`` subquery per dialog row (both by primary key, so at
  most one row and the ``LIMIT`` changes nothing), which the planner cannot flatten
  into a join. The statement runs prepared (psycopg ``prepare_threshold``), and the
  server's generic plan, costed without parameter values, used to join all the
  user's dialogs with every membership and channel by join filters (quadratic: 2 x
  640k comparisons for 800 dialogs, most of the page's time); now it is index
  lookups by ``channel_id`` whatever the statistics.
- Why the key is not read from ``channels.top_message_id / top_message_date``: a send
  raises the two with separate ``GREATEST``s and takes its date before the id is
  allocated, so under concurrent sends the row can pair the newest id with another
  message's (later) date, while the list orders by, and the client's cursor carries,
  the shown message's own date; and a stale top that points at a deleted message must
  still not be shown. Either way the top message's row is read, and the probe's first
  index entry is that row (a primary-key look-up is one index descent too), so the probe
  stays.
- Seek: ``(offset_date, offset_id, offset_peer)`` is a row comparison against that
  key; when ``offset_peer`` is one of the folder's pinned dialogs the cursor carries its
  pin position, so a page that ended inside the pinned block continues with the rest
  of the pins and then the unpinned dialogs.
- Folders: ``folder_id`` 0 (main list) / 1 (archive) are physical and filter the rows
  before ``LIMIT``; ``folder_id >= 2`` are the user's chat folders (dialog filters):
  rules, not a stored column, applied as ``FOLDER_WHERE`` over both physical folders
  before ``LIMIT`` with the folder's own pins in the order's pin columns.
- Partition keys: ``channel_dialogs`` by ``user_id`` (a constant); ``channels``,
  ``channel_members`` and ``channel_messages`` by the dialog's ``channel_id`` (nested
  loops, pruned at run time). The key set is bounded by CHANNELS_PER_USER_MAX.
- ``unread_count`` = non-deleted messages with ``id > max(read_inbox_max_id,
  available_min_id)``, counted for the page's rows only on the same partial index and
  capped at UNREAD_COUNT_MAX (a LIMITed subquery: a dialog with more unread than that
  shows the cap); never ``top - read`` (deleted messages are not unread). Its ``ORDER
  BY id DESC`` changes no count but makes the planner range-scan that index from the
  top instead of filtering every message of the channel on ``(channel_id, date)``.

A send writes no per-member dialog rows (O(1) per message); the stale
``channel_dialogs.top_message_*`` / ``unread_count`` caches are not read here.
"""

from __future__ import annotations

from message_core import db, limits
from message_core.clock import now
from message_core.folder_rule import CHANNEL, FolderRule

from ..domain import DialogEntry, Dialogs
from ..errors import FolderIdInvalidError, LimitInvalidError
from .common import message_refs

# The most unread messages one dialog's count examines (bounded work per page row).
UNREAD_COUNT_MAX = 10_000

_ORDER = "pinned DESC, pinned_order DESC, top_date DESC, top_id DESC, channel_id DESC"

# One row per dialog of the user matching {where}: the order key only. The channel,
# the viewer's membership and the visible-top probe are one LATERAL subquery per
# dialog with ``LIMIT 1`` (at most one row: both are looked up by primary key), so the
# planner cannot flatten it into a join: every plan, the prepared statement's generic
# one included, probes them by the dialog's ``channel_id`` (see the module docstring).
# The membership is its own LATERAL ... LIMIT 1 with the status checked above it: with
# ``status = 'active'`` beside the key, the partial index of active members
# (channel_id, read_inbox_max_id, user_id) matched too, and the probe walked every
# active member of the channel, thousands per dialog in a big group.
_KEYS = """
SELECT d.channel_id, {pins}, v.top_id, v.top_date
FROM channel_dialogs d
CROSS JOIN LATERAL (
  SELECT COALESCE(t.id, 0) AS top_id, COALESCE(t.date, GREATEST(c.date, m.joined_at)) AS top_date,
    c.broadcast, GREATEST(m.read_inbox_max_id, m.available_min_id) AS read_floor
  FROM channels c
  CROSS JOIN LATERAL (
    SELECT m.joined_at, m.read_inbox_max_id, m.available_min_id, m.status FROM channel_members m
    WHERE m.channel_id = c.id AND m.user_id = %(u)s LIMIT 1
  ) m
  LEFT JOIN LATERAL (
    SELECT x.id, x.date FROM channel_messages x
    WHERE x.channel_id = c.id AND NOT x.deleted AND x.id > m.available_min_id
      AND c.top_message_id > m.available_min_id
    ORDER BY x.id DESC LIMIT 1
  ) t ON true
  WHERE c.id = d.channel_id AND NOT c.deleted AND m.status = 'active'
  LIMIT 1
) v
WHERE d.user_id = %(u)s AND {where}
LIMIT %(cap)s
"""

# The page: keys past the cursor in order, LIMITed, then the rows a dialog shows.
_PAGE = (
    "WITH k AS MATERIALIZED ({keys}),"
    " p AS (SELECT * FROM k WHERE {seek} ORDER BY {order} LIMIT %(lim)s)"
    " SELECT p.channel_id, p.top_id, p.top_date, (SELECT count(*) FROM k) AS total,"
    "  row_to_json(c) AS channel, row_to_json(m) AS member, row_to_json(d) AS dialog, row_to_json(t) AS top,"
    "  (SELECT count(*) FROM (SELECT 1 FROM channel_messages u WHERE u.channel_id = p.channel_id"
    "    AND NOT u.deleted AND u.id > GREATEST(m.read_inbox_max_id, m.available_min_id)"
    "    ORDER BY u.id DESC LIMIT %(unread_max)s) s) AS unread"
    " FROM p"
    " JOIN channels c ON c.id = p.channel_id"
    " JOIN channel_members m ON m.channel_id = p.channel_id AND m.user_id = %(u)s"
    " JOIN channel_dialogs d ON d.user_id = %(u)s AND d.channel_id = p.channel_id"
    " LEFT JOIN channel_messages t ON t.channel_id = p.channel_id AND t.id = p.top_id AND p.top_id > 0"
    " ORDER BY {order_p}"
)

# Row comparison in the full order; the cursor peer's pin position comes from its row.
_SEEK = (
    "(pinned, pinned_order, top_date, top_id, channel_id) < ("
    " COALESCE((SELECT cd.pinned FROM channel_dialogs cd WHERE cd.user_id = %(u)s"
    "   AND cd.channel_id = %(oc)s AND cd.folder_id = %(f)s), false),"
    " COALESCE((SELECT cd.pinned_order FROM channel_dialogs cd WHERE cd.user_id = %(u)s"
    "   AND cd.channel_id = %(oc)s AND cd.folder_id = %(f)s AND cd.pinned), 0),"
    " %(od)s, %(oi)s, %(oc)s)"
)
# The same with the cursor's pin position given: a cursor on a private chat, whose pin
# shares this order (channels_app.actions.pins).
_SEEK_AT = "(pinned, pinned_order, top_date, top_id, channel_id) < (%(cp)s, %(co)s, %(od)s, %(oi)s, %(oc)s)"


_MAIN_PINS = "d.pinned, CASE WHEN d.pinned THEN d.pinned_order ELSE 0 END AS pinned_order"
# In a chat folder the folder's own pins (message_core.folder_rule) take the main list's place.
_FOLDER_PINS = (
    "(%(f_ranks)s::jsonb ? d.channel_id::text) AS pinned,"
    " COALESCE((%(f_ranks)s::jsonb ->> d.channel_id::text)::int, 0) AS pinned_order"
)

# A chat folder's rule over the main list and the archive (message_core.folder_rule),
# on the dialog row and the per-dialog LATERAL: the channel's kind and the viewer's read
# floor, which the visible top (``v.top_id``) is above exactly when something is unread.
# A channel's own mute_until decides; without one its kind's default does.
FOLDER_WHERE = (
    "d.folder_id IN (0, 1) AND NOT (d.channel_id = ANY(%(f_never)s::bigint[]))"
    " AND (d.channel_id = ANY(%(f_always)s::bigint[]) OR ("
    "  CASE WHEN v.broadcast THEN %(f_broadcasts)s ELSE %(f_groups)s END"
    "  AND NOT (%(f_no_muted)s AND COALESCE((d.notify_settings->>'mute_until')::bigint > %(now)s,"
    "   CASE WHEN v.broadcast THEN %(f_mute_broadcasts)s ELSE %(f_mute_chats)s END))"
    "  AND NOT (%(f_no_read)s AND NOT d.unread_mark AND v.top_id <= v.read_floor)"
    "  AND NOT (%(f_no_archived)s AND d.folder_id = 1)))"
)


def count_sql(where: str, pins: str = _MAIN_PINS) -> str:
    return f"SELECT count(*) AS n FROM ({_KEYS.format(where=where, pins=pins)}) k"


def page_sql(where: str, seek: str = "true", pins: str = _MAIN_PINS) -> str:
    """The statement of one dialogs page (exposed for EXPLAIN in tests/benchmarks)."""
    return _PAGE.format(
        keys=_KEYS.format(where=where, pins=pins),
        seek=seek,
        order=_ORDER,
        order_p=", ".join("p." + part for part in _ORDER.split(", ")),
    )


async def unread_mentions_counts(conn, user_id: int, channel_ids: list[int]) -> dict[int, int]:
    """Unread mentions per channel: the one place the mentions store plugs in
    (``channels_app.actions.mentions.unread_mention_counts``); 0 without it."""
    try:
        from .mentions import unread_mention_counts
    except ImportError:
        return {}
    return await unread_mention_counts(conn, user_id, channel_ids)


async def _page(
    sql: str, params: dict, where: str = "", pins: str = _MAIN_PINS
) -> tuple[list[DialogEntry], int]:
    params = {"cap": limits.CHANNELS_PER_USER_MAX, "unread_max": UNREAD_COUNT_MAX, **params}
    async with db.connection() as conn:
        cur = await conn.execute(sql, params)
        rows = await cur.fetchall()
        mentions = (
            await unread_mentions_counts(conn, params["u"], [r["channel_id"] for r in rows]) if rows else {}
        )
        if rows:
            total = rows[0]["total"]
        elif where:  # an empty page past the cursor still tells the list's size
            total = (await (await conn.execute(count_sql(where, pins), params)).fetchone())["n"]
        else:
            total = 0
    entries = [
        DialogEntry(
            r["channel"],
            r["member"],
            r["dialog"],
            r["top"],
            min(r["unread"], UNREAD_COUNT_MAX),
            unread_mentions=mentions.get(r["channel_id"], 0),
            top_date=r["top_date"],
        )
        for r in rows
    ]
    return entries, total


def _result(entries: list[DialogEntry], count: int, complete: bool) -> Dialogs:
    users, chans = set(), set()
    message_refs([e.top_message for e in entries], users, chans)
    chans.update(e.channel["id"] for e in entries)
    return Dialogs(entries, count, complete, users, chans)


async def get_dialogs(
    user_id: int,
    *,
    offset_date: int = 0,
    offset_id: int = 0,
    offset_channel_id: int = 0,
    limit: int = 100,
    folder_id: int | None = None,
    exclude_pinned: bool = False,
    cursor_pin: tuple[bool, int] | None = None,
    rule: FolderRule | None = None,
) -> Dialogs:
    """One page in the design's order past the cursor ``(offset_date, offset_id,
    offset_channel_id)``; ``cursor_pin`` is the (pinned, order) of the cursor's dialog
    when the caller knows it (the merged list's cursor may be a private chat). With a
    chat folder's ``rule`` (``folder_id >= 2``) the page is that folder's, its pins
    first; ``cursor_pin`` is then the cursor's rank among those pins."""
    if limit < 0:
        raise LimitInvalidError()
    limit = min(limit or limits.DIALOGS_LIMIT, limits.DIALOGS_LIMIT)
    if rule is None and folder_id not in (None, 0, 1):
        raise FolderIdInvalidError()  # a chat folder is applied by its stored rule
    folder = folder_id or 0
    cursor = bool(offset_date or offset_id or offset_channel_id or cursor_pin)
    if cursor_pin is not None:
        seek = _SEEK_AT
    elif cursor:
        seek = _SEEK
    elif exclude_pinned:
        seek = "NOT pinned"
    else:
        seek = "true"
    params = {
        "u": user_id,
        "f": folder,
        "lim": limit,
        "od": offset_date,
        "oi": offset_id,
        "oc": offset_channel_id,
        "cp": bool(cursor_pin and cursor_pin[0]),
        "co": cursor_pin[1] if cursor_pin else 0,
    }
    if rule is not None:
        if cursor_pin is None and cursor:
            seek = _SEEK_AT  # an unpinned cursor: a folder's pins are not the dialog rows'
        params |= rule.sql_params(CHANNEL) | {"now": now()}
        where, pins = FOLDER_WHERE, _FOLDER_PINS
    else:
        where, pins = "d.folder_id = %(f)s", _MAIN_PINS
    entries, total = await _page(page_sql(where, seek, pins), params, where, pins)
    return _result(entries, total, complete=not cursor and len(entries) == total)


async def get_peer_dialogs(user_id: int, channel_ids: list[int]) -> Dialogs:
    ids = list(dict.fromkeys(channel_ids))[: limits.DIALOGS_LIMIT]
    if not ids:
        return _result([], 0, True)
    entries, _ = await _page(
        page_sql("d.channel_id = ANY(%(ids)s)"), {"u": user_id, "ids": ids, "lim": len(ids)}
    )
    order = {cid: i for i, cid in enumerate(ids)}
    entries.sort(key=lambda e: order.get(e.channel["id"], 0))
    return _result(entries, len(entries), True)


async def get_pinned_dialogs(user_id: int, folder_id: int = 0) -> Dialogs:
    if folder_id not in (0, 1):
        raise FolderIdInvalidError()
    entries, _ = await _page(
        page_sql("d.folder_id = %(f)s AND d.pinned"),
        {"u": user_id, "f": folder_id, "lim": limits.DIALOGS_LIMIT},
    )
    return _result(entries, len(entries), True)


async def _set_dialog_flag(user_id: int, channel_id: int, column: str, value: bool) -> bool:
    """Set one boolean of the owner's dialog; True if it changed."""
    async with db.connection() as conn:
        cur = await conn.execute(
            f"UPDATE channel_dialogs SET {column} = %s WHERE user_id = %s AND channel_id = %s"
            f" AND {column} <> %s RETURNING 1",
            (value, user_id, channel_id, value),
        )
        return await cur.fetchone() is not None


async def do_mark_dialog_unread(user_id: int, channel_id: int, unread: bool) -> bool:
    return await _set_dialog_flag(user_id, channel_id, "unread_mark", unread)


async def get_unread_marks(user_id: int) -> list[int]:
    async with db.connection() as conn:
        cur = await conn.execute(
            "SELECT channel_id FROM channel_dialogs WHERE user_id = %s AND unread_mark LIMIT %s",
            (user_id, limits.CHANNELS_PER_USER_MAX),
        )
        return [r["channel_id"] for r in await cur.fetchall()]


async def do_set_dialog_folder(user_id: int, channel_id: int, folder_id: int) -> bool:
    if folder_id not in (0, 1):
        raise FolderIdInvalidError()
    async with db.connection() as conn:
        cur = await conn.execute(
            "UPDATE channel_dialogs SET folder_id = %s, pinned = false, pinned_order = 0"
            " WHERE user_id = %s AND channel_id = %s AND folder_id <> %s RETURNING 1",
            (folder_id, user_id, channel_id, folder_id),
        )
        return await cur.fetchone() is not None


async def do_set_view_forum_as_messages(user_id: int, channel_id: int, enabled: bool) -> bool:
    """channels.toggleViewForumAsMessages: the owner's choice, kept on their dialog."""
    return await _set_dialog_flag(user_id, channel_id, "view_forum_as_messages", enabled)


# Live messages above %(after)s (the viewer's read mark or visibility floor), counted
# like the dialog list does: on the history index, capped.
COUNT_UNREAD = (
    "SELECT count(*) AS n FROM (SELECT 1 FROM channel_messages WHERE channel_id = %(c)s AND NOT deleted"
    " AND id > %(after)s ORDER BY id DESC LIMIT %(cap)s) s"
)


def count_unread_params(channel_id: int, after_id: int) -> dict:
    return {"c": channel_id, "after": after_id, "cap": UNREAD_COUNT_MAX}


async def count_unread(conn, channel_id: int, after_id: int) -> int:
    """``COUNT_UNREAD`` of one channel."""
    cur = await conn.execute(COUNT_UNREAD, count_unread_params(channel_id, after_id))
    return (await cur.fetchone())["n"]
