"""Reactions, views and read receipts of any peer: each handler resolves the peer's
kind once and calls that kind's domain (``channels_app.actions.reactions / views /
read_receipts``, ``private_app.reactions``); the account's reaction lists live in
``accounts_app.reaction_lists``."""

from __future__ import annotations

import asyncio

from accounts_app import reaction_lists
from accounts_app.tl_convert import pts_filler_to_tl
from channels_app import actions, tl_convert
from channels_app.actions import peer_stats, read_receipts, views
from channels_app.actions import reactions as channel_reactions
from channels_app.actions import settings as channel_settings
from channels_app.actions.common import replies_refs
from channels_app.chat_context import chats_for
from channels_app.errors import LimitInvalidError, PeerIdInvalidError
from channels_app.rpc.admin import state_updates
from channels_app.rpc.context import context_for
from edge_app.push import push_to_users, renderer
from edge_app.registry import rpc
from media_app import actions as media_actions
from media_app import reaction_assets
from message_core import limits
from message_core import reactions as rx
from message_core import tl_convert as core_tl
from message_core.context import own_session, users_for, viewer
from private_app import reactions as private_reactions
from private_app import tl_convert as private_tl
from private_app.context import context_for as private_context_for
from tl import functions, types
from tl.errors import (
    BroadcastForbiddenError,
    MessageIdInvalidError,
    MessageNotReadYetError,
    OffsetInvalidError,
    ReactionInvalidError,
)

from .. import tl_convert as compat_tl
from .. import tl_convert_reactions as rx_tl
from ..peers import resolve_peer

SAVED_TAGS = "messages.saved_reaction_tags"


def _limit(limit: int, cap: int) -> int:
    if limit < 0:
        raise LimitInvalidError()
    return min(limit, cap)


def _ids(ids) -> list[int]:
    if len(ids) > limits.GET_IDS_MAX:
        raise LimitInvalidError()
    return list(ids)


async def _remember(me: int, added: list[str], add_to_recent: bool) -> None:
    if added:
        await reaction_lists.record_use(me, added, add_to_recent)


# --- sending and settings -------------------------------------------------------------------


@rpc(functions.messages.SendReaction)
async def send_reaction(ctx, req: functions.messages.SendReaction):
    """Replace (or with no reaction, clear) the viewer's reactions to one message."""
    me = viewer(ctx)
    chosen = core_tl.reactions_from_tl(req.reaction)
    p = await resolve_peer(me, req.peer, preview=False)
    if p.channel is None:
        m, event, added = await private_reactions.do_send_private_reaction(
            me, p.user_id, req.msg_id, chosen, big=req.big, exclude=own_session(ctx)
        )
        await _remember(me, added, req.add_to_recent)
        users, chats = await private_context_for(me, [m])
        ups = [private_tl.message_reactions_to_update(m)]
        if event is not None:
            ups.append(pts_filler_to_tl(event))
        return tl_convert.updates_to_tl(ups, users, chats)
    change = await channel_reactions.do_send_reaction(me, p.channel_id, req.msg_id, chosen, big=req.big)
    cid = p.channel_id
    update = tl_convert.message_reactions_to_update(
        cid, req.msg_id, change.summary, me, broadcast=change.channel["broadcast"]
    )
    # The account's lists and the answer's context do not depend on each other.
    _, users, chats = await asyncio.gather(
        _remember(me, change.added, req.add_to_recent),
        users_for(me, change.user_ids),
        chats_for(me, [cid], {cid: (change.channel, change.member)}),
    )
    return tl_convert.updates_to_tl([update], users, chats)


@rpc(functions.messages.SetChatAvailableReactions)
async def set_chat_available_reactions(ctx, req: functions.messages.SetChatAvailableReactions):
    """all / some (standard emoji) / none, and the distinct-reactions cap; change_info.
    Paid reactions do not exist here, so ``paid_enabled`` changes nothing."""
    me = viewer(ctx)
    a = req.available_reactions
    if isinstance(a, types.ChatReactionsSome):
        if len(a.reactions) > rx.CHAT_SOME_MAX:
            raise LimitInvalidError()
        kind, chosen = "some", core_tl.reactions_from_tl(a.reactions)
    else:
        kind, chosen = ("none" if isinstance(a, types.ChatReactionsNone) else "all"), []
    p = await resolve_peer(me, req.peer, preview=False)
    if p.channel is None:
        raise PeerIdInvalidError()  # a group / channel setting
    await channel_settings.do_set_available_reactions(me, p.channel_id, kind, chosen, req.reactions_limit)
    return await state_updates(me, p.channel_id)


