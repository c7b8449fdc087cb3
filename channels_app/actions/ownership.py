"""Ownership transfer (messages.editChatCreator): the creator hands the channel to
another active member after proving their two-step password (checked by the handler
through accounts_app.password_check). The new owner gets the creator's rights; the
old owner stays an admin with every admin right. Both changes are in the admin log."""

from __future__ import annotations

from message_core import db
from message_core.clock import now
from tl.errors import UserIdInvalidError

from .. import notify
from ..errors import ChatAdminRequiredError, UserNotParticipantError
from ..rights import CREATOR_RIGHTS, CREATOR_RIGHTS_BROADCAST
from . import admin_log
from .admin import MemberUpdate, _finish, load_for_actor, member_snapshot, require_creator
from .common import is_active, load_channel, load_member


async def check_transfer(actor_id: int, channel_id: int, new_owner_id: int) -> None:
    """The rules before the password is asked: creator only, to another active member."""
    _channel, actor = await load_for_actor(channel_id, actor_id)
    require_creator(actor_id, actor)
    if new_owner_id == actor_id:
        raise UserIdInvalidError()
    async with db.connection() as conn:
        target = await load_member(conn, channel_id, new_owner_id)
    if not is_active(target):
        raise UserNotParticipantError()


async def do_transfer_ownership(actor_id: int, channel_id: int, new_owner_id: int) -> list[MemberUpdate]:
    """Both participants' changes: the new owner's first, then the old owner's."""
    date = now()
    async with db.connection() as conn, conn.transaction():
        channel = await load_channel(conn, channel_id, lock=True)
        actor = await load_member(conn, channel_id, actor_id, lock=True)
        target = await load_member(conn, channel_id, new_owner_id, lock=True)
        if not (is_active(actor) and actor["role"] == "creator"):
            raise ChatAdminRequiredError()
        if new_owner_id == actor_id:
            raise UserIdInvalidError()
        if not is_active(target):
            raise UserNotParticipantError()
        rights = CREATOR_RIGHTS_BROADCAST if channel["broadcast"] else CREATOR_RIGHTS
        prev_owner, prev_target = member_snapshot(actor), member_snapshot(target)
        await conn.execute(
            "UPDATE channel_members SET role = 'creator', admin_rights = %s, promoted_by = 0,"
            " banned_rights = 0, banned_until = 0 WHERE channel_id = %s AND user_id = %s",
            (rights, channel_id, new_owner_id),
        )
        await conn.execute(
            "UPDATE channel_members SET role = 'admin', admin_rights = %s, promoted_by = %s"
            " WHERE channel_id = %s AND user_id = %s",
            (rights, new_owner_id, channel_id, actor_id),
        )
        await conn.execute(
            "UPDATE channels SET creator_user_id = %s, admins_count = admins_count + %s WHERE id = %s",
            (new_owner_id, 1 if target["role"] == "member" else 0, channel_id),
        )
        new_target = {**prev_target, "role": "creator", "admin_rights": rights, "promoted_by": 0,
                      "banned_rights": 0, "banned_until": 0}  # fmt: skip
        new_owner = {**prev_owner, "role": "admin", "admin_rights": rights, "promoted_by": new_owner_id}
        for uid, prev, new in ((new_owner_id, prev_target, new_target), (actor_id, prev_owner, new_owner)):
            await admin_log.record(
                conn, channel_id, actor_id, "participant_promote", target_user_id=uid,
                data={"prev": prev, "new": new}, date=date,
            )  # fmt: skip
    first = await _finish(channel_id, actor_id, new_owner_id, prev_target, new_target, date, [])
    second = await _finish(channel_id, actor_id, actor_id, prev_owner, new_owner, date, [])
    await notify.publish(
        "channel.updated", {"channel_id": channel_id, "user_ids": sorted({actor_id, new_owner_id})}
    )
    return [first, second]
