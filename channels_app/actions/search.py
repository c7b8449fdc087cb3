"""Text search over channel messages across channels: the user's own memberships
(messages.searchGlobal) and public channels and supergroups (channels.searchPosts).

Both page newest first with Telegram's seek cursor (offset_rate = a date, then the
peer and the message id of the last result), so a page is one ordered, limited
statement; the ILIKE filter is served by ``channel_messages_body_trgm_idx``.
"""

from __future__ import annotations

from message_core import db, limits
from message_core.text import SEARCH_WINDOW, like_pattern

from ..rights import banned_bit
from .common import CHANNEL_COLUMNS, MESSAGE_COLUMNS
from .media import media_condition

CHANNEL_RANK = 1  # the cursor's kind rank: private results (0) sort below channel ones at one date
TRIGRAM_MATCHES_MAX = 2000  # matches read through the trigram index before a word counts as common
# A text search first walks the newest WALK_ROWS messages of each of the viewer's
# WALK_CHANNELS most recently active channels (at most 5,000 rows, however large the
# channels): a common word's page is there, and no index reads all its matches.
WALK_CHANNELS = 50
WALK_ROWS = 100
# Then, when at most WALK_DEEP_CHANNELS busy channels were not read far enough back,
# their newest WALK_DEEP_ROWS (a word in every tenth message under a burst of others).
WALK_DEEP_CHANNELS = 5
WALK_DEEP_ROWS = 2000
DATE_MAX = 2**31 - 1  # the int4 date columns' largest

# The viewer's memberships first, one key probe per channel (the status checked
# above it, as in channels_app.actions.mentions), then the messages.
_MEMBERSHIPS = (
    "WITH mem AS MATERIALIZED (SELECT c.id AS channel_id, x.available_min_id"
    " FROM unnest(%(ids)s::bigint[]) AS c(id) CROSS JOIN LATERAL (SELECT status, banned_rights,"
    "   available_min_id FROM channel_members WHERE channel_id = c.id AND user_id = %(u)s LIMIT 1) x"
    " WHERE x.status = 'active' AND (x.banned_rights & %(vm)s) = 0)"
)

_COLUMNS = ", ".join(f"m.{c.strip()}" for c in MESSAGE_COLUMNS.split(","))


async def member_channel_ids(
    user_id: int, *, broadcasts: bool = True, groups: bool = True, folder_id: int | None = None
) -> list[int]:
    """The user's active channels (at most CHANNELS_PER_USER_MAX), of the kinds asked,
    in one dialog folder (0 main, 1 archive) or all."""
    rows = await _member_channels(user_id, broadcasts=broadcasts, groups=groups, folder_id=folder_id)
    return [r["channel_id"] for r in rows]


async def _member_channels(
    user_id: int, *, broadcasts: bool, groups: bool, folder_id: int | None, tops: bool = False
) -> list[dict]:
    """member_channel_ids' rows; with ``tops``, each channel's newest message date too."""
    # The dialog is a LATERAL ... LIMIT 1 probe of its primary key per membership: as a
    # join, the pool's generic plan looped over the user's dialogs for every membership
    # (Rows Removed by Join Filter: 999,999 for a user in 1,000 chats, 285 ms).
    sql = (
        "SELECT i.channel_id"
        + (", c.top_message_date AS top" if tops else "")
        + " FROM user_channel_member_index i"
        " CROSS JOIN LATERAL (SELECT d.folder_id FROM channel_dialogs d"
        "   WHERE d.user_id = %(u)s AND d.channel_id = i.channel_id LIMIT 1) d"
    )
    if tops:
        sql += " CROSS JOIN LATERAL (SELECT top_message_date FROM channels WHERE id = i.channel_id LIMIT 1) c"
    sql += " WHERE i.user_id = %(u)s AND i.status = 'active' AND NOT i.deleted"
    if not broadcasts:
        sql += " AND NOT i.broadcast"
    if not groups:
        sql += " AND i.broadcast"
    if folder_id is not None:
        sql += " AND d.folder_id = %(f)s"
    return await db.fetchall(
        sql + " ORDER BY i.channel_id LIMIT %(n)s",
        {"u": user_id, "f": folder_id, "n": limits.CHANNELS_PER_USER_MAX},
    )


