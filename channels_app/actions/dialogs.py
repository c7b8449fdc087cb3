"""The owner's channel dialogs: list with the design's order and seek cursor, pins,
folders, manual unread marks.

Order: pinned DESC, pinned_order DESC, top_message_date DESC, top_message_id DESC,
channel_id DESC. A send writes no per-member dialog rows (O(1) per message), so the
current top comes from ``channels`` at read time; the per-user set is bounded by
CHANNELS_PER_USER_MAX, so ordering it after two partition-pruned reads is bounded work.
"""

from __future__ import annotations

from .. import db, limits
from ..domain import DialogEntry, Dialogs
from ..errors import FolderIdInvalidError, LimitInvalidError, PinnedDialogsTooMuchError
from .common import CHANNEL_COLUMNS, MEMBER_COLUMNS, MESSAGE_COLUMNS, message_refs

DIALOG_COLUMNS = (
    "user_id, channel_id, folder_id, pinned, pinned_order, top_message_id, top_message_date,"
    " read_inbox_max_id, read_outbox_max_id, unread_count, unread_mentions, unread_mark,"
    " view_forum_as_messages, notify_settings"
)


def _sort_key(e: DialogEntry) -> tuple:
    top = e.top_message
    return (
        e.dialog["pinned"],
        e.dialog["pinned_order"] if e.dialog["pinned"] else 0,
        top["date"] if top else e.channel["date"],
        top["id"] if top else 0,
        e.channel["id"],
    )


async def _entries(
    user_id: int, *, channel_ids: list[int] | None = None, folder_id: int | None = None
) -> list[DialogEntry]:
    async with db.connection() as conn:
        sql = f"SELECT {DIALOG_COLUMNS} FROM channel_dialogs WHERE user_id = %s"
        params: list = [user_id]
        if channel_ids is not None:
            sql += " AND channel_id = ANY(%s)"
            params.append(channel_ids)
        if folder_id is not None:
            sql += " AND folder_id = %s"
            params.append(folder_id)
        cur = await conn.execute(sql + " LIMIT %s", [*params, limits.CHANNELS_PER_USER_MAX])
        dialogs = {r["channel_id"]: r for r in await cur.fetchall()}
        if not dialogs:
            return []
        ids = list(dialogs)
        cur = await conn.execute(
            f"SELECT {CHANNEL_COLUMNS} FROM channels WHERE id = ANY(%s) AND NOT deleted", (ids,)
        )
        channels = {r["id"]: r for r in await cur.fetchall()}
        cur = await conn.execute(
            f"SELECT {MEMBER_COLUMNS} FROM channel_members WHERE channel_id = ANY(%s) AND user_id = %s"
            " AND status = 'active'",
            (ids, user_id),
        )
        members = {r["channel_id"]: r for r in await cur.fetchall()}
        tops = {
            c["id"]: c["top_message_id"]
            for c in channels.values()
            if c["id"] in members and c["top_message_id"] > members[c["id"]]["available_min_id"]
        }
        messages = {}
        if tops:
            cur = await conn.execute(
                f"SELECT {MESSAGE_COLUMNS} FROM channel_messages WHERE channel_id = ANY(%s) AND id = ANY(%s)",
                (list(tops), list(set(tops.values()))),
            )
            messages = {
                r["channel_id"]: r for r in await cur.fetchall() if tops.get(r["channel_id"]) == r["id"]
            }
    out = []
    for cid, d in dialogs.items():
        ch, m = channels.get(cid), members.get(cid)
        if ch is None or m is None:
            continue
        top = messages.get(cid)
        read = max(m["read_inbox_max_id"], m["available_min_id"])
        unread = max(0, (top["id"] if top else 0) - read)
        out.append(DialogEntry(ch, m, d, top, unread))
    return out


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
) -> Dialogs:
    if limit < 0:
        raise LimitInvalidError()
    limit = min(limit or limits.DIALOGS_LIMIT, limits.DIALOGS_LIMIT)
    if folder_id not in (None, 0, 1):
        raise FolderIdInvalidError()
    entries = await _entries(user_id, folder_id=folder_id if folder_id is not None else 0)
    entries.sort(key=_sort_key, reverse=True)
    total = len(entries)
    pinned = [e for e in entries if e.dialog["pinned"]]
    rest = [e for e in entries if not e.dialog["pinned"]]
    if offset_date or offset_id or offset_channel_id:
        # Seek past (offset_date, offset_id, offset_peer) in the non-pinned order.
        cursor = (offset_date, offset_id, offset_channel_id)

        def before(e: DialogEntry) -> bool:
            k = _sort_key(e)
            return (k[2], k[3], k[4]) < cursor

        page = [e for e in rest if before(e)]
    else:
        page = ([] if exclude_pinned else pinned) + rest
    sliced = page[:limit]
    return _result(sliced, total, complete=len(page) <= limit)


