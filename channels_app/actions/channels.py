"""Create, invite, join, leave and read channel state."""

from __future__ import annotations

import secrets

from message_core import db, limits
from message_core.clock import now
from stickers_app import groups as sticker_groups
from tl.errors import BotGroupsBlockedError, UserPrivacyRestrictedError

from .. import counters
from ..domain import ChannelChange
from ..errors import (
    AddressInvalidError,
    ChannelInvalidError,
    ChannelPrivateError,
    ChannelsTooMuchError,
    ChatAboutTooLongError,
    ChatAdminRequiredError,
    ChatInvalidError,
    ChatTitleEmptyError,
    TtlPeriodInvalidError,
    UserAlreadyParticipantError,
    UserKickedError,
    UserNotParticipantError,
    UsersTooFewError,
    UsersTooMuchError,
)
from ..join_settings import get_join_settings
from ..rights import (
    CREATOR_RIGHTS,
    CREATOR_RIGHTS_BROADCAST,
    banned_bit,
    effective_banned,
    has_admin_right,
    is_admin,
)
from . import admin_log, invites, send_as
from .common import (
    CHANNEL_COLUMNS,
    MEMBER_COLUMNS,
    insert_service_message,
    is_active,
    load_channel,
    load_channel_and_member,
    load_member,
    may_address,
    with_pts,
)
from .dialogs import count_unread
from .membership import activate_members, search_user_ids, upsert_members

# What a new channel starts with for the appearance and paid settings (actions/settings).
NEW_CHANNEL_APPEARANCE = {
    "color": None,
    "color_background_emoji_id": None,
    "profile_color": None,
    "profile_background_emoji_id": None,
    "emoji_status_document_id": None,
    "emoji_status_until": None,
    "autotranslation": False,
    "restricted_sponsored": False,
    "send_paid_messages_stars": None,
    "broadcast_messages_allowed": False,
    "linked_chat_id": 0,
    "forum_tabs": False,
}


def _clean_title(title: str) -> str:
    title = (title or "").strip()
    if not title:
        raise ChatTitleEmptyError()
    return title[: limits.TITLE_MAX]


async def _active_channel_count(conn, user_id: int) -> int:
    cur = await conn.execute(
        "SELECT count(*) AS n FROM user_channel_member_index WHERE user_id = %s AND status = 'active'",
        (user_id,),
    )
    return (await cur.fetchone())["n"]


