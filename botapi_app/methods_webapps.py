"""The Bot API's Mini App methods: answerWebAppQuery (bots_app.webapps' answer, the
result shaped as answerInlineQuery's), setChatMenuButton / getChatMenuButton (the bot's
menu button, as bots.setBotMenuButton keeps it). ``web_app`` buttons of keyboards are
shapes' markup; ``web_app_data`` of messages is media_shapes'."""

from __future__ import annotations

from bots_app import actions as bot_actions
from bots_app import webapps
from edge_app.orm_threads import in_thread

from .errors import BadRequest
from .methods import BotRef, _inline_result, _load_bot, method
from .params import Params


@method("answerWebAppQuery")
async def answer_web_app_query(bot: BotRef, p: Params):
    query = p.str("web_app_query_id", required=True)
    raw = p.json("result")
    if not isinstance(raw, dict):
        raise BadRequest("can't parse inline query result JSON object")
    result = await _inline_result(bot, raw)
    await webapps.do_answer_query(bot.id, query, result)
    # inline_message_id is left out: messages sent through a bot have no inline ids here.
    return {}


def _menu_button_in(raw) -> dict | None:
    """The stored form of a MenuButton (None: the client's default)."""
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise BadRequest("can't parse menu button JSON object")
    kind = raw.get("type")
    if kind == "commands":
        return {"commands": True}
    if kind == "web_app":
        url = str((raw.get("web_app") or {}).get("url") or "")
        return {"text": str(raw.get("text") or ""), "url": url}
    if kind == "default":
        return None
    raise BadRequest("unsupported menu button type")


def menu_button_out(stored: dict | None) -> dict:
    if not stored:
        return {"type": "default"}
    if stored.get("commands"):
        return {"type": "commands"}
    return {"type": "web_app", "text": stored["text"], "web_app": {"url": stored["url"]}}


@method("setChatMenuButton")
async def set_chat_menu_button(bot: BotRef, p: Params):
    # Per-chat buttons are not kept (as bots.setBotMenuButton): the bot's default is set.
    button = _menu_button_in(p.json("menu_button"))
    await in_thread(bot_actions.do_set_menu_button)(None, bot.id, button)
    return True


@method("getChatMenuButton")
async def get_chat_menu_button(bot: BotRef, p: Params):
    _, row = await _load_bot(bot.id)
    return menu_button_out(row.menu_button)
