"""A psycopg connection that reads a result's next chunk without a loop round trip
when the socket already holds it.

psycopg drives libpq with generators that yield "wait until readable" after every
``PQconsumeInput``, which reads at most what libpq's input buffer holds (16 KiB). A
result of 60 KiB (a getChannelDifference page of 100 messages) thus costs four waits,
and each wait is an ``add_reader``, a future and at least one pass of the event loop,
even when the rest of the result arrived long ago. Under load every pass means waiting
for whatever else the loop has to run: measured beside ~1000 sends/s, 4-5 waits per
difference page at p50 0.6 ms and p99 2.5 ms each.

Here a read wait is first checked with a zero-timeout poll(): if the socket is
readable the generator goes on at once. A bounded number of chunks is taken in a row,
so a huge result still lets the loop run in between. ``Wait`` and ``Ready`` are the
protocol between psycopg's generators and its waiting functions: a psycopg upgrade
that changed it would fail tests/message_core/test_eager_reads.py.
"""

from __future__ import annotations

import select

from psycopg import AsyncConnection
from psycopg.waiting import Ready, Wait

# Chunks read in a row before the loop gets a turn (16 KiB each: 1 MiB).
EAGER_CHUNKS_MAX = 64


def readable_now(fileno: int) -> bool:
    poller = select.poll()  # not select(): a busy listener's descriptors pass 1024
    poller.register(fileno, select.POLLIN)
    return bool(poller.poll(0))


def eager(gen, fileno: int):
    """``gen`` with its read waits skipped while the socket can satisfy them."""
    try:
        state = next(gen)
        eager_in_a_row = 0
        while True:
            if state == Wait.R and eager_in_a_row < EAGER_CHUNKS_MAX and readable_now(fileno):
                eager_in_a_row += 1
                state = gen.send(Ready.R)
                continue
            eager_in_a_row = 0
            state = gen.send((yield state))
    except StopIteration as done:
        return done.value


class EagerReadConnection(AsyncConnection):
    async def wait(self, gen, *args, **kwargs):
        return await super().wait(eager(gen, self.pgconn.socket), *args, **kwargs)
