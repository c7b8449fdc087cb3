import asyncio
import time

import pytest

from channels_app import actions, counters
from channels_app.actions import pts_repair
from channels_app.actions.common import insert_event, write_noop
from channels_app.errors import ChannelInvalidError, ChannelPrivateError, PersistentTimestampInvalidError
from message_core import db

A, B, C = 31, 32, 33


async def group(*members):
    return (
        await actions.do_create_channel(A, "g", invite_user_ids=list(members), from_create_chat=True)
    ).channel


async def test_difference_shapes(chan):
    g = await group(B)
    d = await actions.get_channel_difference(B, g["id"], 1, 100)
    assert d.kind == "empty" and d.pts == 1 and d.final
    for i in range(5):
        await actions.do_send_message(A, g["id"], f"m{i}", random_id=i + 1)
    await actions.do_edit_message(A, g["id"], 3, "edited", [])
    await actions.do_delete_messages(A, g["id"], [4, 5])
    d = await actions.get_channel_difference(B, g["id"], 1, 100)
    assert d.kind == "difference" and d.final and d.pts == 9
    # the snapshot at event time, not the current row
    assert [m["message"] for m in d.new_messages] == ["m0", "m1", "m2", "m3", "m4"]
    assert [(e.type, e.pts, e.pts_count) for e in d.other_events] == [
        ("edit_message", 7, 1),
        ("delete_messages", 9, 2),
    ]
    assert A in d.user_ids
    with pytest.raises(PersistentTimestampInvalidError):
        await actions.get_channel_difference(B, g["id"], 10, 100)
    with pytest.raises(PersistentTimestampInvalidError):
        await actions.get_channel_difference(B, g["id"], -1, 100)
    # A limit above the cap is clamped, as Telegram does.
    big = await actions.get_channel_difference(B, g["id"], 1, 100_000)
    assert big.kind == "difference" and big.pts == 9


async def test_the_input_channel_is_checked_as_every_method_checks_it(chan):
    g = await group(B)
    ok = await actions.get_channel_difference(B, g["id"], 1, 100, access_hash=g["access_hash"])
    assert ok.kind == "empty"
    assert (
        await actions.get_channel_difference(B, g["id"], 1, 100, access_hash=0)
    ).kind == "empty"  # a member
    with pytest.raises(ChannelPrivateError):
        await actions.get_channel_difference(B, g["id"], 1, 100, access_hash=g["access_hash"] ^ 0x5555)
    with pytest.raises(ChannelPrivateError):
        await actions.get_channel_difference(C, g["id"], 1, 100, access_hash=0)  # hash 0 needs membership
    with pytest.raises(ChannelInvalidError):
        await actions.get_channel_difference(B, g["id"] + 1000, 1, 100, access_hash=g["access_hash"])
    with pytest.raises(ChannelPrivateError):  # an internal caller naming a channel that is not there
        await actions.get_channel_difference(B, g["id"] + 1000, 1, 100)


async def test_difference_pages_and_too_long(chan):
    g = await group(B)
    for i in range(150):
        await actions.do_send_message(A, g["id"], f"m{i}", random_id=i + 1)
    d = await actions.get_channel_difference(B, g["id"], 1, 10)
    assert d.kind == "too_long"  # 150 behind, cap 10
    assert d.pts == 151 and d.dialog["pts"] == 151 and len(d.messages) == 10
    assert d.messages[0]["id"] == 151
    assert d.dialog["unread_count"] == 151 and d.dialog["top_message"] == 151
    await actions.do_read_history(B, g["id"], 120)
    d = await actions.get_channel_difference(B, g["id"], 1, 10)
    assert d.dialog["read_inbox_max_id"] == 120 and d.dialog["unread_count"] == 31
    d = await actions.get_channel_difference(B, g["id"], 100, 100)
    assert d.kind == "difference" and d.pts == 151 and len(d.new_messages) == 51
    # a full page that has not caught up is not final
    d = await actions.get_channel_difference(B, g["id"], 51, 100)
    assert d.kind == "difference" and d.final and d.pts == 151


