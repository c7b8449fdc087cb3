"""Discussion groups: a broadcast linked to a megagroup, the forwarded root each new post
gets in the group, the comment counters and the per-thread read marks.

The link is two columns (``channels.linked_chat_id`` on both sides), changed in one
transaction with the rows locked in id order. A post of a linked broadcast is written
with ``discussion_channel_id`` = the group; its root, written in the group right after,
names the post back (``discussion_*``) and the post learns the root's id. A comment is
any group message whose thread top is a root: the root and its post count it
(``replies_*`` on both rows), so history pages render ``messageReplies`` from the row.
"""

from __future__ import annotations

from dataclasses import dataclass

from media_app import actions as media_holders
from message_core import db, limits

from .. import notify
from ..domain import ChannelEvent
from ..errors import (
    BroadcastIdInvalidError,
    ChannelPrivateError,
    LinkNotModifiedError,
    MegagroupIdInvalidError,
    MegagroupPrehistoryHiddenError,
    MsgIdInvalidError,
)
from ..rights import admin_bit
from . import admin_log
from .admin import load_for_actor, publish_channel_updated, require_right
from .common import (
    CHANNEL_COLUMNS,
    MESSAGE_COLUMNS,
    is_active,
    jsonb,
    load_channel,
    now,
    require_visible,
    with_pts,
)

LINK_RIGHT = "change_info"  # on both sides, as Telegram asks of whoever links them
RECENT_REPLIERS = 3
UNREAD_COUNT_MAX = 1000  # getDiscussionMessage counts at most this many unread comments


# ---- the link ----


async def groups_for_discussion(user_id: int) -> list[int]:
    """channels.getGroupsForDiscussion: the active supergroups the user created or may
    change the info of, that no broadcast is linked to yet (newest first, bounded)."""
    rows = await db.fetchall(
        "SELECT c.id FROM user_channel_member_index i"
        # The membership by its key, the status checked above it (see actions.mentions).
        " CROSS JOIN LATERAL (SELECT status, role, admin_rights FROM channel_members"
        "   WHERE channel_id = i.channel_id AND user_id = i.user_id LIMIT 1) m"
        " JOIN channels c ON c.id = i.channel_id"
        " WHERE i.user_id = %(u)s AND i.status = 'active' AND i.megagroup AND NOT i.broadcast AND NOT i.deleted"
        " AND m.status = 'active'"
        " AND (m.role = 'creator' OR (m.role = 'admin' AND m.admin_rights & %(bit)s <> 0))"
        " AND c.megagroup AND NOT c.broadcast AND NOT c.deleted AND c.linked_chat_id = 0"
        " ORDER BY c.id DESC LIMIT %(cap)s",
        {"u": user_id, "bit": admin_bit(LINK_RIGHT), "cap": limits.CHANNELS_PER_USER_MAX},
    )
    return [r["id"] for r in rows]


async def _load_group(actor_id: int | None, group_id: int) -> dict:
    try:
        group, member = await load_for_actor(group_id, actor_id)
    except ChannelPrivateError:
        raise MegagroupIdInvalidError() from None
    if not group["megagroup"] or group["broadcast"]:
        raise MegagroupIdInvalidError()
    require_right(actor_id, member, LINK_RIGHT)
    return group


async def do_set_discussion_group(actor_id: int | None, broadcast_id: int, group_id: int) -> list[int]:
    """channels.setDiscussionGroup. ``group_id`` 0 unlinks the broadcast; ``broadcast_id``
    0 unlinks the group from whichever broadcast it serves. Linking a group (or a
    broadcast) that has another partner takes it away from that partner. Returns the
    channels whose link changed (each gets updateChannel)."""
    if not broadcast_id and not group_id:
        raise BroadcastIdInvalidError()
    group = await _load_group(actor_id, group_id) if group_id else None
    if broadcast_id:
        broadcast, member = await load_for_actor(broadcast_id, actor_id)
        if not broadcast["broadcast"]:
            raise BroadcastIdInvalidError()
        require_right(actor_id, member, LINK_RIGHT)
        if broadcast["linked_chat_id"] == group_id:
            raise LinkNotModifiedError()
    else:
        if not group["linked_chat_id"]:
            raise LinkNotModifiedError()
        broadcast_id = group["linked_chat_id"]
        group_id = 0
    if group_id and group["pre_history_hidden"]:
        raise MegagroupPrehistoryHiddenError()  # comments must stay readable by every joiner
    date = now()
    async with db.connection() as conn, conn.transaction():
        ids = sorted({broadcast_id, group_id} - {0})
        cur = await conn.execute(
            f"SELECT {CHANNEL_COLUMNS} FROM channels WHERE id = ANY(%s) ORDER BY id FOR UPDATE", (ids,)
        )
        locked = {r["id"]: r for r in await cur.fetchall()}
        if broadcast_id not in locked or (group_id and group_id not in locked):
            raise ChannelPrivateError()
        old_group = locked[broadcast_id]["linked_chat_id"]
        old_broadcast = locked[group_id]["linked_chat_id"] if group_id else 0
        if old_group == group_id:
            raise LinkNotModifiedError()
        # (channel, its previous partner, its new partner) for every row that changes
        changes = [(broadcast_id, old_group, group_id)]
        if old_group:
            changes.append((old_group, broadcast_id, 0))
        if group_id:
            changes.append((group_id, old_broadcast, broadcast_id))
            if old_broadcast and old_broadcast != broadcast_id:
                changes.append((old_broadcast, group_id, 0))
        for cid, prev, new in changes:
            # A partner's row is only cleared while it still points back here.
            cur = await conn.execute(
                "UPDATE channels SET linked_chat_id = %s WHERE id = %s AND linked_chat_id = %s RETURNING id",
                (new, cid, prev),
            )
            if await cur.fetchone() is not None:
                await admin_log.record(
                    conn, cid, actor_id, "change_linked_chat", data={"prev": prev, "new": new}, date=date
                )
    touched = [cid for cid, _, _ in changes]
    for cid in touched:
        await publish_channel_updated(cid, [admin_log.actor_id(actor_id)])
    return touched


