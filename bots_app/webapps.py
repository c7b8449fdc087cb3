"""Mini Apps (web apps of bots): opening one hands the page a signed ``initData``
(bots_app.webapp_init_data) in its URL; what the page does comes back to the chat
through the bot.

- A web app opened from an inline ``web_view`` button or the menu button
  (messages.requestWebView) has a query: the bot answers it once
  (messages.sendWebViewResultMessage, the Bot API's answerWebAppQuery) with an inline
  result, which is sent as the user's message "via @bot" into the chat it was opened
  from, and the user's clients hear updateWebViewResultSent. The query lives
  ``QUERY_TTL`` seconds, renewed by messages.prolongWebView while the app stays open.
- A web app opened from a reply keyboard's ``simple_web_view`` button sends its data
  back with messages.sendWebViewData: a service message from the user to the bot
  (messageActionWebViewDataSentMe / the Bot API's ``web_app_data``).
- Named apps (@BotFather's /newapp, ``t.me/bot/short_name``): messages.getBotApp /
  requestAppWebView.

Query records live in Redis under the query id, so any listener may take the answer.
"""

from __future__ import annotations

import base64
import re
import secrets
import struct
import time
from dataclasses import dataclass
from functools import cache

import orjson
from django.conf import settings
from django.db import IntegrityError, transaction

from accounts_app.models import User
from channels_app.actions import messages as channel_messages
from edge_app import push
from edge_app.orm_threads import in_thread
from private_app import actions as private_actions
from tl.errors import (
    BotAppInvalidError,
    BotAppShortnameInvalidError,
    BotInvalidError,
    BotWebviewDisabledError,
    ButtonTextInvalidError,
    DataInvalidError,
    QueryIdInvalidError,
    StartParamInvalidError,
    UrlInvalidError,
)

from . import actions, kv, webapp_init_data
from .inline import check_results, result_media
from .models import Bot, BotWebApp

QUERY_TTL = 120  # seconds; clients prolong an open web view every 50-60 s
DATA_MAX = 4096  # bytes of a keyboard button's data (the Bot API's web_app_data limit)
BUTTON_TEXT_MAX = 256
URL_MAX = 2048
THEME_MAX = 4096  # characters of the client's theme parameters passed on to the page
START_PARAM = re.compile(r"[A-Za-z0-9_-]{0,512}")
SHORT_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]{2,29}")
TITLE_MAX = 64
DESCRIPTION_MAX = 512
RESULT_SENT_PUSH_KIND = "bots.web_view_result_sent"


@cache
def signing_key():
    return webapp_init_data.signing_key(settings.SECRET_KEY.encode())


@dataclass(slots=True)
class WebView:
    url: str
    query_id: int | None = None


def check_url(url: str | None) -> str:
    url = (url or "").strip()
    if not url.startswith(("https://", "http://")) or len(url) > URL_MAX:
        raise UrlInvalidError()
    return url


def _check_start_param(start_param: str | None) -> str:
    if not START_PARAM.fullmatch(start_param or ""):
        raise StartParamInvalidError()
    return start_param or ""


@in_thread
def _launch(bot_id: int, user_id: int) -> tuple[bytes, dict, dict | None]:
    """(the bot's initData key, the WebAppUser of ``user_id``, the bot's menu button)."""
    bot = Bot.objects.filter(user_id=bot_id, user__deleted=False, deactivated=False).first()
    if bot is None:
        raise BotInvalidError()
    if not bot.webapp_secret:
        raise BotWebviewDisabledError()
    u = User.objects.get(id=user_id)
    user = {"id": u.id, "first_name": u.first_name}
    if u.last_name:
        user["last_name"] = u.last_name
    if u.username:
        user["username"] = u.username
    if u.lang_code:
        user["language_code"] = u.lang_code
    user["allows_write_to_pm"] = True
    return bytes.fromhex(bot.webapp_secret), user, bot.menu_button


def query_string(user_id: int, query_id: int) -> str:
    """The query id as bots see it (initData's ``query_id``, the Bot API's
    ``web_app_query_id``)."""
    return base64.urlsafe_b64encode(struct.pack("<qq", user_id, query_id)).rstrip(b"=").decode()


def query_id_of(text: str) -> int:
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        _, query_id = struct.unpack("<qq", raw)
    except (ValueError, struct.error):
        raise QueryIdInvalidError() from None
    return query_id


def menu_url(menu_button: dict | None) -> str | None:
    return (menu_button or {}).get("url") or None


async def open_web_view(
    user_id: int,
    bot_id: int,
    url: str | None,
    *,
    platform: str,
    theme_params: str | None,
    start_param: str | None = None,
    chat: dict | None = None,
    answer_to: dict | None = None,
    from_menu: bool = False,
) -> WebView:
    """The launch URL of a web app of ``bot_id`` for ``user_id``. ``url`` None: the
    bot's menu button app. ``chat``: {"type", "instance"} of the chat it is opened
    in; ``answer_to``: where the bot's answer goes ({"peer", "reply_to", "silent"}),
    which gives the web view a query."""
    secret, user, menu_button = await _launch(bot_id, user_id)
    if url is None or (from_menu and not url):
        url = menu_url(menu_button)
    url = check_url(url)
    start_param = _check_start_param(start_param)
    fields = {"auth_date": str(int(time.time())), "user": webapp_init_data.user_json(user)}
    query_id = None
    if answer_to is not None:
        query_id = secrets.randbits(62) + 1
        fields["query_id"] = query_string(user_id, query_id)
        record = {"bot_id": bot_id, "user_id": user_id, **answer_to}
        await kv.client().set(kv.key("webview", query_id), orjson.dumps(record), ex=QUERY_TTL)
    if chat is not None:
        fields["chat_instance"] = str(chat["instance"])
        fields["chat_type"] = chat["type"]
    if start_param:
        fields["start_param"] = start_param
    init_data = webapp_init_data.sign(secret, fields, bot_id=bot_id, key=signing_key())
    if theme_params is not None and len(theme_params) > THEME_MAX:
        theme_params = None  # not the page's business to get megabytes of theme
    return WebView(webapp_init_data.launch_url(url, init_data, platform, theme_params, start_param), query_id)