async def do_create_channel(
    creator_id: int,
    title: str,
    *,
    about: str = "",
    broadcast: bool = False,
    megagroup: bool = False,
    for_import: bool = False,
    has_geo: bool = False,
    ttl_period: int | None = None,
    invite_user_ids: list[int] = (),
    from_create_chat: bool = False,
) -> ChannelChange:
    """channels.createChannel, and messages.createChat (always a megagroup)."""
    if from_create_chat:
        broadcast, megagroup = False, True
        invitees = [u for u in dict.fromkeys(invite_user_ids) if u != creator_id]
        if not invitees:
            raise UsersTooFewError()
    else:
        invitees = [u for u in dict.fromkeys(invite_user_ids) if u != creator_id]
        if broadcast and megagroup:
            raise ChannelInvalidError()
        if not broadcast and not megagroup:
            broadcast = True  # what Telegram does for a createChannel without type flags
    if len(invitees) > limits.CREATE_CHAT_USERS_MAX:
        raise UsersTooMuchError()
    restricted = await _privacy_restricted(creator_id, invitees)
    invitees = [u for u in invitees if u not in restricted]
    if for_import:
        raise ChatInvalidError()  # no history import model
    if has_geo:
        raise AddressInvalidError()  # no geogroup / location model
    if ttl_period is not None and ttl_period < 0:
        raise TtlPeriodInvalidError()
    title = _clean_title(title)
    about = about or ""
    if len(about) > limits.ABOUT_MAX:
        raise ChatAboutTooLongError()

    async with db.connection() as conn:
        if await _active_channel_count(conn, creator_id) >= limits.CHANNELS_PER_USER_MAX:
            raise ChannelsTooMuchError()

    channel_id = await counters.next_channel_id()
    date = now()
    channel = {
        "id": channel_id,
        "access_hash": secrets.randbits(63),
        "title": title,
        "about": about,
        "username": "",
        "creator_user_id": creator_id,
        "broadcast": broadcast,
        "megagroup": megagroup,
        "forum": False,
        "signatures": False,
        "pre_history_hidden": False,
        "participants_hidden": False,
        "noforwards": False,
        "slowmode_seconds": 0,
        "ttl_period": ttl_period or 0,
        "date": date,
        "participants_count": 1 + len(invitees),
        "admins_count": 1,
        "kicked_count": 0,
        "banned_count": 0,
        "default_banned_rights": 0,
        "top_message_id": 0,
        "top_message_date": 0,
        "pinned_message_id": 0,
        "pts": 0,
        "deleted": False,
        "bot_members": 0,  # the trigger counts the bots among the first members
        "call_id": 0,
        "call_access_hash": 0,
        "call_not_empty": False,
        "available_reactions": None,
        "reactions_limit": 0,
        "photo": None,
        **NEW_CHANNEL_APPEARANCE,
    }

    async def body(conn, msg_id, pts):
        channel.update(top_message_id=msg_id, top_message_date=date, pts=pts)
        cols = [c.strip() for c in CHANNEL_COLUMNS.split(",")]
        await conn.execute(
            f"INSERT INTO channels ({', '.join(cols)}) VALUES ({', '.join(['%s'] * len(cols))})",
            [channel[c] for c in cols],
        )
        rights = CREATOR_RIGHTS_BROADCAST if broadcast else CREATOR_RIGHTS
        await upsert_members(
            conn, channel, [creator_id], inviter=creator_id, date=date, read_inbox=msg_id,
            available_min_id=0, available_min_pts=0, role="creator", admin_rights=rights,
        )  # fmt: skip
        # Invitees start before the creation message: it is their first unread.
        await upsert_members(
            conn, channel, invitees, inviter=creator_id, date=date, read_inbox=0,
            available_min_id=0, available_min_pts=0,
        )  # fmt: skip
        action = {"_": "channelCreate", "title": title}
        return await insert_service_message(conn, channel, msg_id, pts, creator_id, action, date)

    event = await with_pts(channel_id, 1, body, message_ids=1)
    change = ChannelChange(
        channel=channel, events=[event], user_ids={creator_id, *invitees}, missing_user_ids=restricted
    )
    from .. import notify

    await notify.publish(
        "channel.event",
        {"event": event.to_payload(), "extra_user_ids": invitees, "exclude_user_id": creator_id},
    )
    return change


def _can_invite(channel: dict, actor: dict | None) -> bool:
    if not is_active(actor):
        return False
    if has_admin_right(actor, "invite_users"):
        return True
    if channel["broadcast"]:
        return False
    return not effective_banned(actor, channel, now()) & banned_bit("invite_users")


