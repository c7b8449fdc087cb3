"""Bots' send limits: per second in all, per minute into one group, FLOOD_WAIT_X, and
a refused send does not use up the budget."""

from __future__ import annotations

import secrets

import pytest

from bots_app import flood
from tl.errors import FloodWaitError


@pytest.fixture
def limits(settings):
    settings.BOT_FLOOD_PER_SECOND = 3
    settings.BOT_FLOOD_GROUP_PER_MINUTE = 4
    return settings


def _bot() -> int:
    return secrets.randbits(40) + 1  # keys of other runs never collide


async def test_per_second_limit_answers_flood_wait(limits):
    bot = _bot()
    now = 1_000_000.2
    for _ in range(3):
        await flood.check(bot, None, 1, now=now)
    with pytest.raises(FloodWaitError) as exc:
        await flood.check(bot, None, 1, now=now)
    assert exc.value.message == "FLOOD_WAIT_1"
    # The next second has a fresh budget.
    await flood.check(bot, None, 3, now=now + 1)


async def test_an_album_counts_each_message(limits):
    bot = _bot()
    with pytest.raises(FloodWaitError):
        await flood.check(bot, None, 4, now=2_000_000.0)
    # The refused album took nothing: three single messages still fit.
    for _ in range(3):
        await flood.check(bot, None, 1, now=2_000_000.0)


async def test_per_group_minute_limit_waits_for_the_minute_to_end(limits):
    bot = _bot()
    start = 60 * 50_000 + 15.0  # 15 s into a minute
    for i in range(4):
        await flood.check(bot, 777, 1, now=start + i)  # different seconds
    with pytest.raises(FloodWaitError) as exc:
        await flood.check(bot, 777, 1, now=start + 5)
    assert exc.value.message == "FLOOD_WAIT_40"
    # Another group, and private chats, are not held back.
    await flood.check(bot, 778, 1, now=start + 5)
    await flood.check(bot, None, 1, now=start + 5)
    await flood.check(bot, 777, 1, now=start + 45)
