"""edge_app.turn_batches: calls of one loop turn share one run, each gets its own result."""

import asyncio

import pytest

from edge_app.turn_batches import TurnBatcher


async def test_calls_of_one_turn_share_a_run_per_key():
    runs = []

    async def run(key, items):
        runs.append((key, list(items)))
        await asyncio.sleep(0)
        return [f"{key}:{i}" for i in items]

    batcher = TurnBatcher(run)
    got = await asyncio.gather(*(batcher.submit(k, i) for k, i in [("a", 1), ("b", 2), ("a", 3), ("a", 4)]))
    assert got == ["a:1", "b:2", "a:3", "a:4"]
    assert sorted(runs) == [("a", [1, 3, 4]), ("b", [2])]
    assert await batcher.submit("a", 5) == "a:5"  # a later turn: a run of its own
    assert runs[-1] == ("a", [5])


async def test_a_failed_run_fails_each_of_its_callers_only():
    async def run(key, items):
        if key == "bad":
            raise ValueError(key)
        return items

    batcher = TurnBatcher(run)
    got = await asyncio.gather(
        batcher.submit("bad", 1), batcher.submit("ok", 2), batcher.submit("bad", 3), return_exceptions=True
    )
    assert isinstance(got[0], ValueError) and isinstance(got[2], ValueError) and got[1] == 2
    assert await batcher.submit("ok", 4) == 4


async def test_a_caller_that_leaves_does_not_disturb_the_others():
    release = asyncio.Event()

    async def run(key, items):
        await release.wait()
        return items

    batcher = TurnBatcher(run)
    leaving = asyncio.ensure_future(batcher.submit("k", 1))
    staying = asyncio.ensure_future(batcher.submit("k", 2))
    await asyncio.sleep(0)
    leaving.cancel()
    release.set()
    assert await staying == 2
    with pytest.raises(asyncio.CancelledError):
        await leaving