async def do_invite_to_channel(actor_id: int, channel_id: int, user_ids: list[int]) -> ChannelChange:
    user_ids = [u for u in dict.fromkeys(user_ids) if u != actor_id]
    if not user_ids:
        raise UsersTooFewError()
    if len(user_ids) > limits.INVITE_USERS_MAX:
        raise UsersTooMuchError()
    async with db.connection() as conn:
        channel = await load_channel(conn, channel_id)
        if channel is None or channel["deleted"]:
            raise ChannelPrivateError()
        actor = await load_member(conn, channel_id, actor_id)
        if not is_active(actor):
            raise ChannelPrivateError()
        if not _can_invite(channel, actor):
            raise ChatAdminRequiredError()
        cur = await conn.execute(
            f"SELECT {MEMBER_COLUMNS} FROM channel_members WHERE channel_id = %s AND user_id = ANY(%s)",
            (channel_id, user_ids),
        )
        existing = {r["user_id"]: r for r in await cur.fetchall()}
    can_unban = has_admin_right(actor, "ban_users")
    add, restored_kicked, skipped = [], 0, []
    for uid in user_ids:
        row = existing.get(uid)
        if row is None or row["status"] == "left":
            add.append(uid)
        elif row["status"] == "active":
            if len(user_ids) == 1:
                raise UserAlreadyParticipantError()
            skipped.append(uid)
        else:  # kicked / banned
            if not can_unban:
                if len(user_ids) == 1:
                    raise UserKickedError()
                skipped.append(uid)
                continue
            add.append(uid)
            restored_kicked += 1
    if channel["megagroup"] and add:
        blocked = await _bots_refusing_groups(add)
        if blocked:
            if len(user_ids) == 1:
                raise BotGroupsBlockedError()
            add = [u for u in add if u not in blocked]
    restricted = await _privacy_restricted(actor_id, add)
    if restricted:
        if len(user_ids) == 1:
            raise UserPrivacyRestrictedError()
        add = [u for u in add if u not in restricted]
    if not add:
        return ChannelChange(channel=channel, user_ids={actor_id}, missing_user_ids=restricted)
    change = await activate_members(
        channel, add, inviter=actor_id, actor_id=actor_id, join=False, restored_kicked=restored_kicked
    )
    change.missing_user_ids = restricted
    return change


BOTS_IN_FULL_MAX = 50


async def member_bot_ids(channel: dict) -> list[int]:
    """The bots among the channel's active members (channelFull.bot_info), capped.

    The channel row counts them (``bot_members``, kept by a trigger): most groups have
    none and read nothing; otherwise the bots (users_bots_idx) probe the membership,
    never every member joined with the users (112 ms in a 50k-member group, on every
    getFullChannel)."""
    if not channel.get("bot_members", 1):
        return []
    async with db.connection() as conn:
        cur = await conn.execute(
            "SELECT m.user_id FROM users u JOIN channel_members m ON m.channel_id = %s AND m.user_id = u.id"
            " WHERE u.bot IS NOT NULL AND m.status = 'active' ORDER BY m.joined_at LIMIT %s",
            (channel["id"], BOTS_IN_FULL_MAX),
        )
        return [r["user_id"] for r in await cur.fetchall()]


async def _bots_refusing_groups(user_ids: list[int]) -> set[int]:
    """The bots among ``user_ids`` whose owner turned "can join groups" off (bots_app
    keeps the flag on the user row)."""
    async with db.connection() as conn:
        cur = await conn.execute(
            "SELECT id FROM users WHERE id = ANY(%s) AND (bot->>'nochats')::boolean", (user_ids,)
        )
        return {r["id"] for r in await cur.fetchall()}


async def _privacy_restricted(actor_id: int, user_ids: list[int]) -> list[int]:
    """The invitees whose "chat invites" privacy does not allow ``actor_id``."""
    from asgiref.sync import sync_to_async

    from accounts_app.privacy import check_can_invite

    return await sync_to_async(check_can_invite)(actor_id, user_ids) if user_ids else []


async def do_join_channel(user_id: int, channel_id: int) -> ChannelChange:
    async with db.connection() as conn:
        channel = await load_channel(conn, channel_id)
        if channel is None or channel["deleted"]:
            raise ChannelPrivateError()
        member = await load_member(conn, channel_id, user_id)
        if is_active(member):
            raise UserAlreadyParticipantError()
        if member is not None and member["status"] in ("kicked", "banned"):
            raise ChannelPrivateError()
        if not channel["username"]:
            raise ChannelPrivateError()  # private channels are joined through an invite link
        if await _active_channel_count(conn, user_id) >= limits.CHANNELS_PER_USER_MAX:
            raise ChannelsTooMuchError()
    await invites.request_join_if_needed(channel, user_id)
    return await activate_members(channel, [user_id], inviter=user_id, actor_id=user_id, join=True)