# ---- roots of new posts ----


async def create_roots(broadcast: dict, events: list[ChannelEvent]) -> list[ChannelEvent]:
    """After new posts of a linked broadcast committed: their forwarded roots in the
    discussion group (one pts event each), and each post learns its root's id."""
    group_id = broadcast.get("linked_chat_id") or 0
    posts = [
        e.message for e in events if e.type == "new_message" and e.message and not e.message.get("action")
    ]
    if not group_id or not posts or not broadcast["broadcast"]:
        return []
    async with db.connection() as conn:
        group = await load_channel(conn, group_id)
    if group is None or group["deleted"] or group["linked_chat_id"] != broadcast["id"]:
        return []
    n = len(posts)
    date = now()
    bid = broadcast["id"]

    async def body(conn, last_id, last_pts):
        snaps = []
        for p, mid, pts in zip(
            posts, range(last_id - n + 1, last_id + 1), range(last_pts - n + 1, last_pts + 1), strict=True
        ):
            fwd = {
                "from_channel_id": bid,
                "channel_post": p["id"],
                "post_author": p.get("post_author") or "",
                "date": p["date"],
                "saved_from_channel_id": bid,
                "saved_from_msg_id": p["id"],
            }
            snaps.append({
                "channel_id": group_id, "id": mid, "sender_user_id": 0, "date": date, "edit_date": 0,
                "post": False, "silent": True, "noforwards": bool(p.get("noforwards")), "post_author": "",
                "message": p.get("message") or "", "entities": p.get("entities") or [], "reply_to_msg_id": 0,
                "reply_to_top_id": 0, "reply_to_user_id": 0, "forum_topic": False, "fwd_from": fwd,
                "action": None, "pts": pts, "deleted": False, "media": p.get("media"),
                "grouped_id": p.get("grouped_id") or 0, "send_as_channel_id": bid,
                "discussion_channel_id": bid, "discussion_message_id": p["id"], "replies_count": 0,
                "replies_max_id": 0, "replies_pts": pts, "recent_repliers": None,
            })  # fmt: skip
        await conn.execute(
            "INSERT INTO channel_messages (channel_id, id, random_id, sender_user_id, date, edit_date, post,"
            " silent, noforwards, post_author, message, entities, reply_to_msg_id, reply_to_top_id,"
            " reply_to_user_id, fwd_from, action, pts, deleted, media, grouped_id, forum_topic,"
            " send_as_channel_id, discussion_channel_id, discussion_message_id, replies_pts)"
            " SELECT %(c)s, r.id, NULL, 0, %(d)s, 0, false, true, r.nf, '', r.message, r.entities::jsonb, 0, 0, 0,"
            " r.fwd::jsonb, NULL, r.pts, false, r.media::jsonb, r.grouped, false, %(b)s, %(b)s, r.post, r.pts"
            " FROM unnest(%(ids)s::int[], %(texts)s::text[], %(ents)s::text[], %(fwds)s::text[], %(ptss)s::int[],"
            " %(medias)s::text[], %(groupeds)s::bigint[], %(posts)s::int[], %(nfs)s::bool[])"
            " AS r(id, message, entities, fwd, pts, media, grouped, post, nf)",
            {
                "c": group_id, "d": date, "b": bid, "ids": [s["id"] for s in snaps],
                "texts": [s["message"] for s in snaps], "ents": [jsonb(s["entities"]) for s in snaps],
                "fwds": [jsonb(s["fwd_from"]) for s in snaps], "ptss": [s["pts"] for s in snaps],
                "medias": [jsonb(s["media"]) for s in snaps], "groupeds": [s["grouped_id"] for s in snaps],
                "posts": [p["id"] for p in posts], "nfs": [s["noforwards"] for s in snaps],
            },
        )  # fmt: skip
        await conn.execute(
            "INSERT INTO channel_update_events (channel_id, pts, pts_count, type, date, message_id, message_ids,"
            " sender_user_id, user_ids, payload)"
            " SELECT %s, r.pts, 1, 'new_message', %s, r.id, '[]', 0, '[]', r.payload::jsonb"
            " FROM unnest(%s::int[], %s::int[], %s::text[]) AS r(id, pts, payload)",
            (group_id, date, [s["id"] for s in snaps], [s["pts"] for s in snaps], [jsonb(s) for s in snaps]),
        )
        await conn.execute(
            "UPDATE channels SET top_message_id = GREATEST(top_message_id, %s),"
            " top_message_date = GREATEST(top_message_date, %s), pts = GREATEST(pts, %s) WHERE id = %s",
            (last_id, date, last_pts, group_id),
        )
        await conn.execute(
            "UPDATE channel_messages p SET discussion_message_id = r.root, replies_pts = r.pts"
            " FROM unnest(%s::int[], %s::int[], %s::int[]) AS r(post, root, pts)"
            " WHERE p.channel_id = %s AND p.id = r.post",
            ([p["id"] for p in posts], [s["id"] for s in snaps], [s["pts"] for s in snaps], bid),
        )
        return [ChannelEvent(group_id, s["pts"], 1, "new_message", date, s) for s in snaps]

    roots = await with_pts(group_id, n, body, message_ids=n)
    keys = [k for p in posts for k in media_holders.media_keys(p.get("media"))]
    if keys:
        await media_holders.do_add_holders(keys, "c", [group_id])
    for ev in roots:
        await notify.publish(
            "channel.event", {"event": ev.to_payload(), "extra_user_ids": [], "exclude_user_id": 0}
        )
    return roots


