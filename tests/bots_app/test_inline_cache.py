"""The server's cache of inline answers: which later queries it answers, for how long."""

from __future__ import annotations

import secrets

from bots_app import inline, kv


def _bot() -> int:
    return secrets.randbits(40) + 1  # keys of other runs never collide


def _body(cache_time: int, private: bool = False) -> dict:
    return {"results": [{"id": "1"}], "next_offset": "", "cache_time": cache_time, "private": private}


async def test_a_shared_answer_serves_every_user_for_the_same_query_offset_and_chat_type():
    bot = _bot()
    await inline._cache(bot, 10, "cats", "", "pm", _body(60))
    assert (await inline._cached(bot, 11, "cats", "", "pm"))["results"] == [{"id": "1"}]
    assert await inline._cached(bot, 11, "cats", "2", "pm") is None
    assert await inline._cached(bot, 11, "dogs", "", "pm") is None
    assert await inline._cached(bot, 11, "cats", "", "broadcast") is None
    assert await inline._cached(_bot(), 11, "cats", "", "pm") is None


async def test_a_personal_answer_serves_its_user_only():
    bot = _bot()
    await inline._cache(bot, 10, "me", "", None, _body(60, private=True))
    assert await inline._cached(bot, 10, "me", "", None) is not None
    assert await inline._cached(bot, 11, "me", "", None) is None


async def test_cache_time_is_the_lifetime_and_zero_is_not_cached():
    bot = _bot()
    await inline._cache(bot, 10, "now", "", None, _body(0))
    assert await inline._cached(bot, 10, "now", "", None) is None
    await inline._cache(bot, 10, "soon", "", None, _body(45))
    ttl = await kv.client().ttl(inline._cache_key(bot, 0, "soon", "", None))
    assert 40 <= ttl <= 45
