"""Jobs of one key run in order; a busy key does not hold up the others, even when its
jobs finish without ever waiting (edge_app.serial_jobs)."""

import asyncio

from edge_app.serial_jobs import YIELD_EVERY, SerialJobs


async def test_jobs_of_a_key_run_in_order_and_a_busy_key_lets_others_run():
    jobs = SerialJobs("test", idle_seconds=0.05)
    ran: list[tuple[str, int]] = []

    def job(key, n):
        async def run():
            ran.append((key, n))  # finishes without waiting

        return run

    for n in range(10 * YIELD_EVERY):
        jobs.put("busy", job("busy", n))
    jobs.put("other", job("other", 0))
    while len(ran) < 10 * YIELD_EVERY + 1:
        await asyncio.sleep(0.001)

    assert [n for k, n in ran if k == "busy"] == list(range(10 * YIELD_EVERY))
    assert ran.index(("other", 0)) <= 2 * YIELD_EVERY  # not behind the whole backlog

    await asyncio.sleep(0.2)  # idle workers end
    assert jobs.busy_keys() == 0