def _cursor_sql(cursor: tuple[int, int, int, int] | None, params: dict) -> str:
    if cursor is None:
        return ""
    params.update(c_rate=cursor[0], c_rank=cursor[1], c_peer=cursor[2], c_id=cursor[3])
    return (
        f" AND (m.date, {CHANNEL_RANK}, m.channel_id, m.id)"
        " < (%(c_rate)s::int, %(c_rank)s::int, %(c_peer)s::bigint, %(c_id)s::int)"
    )


def _dates_sql(min_date: int, max_date: int, params: dict) -> str:
    sql = ""
    if min_date:
        params["min_date"] = min_date
        sql += " AND m.date >= %(min_date)s"
    if max_date:
        params["max_date"] = max_date
        sql += " AND m.date <= %(max_date)s"
    return sql


async def search_member_channels(
    viewer_id: int,
    q: str,
    *,
    broadcasts: bool = True,
    groups: bool = True,
    folder_id: int | None = None,
    cursor: tuple[int, int, int, int] | None = None,
    limit: int = limits.SEARCH_GLOBAL_LIMIT,
    min_date: int = 0,
    max_date: int = 0,
    media_kinds: tuple[str, ...] = (),
) -> list[dict]:
    """Messages containing ``q`` (any text when empty) and of one of ``media_kinds``
    (when given) in channels the viewer is an active member of and may read (never
    above a hidden-history bound), newest first, at most ``limit``."""
    # Each channel's newest message date as well: a text search walks the most recently
    # active channels first.
    channels = await _member_channels(
        viewer_id, broadcasts=broadcasts, groups=groups, folder_id=folder_id, tops=bool(q)
    )
    ids = [r["channel_id"] for r in channels]
    if not ids or limit <= 0 or not (q or media_kinds):
        return []
    params: dict = {"ids": ids, "u": viewer_id, "limit": limit, "vm": banned_bit("view_messages")}
    where = ""
    if q:
        params["p"] = like_pattern(q)
        where += " AND m.message ILIKE %(p)s"
    if media_kinds:
        sql, named = media_condition(media_kinds, alias="m", named="kinds")
        params |= named
        if "url" not in media_kinds:
            where += " AND m.media IS NOT NULL"  # channel_messages_media_date_idx's rows
        elif not q:
            # Links have no index: each channel's newest SEARCH_WINDOW ids, as
            # messages.search scans one chat (the text's trigram index serves it with q).
            params["window"] = SEARCH_WINDOW
            where += (
                " AND m.id > (SELECT c.top_message_id FROM channels c WHERE c.id = m.channel_id) - %(window)s"
            )
        where += sql
    filters = where + _cursor_sql(cursor, params) + _dates_sql(min_date, max_date, params)
    if not q:
        # Media kinds only: channel_messages_media_date_idx per channel, newest first.
        return await db.fetchall_lagging(
            _MEMBERSHIPS
            + f" SELECT {_COLUMNS} FROM channel_messages m JOIN mem ON mem.channel_id = m.channel_id"
            " WHERE m.channel_id = ANY(%(ids)s) AND m.id > mem.available_min_id AND NOT m.deleted"
            " AND m.action IS NULL"
            + filters
            + " ORDER BY m.date DESC, m.channel_id DESC, m.id DESC LIMIT %(limit)s",
            params,
        )
    # A text search costs what its answer does, whether the word is rare or common.
    # The channels most recently active first, the newest messages of the first of
    # them: a common word's page is read there (a GIN index cannot stop early: its
    # bitmap holds every match).
    tops = sorted(channels, key=lambda r: (r["top"], r["channel_id"]), reverse=True)
    walked = await _walk_newest(tops, params, where, cursor, min_date, max_date)
    if walked is not None:
        return walked
    # Then the trigram index once over all the channels, stopping after
    # TRIGRAM_MATCHES_MAX matches: a rare word's matches are all found, then sorted,
    # and only the memberships of the channels they are in are probed.
    # (Joining the memberships to the messages instead ran the trigram scan of a
    # partition once per member channel in it: 35 s for a common word in a 5M group.)
    params["cap"] = TRIGRAM_MATCHES_MAX + 1
    found = await db.fetchall_planned_for_values(
        f"WITH hits AS MATERIALIZED (SELECT {_COLUMNS} FROM channel_messages m"
        # + 0: the channels filter the trigram matches, never drive a loop over them; an
        # array from a subquery is not a constant the planner estimates element by element
        # (a thousand channels took 50-70 ms to plan, every call)
        "   WHERE m.channel_id + 0 = ANY(ARRAY(SELECT unnest(%(ids)s::bigint[]))) AND NOT m.deleted"
        "   AND m.action IS NULL" + filters + " LIMIT %(cap)s),"
        " mem AS MATERIALIZED (SELECT c.id AS channel_id, x.available_min_id"
        "   FROM (SELECT DISTINCT channel_id AS id FROM hits) c CROSS JOIN LATERAL (SELECT status,"
        "   banned_rights, available_min_id FROM channel_members WHERE channel_id = c.id AND user_id = %(u)s"
        "   LIMIT 1) x WHERE x.status = 'active' AND (x.banned_rights & %(vm)s) = 0)"
        " SELECT m.* FROM hits m JOIN mem ON mem.channel_id = m.channel_id WHERE m.id > mem.available_min_id",
        params,
    )  # fmt: skip
    if len(found) <= TRIGRAM_MATCHES_MAX:
        found.sort(key=lambda r: (r["date"], r["channel_id"], r["id"]), reverse=True)
        return found[:limit]
    # A word common beyond the walk: each channel's newest messages in date order,
    # filtered (not through the trigram index: || '' keeps it out), stop at the page.
    return await db.fetchall_planned_for_values(
        _MEMBERSHIPS + f" SELECT x.* FROM mem CROSS JOIN LATERAL (SELECT {_COLUMNS} FROM channel_messages m"
        " WHERE m.channel_id = mem.channel_id AND m.id > mem.available_min_id AND NOT m.deleted"
        " AND m.action IS NULL" + filters.replace("m.message ILIKE", "(m.message || '') ILIKE") +
        " ORDER BY m.date DESC, m.id DESC LIMIT %(limit)s) x"
        " ORDER BY x.date DESC, x.channel_id DESC, x.id DESC LIMIT %(limit)s",
        params,
    )  # fmt: skip


