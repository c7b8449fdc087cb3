"""messages.* for private chats.

Methods that only private chats have (messages.getMessages / deleteMessages) are
registered here. Methods shared with channels are registered once, in
``channels_app.rpc.messages``, which hands a user peer to the functions below.
"""

from __future__ import annotations

import time

from accounts_app.access import check_input_peer_user
from edge_app.push import push_to_users, renderer
from edge_app.registry import rpc
from message_core.context import chats_for, own_session, resolve_input_user, users_for, viewer
from message_core.tl_convert import affected_history_to_tl, affected_messages_to_tl, entities_from_tl
from tl import functions, types
from tl.errors import MediaEmptyError, PeerIdInvalidError

from . import actions, tl_convert

TYPING_KIND = "private.typing"


def is_user_peer(peer) -> bool:
    return isinstance(peer, types.InputPeerUser | types.InputPeerSelf)


def peer_user_id(me: int, peer) -> int:
    """The user an InputPeer names, access hash checked (PEER_ID_INVALID otherwise)."""
    return check_input_peer_user(me, peer)


def _viewer(ctx) -> tuple[int, tuple[int, int]]:
    return viewer(ctx), own_session(ctx)


async def _context(me: int, messages: list[dict]) -> tuple[list, list]:
    users, chans = {me}, set()
    actions.message_refs([m for m in messages if not m.get("empty")], users, chans)
    return await users_for(me, users), await chats_for(me, sorted(chans)) if chans else []


async def sent_updates(me: int, change: actions.PrivateChange):
    users, chats = await _context(me, change.messages)
    return tl_convert.sent_updates_to_tl(change, users, chats, int(time.time()))


async def send_message(ctx, req: functions.messages.SendMessage):
    me, origin = _viewer(ctx)
    peer = peer_user_id(me, req.peer)
    reply_to = 0
    r = req.reply_to
    if isinstance(r, types.InputReplyToMessage):
        if r.reply_to_peer_id is not None and peer_user_id(me, r.reply_to_peer_id) != peer:
            raise PeerIdInvalidError()  # cross-chat replies are not modelled
        reply_to = r.reply_to_msg_id
    change = await actions.do_send_private_message(
        me, peer, req.message, req.random_id, entities=entities_from_tl(req.entities, resolve_input_user(me)),
        reply_to_msg_id=reply_to, silent=req.silent, exclude=origin,
    )  # fmt: skip
    return await sent_updates(me, change)


async def forward_to_user(
    ctx, req: functions.messages.ForwardMessages, items: list[dict], random_ids: list[int]
):
    me, origin = _viewer(ctx)
    change = await actions.do_forward_to_user(
        me, peer_user_id(me, req.to_peer), items, random_ids, drop_author=req.drop_author, silent=req.silent,
        exclude=origin,
    )  # fmt: skip
    return await sent_updates(me, change)


async def forwardable(ctx, peer, ids: list[int]) -> list[dict]:
    me, _ = _viewer(ctx)
    return await actions.get_forwardable(me, peer_user_id(me, peer), ids)


async def edit_message(ctx, req: functions.messages.EditMessage):
    me, origin = _viewer(ctx)
    if req.media is not None and not isinstance(req.media, types.InputMediaEmpty | types.InputMediaWebPage):
        raise MediaEmptyError()  # no media store: text edits only
    change = await actions.do_edit_private_message(
        me, peer_user_id(me, req.peer), req.id, req.message, entities_from_tl(req.entities, resolve_input_user(me)),
        exclude=origin,
    )  # fmt: skip
    users, chats = await _context(me, change.messages)
    return tl_convert.edit_updates_to_tl(change, users, chats, int(time.time()))


async def get_history(ctx, req: functions.messages.GetHistory):
    me, _ = _viewer(ctx)
    h = await actions.get_history(
        me, peer_user_id(me, req.peer), offset_id=req.offset_id, offset_date=req.offset_date,
        add_offset=req.add_offset, limit=req.limit, max_id=req.max_id, min_id=req.min_id,
    )  # fmt: skip
    users, chats = await _context(me, h.messages)
    return tl_convert.history_to_tl(h, users, chats)


async def search(ctx, req: functions.messages.Search):
    """Text search in one private chat (same seek as history); media filters find
    nothing, as no media exist."""
    me, _ = _viewer(ctx)
    peer = peer_user_id(me, req.peer)
    if not isinstance(req.filter, types.InputMessagesFilterEmpty):
        return tl_convert.history_to_tl(actions.PrivateHistory([], 0), [], [])
    h = await actions.get_history(
        me, peer, offset_id=req.offset_id, add_offset=req.add_offset, limit=req.limit, max_id=req.max_id,
        min_id=req.min_id, q=req.q.strip(), min_date=req.min_date, max_date=req.max_date,
    )  # fmt: skip
    users, chats = await _context(me, h.messages)
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
    peer = peer_user_id(me, req.peer)
    if peer != me:
        await push_to_users([peer], TYPING_KIND, {"user_id": me, "action": req.action.to_bytes().hex()})
    return True


@renderer(TYPING_KIND)
async def render_typing(payload: dict, viewer_user_id: int):
    from tl.runtime import Reader

    action = Reader(bytes.fromhex(payload["action"])).read_object()
    return tl_convert.typing_update_to_tl(int(payload["user_id"]), action)


@rpc(functions.messages.GetMessages)
async def get_messages(ctx, req: functions.messages.GetMessages):
    """Exact private-message ids (the owner's numbering); inputMessageReplyTo names the
    message that one replies to. Pinned and callback lookups find nothing: private
    chats have no pins or inline buttons here."""
    me, _ = _viewer(ctx)
    ids = [
        item.id if isinstance(item, types.InputMessageID | types.InputMessageReplyTo) else 0
        for item in req.id
    ]
    replies = {item.id for item in req.id if isinstance(item, types.InputMessageReplyTo)}
    messages = await actions.get_messages(me, ids, reply_ids=replies)
    users, chats = await _context(me, messages)
    return tl_convert.messages_to_tl(messages, users, chats)


@rpc(functions.messages.DeleteMessages)
async def delete_messages(ctx, req: functions.messages.DeleteMessages):
    me, origin = _viewer(ctx)
    pts, count = await actions.do_delete_private_messages(me, list(req.id), revoke=req.revoke, exclude=origin)
    return affected_messages_to_tl(pts, count)