async def _successor(conn, channel_id: int, leaving: int) -> dict | None:
    """Who inherits a megagroup/channel whose creator leaves: the longest-serving admin,
    else the longest-standing member."""
    cur = await conn.execute(
        "SELECT user_id, role FROM channel_members WHERE channel_id = %s AND status = 'active' AND user_id <> %s"
        " ORDER BY (role = 'admin') DESC, joined_at ASC, user_id ASC LIMIT 1",
        (channel_id, leaving),
    )
    return await cur.fetchone()


async def do_leave_channel(user_id: int, channel_id: int) -> ChannelChange:
    async with db.connection() as conn:
        channel = await load_channel(conn, channel_id)
        if channel is None or channel["deleted"]:
            raise ChannelPrivateError()
        member = await load_member(conn, channel_id, user_id)
        if not is_active(member):
            raise UserNotParticipantError()
    date = now()
    heir: list[int | None] = [None]

    async def body(conn, msg_id, pts):
        locked_member = await load_member(conn, channel_id, user_id, lock=True)
        if not is_active(locked_member):
            raise UserNotParticipantError()
        role = locked_member["role"]
        new_role = role
        admin_delta = 1 if role in ("creator", "admin") else 0
        if role == "creator":
            heir_row = await _successor(conn, channel_id, user_id)
            if heir_row is not None:
                successor = heir_row["user_id"]
                if heir_row["role"] == "member":
                    admin_delta -= 1  # the heir starts counting as an admin
                rights = CREATOR_RIGHTS_BROADCAST if channel["broadcast"] else CREATOR_RIGHTS
                await conn.execute(
                    "UPDATE channel_members SET role = 'creator', admin_rights = %s"
                    " WHERE channel_id = %s AND user_id = %s",
                    (rights, channel_id, successor),
                )
                await conn.execute(
                    "UPDATE channels SET creator_user_id = %s WHERE id = %s", (successor, channel_id)
                )
                heir[0] = successor
                new_role = "member"
        await conn.execute(
            "UPDATE channel_members SET status = 'left', left_at = %s, role = %s,"
            " admin_rights = CASE WHEN %s = 'member' THEN 0 ELSE admin_rights END"
            " WHERE channel_id = %s AND user_id = %s",
            (date, new_role, new_role, channel_id, user_id),
        )
        await conn.execute(
            "UPDATE user_channel_member_index SET status = 'left' WHERE user_id = %s AND channel_id = %s",
            (user_id, channel_id),
        )
        await conn.execute(
            "DELETE FROM channel_dialogs WHERE user_id = %s AND channel_id = %s", (user_id, channel_id)
        )
        await admin_log.record(
            conn, channel_id, user_id, "participant_leave", target_user_id=user_id, date=date
        )
        await conn.execute(
            "UPDATE channels SET participants_count = GREATEST(0, participants_count - 1),"
            " admins_count = GREATEST(0, admins_count - %s) WHERE id = %s",
            (admin_delta, channel_id),
        )
        if msg_id is not None:
            action = {"_": "chatDeleteUser", "user_id": user_id}
            locked = await load_channel(conn, channel_id)
            return await insert_service_message(conn, locked, msg_id, pts, user_id, action, date)
        return None

    if channel["megagroup"]:
        event = await with_pts(channel_id, 1, body, message_ids=1)
    else:
        async with db.connection() as conn, conn.transaction():
            event = await body(conn, None, None)
    async with db.connection() as conn:
        fresh = await load_channel(conn, channel_id)
    change = ChannelChange(channel=fresh, events=[event] if event else [], user_ids={user_id})
    if heir[0]:
        change.user_ids.add(heir[0])
    from .. import notify

    if event:
        await notify.publish(
            "channel.event", {"event": event.to_payload(), "extra_user_ids": [user_id], "exclude_user_id": 0}
        )
    await notify.publish("channel.updated", {"channel_id": channel_id, "user_ids": sorted(change.user_ids)})
    return change


