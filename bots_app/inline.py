"""Inline mode: a user types "@bot query" in any chat; the bot gets updateBotInlineQuery
and answers with messages.setInlineBotResults; the user's messages.getInlineBotResults
returns them; messages.sendInlineBotResult sends the chosen one "via @bot" as the user's
own message, and a bot that asked for feedback (/setinlinefeedback) gets
updateBotInlineSend.

Results are kept in Redis for ``RESULTS_TTL`` under the query id (with the bot and the
user it was for), so the user may send one of them after the answer was shown.

An answer with a ``cache_time`` is also cached for that many seconds under the bot, the
query, the offset and the chat type: the same query from any user (only from the same
user when the bot marked the answer ``private``, Telegram's "personal") is answered from
the cache without asking the bot, under a query id of its own.
"""

from __future__ import annotations

import hashlib

import orjson

from accounts_app.models import User
from channels_app.models import Channel
from edge_app import push, redis_conn
from edge_app.orm_threads import in_thread
from tl.errors import (
    BotInlineDisabledError,
    BotInvalidError,
    QueryIdInvalidError,
    ResultIdDuplicateError,
    ResultIdInvalidError,
    ResultsTooMuchError,
)

from . import broker, kv
from .models import Bot

KIND = "inline"
PUSH_KIND = "bots.inline_query"
SEND_PUSH_KIND = "bots.inline_send"
# Bots served by the Bot API process get their queries there.
push.also_to_service(PUSH_KIND)
push.also_to_service(SEND_PUSH_KIND)
RESULTS_MAX = 50
RESULT_ID_MAX = 64
OFFSET_MAX = 64
QUERY_MAX = 256
RESULTS_TTL = 15 * 60
CACHE_TIME_MAX = 24 * 3600


@in_thread
def _inline_bot(bot_id: int) -> tuple[bool, bool]:
    """(inline mode on, feedback on) of a live bot; BOT_INVALID for anyone else."""
    bot = Bot.objects.filter(user_id=bot_id, user__deleted=False, deactivated=False).first()
    if bot is None:
        raise BotInvalidError()
    return bool(bot.inline_placeholder), bot.inline_feedback


async def ask(user_id: int, bot_id: int, query: str, offset: str, peer_type: str | None) -> tuple[int, dict]:
    """The bot's answer to ``query``: (query id, answer body with its results)."""
    enabled, _ = await _inline_bot(bot_id)
    if not enabled:
        raise BotInlineDisabledError()
    query, offset = query[:QUERY_MAX], offset[:OFFSET_MAX]
    query_id = broker.new_query_id()
    body = await _cached(bot_id, user_id, query, offset, peer_type)
    if body is None:
        payload = {"user_id": user_id, "query": query, "offset": offset, "peer_type": peer_type}
        body = await broker.ask(KIND, query_id, bot_id, user_id, PUSH_KIND, payload)
        await _cache(bot_id, user_id, query, offset, peer_type, body)
    kept = {"bot_id": bot_id, "user_id": user_id, "query": query, "results": body["results"]}
    await kv.client().set(kv.key("inline", query_id), orjson.dumps(kept), ex=RESULTS_TTL)
    return query_id, body


def _cache_key(bot_id: int, user_id: int, query: str, offset: str, peer_type: str | None) -> str:
    # user_id 0: the answer for everyone; a user's id: that user's personal answer.
    digest = hashlib.sha256("\0".join([query, offset, peer_type or ""]).encode()).hexdigest()
    # The personal and the shared answer share a hash tag: one MGET reads both.
    return kv.key("inline_cache", user_id, redis_conn.hash_tag("i", f"{bot_id}:{digest}"))


async def _cached(bot_id: int, user_id: int, query: str, offset: str, peer_type: str | None) -> dict | None:
    personal, shared = (_cache_key(bot_id, u, query, offset, peer_type) for u in (user_id, 0))
    raw_personal, raw_shared = await kv.client().mget([personal, shared])
    raw = raw_personal or raw_shared
    return orjson.loads(raw) if raw else None


async def _cache(
    bot_id: int, user_id: int, query: str, offset: str, peer_type: str | None, body: dict
) -> None:
    seconds = int(body.get("cache_time") or 0)
    if seconds > 0:
        owner = user_id if body.get("private") else 0
        key = _cache_key(bot_id, owner, query, offset, peer_type)
        await kv.client().set(key, orjson.dumps(body), ex=seconds)


def result_media(result: dict) -> dict | None:
    """The media a chosen result sends (None: text only)."""
    if result.get("photo"):
        return {"photo": result["photo"], "kind": "photo", "spoiler": False}
    if result.get("document"):
        # Filed as a plain document: the kind rules of sent files live above bots_app.
        return {"document": result["document"], "kind": "document", "spoiler": False}
    return None


def check_results(results: list[dict]) -> None:
    if len(results) > RESULTS_MAX:
        raise ResultsTooMuchError()
    ids = [r["id"] for r in results]
    if any(not i or len(i.encode()) > RESULT_ID_MAX for i in ids):
        raise ResultIdInvalidError()
    if len(set(ids)) != len(ids):
        raise ResultIdDuplicateError()


async def do_answer(bot_id: int, query_id: int, body: dict) -> None:
    """messages.setInlineBotResults: ``body`` has results (stored form), next_offset,
    cache_time, gallery, private, switch_pm. Handed to the waiting user's request, which
    keeps the results for sendInlineBotResult and caches them (``ask``)."""
    check_results(body["results"])
    body = {**body, "next_offset": (body.get("next_offset") or "")[:OFFSET_MAX]}
    body["cache_time"] = max(0, min(int(body.get("cache_time") or 0), CACHE_TIME_MAX))
    await broker.answer(KIND, bot_id, query_id, body)


async def chosen(user_id: int, query_id: int, result_id: str) -> tuple[int, dict, str]:
    """(bot id, result, query) the user picked; QUERY_ID_INVALID / RESULT_ID_INVALID."""
    raw = await kv.client().get(kv.key("inline", query_id))
    kept = orjson.loads(raw) if raw else None
    if kept is None or kept["user_id"] != user_id:
        raise QueryIdInvalidError()
    for r in kept["results"]:
        if r["id"] == result_id:
            return kept["bot_id"], r, kept.get("query", "")
    raise ResultIdInvalidError()


async def sent(user_id: int, bot_id: int, result_id: str, query: str = "") -> None:
    """The user sent a result: the bot hears it if it asked for feedback."""
    _, feedback = await _inline_bot(bot_id)
    if feedback:
        await push.push_to_users(
            [bot_id], SEND_PUSH_KIND, {"user_id": user_id, "id": result_id, "query": query}
        )


@in_thread
def channel_peer_type(channel_id: int, access_hash: int) -> str | None:
    """The chat type an inline query from a channel tells the bot ("broadcast" or
    "megagroup"); None for a channel the hash does not name."""
    found = (
        Channel.objects.filter(id=channel_id, access_hash=access_hash)
        .values_list("megagroup", flat=True)
        .first()
    )
    return None if found is None else ("megagroup" if found else "broadcast")


@in_thread
def bot_username(bot_id: int) -> str:
    return User.objects.filter(id=bot_id).values_list("username", flat=True).first() or ""