@rpc(functions.messages.GetAvailableReactions)
async def get_available_reactions(ctx, req: functions.messages.GetAvailableReactions):
    """The standard reactions with their files; the files are made on first use
    (or beforehand by ``manage.py make_reaction_assets``)."""
    viewer(ctx)
    current = reaction_assets.catalog_hash(rx.catalog_hash())
    if req.hash == current:
        return rx_tl.available_reactions_not_modified_to_tl()
    documents = await media_actions.in_thread(reaction_assets.do_ensure_reaction_documents)(rx.STANDARD)
    return rx_tl.available_reactions_to_tl(current, rx.STANDARD, documents)


# --- reading reactions -------------------------------------------------------------------------


@rpc(functions.messages.GetMessagesReactions)
async def get_messages_reactions(ctx, req: functions.messages.GetMessagesReactions):
    """updateMessageReactions for each requested message the viewer can see."""
    me = viewer(ctx)
    ids = _ids(req.id)
    p = await resolve_peer(me, req.peer)
    if p.channel is None:
        found = await private_reactions.get_messages_with_reactions(me, p.user_id, ids)
        users, chats = await private_context_for(me, found)
        return tl_convert.updates_to_tl(
            [private_tl.message_reactions_to_update(m) for m in found], users, chats
        )
    h = await actions.get_messages(me, p.channel_id, ids)
    live = [m for m in h.messages if not m.get("empty") and not m.get("action")]
    ups = [
        tl_convert.message_reactions_to_update(
            p.channel_id, m["id"], m.get("reactions"), me, broadcast=h.channel["broadcast"]
        )
        for m in live
    ]
    users = await users_for(me, channel_reactions.reactor_ids(live))
    chats = await chats_for(me, [p.channel_id], {p.channel_id: (h.channel, h.member)})
    return tl_convert.updates_to_tl(ups, users, chats)


@rpc(functions.messages.GetMessageReactionsList)
async def get_message_reactions_list(ctx, req: functions.messages.GetMessageReactionsList):
    """Who reacted (one reaction, or all), newest first, in keyset pages. A broadcast
    channel shows only totals: BROADCAST_FORBIDDEN."""
    me = viewer(ctx)
    limit = _limit(req.limit, rx.LIST_PAGE_MAX)
    if req.offset is not None and len(req.offset) > 64:
        raise OffsetInvalidError()
    only = core_tl.reaction_from_tl(req.reaction) if req.reaction is not None else None
    if only == "":
        raise ReactionInvalidError()
    p = await resolve_peer(me, req.peer)
    if p.channel is None:
        if not 0 < req.id <= limits.MAX_MESSAGE_ID:
            raise MessageIdInvalidError()
        rows = await private_reactions.reactions_list(me, p.user_id, req.id, only)
        users = await users_for(me, {me, p.user_id, *(r["user_id"] for r in rows)})
        return rx_tl.reactors_to_tl(len(rows), rows[:limit] if limit else rows, None, me, [], users)
    if p.channel["broadcast"]:
        raise BroadcastForbiddenError()
    count, rows, nxt, channel, member = await channel_reactions.reactions_list(
        me, p.channel_id, req.id, reaction=only, offset=req.offset, limit=limit
    )
    users = await users_for(me, {r["user_id"] for r in rows})
    chats = await chats_for(me, [p.channel_id], {p.channel_id: (channel, member)})
    return rx_tl.reactors_to_tl(count, rows, nxt, me, chats, users)


