"""The dialog list and what belongs to a dialog of either kind: one order and one seek
cursor over channels and private chats, pins across both, unread marks, folders."""

from __future__ import annotations

from channels_app import account_updates, actions, tl_convert
from channels_app.access import channel_ref, dialog_peer_channel, is_channel_peer
from channels_app.actions import media_read
from channels_app.chat_context import chats_for
from channels_app.rpc.context import context_for
from edge_app.registry import rpc
from message_core import limits
from message_core.context import own_session, users_for, viewer
from message_core.folder_rule import FolderRule
from polls_app import actions as polls
from private_app import actions as private_actions
from private_app import dialogs as private_dialogs
from private_app import tl_convert as private_tl
from tl import functions, types
from tl.errors import FolderIdInvalidError, LimitInvalidError, PeerIdInvalidError

from .. import dialog_filters, drafts, pins, update_kinds
from ..peers import dialog_ref, dialog_user_peer, is_user_peer, peer_user_id


def _order_key(kind: str, e, rule: FolderRule | None = None) -> tuple:
    """The design's dialog order, shared by both kinds: pins first (one pin order for
    both, channels_app.actions.pins; a chat folder's own pins in a folder), then the
    newest top."""
    if rule is not None:
        order = rule.pin_rank(kind, e.channel["id"] if kind == "c" else e.peer_id)
        pinned = order > 0
    else:
        pinned = bool(e.dialog["pinned"])
        order = e.dialog["pinned_order"] if pinned else 0
    # At one (date, id) a channel sorts above a private chat: each side's seek cursor
    # treats the other kind's cursor that way (_private_cursor_peer).
    if kind == "c":
        return (pinned, order, e.top_date, e.top_message["id"] if e.top_message else 0, 1, e.channel["id"])
    return (pinned, order, e.dialog["top_date"], e.dialog["top_box_id"], 0, e.peer_id)


# Above every user id: a channel cursor at (date, id) still has the private chats of
# that same (date, id) to come (the channel side's cursor of a private chat is
# channel id 0, so its own rows at that key are already past).
_AFTER_EVERY_USER = 2**62


def _private_cursor_peer(offset_user: int, offset_channel: int) -> int:
    return offset_user or (_AFTER_EVERY_USER if offset_channel else 0)


async def _dialogs_response(me: int, merged: list[tuple[str, object]], *, count: int, complete: bool,
                            peer: bool = False):  # fmt: skip
    """``merged``: ("c", channel DialogEntry) / ("p", PrivateDialogEntry) in answer order."""
    channel_entries = [e for kind, e in merged if kind == "c"]
    private_entries = [e for kind, e in merged if kind == "p"]
    tops = [e for e in channel_entries if e.top_message]
    await polls.attach_results_async(me, [e.top_message for e in tops])
    for e in tops:  # a query only for a top message that is a voice note or round video
        await media_read.attach(me, e.channel["id"], [e.top_message])
    user_ids, channel_ids = {e.peer_id for e in private_entries}, {e.channel["id"] for e in channel_entries}
    private_actions.message_refs(
        [e.top_message for e in private_entries if e.top_message], user_ids, channel_ids
    )
    users, chats = await context_for(me, [e.top_message for e in channel_entries if e.top_message], user_ids,
                                     channel_ids, {e.channel["id"]: (e.channel, e.member) for e in channel_entries})  # fmt: skip
    found = await drafts.get_drafts(
        me, [(kind, e.channel["id"] if kind == "c" else e.peer_id) for kind, e in merged]
    )
    dialogs, messages = [], []
    for kind, e in merged:
        if kind == "c":
            dialog, top = tl_convert.dialog_entry_to_tl(e, me, found.get(("c", e.channel["id"])))
        else:
            dialog = private_tl.dialog_to_tl(e, found.get(("p", e.peer_id)))
            top = private_tl.message_to_tl(e.top_message) if e.top_message else None
        dialogs.append(dialog)
        if top is not None:
            messages.append(top)
    state = None
    if peer:
        from asgiref.sync import sync_to_async

        from accounts_app import tl_convert as accounts_tl
        from accounts_app import updates

        s = await sync_to_async(updates.get_state)(me)
        state = accounts_tl.state_to_tl(s.pts, s.date)
    return tl_convert.dialogs_result_to_tl(
        dialogs, messages, users, chats, count=count, complete=complete, peer=peer, state=state
    )


