"""messages.* methods that exist for bots: startBot (the user's "Start" button, with a
deep-link parameter), callback queries (getBotCallbackAnswer / setBotCallbackAnswer)."""

from __future__ import annotations

import re
import time

from accounts_app.access import check_input_user
from bots_app import callbacks, inline, send_rules, tl_convert
from channels_app.access import channel_ref
from channels_app.actions import channels as channel_actions
from channels_app.actions import messages as channel_messages
from channels_app.rpc.context import change_to_updates
from edge_app.registry import rpc
from message_core.context import own_session, viewer
from private_app import actions as private_actions
from private_app import tl_convert as private_tl
from private_app.context import context_for
from tl import functions, types
from tl.errors import (
    BotInvalidError,
    DataInvalidError,
    MessageIdInvalidError,
    PeerIdInvalidError,
    StartParamInvalidError,
    UserAlreadyParticipantError,
    UserBotError,
)

START_PARAM = re.compile(r"[A-Za-z0-9_-]{0,64}")


@rpc(functions.messages.StartBot)
async def start_bot(ctx, req: functions.messages.StartBot):
    """The "Start" button of a deep link. In the private chat with the bot it sends
    ``/start <param>``; with a group as peer it adds the bot to the group (the user's
    invite, with its rights and the bot's "join groups" rule) and sends
    ``/start@bot <param>`` there."""
    me = viewer(ctx)
    bot_id = check_input_user(me, req.bot)
    if not START_PARAM.fullmatch(req.start_param or ""):
        raise StartParamInvalidError()
    bots = await send_rules.are_bots(me, bot_id)
    if not bots[bot_id]:
        raise BotInvalidError()
    if bots[me]:
        raise UserBotError()
    param = f" {req.start_param}" if req.start_param else ""
    if isinstance(req.peer, types.InputPeerUser | types.InputPeerSelf | types.InputUser):
        if check_input_user(me, req.peer) != bot_id:
            raise PeerIdInvalidError()
        entities = [{"type": "botCommand", "offset": 0, "length": len("/start")}]
        change = await private_actions.do_send_private_message(
            me, bot_id, "/start" + param, req.random_id, entities=entities, exclude=own_session(ctx)
        )
        users, chats = await context_for(me, change.messages)
        return private_tl.sent_updates_to_tl(change, users, chats, int(time.time()))
    channel_id, access_hash = channel_ref(req.peer)
    answers = []
    try:
        invited = await channel_actions.do_invite_to_channel(me, channel_id, [bot_id])
        answers.append(await change_to_updates(me, invited))
    except UserAlreadyParticipantError:
        pass
    command = f"/start@{await inline.bot_username(bot_id)}"
    entities = [{"type": "botCommand", "offset": 0, "length": len(command)}]
    sent = await channel_messages.do_send_message(
        me, channel_id, command + param, req.random_id, entities=entities, access_hash=access_hash
    )
    answers.append(await change_to_updates(me, sent))
    return tl_convert.merged_updates_to_tl(answers)


@rpc(functions.messages.GetBotCallbackAnswer)
async def get_bot_callback_answer(ctx, req: functions.messages.GetBotCallbackAnswer):
    """A user pressed an inline callback button. Game buttons and buttons asking for the
    two-step password are not kept, so their queries find no button (DATA_INVALID)."""
    me = viewer(ctx)
    if req.game or req.password is not None:
        raise DataInvalidError()
    if isinstance(req.peer, types.InputPeerUser | types.InputPeerSelf):
        body = await callbacks.ask_private(me, check_input_user(me, req.peer), req.msg_id, req.data)
    else:
        channel_id, _ = channel_ref(req.peer)
        history = await channel_messages.get_messages(me, channel_id, [req.msg_id])
        (message,) = history.messages
        if message.get("empty"):
            raise MessageIdInvalidError()
        body = await callbacks.ask_channel(me, channel_id, message, req.data)
    return tl_convert.callback_answer_to_tl(body)


@rpc(functions.messages.SetBotCallbackAnswer)
async def set_bot_callback_answer(ctx, req: functions.messages.SetBotCallbackAnswer):
    me = viewer(ctx)
    await callbacks.do_answer(
        me, req.query_id, message=req.message, alert=req.alert, url=req.url, cache_time=req.cache_time
    )
    return True