@rpc(functions.messages.GetUnreadReactions)
async def get_unread_reactions(ctx, req: functions.messages.GetUnreadReactions):
    """The viewer's own messages with reactions they have not seen, newest first
    (topics and saved sublists are not modelled: they narrow nothing)."""
    me = viewer(ctx)
    p = await resolve_peer(me, req.peer)
    if p.channel is None:
        ids, total = await private_reactions.unread_reaction_ids(
            me, p.user_id, offset_id=req.offset_id, add_offset=req.add_offset, limit=req.limit,
            max_id=req.max_id, min_id=req.min_id,
        )  # fmt: skip
        found = await private_reactions.get_messages_with_reactions(me, p.user_id, ids)
        users, chats = await private_context_for(me, found)
        msgs = [private_tl.message_to_tl(m) for m in found]
        return types.messages.MessagesSlice(count=total, messages=msgs, topics=[], chats=chats, users=users)
    ids, total = await channel_reactions.unread_reaction_ids(
        me, p.channel_id, offset_id=req.offset_id, add_offset=req.add_offset, limit=req.limit,
        max_id=req.max_id, min_id=req.min_id,
    )  # fmt: skip
    h = await actions.get_existing_messages(me, p.channel_id, ids)
    h.count = total
    users, chats = await context_for(
        me, h.messages, (), [p.channel_id], {p.channel_id: (h.channel, h.member)}
    )
    return tl_convert.channel_messages_to_tl(h, me, users, chats)


@rpc(functions.messages.ReadReactions)
async def read_reactions(ctx, req: functions.messages.ReadReactions):
    me = viewer(ctx)
    p = await resolve_peer(me, req.peer)
    if p.channel is None:
        pts, count, more = await private_reactions.do_read_reactions(me, p.user_id, exclude=own_session(ctx))
        return core_tl.affected_history_to_tl(pts, count, more)
    channel, _, more = await channel_reactions.do_read_reactions(me, p.channel_id)
    return core_tl.affected_history_to_tl(channel["pts"], 0, more)


@rpc(functions.messages.ReadMessageContents)
async def read_message_contents(ctx, req: functions.messages.ReadMessageContents):
    """Private chats (channel messages use channels.readMessageContents): the
    messages' reactions are read; logged for the owner's other devices when any were
    unread."""
    me = viewer(ctx)
    ids = _ids(req.id)
    pts, count = await private_reactions.do_read_message_contents(me, ids, exclude=own_session(ctx))
    return core_tl.affected_messages_to_tl(pts, count)


# --- the account's lists ---------------------------------------------------------------------


@rpc(functions.messages.GetRecentReactions)
async def get_recent_reactions(ctx, req: functions.messages.GetRecentReactions):
    me = viewer(ctx)
    limit = _limit(req.limit, rx.RECENT_LIST_MAX) or rx.RECENT_LIST_MAX
    return rx_tl.reactions_list_to_tl(await reaction_lists.recent(me, limit), req.hash)


@rpc(functions.messages.ClearRecentReactions)
async def clear_recent_reactions(ctx, req: functions.messages.ClearRecentReactions):
    await reaction_lists.clear_recent(viewer(ctx))
    return True


@rpc(functions.messages.GetTopReactions)
async def get_top_reactions(ctx, req: functions.messages.GetTopReactions):
    """The account's most used reactions, then the catalog's order to fill the list."""
    me = viewer(ctx)
    limit = _limit(req.limit, rx.TOP_LIST_MAX) or rx.TOP_LIST_MAX
    used = await reaction_lists.top(me, limit)
    filled = used + [r for r in rx.STANDARD if r not in used]
    return rx_tl.reactions_list_to_tl(filled[:limit], req.hash)


@rpc(functions.messages.UpdateSavedReactionTag)
async def update_saved_reaction_tag(ctx, req: functions.messages.UpdateSavedReactionTag):
    me = viewer(ctx)
    reaction = rx.canonical(core_tl.reaction_from_tl(req.reaction))
    if reaction not in rx.STANDARD_SET:
        raise ReactionInvalidError()
    title = (req.title or "").strip()
    if len(title) > rx.TAG_TITLE_MAX:
        raise LimitInvalidError()
    if await reaction_lists.set_saved_tag(me, reaction, title or None):
        await push_to_users([me], SAVED_TAGS, {}, exclude=own_session(ctx))
    return True


