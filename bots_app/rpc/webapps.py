"""Mini Apps: the user's messages.requestWebView / requestSimpleWebView /
requestMainWebView / requestAppWebView / getBotApp / prolongWebView / sendWebViewData,
and the bot's messages.sendWebViewResultMessage (bots_app.webapps holds the rules)."""

from __future__ import annotations

import time

from accounts_app.access import check_input_user
from bots_app import callbacks, inline, send_rules, tl_convert, webapps
from bots_app.access import calling_bot
from bots_app.rpc.inline import result_from_tl
from channels_app.access import channel_ref
from edge_app.registry import rpc
from message_core.context import own_session, viewer
from private_app import actions as private_actions
from private_app import tl_convert as private_tl
from private_app.context import context_for
from tl import functions, types
from tl.errors import BotInvalidError, PeerIdInvalidError, UserBotError


async def _bot(me: int, input_bot) -> int:
    bot_id = check_input_user(me, input_bot)
    bots = await send_rules.are_bots(me, bot_id)
    if not bots[bot_id]:
        raise BotInvalidError()
    if bots[me]:
        raise UserBotError()
    return bot_id


async def _chat(me: int, bot_id: int, peer) -> tuple[dict, dict]:
    """(the chat a web view is opened in as initData tells it, where answers go)."""
    if isinstance(peer, types.InputPeerSelf | types.InputPeerUser):
        other = check_input_user(me, peer)
        kind = "sender" if other == bot_id else "private"
        return {"type": kind, "instance": callbacks.chat_instance(min(me, other), max(me, other))}, {
            "user_id": other
        }
    channel_id, access_hash = channel_ref(peer)
    kind = await inline.channel_peer_type(channel_id, access_hash)
    if kind is None:
        raise PeerIdInvalidError()
    chat = {
        "type": "supergroup" if kind == "megagroup" else "channel",
        "instance": callbacks.chat_instance(-channel_id),
    }
    return chat, {"channel_id": channel_id, "access_hash": access_hash}


def _theme(theme_params) -> str | None:
    return theme_params.data if theme_params is not None else None


def _reply_to(reply_to) -> int:
    return reply_to.reply_to_msg_id if isinstance(reply_to, types.InputReplyToMessage) else 0


@rpc(functions.messages.RequestWebView)
async def request_web_view(ctx, req: functions.messages.RequestWebView):
    """An inline ``web_view`` button or the menu button: the web view has a query the
    bot answers into ``peer``."""
    me = viewer(ctx)
    bot_id = await _bot(me, req.bot)
    chat, peer = await _chat(me, bot_id, req.peer)
    answer_to = {"peer": peer, "reply_to": _reply_to(req.reply_to), "silent": bool(req.silent)}
    view = await webapps.open_web_view(
        me, bot_id, req.url, platform=req.platform, theme_params=_theme(req.theme_params),
        start_param=req.start_param, chat=chat, answer_to=answer_to, from_menu=bool(req.from_bot_menu),
    )  # fmt: skip
    return tl_convert.web_view_result_to_tl(view)


@rpc(functions.messages.RequestSimpleWebView)
async def request_simple_web_view(ctx, req: functions.messages.RequestSimpleWebView):
    """A reply keyboard's ``simple_web_view`` button (or the side menu): no query, no
    chat; the page answers with sendWebViewData."""
    me = viewer(ctx)
    bot_id = await _bot(me, req.bot)
    view = await webapps.open_web_view(
        me, bot_id, req.url, platform=req.platform, theme_params=_theme(req.theme_params),
        start_param=req.start_param, from_menu=bool(req.from_side_menu),
    )  # fmt: skip
    return tl_convert.web_view_result_to_tl(view)


@rpc(functions.messages.RequestMainWebView)
async def request_main_web_view(ctx, req: functions.messages.RequestMainWebView):
    """The bot's main app: its menu button's web app."""
    me = viewer(ctx)
    bot_id = await _bot(me, req.bot)
    chat, _ = await _chat(me, bot_id, req.peer)
    view = await webapps.open_web_view(
        me, bot_id, None, platform=req.platform, theme_params=_theme(req.theme_params),
        start_param=req.start_param, chat=chat,
    )  # fmt: skip
    return tl_convert.web_view_result_to_tl(view)


async def _app(me: int, app) -> dict:
    if isinstance(app, types.InputBotAppID):
        return await webapps.find_app(app_id=app.id, access_hash=app.access_hash)
    if isinstance(app, types.InputBotAppShortName):
        bot_id = check_input_user(me, app.bot_id)
        return await webapps.find_app(bot_id=bot_id, short_name=app.short_name)
    raise PeerIdInvalidError()


@rpc(functions.messages.GetBotApp)
async def get_bot_app(ctx, req: functions.messages.GetBotApp):
    me = viewer(ctx)
    return tl_convert.messages_bot_app_to_tl(await _app(me, req.app), req.hash)


@rpc(functions.messages.RequestAppWebView)
async def request_app_web_view(ctx, req: functions.messages.RequestAppWebView):
    """A named app (``t.me/bot/short_name``), opened in ``peer``."""
    me = viewer(ctx)
    app = await _app(me, req.app)
    chat, _ = await _chat(me, app["bot_id"], req.peer)
    view = await webapps.open_web_view(
        me, app["bot_id"], app["url"], platform=req.platform, theme_params=_theme(req.theme_params),
        start_param=req.start_param, chat=chat,
    )  # fmt: skip
    return tl_convert.web_view_result_to_tl(view)


@rpc(functions.messages.ProlongWebView)
async def prolong_web_view(ctx, req: functions.messages.ProlongWebView):
    me = viewer(ctx)
    bot_id = check_input_user(me, req.bot)
    await webapps.prolong(me, bot_id, req.query_id)
    return True


@rpc(functions.messages.SendWebViewData)
async def send_web_view_data(ctx, req: functions.messages.SendWebViewData):
    """A reply keyboard's web app sends its data: a service message to the bot."""
    me = viewer(ctx)
    bot_id = await _bot(me, req.bot)
    action = webapps.web_view_data_action(req.button_text, req.data)
    change = await private_actions.do_send_private_service(
        me, bot_id, action, req.random_id, exclude=own_session(ctx)
    )
    users, chats = await context_for(me, change.messages)
    return private_tl.sent_updates_to_tl(change, users, chats, int(time.time()))


@rpc(functions.messages.SendWebViewResultMessage)
async def send_web_view_result_message(ctx, req: functions.messages.SendWebViewResultMessage):
    """The bot answers a web view's query with an inline result."""
    me = viewer(ctx)
    await calling_bot(me)
    result = await result_from_tl(me, req.result)
    await webapps.do_answer_query(me, req.bot_query_id, result)
    return tl_convert.web_view_message_sent_to_tl()
