import pytest

from channels_app import actions, counters, db
from channels_app.actions.common import write_noop
from channels_app.errors import PersistentTimestampInvalidError

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


async def test_difference_pages_and_too_long(chan):
    g = await group(B)
    for i in range(150):
        await actions.do_send_message(A, g["id"], f"m{i}", random_id=i + 1)
    d = await actions.get_channel_difference(B, g["id"], 1, 10)
    assert d.kind == "too_long"  # 150 behind, cap 10
    assert d.pts == 151 and d.dialog["pts"] == 151 and len(d.messages) == 10
    assert d.messages[0]["id"] == 151
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


async def test_difference_stops_before_a_pts_still_being_committed(chan):
    g = await group(B)
    await counters.next_pts(g["id"], 1)  # pts 2: allocated, its transaction not committed yet
    await actions.do_send_message(A, g["id"], "later", random_id=1)  # pts 3 commits first
    d = await actions.get_channel_difference(B, g["id"], 1, 100)
    # Returning pts 3 now would make the client skip pts 2 forever.
    assert d.kind == "empty" and d.pts == 1 and not d.final
    await write_noop(g["id"], 2, 1)  # the slow writer failed: its pts is a noop
    d = await actions.get_channel_difference(B, g["id"], 1, 100)
    assert d.kind == "difference" and d.pts == 3 and [m["message"] for m in d.new_messages] == ["later"]
