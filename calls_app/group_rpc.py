"""phone.* of group calls: thin handlers over ``calls_app.group_actions``; each change is
pushed to the chat's members (``group_push``) and answered with the same updates, plus
the chat's service message when the change left one, plus updateGroupCallConnection
(the SFU's transport) for a join."""

from __future__ import annotations

import json

from accounts_app.access import check_input_peer_user, check_input_user
from accounts_app.rpc.context import viewer_id
from channels_app.access import channel_ref, is_channel_peer
from channels_app.rpc.admin import change_updates
from edge_app.registry import rpc
from tl import functions, types
from tl.errors import DataJsonInvalidError, GroupcallInvalidError, JoinAsPeerInvalidError

from . import group_actions, group_push, group_tl_convert

PARAMS_MAX = 64 * 1024  # bytes of a join's JSON (a few KB with video source groups)


def _call_ref(call) -> tuple[int, int]:
    # Conference links (slugs, invite messages) belong to private conference calls.
    if not isinstance(call, types.InputGroupCall):
        raise GroupcallInvalidError()
    return call.id, call.access_hash


def _params(data) -> dict:
    raw = getattr(data, "data", None)
    if not isinstance(raw, str) or len(raw) > PARAMS_MAX:
        raise DataJsonInvalidError()
    try:
        params = json.loads(raw)
    except ValueError:
        raise DataJsonInvalidError() from None
    if not isinstance(params, dict):
        raise DataJsonInvalidError()
    return params


def _peer(me: int, peer, error=JoinAsPeerInvalidError) -> tuple[str, int]:
    if is_channel_peer(peer):
        return "channel", channel_ref(peer)[0]
    try:
        return "user", check_input_peer_user(me, peer)
    except Exception:
        raise error() from None


def _exclude(ctx) -> tuple[int, int]:
    return ctx.auth_key_id, ctx.session_id


def _merge(a, b):
    """Two Updates as one: the chat's service message and the call's updates."""
    users = {u.id: u for u in [*a.users, *b.users]}
    chats = {c.id: c for c in [*a.chats, *b.chats]}
    return types.Updates(
        updates=[*a.updates, *b.updates],
        users=list(users.values()),
        chats=list(chats.values()),
        date=b.date,
        seq=0,
    )


async def _answer(ctx, me: int, change: group_actions.Change, *, connection: bool = False, also=()):
    await group_push.publish(change, exclude=_exclude(ctx), also=also)
    out = await group_push.updates_for(me, change, connection=connection)
    if change.chat_change is not None and change.chat_change.events:
        out = _merge(await change_updates(me, change.chat_change), out)
    return out


@rpc(functions.phone.CreateGroupCall)
async def create_group_call(ctx, req: functions.phone.CreateGroupCall):
    me = viewer_id(ctx)
    cid, access_hash = channel_ref(req.peer)
    change = await group_actions.do_create_group_call(
        me, cid, access_hash, req.random_id, title=req.title or "", schedule_date=req.schedule_date,
        rtmp_stream=bool(req.rtmp_stream),
    )  # fmt: skip
    return await _answer(ctx, me, change)


@rpc(functions.phone.GetGroupCall)
async def get_group_call(ctx, req: functions.phone.GetGroupCall):
    me = viewer_id(ctx)
    call, _, _ = await group_actions.call_for(me, *_call_ref(req.call))
    # Call stacks ask limit=-1: the default page.
    _, rows, next_offset = await group_actions.participants_page(call["id"], limit=req.limit)
    users, chats, view = await group_push.viewer_context(me, call, rows)
    return group_tl_convert.group_call_to_tl(call, rows, next_offset, me, users, chats, **view)


@rpc(functions.phone.GetGroupParticipants)
async def get_group_participants(ctx, req: functions.phone.GetGroupParticipants):
    me = viewer_id(ctx)
    call, _, _ = await group_actions.call_for(me, *_call_ref(req.call))
    peers = [_peer(me, p, GroupcallInvalidError) for p in req.ids]
    count, rows, next_offset = await group_actions.participants_page(
        call["id"], peers=peers, sources=list(req.sources), offset=req.offset or "", limit=req.limit
    )
    users, chats, _ = await group_push.viewer_context(me, call, rows)
    return group_tl_convert.group_participants_to_tl(call, count, rows, next_offset, me, users, chats)


@rpc(functions.phone.JoinGroupCall)
async def join_group_call(ctx, req: functions.phone.JoinGroupCall):
    me = viewer_id(ctx)
    change = await group_actions.do_join_group_call(
        me, ctx.perm_auth_key_id, *_call_ref(req.call), _peer(me, req.join_as), _params(req.params),
        muted=bool(req.muted), video_stopped=bool(req.video_stopped), invite_hash=req.invite_hash or "",
    )  # fmt: skip
    return await _answer(ctx, me, change, connection=True)


@rpc(functions.phone.LeaveGroupCall)
async def leave_group_call(ctx, req: functions.phone.LeaveGroupCall):
    me = viewer_id(ctx)
    change = await group_actions.do_leave_group_call(me, *_call_ref(req.call), req.source)
    return await _answer(ctx, me, change)