# ---- comments ----

_COUNT_REPLY = f"""
UPDATE channel_messages SET replies_count = replies_count + 1,
  replies_max_id = GREATEST(replies_max_id, %(id)s), replies_pts = GREATEST(replies_pts, %(pts)s),
  recent_repliers = jsonb_path_query_array(
    jsonb_build_array(%(peer)s::bigint) || COALESCE((SELECT jsonb_agg(e) FROM
      jsonb_array_elements(COALESCE(recent_repliers, '[]'::jsonb)) e WHERE e <> to_jsonb(%(peer)s::bigint)),
      '[]'::jsonb),
    '$[0 to {RECENT_REPLIERS - 1}]')
WHERE channel_id = %(c)s AND id = %(top)s AND NOT deleted
RETURNING discussion_channel_id, discussion_message_id
"""


async def count_reply(channel: dict, message: dict) -> None:
    """A new message in a megagroup thread: the thread's root (and, for a discussion
    root, its post in the broadcast) counts it as a reply from its sender."""
    top = message.get("reply_to_top_id") or 0
    if not top or not channel["megagroup"]:
        return
    peer = -message["send_as_channel_id"] if message.get("send_as_channel_id") else message["sender_user_id"]
    params = {"id": message["id"], "pts": message["pts"], "peer": peer}
    async with db.connection() as conn, conn.transaction():
        cur = await conn.execute(_COUNT_REPLY, {**params, "c": channel["id"], "top": top})
        root = await cur.fetchone()
        if (
            root
            and root["discussion_channel_id"]
            and root["discussion_channel_id"] == channel["linked_chat_id"]
        ):
            await conn.execute(
                _COUNT_REPLY,
                {**params, "c": root["discussion_channel_id"], "top": root["discussion_message_id"]},
            )


# ---- threads seen through a post ----


@dataclass(slots=True)
class Thread:
    channel_id: int  # where the thread's messages live (the group, for a post)
    top_id: int  # the thread's root message there
    post: dict | None = None  # the broadcast post, when asked through it
    root: dict | None = None


