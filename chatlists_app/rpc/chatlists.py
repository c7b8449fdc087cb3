"""chatlists.*: shared folders and their links. Thin handlers: the folder and channel
references are checked here, the rules are chatlists_app.actions."""

from __future__ import annotations

from channels_app import tl_convert as channels_tl
from channels_app.access import channel_ref, is_channel_peer
from channels_app.rpc.context import context_for
from edge_app.registry import rpc
from message_core.context import chats_for, own_session, viewer
from tl import functions, types
from tl.errors import ChannelInvalidError, FilterIdInvalidError, PeerIdInvalidError

from .. import actions
from .. import tl_convert as chatlists_tl
from ..errors import InvitePeersTooMuchError


def _filter_id(chatlist) -> int:
    if not isinstance(chatlist, types.InputChatlistDialogFilter):
        raise FilterIdInvalidError()
    return chatlist.filter_id


async def _channel_ids(peers) -> list[int]:
    """The channels a vector of InputPeers names, each access hash checked against the
    channel's (a folder link may name chats the viewer is not in yet)."""
    if len(peers) > actions.PEERS_MAX:
        raise InvitePeersTooMuchError()
    refs = []
    for peer in peers:
        if not is_channel_peer(peer):
            raise PeerIdInvalidError()  # only groups and channels go into folder links
        refs.append(channel_ref(peer))
    found = await actions.channels_with_member([cid for cid, _ in refs], 0)
    for cid, access_hash in refs:
        if cid not in found or (access_hash and found[cid][0]["access_hash"] != access_hash):
            raise ChannelInvalidError()
    return list(dict.fromkeys(cid for cid, _ in refs))


async def _full_chats(me: int, channel_ids) -> list:
    return chatlists_tl.channels_to_tl(await actions.channels_with_member(list(channel_ids), me))


async def _result(me: int, result) -> object:
    msgs = [e.message for ch in result.changes for e in ch.events if e.message]
    user_ids = {u for ch in result.changes for u in ch.user_ids}
    channel_ids = {ch.channel["id"] for ch in result.changes} | set(actions.folder_channel_ids(result.folder))
    users, chats = await context_for(me, msgs, user_ids, sorted(channel_ids))
    ups = []
    for change in result.changes:
        ups += [channels_tl.event_to_update(ev, me) for ev in change.events]
        ups.append(channels_tl.update_channel_to_tl(change.channel["id"]))
    return chatlists_tl.result_to_tl(me, result, ups, users, chats)


@rpc(functions.chatlists.ExportChatlistInvite)
async def export_chatlist_invite(ctx, req: functions.chatlists.ExportChatlistInvite):
    me = viewer(ctx)
    filter_id = _filter_id(req.chatlist)
    folder, inv = await actions.do_export_invite(
        me, filter_id, req.title, await _channel_ids(req.peers), exclude=own_session(ctx)
    )
    chats = await chats_for(me, actions.folder_channel_ids(folder))
    return chatlists_tl.exported_to_tl(me, filter_id, folder, inv, chats)


@rpc(functions.chatlists.GetExportedInvites)
async def get_exported_invites(ctx, req: functions.chatlists.GetExportedInvites):
    me = viewer(ctx)
    invites = await actions.list_invites(me, _filter_id(req.chatlist))
    chats = await chats_for(me, sorted({c for i in invites for c in i["peers"]}))
    return chatlists_tl.exported_invites_to_tl(invites, chats)


@rpc(functions.chatlists.EditExportedInvite)
async def edit_exported_invite(ctx, req: functions.chatlists.EditExportedInvite):
    me = viewer(ctx)
    ids = await _channel_ids(req.peers) if req.peers is not None else None
    inv = await actions.do_edit_invite(
        me, _filter_id(req.chatlist), req.slug, title=req.title, channel_ids=ids, exclude=own_session(ctx)
    )
    return chatlists_tl.invite_to_tl(inv)


@rpc(functions.chatlists.DeleteExportedInvite)
async def delete_exported_invite(ctx, req: functions.chatlists.DeleteExportedInvite):
    me = viewer(ctx)
    await actions.do_delete_invite(me, _filter_id(req.chatlist), req.slug)
    return True


@rpc(functions.chatlists.CheckChatlistInvite)
async def check_chatlist_invite(ctx, req: functions.chatlists.CheckChatlistInvite):
    me = viewer(ctx)
    view = await actions.check_invite(me, req.slug)
    return chatlists_tl.check_to_tl(view, await _full_chats(me, view.peers))


@rpc(functions.chatlists.JoinChatlistInvite)
async def join_chatlist_invite(ctx, req: functions.chatlists.JoinChatlistInvite):
    me = viewer(ctx)
    result = await actions.do_join_invite(
        me, req.slug, await _channel_ids(req.peers), exclude=own_session(ctx)
    )
    return await _result(me, result)


@rpc(functions.chatlists.GetChatlistUpdates)
async def get_chatlist_updates(ctx, req: functions.chatlists.GetChatlistUpdates):
    me = viewer(ctx)
    missing = await actions.get_updates(me, _filter_id(req.chatlist))
    return chatlists_tl.chatlist_updates_to_tl(missing, await _full_chats(me, missing))


@rpc(functions.chatlists.JoinChatlistUpdates)
async def join_chatlist_updates(ctx, req: functions.chatlists.JoinChatlistUpdates):
    me = viewer(ctx)
    result = await actions.do_join_updates(
        me, _filter_id(req.chatlist), await _channel_ids(req.peers), exclude=own_session(ctx)
    )
    return await _result(me, result)


@rpc(functions.chatlists.HideChatlistUpdates)
async def hide_chatlist_updates(ctx, req: functions.chatlists.HideChatlistUpdates):
    me = viewer(ctx)
    await actions.do_hide_updates(me, _filter_id(req.chatlist))
    return True


@rpc(functions.chatlists.GetLeaveChatlistSuggestions)
async def get_leave_chatlist_suggestions(ctx, req: functions.chatlists.GetLeaveChatlistSuggestions):
    me = viewer(ctx)
    return chatlists_tl.peers_to_tl(await actions.leave_suggestions(me, _filter_id(req.chatlist)))


@rpc(functions.chatlists.LeaveChatlist)
async def leave_chatlist(ctx, req: functions.chatlists.LeaveChatlist):
    me = viewer(ctx)
    result = await actions.do_leave(
        me, _filter_id(req.chatlist), await _channel_ids(req.peers), exclude=own_session(ctx)
    )
    return await _result(me, result)