async def get_channels(
    viewer_id: int, refs: list[tuple[int, int | None]], *, strict: bool = False
) -> list[tuple[dict, dict | None]]:
    """channels.getChannels / messages.getChats: exact ids (cap 100). A reference the
    viewer cannot resolve (unknown id, non-zero access_hash that does not match, hash 0
    without membership) is skipped, or with ``strict`` (channels.getChannels, as
    Telegram) fails the request: CHANNEL_INVALID for an id naming no channel,
    CHANNEL_PRIVATE for a channel the viewer may not see (the rule of
    get_channel_for_viewer)."""
    refs = refs[: limits.GET_CHANNELS_MAX]
    ids = [cid for cid, _ in refs]
    if not ids:
        return []
    async with db.connection() as conn:
        cur = await conn.execute(f"SELECT {CHANNEL_COLUMNS} FROM channels WHERE id = ANY(%s)", (ids,))
        channels = {r["id"]: r for r in await cur.fetchall()}
        cur = await conn.execute(
            f"SELECT {MEMBER_COLUMNS} FROM channel_members WHERE channel_id = ANY(%s) AND user_id = %s",
            (ids, viewer_id),
        )
        members = {r["channel_id"]: r for r in await cur.fetchall()}
    out = []
    for cid, access_hash in refs:
        ch = channels.get(cid)
        member = members.get(cid)
        if ch is None:
            if strict:
                raise ChannelInvalidError()
            continue
        if not may_address(ch, member, access_hash):
            if strict:
                raise ChannelPrivateError()
            continue
        out.append((ch, member))
    return out


async def get_channel_for_viewer(
    viewer_id: int, channel_id: int, access_hash: int | None, *, preview: bool = False
):
    """The checked (channel, member) of an InputChannel: a non-zero access_hash must match
    (CHANNEL_PRIVATE otherwise); hash 0 (min / internal paths) needs membership."""
    channel, member = await load_channel_and_member(channel_id, viewer_id)
    if not may_address(channel, member, access_hash, preview=preview):
        raise ChannelPrivateError()
    return channel, member


async def get_full_channel(viewer_id: int, channel_id: int, access_hash: int | None) -> dict:
    from .common import require_visible

    channel, member = await get_channel_for_viewer(viewer_id, channel_id, access_hash, preview=True)
    require_visible(channel, member, allow_public_preview=True)
    async with db.connection() as conn:
        cur = await conn.execute(
            "SELECT * FROM channel_dialogs WHERE user_id = %s AND channel_id = %s", (viewer_id, channel_id)
        )
        dialog = await cur.fetchone()
        read_inbox = (
            max(member["read_inbox_max_id"], member["available_min_id"])
            if is_active(member)
            else channel["top_message_id"]
        )
        unread = await count_unread(conn, channel_id, read_inbox) if is_active(member) else 0
    return {
        "channel": channel,
        "member": member,
        "dialog": dialog,
        "read_inbox_max_id": read_inbox,
        "read_outbox_max_id": member["read_outbox_max_id"] if member else 0,
        "unread_count": unread,
        "available_min_id": member["available_min_id"] if member else 0,
        "is_admin": is_admin(member),
        "join_settings": (await get_join_settings([channel_id])).get(channel_id),
        "viewer_id": viewer_id,
        "default_send_as": send_as.full_default(channel, member, dialog),
        # exported_invite / requests_pending / recent_requesters, for admins who may invite
        **(await invites.full_channel_extras(viewer_id, channel, member)),
        "sticker_sets": await sticker_groups.group_sets(channel_id, viewer_id)
        if channel["megagroup"]
        else {},
        "can_set_stickers": bool(channel["megagroup"]) and has_admin_right(member, "change_info"),
    }


