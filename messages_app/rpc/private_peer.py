"""The private-chat side of the any-peer messages.* methods (a user peer): decode,
check the peer, call ``private_app``'s domain, convert. Registered handlers in
``messages.py`` route a user peer here."""

from __future__ import annotations

import time

from bots_app import markup as bot_markup
from message_core.context import own_session, resolve_input_user, viewer
from message_core.tl_convert import affected_history_to_tl, affected_messages_to_tl, entities_from_tl
from polls_app import actions as polls
from private_app import actions, tl_convert
from private_app.context import context_for
from private_app.typing import push_typing
from tl import functions, types
from tl.errors import PeerIdInvalidError

from ..media_input import edited_media
from ..peers import media_filter_kinds, peer_user_id


def _viewer(ctx) -> tuple[int, tuple[int, int]]:
    return viewer(ctx), own_session(ctx)


async def sent_updates(me: int, change: actions.PrivateChange):
    await polls.attach_results_async(me, change.messages)  # a sent or forwarded poll's totals
    users, chats = await context_for(me, change.messages)
    return tl_convert.sent_updates_to_tl(change, users, chats, int(time.time()))


async def send_message(ctx, req: functions.messages.SendMessage, preview: dict | None = None):
    me, origin = _viewer(ctx)
    peer = peer_user_id(me, req.peer)
    reply_to = 0
    r = req.reply_to
    if isinstance(r, types.InputReplyToMessage):
        if r.reply_to_peer_id is not None and peer_user_id(me, r.reply_to_peer_id) != peer:
            raise PeerIdInvalidError()  # cross-chat replies are not modelled
        reply_to = r.reply_to_msg_id
    markup = await bot_markup.markup_for_sender(me, req.reply_markup, resolve_input_user(me))
    change = await actions.do_send_private_message(
        me, peer, req.message, req.random_id, entities=entities_from_tl(req.entities, resolve_input_user(me)),
        reply_to_msg_id=reply_to, silent=req.silent, exclude=origin, reply_markup=markup, media=preview,
    )  # fmt: skip
    if preview is not None:
        from .webpages import after_send, private_refs

        await after_send(preview, private_refs(me, peer, change))
    return await sent_updates(me, change)


async def forward_to_user(
    ctx,
    req: functions.messages.ForwardMessages,
    items: list[dict],
    random_ids: list[int],
    source: tuple[str, int],
):
    me, origin = _viewer(ctx)
    change = await actions.do_forward_to_user(
        me, peer_user_id(me, req.to_peer), items, random_ids, drop_author=req.drop_author, silent=req.silent,
        exclude=origin, source=source,
    )  # fmt: skip
    return await sent_updates(me, change)


async def forwardable(ctx, peer, ids: list[int]) -> list[dict]:
    me, _ = _viewer(ctx)
    return await actions.get_forwardable(me, peer_user_id(me, peer), ids)


async def edit_message(ctx, req: functions.messages.EditMessage):
    me, origin = _viewer(ctx)
    peer = peer_user_id(me, req.peer)

    async def current():
        found = (await actions.get_messages(me, [req.id]))[0]
        return None if found.get("empty") or found["peer_id"] != peer else found.get("media")

    media = await edited_media(me, req.media, current=current)
    if media and media.get("close_poll"):
        from .polls import close_by_edit

        return await close_by_edit(ctx, me, media["close_poll"])
    entities = entities_from_tl(req.entities, resolve_input_user(me))
    markup = await bot_markup.edit_markup_args(me, req.reply_markup, resolve_input_user(me))
    relink = req.message is not None and req.media is None
    preview = None
    if relink:
        from .webpages import preview_for

        preview = await preview_for(
            req.message, entities, no_webpage=bool(req.no_webpage), invert_media=bool(req.invert_media)
        )
    change = await actions.do_edit_private_message(
        me, peer, req.id, req.message, entities, exclude=origin, media=media, link_preview=preview, relink=relink,
        **markup,
    )  # fmt: skip
    if preview is not None:
        from .webpages import after_send, private_refs

        await after_send(preview, private_refs(me, peer, change))
    users, chats = await context_for(me, change.messages)
    return tl_convert.edit_updates_to_tl(change, users, chats, int(time.time()))


async def get_history(ctx, req: functions.messages.GetHistory):
    me, _ = _viewer(ctx)
    h = await actions.get_history(
        me, peer_user_id(me, req.peer), offset_id=req.offset_id, offset_date=req.offset_date,
        add_offset=req.add_offset, limit=req.limit, max_id=req.max_id, min_id=req.min_id,
    )  # fmt: skip
    users, chats = await context_for(me, h.messages)
    return tl_convert.history_to_tl(h, users, chats)


async def search(ctx, req: functions.messages.Search):
    """Text and media-kind search in one private chat (same seek as history); other
    filters find nothing."""
    me, _ = _viewer(ctx)
    peer = peer_user_id(me, req.peer)
    kinds = media_filter_kinds(req.filter)
    if not isinstance(req.filter, types.InputMessagesFilterEmpty) and kinds is None:
        return tl_convert.history_to_tl(actions.PrivateHistory([], 0), [], [])
    h = await actions.get_history(
        me, peer, offset_id=req.offset_id, add_offset=req.add_offset, limit=req.limit, max_id=req.max_id,
        min_id=req.min_id, q=req.q.strip(), min_date=req.min_date, max_date=req.max_date, media_kinds=kinds or (),
    )  # fmt: skip
    users, chats = await context_for(me, h.messages)
    return tl_convert.history_to_tl(h, users, chats)


async def read_history(ctx, req: functions.messages.ReadHistory):
    me, origin = _viewer(ctx)
    pts, count = await actions.do_read_history(me, peer_user_id(me, req.peer), req.max_id, exclude=origin)
    return affected_messages_to_tl(pts, count)


async def delete_history(ctx, req: functions.messages.DeleteHistory):
    me, origin = _viewer(ctx)
    pts, count, more = await actions.do_delete_private_history(
        me, peer_user_id(me, req.peer), req.max_id, revoke=req.revoke, exclude=origin
    )
    return affected_history_to_tl(pts, count, more)


async def set_typing(ctx, req: functions.messages.SetTyping):
    me, _ = _viewer(ctx)
    await push_typing(me, peer_user_id(me, req.peer), req.action.to_bytes().hex())
    return True
