"""The channel admin log: persisted, channel-scoped audit events read by channels.getAdminLog.

Events never take channel pts and are never pushed: the admin log page polls. Ids are
per channel, allocated from ``channels.admin_log_seq`` inside the writer's transaction
(the design's choice: this is a page-seek key, not a hot counter). ``actor_user_id`` 0
is the server's operator console (an action a domain function ran with
``actor_user_id=None``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from message_core import db
from message_core.clock import now

from ..errors import ChatAdminRequiredError, LimitInvalidError
from ..rights import is_admin
from .common import jsonb, load_channel, load_member, require_visible

OPERATOR = 0

LIMIT_MAX = 100
ADMINS_MAX = 100
Q_MAX = 128

# channelAdminLogEventsFilter flag -> the event types it selects.
FILTER_TYPES: dict[str, tuple[str, ...]] = {
    "join": ("participant_join", "participant_join_by_invite", "participant_join_by_request"),
    "leave": ("participant_leave",),
    "invite": ("participant_invite",),
    "ban": ("participant_ban",),
    "unban": ("participant_unban",),
    "kick": ("participant_kick",),
    "unkick": ("participant_unkick",),
    "promote": ("participant_promote",),
    "demote": ("participant_demote",),
    "info": (
        "change_title",
        "change_about",
        "change_username",
        "change_photo",
        "change_peer_color",
        "change_profile_peer_color",
        "change_emoji_status",
        "change_linked_chat",
        "change_sticker_set",
        "change_emoji_sticker_set",
    ),
    "settings": (
        "toggle_signatures",
        "toggle_prehistory_hidden",
        "toggle_slow_mode",
        "default_banned_rights",
        "toggle_noforwards",
        "toggle_invites",
        "toggle_antispam",
        "change_available_reactions",
        "toggle_autotranslation",
    ),
    "forums": ("toggle_forum",),
    "pinned": ("update_pinned",),
    "edit": ("edit_message",),
    "delete": ("delete_message",),
    "invites": ("invite_edit", "invite_revoke", "invite_delete"),
    "send": ("send_message",),
}
EVENT_TYPES = frozenset(t for types in FILTER_TYPES.values() for t in types)


def actor_id(actor_user_id: int | None) -> int:
    return OPERATOR if actor_user_id is None else actor_user_id


async def record(
    conn,
    channel_id: int,
    actor_user_id: int | None,
    event_type: str,
    *,
    target_user_id: int = 0,
    data: dict | None = None,
    query: str = "",
    date: int | None = None,
) -> int:
    """Append one event inside the caller's transaction; returns its id."""
    if event_type not in EVENT_TYPES:
        raise ValueError(f"unknown admin log event type {event_type!r}")
    cur = await conn.execute(
        "UPDATE channels SET admin_log_seq = admin_log_seq + 1 WHERE id = %s RETURNING admin_log_seq",
        (channel_id,),
    )
    event_id = (await cur.fetchone())["admin_log_seq"]
    await conn.execute(
        "INSERT INTO channel_admin_log_events (channel_id, id, actor_user_id, date, event_type,"
        " target_user_id, data, query) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
        (
            channel_id,
            event_id,
            actor_id(actor_user_id),
            date or now(),
            event_type,
            target_user_id,
            jsonb(data or {}),
            (query or "")[:4096],
        ),
    )
    return event_id


async def log_event(channel_id: int, actor_user_id: int | None, event_type: str, **kwargs) -> int:
    """``record`` in a transaction of its own, for writers that have already committed
    (the join / leave / invite / send / edit / delete paths of the channel core)."""
    async with db.connection() as conn, conn.transaction():
        return await record(conn, channel_id, actor_user_id, event_type, **kwargs)


@dataclass(slots=True)
class AdminLogPage:
    channel: dict
    events: list[dict]
    user_ids: set[int] = field(default_factory=set)


def event_user_ids(event: dict) -> set[int]:
    """Everyone a client needs to render the event: actor, target, message senders."""
    out = {event["actor_user_id"]} if event["actor_user_id"] else set()
    if event["target_user_id"]:
        out.add(event["target_user_id"])
    data = event["data"] or {}
    for key in ("message", "prev_message", "new_message"):
        m = data.get(key)
        if isinstance(m, dict) and m.get("sender_user_id"):
            out.add(m["sender_user_id"])
    for key in ("prev", "new", "participant"):
        p = data.get(key)
        if isinstance(p, dict):
            for k in ("user_id", "inviter_user_id", "promoted_by", "kicked_by"):
                if p.get(k):
                    out.add(p[k])
    for key in ("invite", "prev_invite", "new_invite"):
        inv = data.get(key)
        if isinstance(inv, dict) and inv.get("admin_user_id"):
            out.add(inv["admin_user_id"])
    if data.get("approved_by"):
        out.add(data["approved_by"])
    return out


async def get_admin_log(
    viewer_id: int | None,
    channel_id: int,
    *,
    q: str = "",
    filters: set[str] | None = None,
    admin_ids: list[int] | None = None,
    max_id: int = 0,
    min_id: int = 0,
    limit: int = 100,
) -> AdminLogPage:
    """channels.getAdminLog: newest first, ``id < max_id`` / ``id > min_id`` seek.

    ``filters`` holds channelAdminLogEventsFilter flag names (empty/None: everything);
    ``admin_ids`` filters by actor. ``viewer_id`` None is the operator console.
    """
    if limit < 0:
        raise LimitInvalidError()
    limit = min(limit or LIMIT_MAX, LIMIT_MAX)
    q = (q or "")[:Q_MAX].strip()
    async with db.connection() as conn:
        channel = await load_channel(conn, channel_id)
        if channel is None:
            from ..errors import ChannelInvalidError

            raise ChannelInvalidError()
        if viewer_id is not None:
            member = await load_member(conn, channel_id, viewer_id)
            require_visible(channel, member)
            if not is_admin(member):
                raise ChatAdminRequiredError()
        where = ["channel_id = %(c)s"]
        params: dict = {"c": channel_id, "lim": limit}
        if filters:
            types = sorted({t for f in filters for t in FILTER_TYPES.get(f, ())})
            if not types:
                return AdminLogPage(channel, [])
            where.append("event_type = ANY(%(types)s)")
            params["types"] = types
        if admin_ids:
            where.append("actor_user_id = ANY(%(admins)s)")
            params["admins"] = list(dict.fromkeys(admin_ids))[:ADMINS_MAX]
        if max_id > 0:
            where.append("id < %(max)s")
            params["max"] = max_id
        if min_id > 0:
            where.append("id > %(min)s")
            params["min"] = min_id
        if q:
            where.append("query ILIKE %(q)s")
            params["q"] = "%" + q.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        cur = await conn.execute(
            "SELECT channel_id, id, actor_user_id, date, event_type, target_user_id, data"
            f" FROM channel_admin_log_events WHERE {' AND '.join(where)} ORDER BY id DESC LIMIT %(lim)s",
            params,
        )
        events = await cur.fetchall()
    users: set[int] = set()
    for e in events:
        users |= event_user_ids(e)
    return AdminLogPage(channel, events, users)
