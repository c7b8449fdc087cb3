"""Bots domain -> TL objects: bot info, commands, menu buttons, tokens."""

from __future__ import annotations

from media_app.tl_convert import document_to_tl, photo_to_tl
from message_core.tl_convert import entities_to_tl
from message_core.tl_convert_markup import reply_markup_to_tl
from tl import types

from . import actions, scopes
from .models import Bot


def commands_to_tl(commands: list[dict]) -> list:
    return [types.BotCommand(command=c["command"], description=c["description"]) for c in commands]


def menu_button_to_tl(button: dict | None):
    if not button:
        return types.BotMenuButtonDefault()
    if button.get("commands"):
        return types.BotMenuButtonCommands()
    return types.BotMenuButton(text=button["text"], url=button["url"])


def bot_info_to_tl(bot: Bot, commands: list[dict], lang_code: str = ""):
    texts = actions.localized_info(bot, lang_code)
    return types.BotInfo(
        user_id=bot.user_id,
        description=texts["description"] or None,
        commands=commands_to_tl(commands),
        menu_button=menu_button_to_tl(bot.menu_button),
    )


def bot_info_for_viewer(bot_id: int, viewer_id: int):
    """``userFull.bot_info`` of a bot as ``viewer_id`` sees it in their private chat
    (installed into accounts_app's users.getFullUser; runs in a thread)."""
    bot = Bot.objects.select_related("user").filter(user_id=bot_id).first()
    if bot is None:
        return None
    commands = actions.commands_for(bot_id, scopes.private_chat_scopes(viewer_id))
    return bot_info_to_tl(bot, commands)


def bots_bot_info_to_tl(bot: Bot, lang_code: str):
    texts = actions.localized_info(bot, lang_code)
    return types.bots.BotInfo(
        name=texts["name"], about=texts["about"] or "", description=texts["description"]
    )


def exported_token_to_tl(token: str):
    return types.bots.ExportedBotToken(token=token)


def _peer_to_tl(peer: dict):
    if "channel_id" in peer:
        return types.PeerChannel(channel_id=int(peer["channel_id"]))
    return types.PeerUser(user_id=int(peer["user_id"]))


def callback_query_update_to_tl(payload: dict):
    return types.UpdateBotCallbackQuery(
        query_id=int(payload["query_id"]),
        user_id=int(payload["user_id"]),
        peer=_peer_to_tl(payload["peer"]),
        msg_id=int(payload["msg_id"]),
        chat_instance=int(payload["chat_instance"]),
        data=bytes.fromhex(payload["data"]),
    )


def pushed_updates_to_tl(update, users: list, chats: list, date: int):
    return types.Updates(updates=[update], users=users, chats=chats, date=date, seq=0)


def merged_updates_to_tl(answers: list):
    """Several ``Updates`` answers of one request as one (updates in order, each peer once)."""
    updates, users, chats = [], {}, {}
    for a in answers:
        updates += a.updates
        users.update((u.id, u) for u in a.users)
        chats.update((c.id, c) for c in a.chats)
    date = max((a.date for a in answers), default=0)
    return types.Updates(
        updates=updates, users=list(users.values()), chats=list(chats.values()), date=date, seq=0
    )


def callback_answer_to_tl(body: dict):
    return types.messages.BotCallbackAnswer(
        alert=bool(body.get("alert")) or None,
        has_url=bool(body.get("url")) or None,
        message=body.get("message") or None,
        url=body.get("url") or None,
        cache_time=int(body.get("cache_time") or 0),
    )


# --- inline mode -----------------------------------------------------------------------

_PEER_TYPES = {
    "same_bot_pm": types.InlineQueryPeerTypeSameBotPM,
    "pm": types.InlineQueryPeerTypePM,
    "chat": types.InlineQueryPeerTypeChat,
    "megagroup": types.InlineQueryPeerTypeMegagroup,
    "broadcast": types.InlineQueryPeerTypeBroadcast,
    "bot_pm": types.InlineQueryPeerTypeBotPM,
}


def inline_query_update_to_tl(payload: dict):
    kind = _PEER_TYPES.get(payload.get("peer_type") or "")
    return types.UpdateBotInlineQuery(
        query_id=int(payload["query_id"]),
        user_id=int(payload["user_id"]),
        query=payload["query"],
        offset=payload.get("offset") or "",
        peer_type=kind() if kind else None,
    )


def inline_send_update_to_tl(payload: dict):
    return types.UpdateBotInlineSend(
        user_id=int(payload["user_id"]), query=payload.get("query") or "", id=payload["id"]
    )


def _send_message_to_tl(send: dict):
    markup = reply_markup_to_tl(send.get("reply_markup"))
    entities = entities_to_tl(send.get("entities") or []) or None
    if send.get("media_auto"):
        return types.BotInlineMessageMediaAuto(
            message=send["message"], entities=entities, reply_markup=markup
        )
    return types.BotInlineMessageText(
        message=send["message"],
        entities=entities,
        reply_markup=markup,
        no_webpage=send.get("no_webpage") or None,
    )


def inline_result_to_tl(r: dict):
    send = _send_message_to_tl(r["send"])
    if r.get("photo") or r.get("document"):
        return types.BotInlineMediaResult(
            id=r["id"],
            type=r["type"],
            photo=photo_to_tl(r["photo"]) if r.get("photo") else None,
            document=document_to_tl(r["document"]) if r.get("document") else None,
            title=r.get("title") or None,
            description=r.get("description") or None,
            send_message=send,
        )
    return types.BotInlineResult(
        id=r["id"],
        type=r["type"],
        title=r.get("title") or None,
        description=r.get("description") or None,
        url=r.get("url") or None,
        send_message=send,
    )


def bot_results_to_tl(query_id: int, body: dict, users: list):
    switch = body.get("switch_pm")
    return types.messages.BotResults(
        gallery=bool(body.get("gallery")) or None,
        query_id=query_id,
        next_offset=body.get("next_offset") or None,
        switch_pm=types.InlineBotSwitchPM(text=switch["text"], start_param=switch["start_param"])
        if switch
        else None,
        results=[inline_result_to_tl(r) for r in body["results"]],
        cache_time=int(body.get("cache_time") or 0),
        users=users,
    )


# --- Mini Apps -------------------------------------------------------------------------


def web_view_result_to_tl(view):
    return types.WebViewResultUrl(query_id=view.query_id, url=view.url)


def bot_app_to_tl(app: dict):
    return types.BotApp(
        id=app["id"],
        access_hash=app["access_hash"],
        short_name=app["short_name"],
        title=app["title"],
        description=app["description"],
        photo=types.PhotoEmpty(id=0),
        hash=app["hash"],
    )


def messages_bot_app_to_tl(app: dict, known_hash: int):
    inner = types.BotAppNotModified() if known_hash and known_hash == app["hash"] else bot_app_to_tl(app)
    return types.messages.BotApp(app=inner)


def web_view_result_sent_update_to_tl(payload: dict):
    return types.UpdateWebViewResultSent(query_id=int(payload["query_id"]))


def web_view_message_sent_to_tl():
    return types.WebViewMessageSent()