async def _walk_newest(
    tops: list[dict],
    params: dict,
    where: str,
    cursor: tuple[int, int, int, int] | None,
    min_date: int,
    max_date: int,
) -> list[dict] | None:
    """The page of a search when the walk of the viewer's newest messages proves it:
    the newest WALK_ROWS of each of the first WALK_CHANNELS of ``tops`` (the channels
    most recently active first) the viewer may read, then, when a few busy channels
    left it unproved, their newest WALK_DEEP_ROWS; the matches sorted. ``None`` when a
    match the walk did not read could sort into the page (a rare word: the trigram
    index answers it)."""
    walked, rest = tops[:WALK_CHANNELS], tops[WALK_CHANNELS:]
    walk = {**params}
    hit = "true" + where + _cursor_sql(cursor, walk) + _dates_sql(min_date, max_date, walk)
    dates = [d for d in (cursor[0] if cursor else 0, max_date) if d]
    walk["walk_top"] = min(dates) if dates else DATE_MAX
    walk["walk_low"] = min_date
    # What the walk does not read is no newer than the top message of the first channel
    # it leaves out, nor than the oldest date read in each channel it did not finish.
    left_out = min(rest[0]["top"], walk["walk_top"]) if rest else None
    limit = params["limit"]
    found, bound, capped = await _walk(hit, walk, [r["channel_id"] for r in walked], WALK_ROWS)
    if capped and len(capped) <= WALK_DEEP_CHANNELS and not _proved(found, limit, bound, left_out):
        deeper, bound, _ = await _walk(hit, walk, capped, WALK_DEEP_ROWS)
        found = [r for r in found if r["channel_id"] not in capped] + deeper
        found.sort(key=lambda r: (r["date"], r["channel_id"], r["id"]), reverse=True)
        found = found[:limit]
    return found if _proved(found, limit, bound, left_out) else None


def _proved(found: list[dict], limit: int, *bounds: int | None) -> bool:
    """Whether no unread match can sort into the page: ties at a bound's date could be
    unread, so only a page strictly newer than every bound is."""
    known = [b for b in bounds if b is not None]
    return not known or (len(found) >= limit and found[-1]["date"] > max(known))


