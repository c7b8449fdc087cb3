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


async def test_a_counter_behind_postgresql_after_a_failover_is_caught(chan):
    """What an asynchronous replica can lose: increments the old master acknowledged.
    The fence names the old master's run id, so the new one checks against PostgreSQL."""
    from channels_app.actions import do_create_channel, do_send_message

    cid = (await do_create_channel(1, "g", megagroup=True)).channel["id"]
    sent = [(await do_send_message(1, cid, f"m{i}", random_id=i)).events[0] for i in range(1, 4)]
    last_id, last_pts = sent[-1].message["id"], sent[-1].pts
    client, _ = counters.redis_client()
    await client.set(counters.pts_key(cid), last_pts - 2)
    await client.set(counters.msg_id_key(cid), last_id - 2)
    await client.set(counters.fence_key(counters.pts_key(cid)), "0" * 40)  # another server wrote them
    nxt = (await do_send_message(1, cid, "after", random_id=9)).events[0]
    assert nxt.pts == last_pts + 1
    assert nxt.message["id"] == last_id + counters.ID_MARGIN + 1
