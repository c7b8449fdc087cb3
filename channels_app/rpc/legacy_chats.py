"""Legacy basic-group methods mapped onto megagroups: a chat id here *is* the same-id
megagroup (nothing of a legacy chat is stored), so each wrapper resolves it with hash 0
(membership decides) and runs the channel action."""

from __future__ import annotations

from edge_app.registry import rpc
from message_core import limits
from message_core.context import resolve_input_user, users_for, viewer
from tl import functions, types
from tl.errors import UserAdminInvalidError

from .. import actions, rights, tl_convert
from ..actions import admin, settings
from ..chat_context import chats_for
from ..errors import LimitInvalidError
from .admin import change_updates, checked_channel, member_update_to_tl
from .context import change_to_updates
from .settings import edit_chat_photo as set_chat_photo

# What "admin" meant in a basic group, as supergroup rights.
LEGACY_ADMIN_RIGHTS = sum(
    rights.admin_bit(n)
    for n in (
        "change_info",
        "delete_messages",
        "ban_users",
        "invite_users",
        "pin_messages",
        "manage_call",
        "other",
    )
)


async def _chat(me: int, chat_id: int):
    return await checked_channel(me, types.InputPeerChat(chat_id=chat_id))


@rpc(functions.messages.AddChatUser)
async def add_chat_user(ctx, req: functions.messages.AddChatUser):
    me = viewer(ctx)
    channel, _ = await _chat(me, req.chat_id)
    user_id = resolve_input_user(me)(req.user_id)
    change = await actions.do_invite_to_channel(me, channel["id"], [user_id])
    updates = await change_to_updates(me, change, extra=[tl_convert.update_channel_to_tl(channel["id"])])
    return tl_convert.invited_users_to_tl(updates, change.missing_user_ids)


@rpc(functions.messages.DeleteChatUser)
async def delete_chat_user(ctx, req: functions.messages.DeleteChatUser):
    """Yourself: leave. Someone else: a basic-group removal, i.e. a kick that does not
    stay a ban (they may be added again)."""
    me = viewer(ctx)
    channel, _ = await _chat(me, req.chat_id)
    user_id = resolve_input_user(me)(req.user_id)
    if user_id == me:
        change = await actions.do_leave_channel(me, channel["id"])
        return await change_to_updates(me, change, extra=[tl_convert.update_channel_to_tl(channel["id"])])
    kicked = await admin.do_edit_banned(me, channel["id"], user_id, rights.banned_bit("view_messages"))
    await admin.do_edit_banned(me, channel["id"], user_id, 0)
    return await member_update_to_tl(me, kicked)


@rpc(functions.messages.EditChatTitle)
async def edit_chat_title(ctx, req: functions.messages.EditChatTitle):
    me = viewer(ctx)
    channel, _ = await _chat(me, req.chat_id)
    return await change_updates(me, await settings.do_edit_title(me, channel["id"], req.title))


@rpc(functions.messages.EditChatPhoto)
async def edit_chat_photo(ctx, req: functions.messages.EditChatPhoto):
    me = viewer(ctx)
    channel, _ = await _chat(me, req.chat_id)
    return await set_chat_photo(me, channel["id"], req.photo)


@rpc(functions.messages.EditChatAdmin)
async def edit_chat_admin(ctx, req: functions.messages.EditChatAdmin):
    me = viewer(ctx)
    channel, _ = await _chat(me, req.chat_id)
    user_id = resolve_input_user(me)(req.user_id)
    await admin.do_edit_admin(me, channel["id"], user_id, LEGACY_ADMIN_RIGHTS if req.is_admin else 0)
    return True


@rpc(functions.messages.EditChatParticipantRank)
async def edit_chat_participant_rank(ctx, req: functions.messages.EditChatParticipantRank):
    """Ranks are admin titles here: the admin keeps their rights under the new rank."""
    me = viewer(ctx)
    channel, _ = await checked_channel(me, req.peer)
    from accounts_app.access import check_input_peer_user

    user_id = check_input_peer_user(me, req.participant)
    row = await actions.get_participant(channel, user_id)
    if row is None or row["status"] != "active" or row["role"] == "member":
        raise UserAdminInvalidError()
    up = await admin.do_edit_admin(me, channel["id"], user_id, row["admin_rights"], req.rank)
    return await member_update_to_tl(me, up)


@rpc(functions.messages.EditChatCreator)
async def edit_chat_creator(ctx, req: functions.messages.EditChatCreator):
    """Ownership transfer: the rules first (so a client probing with an empty password
    learns PASSWORD_MISSING / PASSWORD_HASH_INVALID only when the transfer is allowed),
    then the two-step password, then the transfer."""
    from accounts_app.password_check import require_password

    from ..actions import ownership

    me = viewer(ctx)
    channel, _member = await checked_channel(me, req.peer)
    user_id = resolve_input_user(me)(req.user_id)
    await ownership.check_transfer(me, channel["id"], user_id)
    await require_password(me, req.password)
    new_owner, old_owner = await ownership.do_transfer_ownership(me, channel["id"], user_id)
    answer = await member_update_to_tl(me, new_owner)
    second = await member_update_to_tl(me, old_owner)
    answer.updates = [*second.updates[:-1], *answer.updates]
    answer.users = list({u.id: u for u in [*answer.users, *second.users]}.values())
    return answer


@rpc(functions.messages.CreateChat)
async def create_chat(ctx, req: functions.messages.CreateChat):
    me = viewer(ctx)
    if len(req.users) > limits.CREATE_CHAT_USERS_MAX:
        from ..errors import UsersTooMuchError

        raise UsersTooMuchError()
    resolve = resolve_input_user(me)
    user_ids = [resolve(u) for u in req.users]
    change = await actions.do_create_channel(
        me, req.title, invite_user_ids=user_ids, ttl_period=req.ttl_period, from_create_chat=True
    )
    ch = change.channel
    updates = await change_to_updates(me, change, extra=[tl_convert.update_channel_to_tl(ch["id"])])
    # Telegram Desktop takes chats[0] of this answer as the new chat and only accepts a
    # legacy chat there; it follows migrated_to to the real megagroup, listed next.
    updates.chats = [tl_convert.legacy_chat_to_tl(ch), *updates.chats]
    return tl_convert.invited_users_to_tl(updates, change.missing_user_ids)


@rpc(functions.messages.GetChats)
async def get_chats(ctx, req: functions.messages.GetChats):
    """Legacy chat ids are the same-id megagroups."""
    me = viewer(ctx)
    if len(req.id) > limits.GET_CHANNELS_MAX:
        raise LimitInvalidError()
    found = await actions.get_channels(me, [(cid, 0) for cid in req.id])
    return tl_convert.chats_to_tl([tl_convert.channel_to_tl(ch, m) for ch, m in found])


@rpc(functions.messages.GetFullChat)
async def get_full_chat(ctx, req: functions.messages.GetFullChat):
    me = viewer(ctx)
    full = await actions.get_full_channel(me, req.chat_id, 0)
    chats = await chats_for(me, [req.chat_id], {req.chat_id: (full["channel"], full["member"])})
    return tl_convert.full_channel_to_tl(full, chats, await users_for(me, [me]))
