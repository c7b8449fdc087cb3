"""Ordered publishing of one stream (a channel's pts) through Redis."""

from __future__ import annotations

import asyncio
import os

import pytest

from edge_app import presence, push, push_order
from tests.edge_app.test_push import edge, wait_for  # noqa: F401 - fixture


@pytest.fixture
async def stream(edge):  # noqa: F811
    """A channel whose interest the test listener holds (user 1 is a member)."""
    channel_id = int.from_bytes(os.urandom(5), "big")
    await presence.add_channels(1, [channel_id])
    return channel_id


@pytest.fixture
def seen(monkeypatch):
    got: list = []

    async def handler(payload, _edge):
        got.append(payload["pts"])

    monkeypatch.setitem(push._subscribers, "test.ordered", [handler])
    return got


async def test_events_committed_out_of_order_are_published_in_order(edge, stream, seen):  # noqa: F811
    await push_order.publish_in_order(stream, 0, 1, "test.ordered", {"pts": 1})
    await push_order.publish_in_order(stream, 2, 3, "test.ordered", {"pts": 3})  # 2 not yet
    await push_order.publish_in_order(stream, 3, 5, "test.ordered", {"pts": 5})  # pts_count 2
    await asyncio.sleep(0.2)
    assert seen == [1]
    await push_order.publish_in_order(stream, 1, 2, "test.ordered", {"pts": 2})
    await wait_for(lambda: len(seen) == 4)
    assert seen == [1, 2, 3, 5]


async def test_a_failed_range_releases_its_successors(edge, stream, seen):  # noqa: F811
    await push_order.publish_in_order(stream, 0, 1, "test.ordered", {"pts": 1})
    await push_order.publish_in_order(stream, 2, 3, "test.ordered", {"pts": 3})
    await push_order.skip_in_order(stream, 1, 2)
    await wait_for(lambda: len(seen) == 2)
    assert seen == [1, 3]


async def test_a_hole_that_never_fills_holds_the_stream_only_briefly(edge, stream, seen, monkeypatch):  # noqa: F811
    monkeypatch.setattr(push_order, "HOLE_WAIT", 0.3)
    await push_order.publish_in_order(stream, 0, 1, "test.ordered", {"pts": 1})
    await push_order.publish_in_order(stream, 2, 3, "test.ordered", {"pts": 3})
    await push_order.publish_in_order(stream, 3, 4, "test.ordered", {"pts": 4})
    await wait_for(lambda: len(seen) == 3, timeout=3)
    assert seen == [1, 3, 4]
    # the late one still goes out (clients recover it by difference)
    await push_order.publish_in_order(stream, 1, 2, "test.ordered", {"pts": 2})
    await wait_for(lambda: len(seen) == 4)
    assert seen == [1, 3, 4, 2]


async def test_publishes_of_one_turn_share_one_call_and_keep_the_order(edge, stream, seen, monkeypatch):  # noqa: F811
    calls = []
    real = push_order._call

    async def counting(stream_, ranges):
        calls.append(len(ranges))
        return await real(stream_, ranges)

    monkeypatch.setattr(push_order, "_call", counting)
    order = [3, 1, 4, 2, 6, 5, 8, 7]  # committed out of order, published in one turn
    await asyncio.gather(
        *(push_order.publish_in_order(stream, p - 1, p, "test.ordered", {"pts": p}) for p in order)
    )
    await wait_for(lambda: len(seen) == 8)
    assert seen == sorted(order)
    assert calls == [8]