async def test_late_joiner_cannot_see_pre_join_events(chan):
    g = await group(B)
    for i in range(3):
        await actions.do_send_message(A, g["id"], f"secret{i}", random_id=i + 1)
    await actions.do_invite_to_channel(A, g["id"], [C])
    await actions.do_send_message(A, g["id"], "after", random_id=9)
    d = await actions.get_channel_difference(C, g["id"], 0, 100)
    texts = [m["message"] for m in d.new_messages]
    assert not any(t.startswith("secret") for t in texts)
    assert "after" in texts


async def test_failed_transaction_leaves_a_noop_not_a_gap(chan):
    g = await group(B)
    pts = await counters.next_pts(g["id"], 2)  # allocated, then the writer "failed"
    await write_noop(g["id"], pts, 2)
    await actions.do_send_message(A, g["id"], "after", random_id=1)
    d = await actions.get_channel_difference(B, g["id"], 1, 100)
    assert d.kind == "difference" and d.pts == 4
    assert [m["message"] for m in d.new_messages] == ["after"]
    row = await db.fetchone(
        "SELECT type FROM channel_update_events WHERE channel_id = %s AND pts = 3", (g["id"],)
    )
    assert row["type"] == "noop"


async def test_failed_edit_turns_its_pts_into_noop(chan):
    g = await group(B)
    m = (await actions.do_send_message(A, g["id"], "a", random_id=1)).events[0].message
    await db.fetchone(
        "UPDATE channel_messages SET deleted = true WHERE channel_id = %s AND id = %s RETURNING 1",
        (g["id"], m["id"]),
    )
    from channels_app.errors import MessageIdInvalidError

    with pytest.raises(MessageIdInvalidError):
        await actions.do_edit_message(A, g["id"], m["id"], "b", [])
    d = await actions.get_channel_difference(B, g["id"], 1, 100)
    assert d.pts >= 2


async def test_local_clear_hides_history_from_difference_and_history(chan):
    g = await group(B)
    for i in range(3):
        await actions.do_send_message(A, g["id"], f"m{i}", random_id=i + 1)
    _, _, applied, _ = await actions.do_delete_history(B, g["id"], 3, for_everyone=False)
    assert applied == 3
    _, _, applied, _ = await actions.do_delete_history(B, g["id"], 1, for_everyone=False)
    assert applied == 3  # monotonic
    h = await actions.get_history(B, g["id"])
    assert [m["id"] for m in h.messages] == [4]
    d = await actions.get_channel_difference(B, g["id"], 1, 100)
    assert [m["id"] for m in d.new_messages] == [4]


async def test_delete_history_for_everyone_is_one_bounded_page(chan):
    g = await group(B)
    for i in range(5):
        await actions.do_send_message(A, g["id"], f"m{i}", random_id=i + 1)
    ch, ev, _, more = await actions.do_delete_history(A, g["id"], 0, for_everyone=True)
    assert ev.pts_count == 6 and not more and ch["top_message_id"] == 0


async def test_difference_waits_for_a_hole_then_fills_it_never_answering_empty_non_final(chan):
    g = await group(B)
    await counters.next_pts(g["id"], 1)  # pts 2: allocated, its writer never commits
    await actions.do_send_message(A, g["id"], "later", random_id=1)  # pts 3 commits
    started = time.monotonic()
    d = await actions.get_channel_difference(B, g["id"], 1, 100)
    # Not "empty, final=false" (Telethon asserts on it), not pts 3 with pts 2 skipped.
    assert d.kind == "difference" and d.final and d.pts == 3
    assert [m["message"] for m in d.new_messages] == ["later"]
    assert time.monotonic() - started < pts_repair.HOLE_WAIT + 2
    row = await db.fetchone(
        "SELECT type FROM channel_update_events WHERE channel_id = %s AND pts = 2", (g["id"],)
    )
    assert row["type"] == "noop"
    assert await counters.pending(0, g["id"]) == []  # the journal entry is settled


