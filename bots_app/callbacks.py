"""Callback queries: a user presses an inline button with data under a bot's message;
the bot gets updateBotCallbackQuery and answers with messages.setBotCallbackAnswer
(text, alert, url, cache_time), which the user's messages.getBotCallbackAnswer returns.
"""

from __future__ import annotations

import hashlib

from edge_app import push
from edge_app.orm_threads import in_thread
from private_app.actions import load_boxes
from private_app.models import MessageBox
from tl.errors import DataInvalidError, MessageIdInvalidError, PeerIdInvalidError

from . import broker, markup, send_rules

KIND = "callback"
PUSH_KIND = "bots.callback_query"
# Bots served by the Bot API process get their queries there.
push.also_to_service(PUSH_KIND)
MESSAGE_MAX = 200  # characters of an answer's notification
URL_MAX = 2048


def chat_instance(*parts: int) -> int:
    """A stable id of the chat the button is in (the same for every press there)."""
    digest = hashlib.sha256(":".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "little", signed=True)


@in_thread
def _private_target(user_id: int, bot_id: int, msg_id: int) -> tuple[dict, int]:
    """The user's message ``msg_id`` in the chat with ``bot_id`` (sent by the bot) and
    its id in the bot's numbering."""
    m = load_boxes(user_id, [msg_id]).get(msg_id)
    if m is None or m["peer_id"] != bot_id:
        raise MessageIdInvalidError()
    theirs = (
        MessageBox.objects.filter(owner_id=bot_id, message_id=m["message_pk"], deleted=False)
        .values_list("box_id", flat=True)
        .first()
    )
    if theirs is None:
        raise MessageIdInvalidError()
    return m, theirs


async def ask_private(user_id: int, bot_id: int, msg_id: int, data: bytes | None) -> dict:
    if not (await send_rules.are_bots(bot_id))[bot_id]:
        raise PeerIdInvalidError()
    m, bot_msg_id = await _private_target(user_id, bot_id, msg_id)
    if m["sender_id"] != bot_id or data is None or not markup.callback_data_in(m.get("reply_markup"), data):
        raise DataInvalidError()
    payload = {
        "user_id": user_id,
        "peer": {"user_id": user_id},
        "msg_id": bot_msg_id,
        "chat_instance": chat_instance(min(user_id, bot_id), max(user_id, bot_id)),
        "data": data.hex(),
    }
    return await broker.ask(KIND, broker.new_query_id(), bot_id, user_id, PUSH_KIND, payload)


async def ask_channel(user_id: int, channel_id: int, message: dict, data: bytes | None) -> dict:
    """``message``: the channel message as the user may see it (checked by the caller)."""
    bot_id = message.get("sender_user_id") or 0
    if not bot_id or not (await send_rules.are_bots(bot_id))[bot_id]:
        raise DataInvalidError()
    if data is None or not markup.callback_data_in(message.get("reply_markup"), data):
        raise DataInvalidError()
    payload = {
        "user_id": user_id,
        "peer": {"channel_id": channel_id},
        "msg_id": message["id"],
        "chat_instance": chat_instance(-channel_id),
        "data": data.hex(),
    }
    return await broker.ask(KIND, broker.new_query_id(), bot_id, user_id, PUSH_KIND, payload)


async def do_answer(
    bot_id: int, query_id: int, *, message: str | None, alert: bool, url: str | None, cache_time: int
):
    if message is not None and len(message) > MESSAGE_MAX:
        message = message[:MESSAGE_MAX]
    if url is not None and len(url) > URL_MAX:
        url = None
    body = {"message": message, "alert": bool(alert), "url": url, "cache_time": max(0, int(cache_time or 0))}
    await broker.answer(KIND, bot_id, query_id, body)