@rpc(functions.messages.GetDialogs)
async def get_dialogs(ctx, req: functions.messages.GetDialogs):
    """Channel and private dialogs, one order and one seek cursor over both."""
    me = viewer(ctx)
    offset_channel = offset_user = 0
    if req.offset_peer is not None and is_channel_peer(req.offset_peer):
        cid, access_hash = channel_ref(req.offset_peer)
        await actions.get_channel_for_viewer(me, cid, access_hash)  # the cursor peer is hash-checked too
        offset_channel = cid
    elif req.offset_peer is not None and is_user_peer(req.offset_peer):
        offset_user = peer_user_id(me, req.offset_peer)
    cursor = bool(req.offset_date or req.offset_id or offset_channel or offset_user)
    if req.limit < 0:
        raise LimitInvalidError()
    limit = min(req.limit or limits.DIALOGS_LIMIT, limits.DIALOGS_LIMIT)
    # folder_id 0/1 are the physical main list and archive; >= 2 a chat folder's rule.
    rule = await dialog_filters.folder_rule(me, req.folder_id) if (req.folder_id or 0) >= 2 else None
    if rule is None and req.folder_id not in (None, 0, 1):
        raise FolderIdInvalidError()
    # The cursor's pin position, whichever kind its dialog is, seeks both lists.
    cursor_pin = None
    if rule is not None and cursor:
        rank = rule.pin_rank("c", offset_channel) if offset_channel else rule.pin_rank("p", offset_user)
        cursor_pin = (rank > 0, rank)
    elif offset_channel or offset_user:
        state = await pins.pin_state(me, ("c", offset_channel) if offset_channel else ("p", offset_user))
        _, pinned, order = state or (0, False, 0)
        cursor_pin = (pinned, order if pinned else 0)
    d = await actions.get_dialogs(
        me, offset_date=req.offset_date, offset_id=req.offset_id, offset_channel_id=offset_channel,
        limit=limit, folder_id=req.folder_id, exclude_pinned=req.exclude_pinned, cursor_pin=cursor_pin, rule=rule,
    )  # fmt: skip
    if rule is not None:
        private, private_total = await private_dialogs.get_folder_dialogs(
            me, rule, limit=limit, offset_date=req.offset_date, offset_id=req.offset_id,
            offset_peer_id=_private_cursor_peer(offset_user, offset_channel), cursor_rank=cursor_pin[1] if cursor_pin else None,
            exclude_pinned=req.exclude_pinned,
        )  # fmt: skip
    else:
        private, private_total = await private_dialogs.get_dialogs(
            me, limit=limit, folder_id=req.folder_id or 0, offset_date=req.offset_date, offset_id=req.offset_id,
            offset_peer_id=_private_cursor_peer(offset_user, offset_channel), cursor_pin=cursor_pin,
            exclude_pinned=req.exclude_pinned,
        )  # fmt: skip
    merged = [("c", e) for e in d.entries] + [("p", e) for e in private]
    merged.sort(key=lambda item: _order_key(*item, rule), reverse=True)
    merged = merged[:limit]
    count = d.count + private_total
    return await _dialogs_response(me, merged, count=count, complete=not cursor and len(merged) == count)


@rpc(functions.messages.GetPeerDialogs)
async def get_peer_dialogs(ctx, req: functions.messages.GetPeerDialogs):
    me = viewer(ctx)
    wanted: list[tuple[str, int]] = []
    for p in req.peers[: limits.DIALOGS_LIMIT]:
        user_peer = dialog_user_peer(p)
        if user_peer is not None:
            wanted.append(("p", peer_user_id(me, user_peer)))
            continue
        ref = dialog_peer_channel(p)
        if ref is None:
            continue  # folder peers: folders have no dialog of their own here
        channel, _ = await actions.get_channel_for_viewer(me, ref[0], ref[1])
        wanted.append(("c", channel["id"]))
    d = await actions.get_peer_dialogs(me, [i for kind, i in wanted if kind == "c"])
    private = await private_dialogs.get_peer_dialogs(me, [i for kind, i in wanted if kind == "p"])
    found = {("c", e.channel["id"]): e for e in d.entries} | {("p", e.peer_id): e for e in private}
    merged = [(kind, found[(kind, i)]) for kind, i in dict.fromkeys(wanted) if (kind, i) in found]
    return await _dialogs_response(me, merged, count=len(merged), complete=True, peer=True)


@rpc(functions.messages.GetPinnedDialogs)
async def get_pinned_dialogs(ctx, req: functions.messages.GetPinnedDialogs):
    me = viewer(ctx)
    if req.folder_id not in (0, 1):
        raise FolderIdInvalidError()
    d = await actions.get_pinned_dialogs(me, req.folder_id)
    private = await private_dialogs.get_pinned(me, req.folder_id)
    merged = sorted([("c", e) for e in d.entries] + [("p", e) for e in private], key=lambda it: _order_key(*it),
                    reverse=True)  # fmt: skip
    return await _dialogs_response(me, merged, count=len(merged), complete=True, peer=True)


