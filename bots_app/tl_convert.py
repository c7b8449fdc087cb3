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