PARTICIPANT_FILTERS = ("recent", "admins", "kicked", "banned", "bots", "search", "contacts", "mentions")


async def get_participants(
    viewer_id: int, channel: dict, member: dict | None, kind: str, q: str, offset: int, limit: int
) -> tuple[int, list[dict]]:
    """channels.getParticipants: (count, member rows). Caps: limit 200, offset 10000, q 128."""
    from ..errors import LimitInvalidError, OffsetInvalidError

    if kind not in PARTICIPANT_FILTERS:
        raise ChannelInvalidError()
    if limit < 0:
        raise LimitInvalidError()
    if offset < 0:
        raise OffsetInvalidError()
    limit = min(limit, limits.PARTICIPANTS_LIMIT)
    offset = min(offset, limits.PARTICIPANTS_OFFSET_MAX)
    q = (q or "")[: limits.PARTICIPANTS_Q_MAX].strip()
    admin = is_admin(member)
    if not is_active(member):
        raise ChannelPrivateError()
    if kind in ("kicked", "banned") and not has_admin_right(member, "ban_users"):
        raise ChatAdminRequiredError()
    if channel["broadcast"] and not admin:
        raise ChatAdminRequiredError()
    if kind == "contacts":
        return 0, []  # contacts belong to accounts (not exposed)
    if channel["participants_hidden"] and not admin and kind != "admins":
        return channel["participants_count"], []
    where = "channel_id = %(c)s"
    if kind == "admins":
        where += " AND status = 'active' AND role IN ('creator', 'admin')"
        order = "(role = 'creator') DESC, joined_at ASC, user_id ASC"
    elif kind == "kicked":
        where += " AND status = 'kicked'"
        order = "left_at DESC, user_id DESC"
    elif kind == "banned":
        where += " AND ((status = 'active' AND banned_rights <> 0) OR status = 'banned')"
        order = "joined_at DESC, user_id DESC"
    elif kind == "bots":
        where += " AND status = 'active' AND user_id IN (SELECT id FROM users WHERE bot IS NOT NULL)"
        order = "joined_at DESC, user_id DESC"
    else:
        where += " AND status = 'active'"
        order = "joined_at DESC, user_id DESC"
    params = {"c": channel["id"], "lim": limit, "off": offset}
    source = "channel_members"
    if q:
        ids = await search_user_ids(q)
        if ids is None:
            return 0, []
        # One primary-key probe per candidate (at most 1000), never a walk over every
        # member filtered by the candidates (50k rows in a 50k-member group). LIMIT 1
        # keeps the planner from flattening the probe into that walk.
        source = (
            "(SELECT m.* FROM unnest(%(ids)s::bigint[]) AS s(id) CROSS JOIN LATERAL"
            " (SELECT * FROM channel_members WHERE channel_id = %(c)s AND user_id = s.id LIMIT 1) m) channel_members"
        )
        params["ids"] = ids
    async with db.connection() as conn:
        # The active members in "recent" order: channel_members_recent_idx, a page of it.
        cur = await conn.execute(
            f"SELECT {MEMBER_COLUMNS} FROM {source} WHERE {where} ORDER BY {order}"
            " LIMIT %(lim)s OFFSET %(off)s",
            params,
        )
        rows = await cur.fetchall()
        if kind in ("recent", "search", "mentions") and not q:
            count = channel["participants_count"]
        elif kind == "admins" and not q:
            count = channel["admins_count"]
        else:
            cur = await conn.execute(
                f"SELECT count(*) AS n FROM (SELECT 1 FROM {source} WHERE {where} LIMIT 10000) s",
                params,
            )
            count = (await cur.fetchone())["n"]
    return count, rows


async def get_participant(channel: dict, target_user_id: int) -> dict | None:
    async with db.connection() as conn:
        return await load_member(conn, channel["id"], target_user_id)