@rpc(functions.phone.DiscardGroupCall)
async def discard_group_call(ctx, req: functions.phone.DiscardGroupCall):
    me = viewer_id(ctx)
    call_id, access_hash = _call_ref(req.call)
    change = await group_actions.do_discard_group_call(me, call_id, access_hash)
    return await _answer(ctx, me, change)


@rpc(functions.phone.ToggleGroupCallSettings)
async def toggle_group_call_settings(ctx, req: functions.phone.ToggleGroupCallSettings):
    me = viewer_id(ctx)
    change = await group_actions.do_toggle_group_call_settings(
        me, *_call_ref(req.call), join_muted=req.join_muted, reset_invite_hash=bool(req.reset_invite_hash)
    )
    return await _answer(ctx, me, change)


@rpc(functions.phone.EditGroupCallParticipant)
async def edit_group_call_participant(ctx, req: functions.phone.EditGroupCallParticipant):
    me = viewer_id(ctx)
    from tl.errors import ParticipantIdInvalidError

    edit = group_actions.Edit(
        muted=req.muted, volume=req.volume, raise_hand=req.raise_hand, video_stopped=req.video_stopped,
        video_paused=req.video_paused, presentation_paused=req.presentation_paused,
    )  # fmt: skip
    peer = _peer(me, req.participant, ParticipantIdInvalidError)
    change = await group_actions.do_edit_group_call_participant(me, *_call_ref(req.call), peer, edit)
    return await _answer(ctx, me, change)


@rpc(functions.phone.InviteToGroupCall)
async def invite_to_group_call(ctx, req: functions.phone.InviteToGroupCall):
    me = viewer_id(ctx)
    invitees = [check_input_user(me, u) for u in req.users]
    change = await group_actions.do_invite_to_group_call(me, *_call_ref(req.call), invitees)
    out = await change_updates(me, change.chat_change)
    return out


@rpc(functions.phone.ExportGroupCallInvite)
async def export_group_call_invite(ctx, req: functions.phone.ExportGroupCallInvite):
    me = viewer_id(ctx)
    link = await group_actions.do_export_invite(me, *_call_ref(req.call), bool(req.can_self_unmute))
    return group_tl_convert.invite_to_tl(link)


@rpc(functions.phone.GetGroupCallJoinAs)
async def get_group_call_join_as(ctx, req: functions.phone.GetGroupCallJoinAs):
    me = viewer_id(ctx)
    cid, access_hash = channel_ref(req.peer)
    await group_actions.chat_for(me, cid, access_hash)
    peers = await group_actions.join_as_choices(me)
    users, chats, _ = await group_push.viewer_context(
        me, {"channel_id": cid, "state": "active", "id": 0},
        [{"peer_kind": k, "peer_id": i} for k, i in peers],
    )  # fmt: skip
    return group_tl_convert.join_as_to_tl(peers, users, chats)


@rpc(functions.phone.SaveDefaultGroupCallJoinAs)
async def save_default_group_call_join_as(ctx, req: functions.phone.SaveDefaultGroupCallJoinAs):
    me = viewer_id(ctx)
    cid, access_hash = channel_ref(req.peer)
    await group_actions.do_save_default_join_as(me, cid, access_hash, _peer(me, req.join_as))
    return True


@rpc(functions.phone.JoinGroupCallPresentation)
async def join_group_call_presentation(ctx, req: functions.phone.JoinGroupCallPresentation):
    me = viewer_id(ctx)
    change = await group_actions.do_join_presentation(me, *_call_ref(req.call), _params(req.params))
    return await _answer(ctx, me, change, connection=True)


@rpc(functions.phone.LeaveGroupCallPresentation)
async def leave_group_call_presentation(ctx, req: functions.phone.LeaveGroupCallPresentation):
    me = viewer_id(ctx)
    change = await group_actions.do_leave_presentation(me, *_call_ref(req.call))
    return await _answer(ctx, me, change)


@rpc(functions.phone.ToggleGroupCallStartSubscription)
async def toggle_group_call_start_subscription(ctx, req: functions.phone.ToggleGroupCallStartSubscription):
    me = viewer_id(ctx)
    change = await group_actions.do_toggle_start_subscription(me, *_call_ref(req.call), bool(req.subscribed))
    return await group_push.updates_for(me, change)


@rpc(functions.phone.StartScheduledGroupCall)
async def start_scheduled_group_call(ctx, req: functions.phone.StartScheduledGroupCall):
    me = viewer_id(ctx)
    change = await group_actions.do_start_scheduled_group_call(me, *_call_ref(req.call))
    subscribers = await group_actions.subscriber_ids(change.call["id"])
    return await _answer(ctx, me, change, also=subscribers)


@rpc(functions.phone.CheckGroupCall)
async def check_group_call(ctx, req: functions.phone.CheckGroupCall):
    me = viewer_id(ctx)
    return await group_actions.do_check_group_call(me, *_call_ref(req.call), list(req.sources))