@rpc(functions.messages.ToggleDialogPin)
async def toggle_dialog_pin(ctx, req: functions.messages.ToggleDialogPin):
    me = viewer(ctx)
    kind, peer_id = await dialog_ref(me, req.peer)
    folder_id = await pins.do_toggle_dialog_pin(me, (kind, peer_id), req.pinned)
    if folder_id is not None:
        if kind == "c":
            kind_name, payload = account_updates.DIALOG_PINNED, {"channel_id": peer_id}
        else:
            kind_name, payload = private_dialogs.DIALOG_PINNED, {"peer_id": peer_id}
        await account_updates.append(
            me, kind_name, {**payload, "pinned": req.pinned, "folder_id": folder_id}, exclude=own_session(ctx)
        )
    return True


@rpc(functions.messages.ReorderPinnedDialogs)
async def reorder_pinned_dialogs(ctx, req: functions.messages.ReorderPinnedDialogs):
    me = viewer(ctx)
    if len(req.order) > limits.PINNED_DIALOGS_MAX * 2:
        raise LimitInvalidError()
    # Folder peers (a pinned archive) have no pin of their own here.
    order = [await dialog_ref(me, p) for p in req.order if isinstance(p, types.InputDialogPeer)]
    applied = await pins.do_reorder_pinned_dialogs(me, req.folder_id, order, force=req.force)
    await account_updates.append(
        me,
        update_kinds.PINNED_ORDER,
        {"peers": [list(p) for p in applied], "folder_id": req.folder_id},
        exclude=own_session(ctx),
    )
    return True


@rpc(functions.messages.MarkDialogUnread)
async def mark_dialog_unread(ctx, req: functions.messages.MarkDialogUnread):
    me = viewer(ctx)
    user_peer = dialog_user_peer(req.peer)
    if user_peer is not None:
        await private_dialogs.do_mark_dialog_unread(
            me, peer_user_id(me, user_peer), req.unread, exclude=own_session(ctx)
        )
        return True
    ref = dialog_peer_channel(req.peer)
    if ref is None:
        raise PeerIdInvalidError()
    channel, _ = await actions.get_channel_for_viewer(me, *ref)
    if req.parent_peer is not None:
        return True  # monoforum sub-dialogs are not modelled
    if await actions.do_mark_dialog_unread(me, channel["id"], req.unread):
        await account_updates.append(
            me,
            account_updates.UNREAD_MARK,
            {"channel_id": channel["id"], "unread": req.unread},
            exclude=own_session(ctx),
        )
    return True


@rpc(functions.messages.GetDialogUnreadMarks)
async def get_dialog_unread_marks(ctx, req: functions.messages.GetDialogUnreadMarks):
    me = viewer(ctx)
    if req.parent_peer is not None:
        return []
    channels = [
        types.DialogPeer(peer=types.PeerChannel(channel_id=c)) for c in await actions.get_unread_marks(me)
    ]
    return channels + [private_tl.dialog_peer_to_tl(u) for u in await private_dialogs.get_unread_marks(me)]


@rpc(functions.folders.EditPeerFolders)
async def edit_peer_folders(ctx, req: functions.folders.EditPeerFolders):
    me = viewer(ctx)
    ups, chat_ids, user_ids = [], [], []
    for fp in req.folder_peers[: limits.DIALOGS_LIMIT]:
        if is_user_peer(fp.peer):
            uid = peer_user_id(me, fp.peer)
            pts = await private_dialogs.do_set_dialog_folder(me, uid, fp.folder_id, exclude=own_session(ctx))
            if pts is not None:
                ups.append(private_tl.folder_update_to_tl(uid, fp.folder_id, pts))
            user_ids.append(uid)
            continue
        ref = dialog_peer_channel(fp.peer)
        if ref is None:
            raise PeerIdInvalidError()
        channel, _ = await actions.get_channel_for_viewer(me, *ref)
        if await actions.do_set_dialog_folder(me, channel["id"], fp.folder_id):
            pts = await account_updates.append(
                me,
                account_updates.FOLDER,
                {"channel_id": channel["id"], "folder_id": fp.folder_id},
                exclude=own_session(ctx),
            )
            if pts is not None:
                ups.append(
                    types.UpdateFolderPeers(
                        folder_peers=[
                            types.FolderPeer(
                                peer=types.PeerChannel(channel_id=channel["id"]), folder_id=fp.folder_id
                            )
                        ],
                        pts=pts,
                        pts_count=1,
                    )
                )
        chat_ids.append(channel["id"])
    return tl_convert.updates_to_tl(ups, await users_for(me, user_ids), await chats_for(me, chat_ids))