@renderer(SAVED_TAGS)
async def _render_saved_tags(payload: dict, viewer_id: int):
    return tl_convert.updates_to_tl([rx_tl.saved_tags_update_to_tl()], [], [])


# --- views and read receipts -------------------------------------------------------------------


@rpc(functions.messages.GetMessagesViews)
async def get_messages_views(ctx, req: functions.messages.GetMessagesViews):
    """One messageViews per requested id, in order. On a broadcast channel
    ``increment`` counts the viewer once per visible post; megagroup messages carry
    their thread reply counts. Ids the viewer cannot see get an empty entry."""
    me = viewer(ctx)
    ids = _ids(req.id)
    p = await resolve_peer(me, req.peer)
    if p.channel is None:
        users = await users_for(me, [p.user_id])
        return compat_tl.message_views_to_tl([None] * len(ids), None, {}, [], users)
    if req.increment and p.channel["broadcast"]:
        await views.do_record_views(me, p.channel, p.member, ids)
    h = await actions.get_messages(me, p.channel_id, ids)
    channel = h.channel
    live = [m for m in h.messages if not m.get("empty") and not m.get("action")]
    replies = (
        await peer_stats.thread_reply_counts(channel, h.member, sorted({m["id"] for m in live}))
        if channel["megagroup"]
        else {}
    )
    refs_u: set[int] = set()
    refs_c = {channel["id"]}
    for m in live:
        replies_refs(m, refs_u, refs_c)
    users = await users_for(me, sorted(refs_u)) if refs_u else []
    chats = await chats_for(me, sorted(refs_c), {channel["id"]: (channel, h.member)})
    return compat_tl.message_views_to_tl(h.messages, channel, replies, chats, users)


@rpc(functions.messages.GetMessageReadParticipants)
async def get_message_read_participants(ctx, req: functions.messages.GetMessageReadParticipants):
    me = viewer(ctx)
    p = await resolve_peer(me, req.peer)
    if p.channel is None:
        raise PeerIdInvalidError()  # a group method
    readers = await read_receipts.read_participants(me, p.channel_id, req.msg_id)
    return rx_tl.read_participants_to_tl(readers)


@rpc(functions.messages.GetOutboxReadDate)
async def get_outbox_read_date(ctx, req: functions.messages.GetOutboxReadDate):
    """Private chats: when the peer read this outgoing message (from the stored read
    marks, kept for appConfig's pm_read_date_expire_period)."""
    me = viewer(ctx)
    p = await resolve_peer(me, req.peer)
    if p.channel is not None or p.user_id == me:
        raise PeerIdInvalidError()
    if not 0 < req.msg_id <= limits.MAX_MESSAGE_ID:
        raise MessageIdInvalidError()
    # Read dates are mutual: whoever hides their own (setGlobalPrivacySettings
    # hide_read_marks) sees nobody's.
    from asgiref.sync import sync_to_async

    from accounts_app import account_settings
    from tl.errors import UserPrivacyRestrictedError, YourPrivacyRestrictedError

    if (await sync_to_async(account_settings.global_privacy)(me))["hide_read_marks"]:
        raise YourPrivacyRestrictedError()
    if (await sync_to_async(account_settings.global_privacy)(p.user_id))["hide_read_marks"]:
        raise UserPrivacyRestrictedError()
    date = await private_reactions.outbox_read_date(me, p.user_id, req.msg_id)
    if date is None:
        raise MessageNotReadYetError()
    return rx_tl.outbox_read_date_to_tl(date)


@rpc(functions.messages.SetDefaultReaction)
async def set_default_reaction(ctx, req: functions.messages.SetDefaultReaction):
    """The double-tap reaction of all the user's devices (help.getConfig's
    reactions_default): the others re-read their config."""
    from asgiref.sync import sync_to_async

    from accounts_app import account_settings
    from accounts_app.push import push_config_changed

    me = viewer(ctx)
    reaction = rx.canonical(core_tl.reaction_from_tl(req.reaction))
    if reaction not in rx.STANDARD_SET:
        raise ReactionInvalidError()
    await sync_to_async(account_settings.do_set_default_reaction)(me, reaction)
    await push_config_changed(me, exclude=own_session(ctx))
    return True
