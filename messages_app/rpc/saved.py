"""Saved Messages as chats: messages.getSavedDialogs and the methods of one sublist
(private_app.saved_dialogs holds the rules). A sublist is named by the chat its
messages came from; the viewer's own messages in Saved Messages are the sublist of
the viewer."""

from __future__ import annotations

from accounts_app.updates import do_append_user_update
from channels_app.access import is_channel_peer
from edge_app.registry import rpc
from message_core import limits
from message_core.context import own_session, viewer
from message_core.tl_convert import affected_history_to_tl
from private_app import actions as private_actions
from private_app import saved_dialogs, tl_convert
from private_app.context import context_for
from tl import functions, types
from tl.errors import PeerIdInvalidError

from ..peers import checked_channel, is_user_peer, peer_user_id
from ..tl_convert_reactions import saved_tags_to_tl


async def _sublist(me: int, peer) -> int:
    """The sublist an InputPeer names, its access hash checked. A channel needs no
    membership: the key only selects the viewer's own saved copies (they may have left
    the channel since)."""
    if isinstance(peer, types.InputDialogPeer):
        peer = peer.peer
    if is_user_peer(peer):
        return saved_dialogs.peer_key("u", peer_user_id(me, peer))
    if is_channel_peer(peer):
        channel, _ = await checked_channel(me, peer, preview=True)
        return saved_dialogs.peer_key("c", channel["id"])
    raise PeerIdInvalidError()


def _check_parent(me: int, parent) -> None:
    # A parent peer names a channel's direct-messages forum on Telegram; there are none
    # here, so only the viewer's own Saved Messages are a parent.
    if parent is not None and not (is_user_peer(parent) and peer_user_id(me, parent) == me):
        raise PeerIdInvalidError()


async def _answer(me: int, page):
    users, chats = await context_for(me, [d.top for d in page.dialogs])
    return tl_convert.saved_dialogs_to_tl(page, users, chats)


@rpc(functions.messages.GetSavedDialogs)
async def get_saved_dialogs(ctx, req: functions.messages.GetSavedDialogs):
    me = viewer(ctx)
    _check_parent(me, req.parent_peer)
    offset_peer = 0
    if req.offset_peer is not None and not isinstance(req.offset_peer, types.InputPeerEmpty):
        offset_peer = await _sublist(me, req.offset_peer)
    page = await saved_dialogs.get_saved_dialogs(
        me, offset_id=req.offset_id, offset_date=req.offset_date, offset_peer=offset_peer, limit=req.limit,
        exclude_pinned=bool(req.exclude_pinned),
    )  # fmt: skip
    return await _answer(me, page)


@rpc(functions.messages.GetPinnedSavedDialogs)
async def get_pinned_saved_dialogs(ctx, req: functions.messages.GetPinnedSavedDialogs):
    me = viewer(ctx)
    return await _answer(me, await saved_dialogs.get_pinned_saved_dialogs(me))


@rpc(functions.messages.GetSavedDialogsByID)
async def get_saved_dialogs_by_id(ctx, req: functions.messages.GetSavedDialogsByID):
    me = viewer(ctx)
    _check_parent(me, req.parent_peer)
    keys = [await _sublist(me, p) for p in req.ids[: limits.GET_IDS_MAX + 1]]
    return await _answer(me, await saved_dialogs.get_saved_dialogs_by_id(me, keys))


@rpc(functions.messages.GetSavedHistory)
async def get_saved_history(ctx, req: functions.messages.GetSavedHistory):
    me = viewer(ctx)
    _check_parent(me, req.parent_peer)
    h = await private_actions.get_history(
        me, me, offset_id=req.offset_id, offset_date=req.offset_date, add_offset=req.add_offset, limit=req.limit,
        max_id=req.max_id, min_id=req.min_id, saved_peer=await _sublist(me, req.peer),
    )  # fmt: skip
    users, chats = await context_for(me, h.messages)
    return tl_convert.history_to_tl(h, users, chats)


@rpc(functions.messages.ReadSavedHistory)
async def read_saved_history(ctx, req: functions.messages.ReadSavedHistory):
    """Saved Messages have nothing unread (the owner wrote or saved each message)."""
    me = viewer(ctx)
    _check_parent(me, req.parent_peer)
    await _sublist(me, req.peer)
    return True


@rpc(functions.messages.DeleteSavedHistory)
async def delete_saved_history(ctx, req: functions.messages.DeleteSavedHistory):
    me = viewer(ctx)
    _check_parent(me, req.parent_peer)
    pts, count, more = await private_actions.do_delete_private_history(
        me, me, req.max_id, exclude=own_session(ctx), saved_peer=await _sublist(me, req.peer),
        min_date=req.min_date or 0, max_date=req.max_date or 0,
    )  # fmt: skip
    return affected_history_to_tl(pts, count, more)


@rpc(functions.messages.ToggleSavedDialogPin)
async def toggle_saved_dialog_pin(ctx, req: functions.messages.ToggleSavedDialogPin):
    me = viewer(ctx)
    key = await _sublist(me, req.peer)
    pinned = bool(req.pinned)
    if await saved_dialogs.do_toggle_saved_dialog_pin(me, key, pinned):
        await do_append_user_update(
            me,
            saved_dialogs.SAVED_DIALOG_PINNED,
            {"saved_peer": key, "pinned": pinned},
            exclude=own_session(ctx),
        )
    return True


@rpc(functions.messages.ReorderPinnedSavedDialogs)
async def reorder_pinned_saved_dialogs(ctx, req: functions.messages.ReorderPinnedSavedDialogs):
    me = viewer(ctx)
    keys = [await _sublist(me, p) for p in req.order[: saved_dialogs.PINNED_MAX + 1]]
    order = await saved_dialogs.do_reorder_pinned_saved_dialogs(me, keys, bool(req.force))
    await do_append_user_update(
        me, saved_dialogs.SAVED_PINNED_ORDER, {"order": order}, exclude=own_session(ctx)
    )
    return True


@rpc(functions.messages.GetSavedReactionTags)
async def get_saved_reaction_tags(ctx, req: functions.messages.GetSavedReactionTags):
    """The owner's tags (reactions on their Saved Messages) with how many messages
    carry each, in all Saved Messages or in one sublist."""
    from accounts_app import reaction_lists

    me = viewer(ctx)
    key = await _sublist(me, req.peer) if req.peer is not None else None
    counts = await saved_dialogs.tag_counts(me, key)
    titles = dict(await reaction_lists.saved_tags(me))
    return saved_tags_to_tl(counts, titles, req.hash)