async def get_peer_dialogs(user_id: int, channel_ids: list[int]) -> Dialogs:
    entries = await _entries(user_id, channel_ids=channel_ids[: limits.DIALOGS_LIMIT])
    order = {cid: i for i, cid in enumerate(channel_ids)}
    entries.sort(key=lambda e: order.get(e.channel["id"], 0))
    return _result(entries, len(entries), True)


async def get_pinned_dialogs(user_id: int, folder_id: int = 0) -> Dialogs:
    entries = [e for e in await _entries(user_id, folder_id=folder_id) if e.dialog["pinned"]]
    entries.sort(key=_sort_key, reverse=True)
    return _result(entries, len(entries), True)


async def do_toggle_dialog_pin(user_id: int, channel_id: int, pinned: bool) -> bool:
    async with db.connection() as conn, conn.transaction():
        cur = await conn.execute(
            "SELECT folder_id, pinned FROM channel_dialogs WHERE user_id = %s AND channel_id = %s FOR UPDATE",
            (user_id, channel_id),
        )
        row = await cur.fetchone()
        if row is None:
            from ..errors import PeerIdInvalidError

            raise PeerIdInvalidError()
        if row["pinned"] == pinned:
            return False
        if pinned:
            cur = await conn.execute(
                "SELECT count(*) AS n, COALESCE(max(pinned_order), 0) AS mx FROM channel_dialogs"
                " WHERE user_id = %s AND folder_id = %s AND pinned",
                (user_id, row["folder_id"]),
            )
            agg = await cur.fetchone()
            if agg["n"] >= limits.PINNED_DIALOGS_MAX:
                raise PinnedDialogsTooMuchError()
            order = agg["mx"] + 1
        else:
            order = 0
        await conn.execute(
            "UPDATE channel_dialogs SET pinned = %s, pinned_order = %s WHERE user_id = %s AND channel_id = %s",
            (pinned, order, user_id, channel_id),
        )
    return True


async def do_reorder_pinned_dialogs(user_id: int, channel_ids: list[int], folder_id: int = 0) -> None:
    """The given order (first = top) for the user's pinned channel dialogs."""
    channel_ids = channel_ids[: limits.PINNED_DIALOGS_MAX]
    n = len(channel_ids)
    async with db.connection() as conn, conn.transaction():
        await conn.execute(
            "UPDATE channel_dialogs d SET pinned = true, pinned_order = o.ord"
            " FROM unnest(%s::bigint[], %s::int[]) AS o(channel_id, ord)"
            " WHERE d.user_id = %s AND d.channel_id = o.channel_id AND d.folder_id = %s",
            (channel_ids, [n - i for i in range(n)], user_id, folder_id),
        )


async def do_mark_dialog_unread(user_id: int, channel_id: int, unread: bool) -> bool:
    async with db.connection() as conn:
        cur = await conn.execute(
            "UPDATE channel_dialogs SET unread_mark = %s WHERE user_id = %s AND channel_id = %s"
            " AND unread_mark <> %s RETURNING 1",
            (unread, user_id, channel_id, unread),
        )
        return await cur.fetchone() is not None


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
