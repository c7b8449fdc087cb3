"""Promote, restrict, ban, kick and delete: the administration of members and channels.

Every action takes ``actor_user_id``; ``None`` is the server's operator console, which
holds every right and is recorded in the admin log as actor 0. Rights changes take no
channel pts (clients get ``updateChannelParticipant`` + ``updateChannel`` online and the
current state from getFullChannel / getParticipants); only a visible service message
(the one a kick from a megagroup leaves) takes a pts.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from message_core import db
from message_core.clock import now
from tl.errors import (
    AdminRankInvalidError,
    AdminsTooMuchError,
    RightForbiddenError,
    UserAdminInvalidError,
    UserCreatorError,
)

from .. import notify
from ..domain import ChannelEvent
from ..errors import (
    ChannelInvalidError,
    ChannelPrivateError,
    ChatAdminRequiredError,
    UserNotParticipantError,
)
from ..rights import (
    CREATOR_RIGHTS,
    CREATOR_RIGHTS_BROADCAST,
    admin_bit,
    banned_bit,
    has_admin_right,
)
from . import admin_log
from .common import insert_service_message, is_active, load_channel, load_member, with_pts

RANK_MAX = 16
ADMINS_MAX = 50
# Recipients of an online state push (the design's realtime fan-out cap).
PUSH_MEMBERS_MAX = 500

SNAPSHOT_FIELDS = (
    "user_id",
    "inviter_user_id",
    "role",
    "status",
    "joined_at",
    "admin_rights",
    "promoted_by",
    "banned_rights",
    "banned_until",
    "kicked_by",
    "rank",
)


def member_snapshot(row: dict | None, user_id: int = 0) -> dict:
    """The participant as the admin log and updateChannelParticipant carry it."""
    if row is None:
        return {"user_id": user_id, "status": "none", "role": "member"}
    return {k: row[k] for k in SNAPSHOT_FIELDS if k in row}


@dataclass(slots=True)
class MemberUpdate:
    """What editAdmin / editBanned did: the channel after it, the participant before and
    after, the service-message events (kick from a megagroup) and the users to carry."""

    channel: dict
    actor_user_id: int
    user_id: int
    prev: dict
    new: dict
    date: int
    events: list[ChannelEvent] = field(default_factory=list)
    user_ids: set[int] = field(default_factory=set)


# ---- permission helpers shared by settings.py / invites.py / usernames.py ----


async def load_for_actor(channel_id: int, actor_user_id: int | None) -> tuple[dict, dict | None]:
    """The live channel and the actor's member row (None for the operator)."""
    async with db.connection() as conn:
        channel = await load_channel(conn, channel_id)
        if channel is None:
            raise ChannelInvalidError()
        member = None if actor_user_id is None else await load_member(conn, channel_id, actor_user_id)
    if channel["deleted"]:
        raise ChannelPrivateError()
    if actor_user_id is not None and not is_active(member):
        raise ChannelPrivateError()
    return channel, member


def require_right(actor_user_id: int | None, member: dict | None, right: str) -> None:
    """CHAT_ADMIN_REQUIRED unless the actor holds ``right`` (Telegram keeps
    RIGHT_FORBIDDEN for granting rights one does not hold, see do_edit_admin)."""
    if actor_user_id is None or has_admin_right(member, right):
        return
    raise ChatAdminRequiredError()


def require_creator(actor_user_id: int | None, member: dict | None) -> None:
    if actor_user_id is None or (is_active(member) and member["role"] == "creator"):
        return
    raise ChatAdminRequiredError()


async def active_member_ids(channel_id: int, cap: int = PUSH_MEMBERS_MAX) -> list[int]:
    """A bounded recipient set for online state pushes (admins first)."""
    async with db.connection() as conn:
        cur = await conn.execute(
            "SELECT user_id FROM channel_members WHERE channel_id = %s AND status = 'active'"
            " ORDER BY (role <> 'member') DESC, user_id LIMIT %s",
            (channel_id, cap),
        )
        return [r["user_id"] for r in await cur.fetchall()]