async def test_difference_includes_a_slow_write_that_commits_while_it_waits(chan):
    g = await group(B)
    pts = await counters.next_pts(g["id"], 1)  # pts 2, committed in a moment
    await actions.do_send_message(A, g["id"], "third", random_id=1)

    async def slow_writer():
        await asyncio.sleep(0.3)
        async with db.connection() as conn:
            await insert_event(conn, channel_id=g["id"], pts=pts, pts_count=1, type="noop", date=1)

    writer = asyncio.create_task(slow_writer())
    d = await actions.get_channel_difference(B, g["id"], 1, 100)
    await writer
    assert d.kind == "difference" and d.final and d.pts == 3


async def test_a_writer_whose_pts_was_filled_runs_again_on_a_fresh_pts(chan):
    g = await group(B)
    real = counters.next_pts
    stolen = []

    async def next_pts_then_filled(channel_id, count=1):
        pts = await real(channel_id, count)
        if not stolen:  # a reader gave this pts up for lost before the writer committed
            stolen.append(pts)
            await write_noop(channel_id, pts, count)
        return pts

    from unittest import mock

    m = (await actions.do_send_message(A, g["id"], "a", random_id=1)).events[0].message
    with mock.patch.object(counters, "next_pts", next_pts_then_filled):
        change = await actions.do_edit_message(A, g["id"], m["id"], "b", [])
    assert change.events[0].pts == stolen[0] + 1
    d = await actions.get_channel_difference(B, g["id"], 1, 100)
    assert d.final and d.pts == stolen[0] + 1


async def test_repair_fills_allocations_a_crash_left_behind(chan):
    g = await group(B)
    await asyncio.sleep(2 * counters.SETTLE_DELAY)  # the creation's own entry is settled
    lost = await counters.next_pts(g["id"], 2)  # the process died before writing 2..3
    assert await pts_repair.repair_pending(older_than=60) == 0  # too young to be lost
    assert await pts_repair.repair_pending(older_than=0) == 1
    ch = await db.fetchone("SELECT pts FROM channels WHERE id = %s", (g["id"],))
    assert ch["pts"] == lost  # the channel's pts covers the filled range
    row = await db.fetchone(
        "SELECT type, pts_count FROM channel_update_events WHERE channel_id = %s AND pts = %s",
        (g["id"], lost),
    )
    assert (row["type"], row["pts_count"]) == ("noop", 2)
    await actions.do_send_message(A, g["id"], "after", random_id=1)
    await asyncio.sleep(2 * counters.SETTLE_DELAY)
    assert await pts_repair.repair_pending(older_than=0) == 0  # committed writes settle themselves


async def test_a_page_shows_views_forwards_and_reactions_as_they_are_now(chan):
    """Events keep the message as it was sent; the page renders what getMessages
    renders now: views, forwards, totals and the viewer's own reaction."""
    from channels_app import tl_convert
    from channels_app.actions import reactions, views

    ch = (await actions.do_create_channel(A, "news", broadcast=True, invite_user_ids=[B, C])).channel
    ids = [
        (await actions.do_send_message(A, ch["id"], f"p{i}", random_id=i)).events[0].message["id"]
        for i in (1, 2, 3)
    ]
    for user in (B, C):
        h = await actions.get_messages(user, ch["id"], ids[:1])
        await views.do_record_views(user, h.channel, h.member, ids[:1])
    await views.do_count_forwards(ch["id"], [ids[1]])
    await reactions.do_send_reaction(B, ch["id"], ids[1], ["👍"])
    await reactions.do_send_reaction(C, ch["id"], ids[1], ["❤"])
    for viewer in (B, C):
        d = await actions.get_channel_difference(viewer, ch["id"], 1, 100)
        now = (await actions.get_messages(viewer, ch["id"], ids)).messages
        assert [m["id"] for m in d.new_messages] == ids
        assert [tl_convert.message_to_tl(m, viewer).to_bytes() for m in d.new_messages] == [
            tl_convert.message_to_tl(m, viewer).to_bytes() for m in now
        ]
        seen = {m["id"]: m for m in d.new_messages}
        assert seen[ids[0]]["views_count"] == 2 and seen[ids[1]]["forwards_count"] == 1
        assert seen[ids[1]]["reactions"]["mine"] == (["👍"] if viewer == B else ["❤"])
        assert "reactions" not in seen[ids[2]]  # no reactions: nothing to ask for
