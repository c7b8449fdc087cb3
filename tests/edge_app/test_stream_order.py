"""A listener puts a channel's events that two publishers raced back in pts order."""

from __future__ import annotations

import asyncio

from edge_app.stream_order import StreamOrder


def _order(hold: float = 0.2) -> tuple[StreamOrder, list]:
    out: list = []
    return StreamOrder(out.append, hold=hold), out


async def test_in_order_events_go_at_once():
    order, out = _order()
    order.accept("c", 0, 1, "a")
    order.accept("c", 1, 3, "b")
    assert out == ["a", "b"]


async def test_an_overtaking_event_waits_for_its_predecessor():
    order, out = _order()
    order.accept("c", 0, 1, 1)
    order.accept("c", 2, 3, 3)
    order.accept("c", 3, 4, 4)
    assert out == [1]
    order.accept("c", 1, 2, 2)
    assert out == [1, 2, 3, 4]
    assert len(order) == 0


async def test_a_lost_predecessor_holds_the_stream_only_briefly():
    order, out = _order(hold=0.05)
    order.accept("c", 0, 1, 1)
    order.accept("c", 2, 3, 3)
    await asyncio.sleep(0.1)
    assert out == [1, 3] and order.waited_out == 1
    order.accept("c", 3, 4, 4)  # the stream goes on from there
    assert out == [1, 3, 4]


async def test_streams_do_not_wait_for_each_other():
    order, out = _order()
    order.accept("a", 0, 1, "a1")
    order.accept("a", 2, 3, "a3")
    order.accept("b", 5, 6, "b6")  # first event of a stream starts it
    assert out == ["a1", "b6"]


async def test_late_events_go_at_once_and_forgetting_releases_what_waits():
    order, out = _order()
    order.accept("c", 0, 1, 1)
    order.accept("c", -1, 0, "late")
    order.accept("c", 4, 5, 5)
    assert out == [1, "late"]
    order.forget("c")
    assert out == [1, "late", 5]
    order.accept("c", 9, 10, 10)  # afresh
    assert out[-1] == 10