async def admin_ids(channel_id: int, right: str | None = None, cap: int = 100) -> list[int]:
    async with db.connection() as conn:
        cur = await conn.execute(
            "SELECT user_id, role, admin_rights, status FROM channel_members"
            " WHERE channel_id = %s AND status = 'active' AND role IN ('creator', 'admin')"
            " ORDER BY user_id LIMIT %s",
            (channel_id, cap),
        )
        rows = await cur.fetchall()
    return [r["user_id"] for r in rows if right is None or has_admin_right(r, right)]


async def publish_channel_updated(channel_id: int, user_ids=(), *, everyone: bool = True) -> None:
    """Tell online members (bounded) and ``user_ids`` that the channel's state changed."""
    recipients = set(user_ids)
    if everyone:
        recipients.update(await active_member_ids(channel_id))
    # channel.updated: the core's push renders updateChannel and refreshes its member cache.
    await notify.publish("channel.updated", {"channel_id": channel_id, "user_ids": sorted(recipients)})


def _allowed_admin_mask(channel: dict) -> int:
    return (
        CREATOR_RIGHTS_BROADCAST | admin_bit("anonymous")
        if channel["broadcast"]
        else CREATOR_RIGHTS | admin_bit("anonymous")
    )


# ---- editAdmin ----


async def do_edit_admin(
    actor_user_id: int | None, channel_id: int, user_id: int, admin_rights: int, rank: str = ""
) -> MemberUpdate:
    """channels.editAdmin: promote (rights != 0), edit, or demote (rights == 0).

    A non-creator grants only rights they hold themselves (RIGHT_FORBIDDEN) and edits
    only admins they promoted (USER_ADMIN_INVALID); the creator's own entry keeps full
    rights (only ``anonymous`` and the rank can change).
    """
    rank = rank or ""
    if len(rank) > RANK_MAX or "\n" in rank:
        raise AdminRankInvalidError()
    channel, actor = await load_for_actor(channel_id, actor_user_id)
    require_right(actor_user_id, actor, "add_admins")
    admin_rights &= _allowed_admin_mask(channel)
    date = now()

    async def body(conn):
        locked = await load_channel(conn, channel_id, lock=True)
        target = await load_member(conn, channel_id, user_id, lock=True)
        if not is_active(target):
            raise UserNotParticipantError()
        prev = member_snapshot(target)
        actor_row = actor
        if target["role"] == "creator":
            if actor_user_id is not None and actor_user_id != user_id:
                raise UserCreatorError()
            full = CREATOR_RIGHTS_BROADCAST if locked["broadcast"] else CREATOR_RIGHTS
            new_rights = full | (admin_rights & admin_bit("anonymous"))
            await conn.execute(
                "UPDATE channel_members SET admin_rights = %s, rank = %s WHERE channel_id = %s AND user_id = %s",
                (new_rights, rank, channel_id, user_id),
            )
            new = {**prev, "admin_rights": new_rights, "rank": rank}
            return locked, prev, new, None
        if actor_user_id is not None and actor_row["role"] != "creator":
            if actor_user_id == user_id:
                raise UserAdminInvalidError()  # an admin cannot widen (or narrow) their own rights
            if admin_rights & ~actor_row["admin_rights"]:
                raise RightForbiddenError()
            if target["role"] == "admin" and target["promoted_by"] != actor_user_id:
                raise UserAdminInvalidError()
        if admin_rights:
            if target["role"] == "member" and locked["admins_count"] >= ADMINS_MAX:
                raise AdminsTooMuchError()
            promoted_by = (
                target["promoted_by"] if target["role"] == "admin" else admin_log.actor_id(actor_user_id)
            )
            await conn.execute(
                "UPDATE channel_members SET role = 'admin', admin_rights = %s, rank = %s, promoted_by = %s,"
                " banned_rights = 0, banned_until = 0 WHERE channel_id = %s AND user_id = %s",
                (admin_rights, rank, promoted_by, channel_id, user_id),
            )
            delta = 1 if target["role"] == "member" else 0
            banned_delta = 1 if target["banned_rights"] else 0
            new = {
                **prev, "role": "admin", "admin_rights": admin_rights, "rank": rank,
                "promoted_by": promoted_by, "banned_rights": 0, "banned_until": 0,
            }  # fmt: skip
            kind = "participant_promote" if delta or prev["admin_rights"] != admin_rights else None
        else:
            if target["role"] == "member":
                raise UserAdminInvalidError()
            await conn.execute(
                "UPDATE channel_members SET role = 'member', admin_rights = 0, rank = '', promoted_by = 0"
                " WHERE channel_id = %s AND user_id = %s",
                (channel_id, user_id),
            )
            delta, banned_delta = -1, 0
            new = {**prev, "role": "member", "admin_rights": 0, "rank": "", "promoted_by": 0}
            kind = "participant_demote"
        await conn.execute(
            "UPDATE channels SET admins_count = GREATEST(0, admins_count + %s),"
            " banned_count = GREATEST(0, banned_count - %s) WHERE id = %s",
            (delta, banned_delta, channel_id),
        )
        return locked, prev, new, kind or "participant_promote"

    async with db.connection() as conn, conn.transaction():
        _locked, prev, new, kind = await body(conn)
        if kind:
            await admin_log.record(
                conn, channel_id, actor_user_id, kind, target_user_id=user_id,
                data={"prev": prev, "new": new}, date=date,
            )  # fmt: skip
    return await _finish(channel_id, actor_user_id, user_id, prev, new, date, [])


