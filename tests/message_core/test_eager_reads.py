"""The pool's connections read a result's next chunk at once when it is there."""

import socket

import pytest
from psycopg.waiting import Ready, Wait

from message_core import db
from message_core.eager_reads import EAGER_CHUNKS_MAX, eager


def _waiter(states, got):
    """A stand-in for psycopg's generators: yields ``states``, keeps what it is sent."""
    for s in states:
        got.append((yield s))
    return "result"


@pytest.fixture
def pair():
    a, b = socket.socketpair()
    yield a, b
    a.close()
    b.close()


def _drive(gen, answer=Ready.R):
    """Run ``gen`` as psycopg's wait_async would: (what it asked the loop for, result)."""
    asked = []
    try:
        state = next(gen)
        while True:
            asked.append(state)
            state = gen.send(answer)
    except StopIteration as done:
        return asked, done.value


def test_read_waits_the_socket_can_satisfy_never_reach_the_loop(pair):
    a, b = pair
    b.send(b"rest of the result")
    got = []
    asked, result = _drive(eager(_waiter([Wait.R] * 3, got), a.fileno()))
    assert asked == [] and result == "result" and got == [Ready.R] * 3


def test_a_read_wait_with_nothing_to_read_goes_to_the_loop(pair):
    a, _ = pair
    got = []
    asked, result = _drive(eager(_waiter([Wait.R, Wait.R], got), a.fileno()))
    assert asked == [Wait.R, Wait.R] and result == "result" and got == [Ready.R, Ready.R]


def test_writes_go_to_the_loop_as_before(pair):
    a, b = pair
    b.send(b"x")
    asked, _ = _drive(eager(_waiter([Wait.W, Wait.RW], []), a.fileno()), Ready.W)
    assert asked == [Wait.W, Wait.RW]


def test_a_long_run_of_chunks_lets_the_loop_in_between(pair):
    a, b = pair
    b.send(b"x")
    asked, _ = _drive(eager(_waiter([Wait.R] * (2 * EAGER_CHUNKS_MAX + 2), []), a.fileno()))
    assert asked == [Wait.R, Wait.R]  # one after each EAGER_CHUNKS_MAX chunks taken at once


@pytest.fixture
async def pool(transactional_db):
    yield
    await db.close_pools()


async def test_large_results_and_pipelines_arrive_whole(pool):
    rows = await db.fetchall("SELECT n, repeat('x', 1000) AS pad FROM generate_series(1, 500) n")
    assert [r["n"] for r in rows] == list(range(1, 501)) and all(len(r["pad"]) == 1000 for r in rows)
    async with db.connection() as conn:
        async with conn.pipeline():
            big = await conn.execute("SELECT repeat('y', 300000) AS s")
            small = await conn.execute("SELECT 42 AS n")
        assert len((await big.fetchone())["s"]) == 300000 and (await small.fetchone())["n"] == 42