async def resolve_thread(viewer_id: int, channel: dict, member: dict | None, msg_id: int) -> Thread:
    """The thread ``msg_id`` of ``channel`` opens: a post of a linked broadcast maps to
    its root in the discussion group (MSG_ID_INVALID for a post without comments);
    anything else is its own channel's thread (the caller checks that root)."""
    if not channel["broadcast"]:
        return Thread(channel["id"], msg_id)
    if not 0 < msg_id <= limits.MAX_MESSAGE_ID:
        raise MsgIdInvalidError()
    require_visible(channel, member, allow_public_preview=True)
    floor = member["available_min_id"] if is_active(member) else 0
    async with db.connection() as conn:
        cur = await conn.execute(
            f"SELECT {MESSAGE_COLUMNS} FROM channel_messages WHERE channel_id = %s AND id = %s AND NOT deleted",
            (channel["id"], msg_id),
        )
        post = await cur.fetchone()
        if post is None or post["id"] <= floor or not post["discussion_message_id"]:
            raise MsgIdInvalidError()
        group = await load_channel(conn, post["discussion_channel_id"])
        cur = await conn.execute(
            f"SELECT {MESSAGE_COLUMNS} FROM channel_messages WHERE channel_id = %s AND id = %s AND NOT deleted",
            (post["discussion_channel_id"], post["discussion_message_id"]),
        )
        root = await cur.fetchone()
    if group is None or group["deleted"] or root is None:
        raise MsgIdInvalidError()
    return Thread(group["id"], root["id"], post=post, root=root)


async def thread_read_marks(viewer_id: int, channel_id: int, tops: list[int]) -> dict[int, int]:
    if not tops:
        return {}
    rows = await db.fetchall(
        "SELECT top_msg_id, read_max_id FROM channel_thread_reads"
        " WHERE user_id = %s AND channel_id = %s AND top_msg_id = ANY(%s)",
        (viewer_id, channel_id, tops),
    )
    return {r["top_msg_id"]: r["read_max_id"] for r in rows}


async def attach_read_marks(viewer_id: int, messages: list[dict]) -> None:
    """Give each thread root and each commented post the viewer's read mark in its
    thread (messageReplies.read_max_id), one query per channel involved."""
    by_channel: dict[int, list[tuple[dict, int]]] = {}
    for m in messages:
        if not m or m.get("empty") or not (m.get("replies_count") or m.get("discussion_message_id")):
            continue
        if m.get("post") and m.get("discussion_channel_id"):
            by_channel.setdefault(m["discussion_channel_id"], []).append((m, m["discussion_message_id"]))
        elif not m.get("post"):
            by_channel.setdefault(m["channel_id"], []).append((m, m["id"]))
    for cid, pairs in by_channel.items():
        marks = await thread_read_marks(viewer_id, cid, [top for _, top in pairs if top])
        for m, top in pairs:
            if top in marks:
                m["thread_read_max_id"] = marks[top]


async def thread_state(viewer_id: int, channel_id: int, top_id: int) -> dict:
    """The viewer's read mark in a thread, the thread's newest message and how many of
    the others' messages after the mark are unread (bounded)."""
    mark = (await thread_read_marks(viewer_id, channel_id, [top_id])).get(top_id, 0)
    row = await db.fetchone(
        "SELECT (SELECT max(id) FROM channel_messages WHERE channel_id = %(c)s AND reply_to_top_id = %(t)s"
        "   AND NOT deleted) AS max_id,"
        " (SELECT count(*) FROM (SELECT 1 FROM channel_messages WHERE channel_id = %(c)s AND reply_to_top_id = %(t)s"
        "   AND NOT deleted AND id > %(m)s AND sender_user_id <> %(v)s LIMIT %(cap)s) x) AS unread",
        {"c": channel_id, "t": top_id, "m": mark, "v": viewer_id, "cap": UNREAD_COUNT_MAX},
    )
    return {"read_max_id": mark, "max_id": row["max_id"] or 0, "unread_count": row["unread"]}


async def do_read_thread(viewer_id: int, channel_id: int, top_id: int, read_max_id: int) -> int | None:
    """messages.readDiscussion: raise the viewer's mark in the thread (never lower it,
    never past the thread's newest message). Returns the new mark, None if unchanged."""
    if read_max_id <= 0:
        return None
    async with db.connection() as conn, conn.transaction():
        cur = await conn.execute(
            "SELECT max(id) AS max_id FROM channel_messages WHERE channel_id = %s AND reply_to_top_id = %s"
            " AND NOT deleted",
            (channel_id, top_id),
        )
        newest = (await cur.fetchone())["max_id"] or 0
        mark = min(read_max_id, newest)
        if mark <= 0:
            return None
        cur = await conn.execute(
            "INSERT INTO channel_thread_reads (user_id, channel_id, top_msg_id, read_max_id, date)"
            " VALUES (%(u)s, %(c)s, %(t)s, %(m)s, %(d)s) ON CONFLICT (user_id, channel_id, top_msg_id)"
            " DO UPDATE SET read_max_id = EXCLUDED.read_max_id, date = EXCLUDED.date"
            " WHERE channel_thread_reads.read_max_id < EXCLUDED.read_max_id RETURNING read_max_id",
            {"u": viewer_id, "c": channel_id, "t": top_id, "m": mark, "d": now()},
        )
        row = await cur.fetchone()
    return row["read_max_id"] if row else None