# ---- editBanned ----


def _ban_kind(prev: dict, new: dict) -> str:
    was_kicked = prev["status"] in ("kicked", "banned")
    is_kicked = new["status"] in ("kicked", "banned")
    if is_kicked and not was_kicked:
        return "participant_kick"
    if was_kicked and not is_kicked:
        return "participant_unkick"
    if new.get("banned_rights") and not prev.get("banned_rights"):
        return "participant_ban"
    if prev.get("banned_rights") and not new.get("banned_rights"):
        return "participant_unban"
    return "participant_ban"


async def do_edit_banned(
    actor_user_id: int | None, channel_id: int, user_id: int, banned_rights: int, until_date: int = 0
) -> MemberUpdate:
    """channels.editBanned.

    ``view_messages`` in the rights bans (kicks) the user: they leave, cannot rejoin by
    link or join until unbanned; a megagroup shows a service message. Other rights
    restrict an active member. Rights 0 lifts both (a kicked user becomes 'left', free
    to rejoin). A user who is not a member can be banned in advance.
    """
    if until_date < 0:
        until_date = 0
    channel, actor = await load_for_actor(channel_id, actor_user_id)
    require_right(actor_user_id, actor, "ban_users")
    if actor_user_id is not None and actor_user_id == user_id:
        raise UserAdminInvalidError()
    date = now()
    kick = bool(banned_rights & banned_bit("view_messages"))

    async def check_target(conn):
        target = await load_member(conn, channel_id, user_id, lock=True)
        if target is not None and target["status"] == "active" and target["role"] == "creator":
            raise UserCreatorError()
        # Only the creator or the admin who promoted an admin may ban them.
        if (
            is_active(target)
            and target["role"] == "admin"
            and actor_user_id is not None
            and actor["role"] != "creator"
            and target["promoted_by"] != actor_user_id
        ):
            raise UserAdminInvalidError()
        return target

    if kick:
        async with db.connection() as conn:
            current = await load_member(conn, channel_id, user_id)
        produces_message = channel["megagroup"] and is_active(current)
    else:
        produces_message = False

    result: dict = {}

    async def body(conn, msg_id, pts):
        target = await check_target(conn)
        prev = member_snapshot(target, user_id)
        if target is None and not kick:
            raise UserNotParticipantError()
        if kick:
            was_active = is_active(target)
            was_admin = was_active and target["role"] == "admin"
            was_restricted = was_active and target["banned_rights"] != 0
            if target is not None and target["status"] in ("kicked", "banned"):
                await conn.execute(
                    "UPDATE channel_members SET banned_rights = %s, banned_until = %s, kicked_by = %s"
                    " WHERE channel_id = %s AND user_id = %s",
                    (banned_rights, until_date, admin_log.actor_id(actor_user_id), channel_id, user_id),
                )
                new = {**prev, "banned_rights": banned_rights, "banned_until": until_date}
                result.update(prev=prev, new=new, event=None)
                return None
            await conn.execute(
                "INSERT INTO channel_members (channel_id, user_id, status, role, left_at, banned_rights,"
                " banned_until, kicked_by) VALUES (%(c)s, %(u)s, 'kicked', 'member', %(d)s, %(r)s, %(until)s, %(by)s)"
                " ON CONFLICT (channel_id, user_id) DO UPDATE SET status = 'kicked', role = 'member',"
                " admin_rights = 0, rank = '', promoted_by = 0, left_at = %(d)s, banned_rights = %(r)s,"
                " banned_until = %(until)s, kicked_by = %(by)s",
                {
                    "c": channel_id, "u": user_id, "d": date, "r": banned_rights, "until": until_date,
                    "by": admin_log.actor_id(actor_user_id),
                },
            )  # fmt: skip
            await conn.execute(
                "INSERT INTO user_channel_member_index (user_id, channel_id, status, megagroup, broadcast, deleted,"
                " joined_at) VALUES (%s, %s, 'kicked', %s, %s, false, 0)"
                " ON CONFLICT (user_id, channel_id) DO UPDATE SET status = 'kicked'",
                (user_id, channel_id, channel["megagroup"], channel["broadcast"]),
            )
            await conn.execute(
                "DELETE FROM channel_dialogs WHERE user_id = %s AND channel_id = %s", (user_id, channel_id)
            )
            await conn.execute(
                "UPDATE channels SET participants_count = GREATEST(0, participants_count - %s),"
                " admins_count = GREATEST(0, admins_count - %s), banned_count = GREATEST(0, banned_count - %s),"
                " kicked_count = kicked_count + 1 WHERE id = %s",
                (1 if was_active else 0, 1 if was_admin else 0, 1 if was_restricted else 0, channel_id),
            )
            new = {
                **prev, "status": "kicked", "role": "member", "admin_rights": 0, "rank": "", "promoted_by": 0,
                "banned_rights": banned_rights, "banned_until": until_date,
                "kicked_by": admin_log.actor_id(actor_user_id),
            }  # fmt: skip
            event = None
            if msg_id is not None:
                locked = await load_channel(conn, channel_id)
                action = {"_": "chatDeleteUser", "user_id": user_id}
                # The operator console (actor 0) is nobody in the group: the message has no
                # sender and shows as the group's own, never as the creator's.
                sender = admin_log.actor_id(actor_user_id)
                event = await insert_service_message(conn, locked, msg_id, pts, sender, action, date)
            result.update(prev=prev, new=new, event=event)
            return event
        if target["status"] in ("kicked", "banned"):
            # Any rights without view_messages lift the ban: the user may rejoin.
            await conn.execute(
                "UPDATE channel_members SET status = 'left', banned_rights = 0, banned_until = 0, kicked_by = 0"
                " WHERE channel_id = %s AND user_id = %s",
                (channel_id, user_id),
            )
            await conn.execute(
                "UPDATE user_channel_member_index SET status = 'left' WHERE user_id = %s AND channel_id = %s",
                (user_id, channel_id),
            )
            await conn.execute(
                "UPDATE channels SET kicked_count = GREATEST(0, kicked_count - 1) WHERE id = %s",
                (channel_id,),
            )
            new = {**prev, "status": "left", "banned_rights": 0, "banned_until": 0, "kicked_by": 0}
            result.update(prev=prev, new=new, event=None)
            return None
        if target["status"] != "active":
            raise UserNotParticipantError()
        if target["role"] == "admin" and banned_rights:
            raise UserAdminInvalidError()  # demote first
        was_restricted = target["banned_rights"] != 0
        await conn.execute(
            "UPDATE channel_members SET banned_rights = %s, banned_until = %s, kicked_by = %s"
            " WHERE channel_id = %s AND user_id = %s",
            (banned_rights, until_date if banned_rights else 0, admin_log.actor_id(actor_user_id) if banned_rights else 0,
             channel_id, user_id),
        )  # fmt: skip
        delta = (1 if banned_rights else 0) - (1 if was_restricted else 0)
        if delta:
            await conn.execute(
                "UPDATE channels SET banned_count = GREATEST(0, banned_count + %s) WHERE id = %s",
                (delta, channel_id),
            )
        new = {
            **prev, "banned_rights": banned_rights, "banned_until": until_date if banned_rights else 0,
            "kicked_by": admin_log.actor_id(actor_user_id) if banned_rights else 0,
        }  # fmt: skip
        result.update(prev=prev, new=new, event=None)
        return None

    async def logged(conn, msg_id, pts):
        event = await body(conn, msg_id, pts)
        prev, new = result["prev"], result["new"]
        if prev != new:
            await admin_log.record(
                conn, channel_id, actor_user_id, _ban_kind(prev, new), target_user_id=user_id,
                data={"prev": prev, "new": new}, date=date,
            )  # fmt: skip
        return event

    if produces_message:
        event = await with_pts(channel_id, 1, logged, message_ids=1)
    else:
        async with db.connection() as conn, conn.transaction():
            event = await logged(conn, None, None)
    events = [event] if event else []
    if event:
        await notify.publish(
            "channel.event",
            {"event": event.to_payload(), "extra_user_ids": [user_id], "exclude_user_id": 0},
        )
    return await _finish(channel_id, actor_user_id, user_id, result["prev"], result["new"], date, events)


