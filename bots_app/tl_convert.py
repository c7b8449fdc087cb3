"""Bots domain -> TL objects: bot info, commands, menu buttons, tokens."""

from __future__ import annotations

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


def callback_answer_to_tl(body: dict):
    return types.messages.BotCallbackAnswer(
        alert=bool(body.get("alert")) or None,
        has_url=bool(body.get("url")) or None,
        message=body.get("message") or None,
        url=body.get("url") or None,
        cache_time=int(body.get("cache_time") or 0),
    )
