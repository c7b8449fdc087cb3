"""The update queue's window and confirmations, on the database."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from botapi_app import queue
from botapi_app.models import BotUpdate

pytestmark = pytest.mark.django_db(transaction=True)


def _row(bot_id: int, n: int, *, age_hours: float = 0, kind: str = "message") -> int:
    row = BotUpdate.objects.create(bot_id=bot_id, kind=kind, body={"n": n}, dedup=f"t{n}")
    if age_hours:
        BotUpdate.objects.filter(id=row.id).update(created=timezone.now() - timedelta(hours=age_hours))
    return row.id


async def test_offsets_confirm_negative_offsets_keep_the_last_and_the_window_is_24_hours():
    from asgiref.sync import sync_to_async

    bot = 990001
    ids = [await sync_to_async(_row)(bot, n) for n in range(5)]
    old = await sync_to_async(_row)(bot, 99, age_hours=25)
    other = await sync_to_async(_row)(bot + 1, 7, age_hours=25)

    got = await queue.get_updates(bot, 0, 2, 0, None)
    assert [u["update_id"] for u in got] == [ids[0], ids[1]]  # the expired one is gone
    assert not await sync_to_async(BotUpdate.objects.filter(id=old).exists)()
    got = await queue.get_updates(bot, ids[1] + 1, 100, 0, None)
    assert [u["message"]["n"] for u in got] == [2, 3, 4]
    got = await queue.get_updates(bot, -1, 100, 0, None)
    assert [u["update_id"] for u in got] == [ids[4]]
    assert await queue.pending_count(bot) == 1

    # Kinds the bot did not ask for are dropped as it reads past them.
    await sync_to_async(_row)(bot, 50, kind="callback_query")
    assert await queue.get_updates(bot, ids[4] + 1, 100, 0, ["message"]) == []
    assert await queue.pending_count(bot) == 0

    # Bots that never poll lose theirs after 24 hours too.
    assert await queue.purge_expired() == 1
    assert not await sync_to_async(BotUpdate.objects.filter(id=other).exists)()


async def test_a_waiting_poll_returns_when_woken_not_at_its_reread():
    import asyncio
    import time

    bot = 990011
    poll = asyncio.ensure_future(queue.get_updates(bot, 0, 100, 30, None))
    await asyncio.sleep(0.3)  # waiting now, its queue empty
    assert not poll.done()
    started = time.monotonic()
    row = await queue._insert_async(bot, "message", {"text": "hi"}, "w1")
    assert await queue._insert_async(bot, "message", {"text": "hi"}, "w1") is None  # heard twice: one row
    queue.wake(bot)
    got = await asyncio.wait_for(poll, 5)
    assert got == [{"update_id": row, "message": {"text": "hi"}}]
    assert time.monotonic() - started < queue.REREAD_SECONDS / 2