async def _finish(channel_id, actor_user_id, user_id, prev, new, date, events) -> MemberUpdate:
    async with db.connection() as conn:
        fresh = await load_channel(conn, channel_id)
    # An operator's action (the console: no Telegram user) is shown to clients as done by
    # the group's owner, a user they can render and that the update carries; the admin
    # log keeps it as the operator's.
    actor = admin_log.actor_id(actor_user_id) or (fresh or {}).get("creator_user_id") or 0
    update = MemberUpdate(
        channel=fresh, actor_user_id=actor, user_id=user_id, prev=prev, new=new, date=date, events=events,
        user_ids={u for u in (actor, user_id) if u},
    )  # fmt: skip
    recipients = {user_id, *(await admin_ids(channel_id))}
    if actor:
        recipients.add(actor)
    await notify.publish(
        "channel_admin.participant",
        {
            "channel_id": channel_id, "actor_user_id": actor, "user_id": user_id, "date": date,
            "prev": prev, "new": new, "user_ids": sorted(recipients),
        },
    )  # fmt: skip
    await publish_channel_updated(channel_id, [user_id], everyone=False)
    return update


# ---- deleteChannel ----


async def do_delete_channel(actor_user_id: int | None, channel_id: int) -> dict:
    """channels.deleteChannel: creator (or operator) only. The channel stays as a row
    (``deleted``), so clients get ``channelForbidden`` and every dialog list drops it."""
    _channel, actor = await load_for_actor(channel_id, actor_user_id)
    require_creator(actor_user_id, actor)
    recipients = await active_member_ids(channel_id)
    async with db.connection() as conn, conn.transaction():
        await conn.execute("UPDATE channels SET deleted = true WHERE id = %s", (channel_id,))
        await conn.execute("DELETE FROM channel_usernames WHERE channel_id = %s", (channel_id,))
        # Two steps so both user-partitioned tables are hit by their partition key.
        cur = await conn.execute("SELECT user_id FROM channel_members WHERE channel_id = %s", (channel_id,))
        uids = [r["user_id"] for r in await cur.fetchall()]
        if uids:
            await conn.execute(
                "UPDATE user_channel_member_index SET deleted = true WHERE user_id = ANY(%s) AND channel_id = %s",
                (uids, channel_id),
            )
            await conn.execute(
                "DELETE FROM channel_dialogs WHERE user_id = ANY(%s) AND channel_id = %s", (uids, channel_id)
            )
    async with db.connection() as conn:
        fresh = await load_channel(conn, channel_id)
    await notify.publish(
        "channel.updated",
        {"channel_id": channel_id, "user_ids": sorted(set(recipients))},
    )
    return fresh
