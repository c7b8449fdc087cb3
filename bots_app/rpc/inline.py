"""Inline mode: messages.getInlineBotResults (user), messages.setInlineBotResults (bot),
messages.sendInlineBotResult (user)."""

from __future__ import annotations

import time

from accounts_app.access import check_input_user
from bots_app import inline, tl_convert
from bots_app.access import calling_bot
from bots_app.markup import validate as validate_markup
from channels_app import actions as channel_actions
from channels_app.access import channel_ref
from channels_app.rpc.context import change_to_updates
from edge_app.registry import rpc
from media_app import actions as media_actions
from message_core.context import own_session, resolve_input_user, users_for, viewer
from message_core.text import validate_caption, validate_text
from message_core.tl_convert import entities_from_tl
from message_core.tl_convert_markup import UnsupportedButton, reply_markup_from_tl
from private_app import actions as private_actions
from private_app import tl_convert as private_tl
from private_app.context import context_for
from tl import functions, types
from tl.errors import ReplyMarkupInvalidError, ResultTypeInvalidError, SendMessageTypeInvalidError


async def _peer_type(me: int, bot_id: int, peer) -> str | None:
    if isinstance(peer, types.InputPeerSelf):
        return "pm"
    if isinstance(peer, types.InputPeerUser):
        return "same_bot_pm" if peer.user_id == bot_id else "pm"
    if isinstance(peer, types.InputPeerChannel):
        return await inline.channel_peer_type(peer.channel_id, peer.access_hash)
    return None


@rpc(functions.messages.GetInlineBotResults)
async def get_inline_bot_results(ctx, req: functions.messages.GetInlineBotResults):
    me = viewer(ctx)
    bot_id = check_input_user(me, req.bot)
    query_id, body = await inline.ask(
        me, bot_id, req.query, req.offset, await _peer_type(me, bot_id, req.peer)
    )
    users = await users_for(me, [bot_id])
    return tl_convert.bot_results_to_tl(query_id, body, users)


def _send_message(me: int, send, has_media: bool) -> dict:
    try:
        markup = validate_markup(reply_markup_from_tl(send.reply_markup, resolve_input_user(me)))
    except UnsupportedButton as exc:
        raise ReplyMarkupInvalidError() from exc
    entities = entities_from_tl(send.entities, resolve_input_user(me))
    if isinstance(send, types.InputBotInlineMessageText):
        entities = validate_text(send.message, entities)
        return {
            "message": send.message,
            "entities": entities,
            "no_webpage": bool(send.no_webpage),
            "reply_markup": markup,
        }
    if isinstance(send, types.InputBotInlineMessageMediaAuto):
        entities = (validate_caption if has_media else validate_text)(send.message, entities)
        return {"message": send.message, "entities": entities, "media_auto": True, "reply_markup": markup}
    raise SendMessageTypeInvalidError()


async def result_from_tl(me: int, r) -> dict:
    """An InputBotInlineResult in bots_app.inline's stored form."""
    if isinstance(r, types.InputBotInlineResult):
        return {
            "id": r.id, "type": r.type, "title": r.title or "", "description": r.description or "",
            "url": r.url or "", "send": _send_message(me, r.send_message, False),
        }  # fmt: skip
    if isinstance(r, types.InputBotInlineResultPhoto) and isinstance(r.photo, types.InputPhoto):
        photo = await media_actions.get_photo(r.photo.id, r.photo.access_hash, r.photo.file_reference)
        return {"id": r.id, "type": r.type, "photo": photo, "send": _send_message(me, r.send_message, True)}
    if isinstance(r, types.InputBotInlineResultDocument) and isinstance(r.document, types.InputDocument):
        d = r.document
        doc = await media_actions.get_document(d.id, d.access_hash, d.file_reference)
        return {
            "id": r.id, "type": r.type, "title": r.title or "", "description": r.description or "",
            "document": doc, "send": _send_message(me, r.send_message, True),
        }  # fmt: skip
    raise ResultTypeInvalidError()


@rpc(functions.messages.SetInlineBotResults)
async def set_inline_bot_results(ctx, req: functions.messages.SetInlineBotResults):
    me = viewer(ctx)
    await calling_bot(me)
    inline.check_results([{"id": r.id} for r in req.results[: inline.RESULTS_MAX + 1]])
    results = [await result_from_tl(me, r) for r in req.results]
    switch = req.switch_pm
    body = {
        "results": results,
        "next_offset": req.next_offset or "",
        "cache_time": req.cache_time,
        "gallery": bool(req.gallery),
        "private": bool(req.private),
        "switch_pm": {"text": switch.text, "start_param": switch.start_param} if switch else None,
    }
    await inline.do_answer(me, req.query_id, body)
    return True


@rpc(functions.messages.SendInlineBotResult)
async def send_inline_bot_result(ctx, req: functions.messages.SendInlineBotResult):
    me = viewer(ctx)
    bot_id, result, query = await inline.chosen(me, req.query_id, req.id)
    send, media = result["send"], inline.result_media(result)
    via = 0 if req.hide_via else bot_id
    reply_to = req.reply_to.reply_to_msg_id if isinstance(req.reply_to, types.InputReplyToMessage) else 0
    common = {
        "entities": send.get("entities") or [], "reply_to_msg_id": reply_to, "silent": bool(req.silent),
        "media": media, "reply_markup": send.get("reply_markup"), "via_bot_id": via,
    }  # fmt: skip
    if isinstance(req.peer, types.InputPeerUser | types.InputPeerSelf):
        peer = check_input_user(me, req.peer)
        change = await private_actions.do_send_private_message(
            me, peer, send["message"], req.random_id, exclude=own_session(ctx), **common
        )
        users, chats = await context_for(me, change.messages)
        answer = private_tl.sent_updates_to_tl(change, users, chats, int(time.time()))
    else:
        channel_id, access_hash = channel_ref(req.peer)
        change = await channel_actions.do_send_message(
            me, channel_id, send["message"], req.random_id, access_hash=access_hash, **common
        )
        answer = await change_to_updates(me, change)
    await inline.sent(me, bot_id, req.id, query)
    return answer