async def _walk(
    hit: str, params: dict, ids: list[int], rows: int
) -> tuple[list[dict], int | None, list[int]]:
    """The matches among the newest ``rows`` messages of each of channels ``ids`` the
    viewer may read (newest first, at most the page), the oldest date read in the
    channels not finished, and those channels."""
    # Each channel's date index backwards from the newest date the page can hold; the
    # pattern is evaluated in the select list, so no plan turns it into an index scan
    # of every match.
    result = await db.fetchall_lagging(
        _MEMBERSHIPS + ", walk AS MATERIALIZED (SELECT mem.channel_id, w.id, w.date, w.hit FROM mem"
        f"   CROSS JOIN LATERAL (SELECT m.id, m.date, ({hit}) AS hit FROM channel_messages m"
        "     WHERE m.channel_id = mem.channel_id AND m.id > mem.available_min_id AND NOT m.deleted"
        "     AND m.action IS NULL AND m.date <= %(walk_top)s::int AND m.date >= %(walk_low)s::int"
        "     ORDER BY m.date DESC LIMIT %(walk_rows)s) w),"
        " bound AS (SELECT max(low) AS walk_bound, array_agg(channel_id) AS walk_capped FROM"
        "   (SELECT channel_id, min(date) AS low FROM walk GROUP BY channel_id"
        "   HAVING count(*) >= %(walk_rows)s) x)"
        " SELECT bound.walk_bound, bound.walk_capped, m.* FROM bound LEFT JOIN LATERAL"
        f"   (SELECT {_COLUMNS} FROM walk JOIN channel_messages m"
        "     ON m.channel_id = walk.channel_id AND m.id = walk.id WHERE walk.hit"
        "     ORDER BY walk.date DESC, walk.channel_id DESC, walk.id DESC LIMIT %(limit)s) m ON true",
        {**params, "ids": ids, "walk_rows": rows},
    )  # fmt: skip
    bound, capped = result[0]["walk_bound"], result[0]["walk_capped"] or []
    found = [r for r in result if r["id"] is not None]
    for r in found:
        del r["walk_bound"], r["walk_capped"]
    return found, bound, capped


async def search_public_posts(
    viewer_id: int,
    q: str,
    *,
    cursor: tuple[int, int, int, int] | None = None,
    limit: int = limits.SEARCH_GLOBAL_LIMIT,
) -> list[dict]:
    """Messages containing ``q`` (a word or a #hashtag) in public channels and
    supergroups (a username, not deleted), newest first; hidden history is not public."""
    if limit <= 0:
        return []
    params: dict = {"p": like_pattern(q), "limit": limit}
    sql = (
        f"SELECT {_COLUMNS} FROM channel_messages m JOIN channels c ON c.id = m.channel_id"
        " WHERE c.username <> '' AND NOT c.deleted AND NOT c.pre_history_hidden"
        " AND NOT m.deleted AND m.action IS NULL AND m.message ILIKE %(p)s"
        + _cursor_sql(cursor, params)
        + " ORDER BY m.date DESC, m.channel_id DESC, m.id DESC LIMIT %(limit)s"
    )
    rows = await db.fetchall_lagging(sql, params)
    if not rows:
        return []
    # A user the channel banned does not see its posts in search either.
    members = await db.fetchall(
        "SELECT channel_id, status FROM channel_members WHERE channel_id = ANY(%s) AND user_id = %s",
        (sorted({r["channel_id"] for r in rows}), viewer_id),
    )
    barred = {m["channel_id"] for m in members if m["status"] in ("kicked", "banned")}
    return [r for r in rows if r["channel_id"] not in barred]


RECOMMENDATIONS_MAX = 10  # Telegram's recommended_channels_limit_default


async def recommend_channels(viewer_id: int, source_channel_id: int | None) -> list[dict]:
    """Public broadcasts to suggest, the largest first: not the source itself and, with
    no source, none the viewer already follows."""
    exclude = [source_channel_id] if source_channel_id else await member_channel_ids(viewer_id)
    return await db.fetchall(
        f"SELECT {CHANNEL_COLUMNS} FROM channels WHERE broadcast AND username <> '' AND NOT deleted"
        " AND NOT (id = ANY(%s)) ORDER BY participants_count DESC, id LIMIT %s",
        (exclude or [0], RECOMMENDATIONS_MAX),
    )
