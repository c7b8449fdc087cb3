"""Invite link handlers: export / check / import, link management, importers and join
requests."""

from __future__ import annotations

from edge_app.registry import rpc
from message_core.context import resolve_input_user, users_for, viewer
from tl import functions, types

from .. import tl_convert, tl_convert_admin
from ..access import is_channel_peer
from ..actions import invites
from ..chat_context import chats_for
from ..errors import LimitInvalidError, PeerIdInvalidError
from .admin import change_updates, checked_channel, state_updates


async def _checked_peer(me: int, peer):
    if not is_channel_peer(peer):
        raise PeerIdInvalidError()
    return await checked_channel(me, peer)


def _invite_users(*invs) -> set[int]:
    return {i["admin_user_id"] for i in invs if i and i["admin_user_id"]}


@rpc(functions.messages.ExportChatInvite)
async def export_chat_invite(ctx, req: functions.messages.ExportChatInvite):
    me = viewer(ctx)
    channel, _ = await _checked_peer(me, req.peer)
    if req.subscription_pricing is not None:
        from tl.errors import RpcError

        raise RpcError(400, "SUBSCRIPTION_PERIOD_INVALID")  # paid subscriptions are not modelled
    inv = await invites.do_export_invite(
        me, channel["id"], expire_date=req.expire_date, usage_limit=req.usage_limit,
        request_needed=req.request_needed, title=req.title,
        legacy_revoke_permanent=req.legacy_revoke_permanent,
    )  # fmt: skip
    return tl_convert.exported_invite_to_tl(inv)


@rpc(functions.messages.CheckChatInvite)
async def check_chat_invite(ctx, req: functions.messages.CheckChatInvite):
    me = viewer(ctx)
    check = await invites.check_invite(me, req.hash)
    ch = check.channel
    chat = None
    if check.kind == "already":
        (chat,) = await chats_for(me, [ch["id"]], {ch["id"]: (ch, check.member)})
    participants = await users_for(me, check.participant_ids)
    return tl_convert_admin.chat_invite_to_tl(check, chat, participants)


@rpc(functions.messages.ImportChatInvite)
async def import_chat_invite(ctx, req: functions.messages.ImportChatInvite):
    me = viewer(ctx)
    change = await invites.do_import_invite(me, req.hash)
    updates = await change_updates(me, change)
    return tl_convert_admin.join_result_to_tl(updates, getattr(ctx, "layer", 229))


@rpc(functions.messages.GetExportedChatInvites)
async def get_exported_chat_invites(ctx, req: functions.messages.GetExportedChatInvites):
    me = viewer(ctx)
    channel, _ = await _checked_peer(me, req.peer)
    if req.limit < 0:
        raise LimitInvalidError()
    admin_id = resolve_input_user(me)(req.admin_id)
    count, rows = await invites.list_invites(
        me, channel["id"], admin_id, revoked=req.revoked, offset_date=req.offset_date or 0,
        offset_link=req.offset_link or "", limit=req.limit,
    )  # fmt: skip
    users = await users_for(me, _invite_users(*rows) | {admin_id})
    return tl_convert_admin.exported_invites_to_tl(count, rows, users)


@rpc(functions.messages.GetExportedChatInvite)
async def get_exported_chat_invite(ctx, req: functions.messages.GetExportedChatInvite):
    me = viewer(ctx)
    channel, _ = await _checked_peer(me, req.peer)
    inv = await invites.get_invite(me, channel["id"], req.link)
    return tl_convert_admin.exported_invite_result_to_tl(inv, None, await users_for(me, _invite_users(inv)))


@rpc(functions.messages.EditExportedChatInvite)
async def edit_exported_chat_invite(ctx, req: functions.messages.EditExportedChatInvite):
    me = viewer(ctx)
    channel, _ = await _checked_peer(me, req.peer)
    inv, replacement = await invites.do_edit_invite(
        me, channel["id"], req.link, revoked=req.revoked, expire_date=req.expire_date,
        usage_limit=req.usage_limit, request_needed=req.request_needed, title=req.title,
    )  # fmt: skip
    users = await users_for(me, _invite_users(inv, replacement))
    return tl_convert_admin.exported_invite_result_to_tl(inv, replacement, users)