async def prolong(user_id: int, bot_id: int, query_id: int) -> None:
    """The user's web view is still open: its query lives on (QUERY_ID_INVALID once it
    expired or was answered)."""
    key = kv.key("webview", query_id)
    raw = await kv.client().get(key)
    record = orjson.loads(raw) if raw else None
    if record is None or record["user_id"] != user_id or record["bot_id"] != bot_id:
        raise QueryIdInvalidError()
    await kv.client().expire(key, QUERY_TTL)


async def take_query(bot_id: int, query: str) -> tuple[int, dict]:
    """The bot answers its web view query (once): (query id, record with the user, the
    peer and how to send). QUERY_ID_INVALID for an unknown, expired, answered or
    another bot's query."""
    query_id = query_id_of(query)
    key = kv.key("webview", query_id)
    raw = await kv.client().getdel(key)
    record = orjson.loads(raw) if raw else None
    if record is None or record["bot_id"] != bot_id:
        if record is not None:  # not this bot's: put it back for its owner
            await kv.client().set(key, raw, ex=QUERY_TTL)
        raise QueryIdInvalidError()
    return query_id, record


async def result_sent(user_id: int, query_id: int) -> None:
    """The user's clients close the web view (updateWebViewResultSent)."""
    await push.push_to_users([user_id], RESULT_SENT_PUSH_KIND, {"query_id": query_id})


def check_web_view_data(button_text: str, data: str) -> None:
    if not button_text.strip() or len(button_text) > BUTTON_TEXT_MAX:
        raise ButtonTextInvalidError()
    if len(data.encode()) > DATA_MAX:
        raise DataInvalidError()


def web_view_data_action(button_text: str, data: str) -> dict:
    """The private service message a keyboard button's web app sends its bot."""
    check_web_view_data(button_text, data)
    return {"type": "web_view_data", "text": button_text, "data": data}


# --- named apps ------------------------------------------------------------------------


def _app_dict(app: BotWebApp) -> dict:
    return {
        "id": app.id, "access_hash": app.access_hash, "bot_id": app.bot_id, "short_name": app.short_name,
        "title": app.title, "description": app.description, "url": app.url, "hash": app.version,
    }  # fmt: skip


def do_create_app(
    owner_id: int | None, bot_id: int, short_name: str, title: str, description: str, url: str
) -> dict:
    """/newapp: a named app of the bot (BOT_APP_SHORTNAME_INVALID: bad or taken)."""
    short_name = short_name.strip()
    if not SHORT_NAME.fullmatch(short_name):
        raise BotAppShortnameInvalidError()
    title = title.strip()
    if not title or len(title) > TITLE_MAX:
        raise ButtonTextInvalidError()
    url = check_url(url)
    with transaction.atomic():
        actions.owned_bot(owner_id, bot_id, lock=True)
        # Links find apps by short name in any case: "Tea" and "tea" are one name.
        if BotWebApp.objects.filter(bot_id=bot_id, short_name__iexact=short_name).exists():
            raise BotAppShortnameInvalidError()
        try:
            with transaction.atomic():
                app = BotWebApp.objects.create(
                    bot_id=bot_id, access_hash=secrets.randbits(63), short_name=short_name, title=title,
                    description=description.strip()[:DESCRIPTION_MAX], url=url,
                )  # fmt: skip
        except IntegrityError:
            raise BotAppShortnameInvalidError() from None
    return _app_dict(app)


@in_thread
def find_app(*, bot_id: int = 0, short_name: str = "", app_id: int = 0, access_hash: int = 0) -> dict:
    """A named app by (bot, short name) or by (id, access hash); BOT_APP_INVALID."""
    apps = BotWebApp.objects.filter(bot__deactivated=False, bot__user__deleted=False)
    if app_id:
        app = apps.filter(id=app_id, access_hash=access_hash).first()
    else:
        app = apps.filter(bot_id=bot_id, short_name__iexact=short_name).first()
    if app is None:
        raise BotAppInvalidError()
    return _app_dict(app)


# --- the bot's answer ---------------------------------------------------------------------


async def do_answer_query(bot_id: int, query: str, result: dict) -> None:
    """messages.sendWebViewResultMessage / answerWebAppQuery: ``result`` (an inline
    result in bots_app.inline's stored form) is sent as the user's message via the bot
    into the chat the web view was opened in."""
    check_results([{"id": result["id"]}])
    query_id, record = await take_query(bot_id, query)
    user_id, peer, send = record["user_id"], record["peer"], result["send"]
    common = {
        "entities": send.get("entities") or [], "reply_to_msg_id": int(record.get("reply_to") or 0),
        "silent": bool(record.get("silent")), "media": result_media(result),
        "reply_markup": send.get("reply_markup"), "via_bot_id": bot_id,
    }  # fmt: skip
    random_id = secrets.randbits(62) + 1
    if "channel_id" in peer:
        await channel_messages.do_send_message(
            user_id, int(peer["channel_id"]), send["message"], random_id,
            access_hash=int(peer.get("access_hash") or 0), **common,
        )  # fmt: skip
    else:
        await private_actions.do_send_private_message(
            user_id, int(peer["user_id"]), send["message"], random_id, **common
        )
    await result_sent(user_id, query_id)
