"""Chat folders: messages.getDialogFilters / updateDialogFilter / updateDialogFiltersOrder
/ getSuggestedDialogFilters. Every peer a folder names is checked like any other input
peer (a channel's access hash, a user's), then stored as a kind and an id."""

from __future__ import annotations

from channels_app.actions.common import require_visible
from edge_app.registry import rpc
from message_core import tl_convert as core_tl
from message_core.context import chats_for, own_session, resolve_input_user, viewer
from tl import functions, types
from tl.errors import LimitInvalidError, PeerIdInvalidError

from .. import dialog_filters
from .. import tl_convert as messages_tl
from ..peers import resolve_peer


async def _peer_refs(me: int, peers) -> list[list]:
    if len(peers) > dialog_filters.CHATS_MAX:
        raise LimitInvalidError()
    out = []
    for peer in peers:
        if isinstance(peer, types.InputPeerEmpty):
            raise PeerIdInvalidError()
        p = await resolve_peer(me, peer)
        if p.channel is not None:
            # A hash is not enough: the chat must be one the user can see (a member's, or
            # public), as any chat a client can offer for a folder is.
            require_visible(p.channel, p.member, allow_public_preview=True)
        out.append(["c", p.channel_id] if p.channel is not None else ["p", p.user_id])
    return out


async def _folder_from_tl(me: int, f) -> dict:
    if not isinstance(f, types.DialogFilter | types.DialogFilterChatlist):
        raise PeerIdInvalidError()  # dialogFilterDefault is not a folder one can store
    title = f.title.text if isinstance(f.title, types.TextWithEntities) else str(f.title or "")
    entities = core_tl.entities_from_tl(getattr(f.title, "entities", None), resolve_input_user(me))
    chatlist = isinstance(f, types.DialogFilterChatlist)
    return {
        "chatlist": chatlist,
        "title": title,
        "title_entities": entities,
        "title_noanimate": f.title_noanimate,
        "emoticon": f.emoticon,
        "color": f.color,
        "flags": {} if chatlist else {k: getattr(f, k) for k in dialog_filters.SWITCHES},
        "pinned": await _peer_refs(me, f.pinned_peers),
        "include": await _peer_refs(me, f.include_peers),
        "exclude": [] if chatlist else await _peer_refs(me, f.exclude_peers),
    }


def channel_ids_of(folders) -> list[int]:
    return sorted(
        {i for f in folders if f for key in ("pinned", "include", "exclude") for k, i in f[key] if k == "c"}
    )


@rpc(functions.messages.GetDialogFilters)
async def get_dialog_filters(ctx, req: functions.messages.GetDialogFilters):
    me = viewer(ctx)
    folders = await dialog_filters.get_filters(me)
    chats = await chats_for(me, channel_ids_of(f for _, f in folders))
    return messages_tl.dialog_filters_to_tl(me, folders, chats)


@rpc(functions.messages.UpdateDialogFilter)
async def update_dialog_filter(ctx, req: functions.messages.UpdateDialogFilter):
    me = viewer(ctx)
    folder = await _folder_from_tl(me, req.filter) if req.filter is not None else None
    await dialog_filters.do_update_filter(me, req.id, folder, exclude=own_session(ctx))
    return True


@rpc(functions.messages.UpdateDialogFiltersOrder)
async def update_dialog_filters_order(ctx, req: functions.messages.UpdateDialogFiltersOrder):
    me = viewer(ctx)
    await dialog_filters.do_reorder_filters(me, list(req.order), exclude=own_session(ctx))
    return True


@rpc(functions.messages.GetSuggestedDialogFilters)
async def get_suggested_dialog_filters(ctx, req: functions.messages.GetSuggestedDialogFilters):
    me = viewer(ctx)
    return messages_tl.suggested_filters_to_tl(me, await dialog_filters.suggested_filters(me))