@rpc(functions.messages.DeleteExportedChatInvite)
async def delete_exported_chat_invite(ctx, req: functions.messages.DeleteExportedChatInvite):
    me = viewer(ctx)
    channel, _ = await _checked_peer(me, req.peer)
    await invites.do_delete_invite(me, channel["id"], req.link)
    return True


@rpc(functions.messages.DeleteRevokedExportedChatInvites)
async def delete_revoked_exported_chat_invites(ctx, req: functions.messages.DeleteRevokedExportedChatInvites):
    me = viewer(ctx)
    channel, _ = await _checked_peer(me, req.peer)
    admin_id = resolve_input_user(me)(req.admin_id)
    await invites.do_delete_revoked_invites(me, channel["id"], admin_id)
    return True


@rpc(functions.messages.GetAdminsWithInvites)
async def get_admins_with_invites(ctx, req: functions.messages.GetAdminsWithInvites):
    me = viewer(ctx)
    channel, _ = await _checked_peer(me, req.peer)
    rows = await invites.admins_with_invites(me, channel["id"])
    users = await users_for(me, {r["admin_user_id"] for r in rows})
    return tl_convert_admin.admins_with_invites_to_tl(rows, users)


@rpc(functions.messages.GetChatInviteImporters)
async def get_chat_invite_importers(ctx, req: functions.messages.GetChatInviteImporters):
    me = viewer(ctx)
    channel, _ = await _checked_peer(me, req.peer)
    if req.limit < 0:
        raise LimitInvalidError()
    if req.subscription_expired:
        return tl_convert_admin.importers_to_tl(0, [], [])
    offset_user = 0
    if not isinstance(req.offset_user, types.InputUserEmpty):
        offset_user = resolve_input_user(me)(req.offset_user)
    count, rows = await invites.list_importers(
        me, channel["id"], requested=req.requested, link=req.link, q=req.q or "",
        offset_date=req.offset_date or 0, offset_user_id=offset_user, limit=req.limit,
    )  # fmt: skip
    users = await users_for(
        me, {r["user_id"] for r in rows} | {r["approved_by"] for r in rows if r["approved_by"]}
    )
    return tl_convert_admin.importers_to_tl(count, rows, users)


@rpc(functions.messages.HideChatJoinRequest)
async def hide_chat_join_request(ctx, req: functions.messages.HideChatJoinRequest):
    me = viewer(ctx)
    channel, _ = await _checked_peer(me, req.peer)
    user_id = resolve_input_user(me)(req.user_id)
    change = await invites.do_hide_join_request(me, channel["id"], user_id, approved=req.approved)
    pending, recent = await invites.pending_requests(channel["id"])
    extra = [tl_convert_admin.pending_requests_to_tl(channel["id"], pending, recent)]
    if change is None:
        return await state_updates(me, channel["id"], extra=extra)
    change.user_ids |= set(recent)
    return await change_updates(me, change, extra=extra)


@rpc(functions.messages.HideAllChatJoinRequests)
async def hide_all_chat_join_requests(ctx, req: functions.messages.HideAllChatJoinRequests):
    me = viewer(ctx)
    channel, _ = await _checked_peer(me, req.peer)
    changes = await invites.do_hide_all_join_requests(me, channel["id"], approved=req.approved, link=req.link)
    pending, recent = await invites.pending_requests(channel["id"])
    extra = [tl_convert_admin.pending_requests_to_tl(channel["id"], pending, recent)]
    if not changes:
        return await state_updates(me, channel["id"], extra=extra)
    events = [e for c in changes for e in c.events]
    users = set(recent)
    for c in changes:
        users |= c.user_ids
    merged = changes[-1]
    merged.events, merged.user_ids = events, users
    return await change_updates(me, merged, extra=extra)
