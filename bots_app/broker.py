"""Request/answer brokers between a user's session and a bot's (callback queries,
inline queries), over the push path.

The asking side makes a query id, records in Redis which bot may answer it and for
whom, pushes the query to the bot's sessions and waits on a future of its own process.
The bot's answer (``answer``) may arrive on any edge: it checks the record (the query
exists, is this bot's, and is answered once), then publishes the answer to every edge;
the one holding the future wakes the user's request. No answer in time: the user gets
``BOT_RESPONSE_TIMEOUT``.
"""

from __future__ import annotations

import asyncio
import secrets

import orjson
from django.conf import settings

from edge_app import push
from tl.errors import BotResponseTimeoutError, QueryIdInvalidError

from . import kv

ANSWER_EVENT = "bots.query_answer"
_waiting: dict[int, asyncio.Future] = {}


def timeout() -> float:
    return float(getattr(settings, "BOT_RESPONSE_TIMEOUT", 10))


def new_query_id() -> int:
    return secrets.randbits(62) + 1


async def ask(kind: str, query_id: int, bot_id: int, user_id: int, push_kind: str, payload: dict) -> dict:
    """Push ``payload`` (kind ``push_kind``) to the bot and wait for its answer."""
    seconds = timeout()
    record = orjson.dumps({"kind": kind, "bot_id": bot_id, "user_id": user_id})
    await kv.client().set(kv.key("query", query_id), record, ex=int(seconds) + 5)
    future = asyncio.get_running_loop().create_future()
    _waiting[query_id] = future
    try:
        await push.push_to_users([bot_id], push_kind, {**payload, "query_id": query_id})
        return await asyncio.wait_for(future, seconds)
    except TimeoutError:
        raise BotResponseTimeoutError() from None
    finally:
        _waiting.pop(query_id, None)
        await kv.client().delete(kv.key("query", query_id))


async def answer(kind: str, bot_id: int, query_id: int, body: dict) -> dict:
    """The bot answers ``query_id`` (once). Returns the query's record (who asked).
    QUERY_ID_INVALID for an unknown, expired, answered or someone else's query."""
    raw = await kv.client().getdel(kv.key("query", query_id))
    record = orjson.loads(raw) if raw else None
    if record is None or record["kind"] != kind or record["bot_id"] != bot_id:
        if record is not None:  # not this bot's: put it back for its owner
            await kv.client().set(kv.key("query", query_id), raw, ex=int(timeout()) + 5)
        raise QueryIdInvalidError()
    await push.publish(ANSWER_EVENT, {"query_id": query_id, "body": body})
    return record


@push.subscriber(ANSWER_EVENT)
async def _answered(event: dict, edge) -> None:
    future = _waiting.get(int(event["query_id"]))
    if future is not None and not future.done():
        future.set_result(event["body"])
