import asyncio

from channels_app import counters
from message_core import db


async def test_counter_ranges_are_contiguous_and_gapless_under_concurrency(chan):
    results = await asyncio.gather(*(counters.next_pts(77, 1) for _ in range(300)))
    assert sorted(results) == list(range(1, 301))
    last = await counters.next_pts(77, 5)  # a multi-pts operation gets 301..305
    assert last == 305
    msg_id, pts = await counters.next_message(77)
    assert (msg_id, pts) == (1, 306)


async def test_counter_recovers_from_postgres_when_redis_lost_the_key(chan):
    from channels_app.actions import do_create_channel, do_send_message

    change = await do_create_channel(1, "g", megagroup=True)
    cid = change.channel["id"]
    for i in range(3):
        await do_send_message(1, cid, f"m{i}", random_id=100 + i)
    client, _ = counters.redis_client()
    await client.delete(counters.msg_id_key(cid), counters.pts_key(cid), counters.channel_id_key())
    # Recovery values are MAX(...) from PostgreSQL: no id or pts is handed out twice.
    msg_id, pts = await counters.next_message(cid)
    assert (msg_id, pts) == (5, 5)
    assert await counters.next_channel_id() == cid + 1
    row = await db.fetchone("SELECT count(*) AS n FROM channel_messages WHERE channel_id = %s", (cid,))
    assert row["n"] == 4
