"""Group commit of new channel messages (channels_app.actions.message_writes): concurrent
sends share statements and keep every guarantee a lone send has."""

import asyncio

import pytest
from psycopg import DataError

from channels_app import actions
from channels_app.actions import message_writes
from edge_app import metrics
from message_core import db

A, B, C, D = 21, 22, 23, 24


def _statements() -> tuple[float, float]:
    """(statements, rows) written so far by the group commit."""
    got = {s.name: s.value for m in metrics.SEND_BATCH_ROWS.collect() for s in m.samples}
    return got["telesrv_send_batch_rows_count"], got["telesrv_send_batch_rows_sum"]


async def _group(*members):
    return (
        await actions.do_create_channel(A, "g", invite_user_ids=list(members), from_create_chat=True)
    ).channel


async def test_concurrent_sends_share_statements_and_stay_gapless(chan):
    g = await _group(B, C, D)
    senders = [A, B, C, D]
    before = _statements()
    changes = await asyncio.gather(
        *(actions.do_send_message(senders[i % 4], g["id"], f"m{i}", random_id=1000 + i) for i in range(40))
    )
    statements, rows = (a - b for a, b in zip(_statements(), before, strict=True))
    assert rows == 40
    assert statements < 40  # some statements carried several sends

    events = [c.events[0] for c in changes]
    assert all(not c.duplicate for c in changes)
    for i, ev in enumerate(events):  # each caller got its own message back
        assert ev.message["message"] == f"m{i}" and ev.message["sender_user_id"] == senders[i % 4]
        assert ev.random_id == 1000 + i and ev.pts == ev.message["pts"]
    first = 2  # after the creation's service message
    assert sorted(e.message["id"] for e in events) == list(range(first, first + 40))
    assert sorted(e.pts for e in events) == list(range(first, first + 40))

    stored = await db.fetchall(
        "SELECT id, pts, sender_user_id, message FROM channel_messages WHERE channel_id = %s AND id >= %s"
        " ORDER BY id",
        (g["id"], first),
    )
    assert {(r["id"], r["pts"], r["sender_user_id"], r["message"]) for r in stored} == {
        (e.message["id"], e.pts, e.message["sender_user_id"], e.message["message"]) for e in events
    }
    log = await db.fetchall(
        "SELECT pts, type, sender_user_id, message_id FROM channel_update_events WHERE channel_id = %s"
        " AND pts >= %s ORDER BY pts",
        (g["id"], first),
    )
    assert [r["pts"] for r in log] == list(range(first, first + 40))
    assert all(r["type"] == "new_message" for r in log)
    by_pts = {e.pts: e.message for e in events}
    assert all((r["sender_user_id"], r["message_id"]) == (by_pts[r["pts"]]["sender_user_id"], by_pts[r["pts"]]["id"])
               for r in log)  # fmt: skip

    # Each sender's own read state moved to their own newest message, not the statement's.
    members = await db.fetchall(
        "SELECT user_id, read_inbox_max_id FROM channel_members WHERE channel_id = %s", (g["id"],)
    )
    newest = {u: max(e.message["id"] for e in events if e.message["sender_user_id"] == u) for u in senders}
    assert {r["user_id"]: r["read_inbox_max_id"] for r in members} == newest
    channel = await db.fetchone("SELECT top_message_id, pts FROM channels WHERE id = %s", (g["id"],))
    assert (channel["top_message_id"], channel["pts"]) == (first + 39, first + 39)


async def test_a_retry_racing_its_original_writes_one_message(chan):
    g = await _group(B)
    first, second = await asyncio.gather(
        actions.do_send_message(B, g["id"], "once", random_id=77),
        actions.do_send_message(B, g["id"], "once", random_id=77),
    )
    assert first.events[0].message["id"] == second.events[0].message["id"]
    assert sorted([first.duplicate, second.duplicate]) == [False, True]
    n = await db.fetchone(
        "SELECT count(*) AS n FROM channel_messages WHERE channel_id = %s AND random_id = 77", (g["id"],)
    )
    assert n["n"] == 1
    # The loser's pts slot holds a noop: the log has no gap.
    log = await db.fetchall(
        "SELECT pts, type FROM channel_update_events WHERE channel_id = %s AND pts > 1 ORDER BY pts",
        (g["id"],),
    )
    assert [r["pts"] for r in log] == list(range(2, 2 + len(log)))
    assert sorted(r["type"] for r in log).count("new_message") == 1


async def test_one_bad_send_fails_alone(chan):
    g = await _group(B, C)
    channel = await db.fetchone("SELECT * FROM channels WHERE id = %s", (g["id"],))

    def rows(text, rid):
        return [{"message": text, "entities": [], "random_id": rid}]

    results = await asyncio.gather(
        *(
            message_writes.write_messages(channel, u, rows(t, rid), silent=False, post_author="")
            for u, t, rid in [(A, "ok 1", 1), (B, "bad\x00", 2), (C, "ok 2", 3), (A, "ok 3", 4)]
        ),
        return_exceptions=True,
    )
    assert isinstance(results[1], DataError)
    assert [r[0].message["message"] for i, r in enumerate(results) if i != 1] == ["ok 1", "ok 2", "ok 3"]
    stored = await db.fetchall(
        "SELECT message FROM channel_messages WHERE channel_id = %s AND id > 1 ORDER BY id", (g["id"],)
    )
    assert sorted(r["message"] for r in stored) == ["ok 1", "ok 2", "ok 3"]
    # Failed ranges became noops: pts stays gapless for getChannelDifference.
    log = await db.fetchall(
        "SELECT pts, pts_count FROM channel_update_events WHERE channel_id = %s ORDER BY pts", (g["id"],)
    )
    pts = 0
    for r in log:
        assert r["pts"] - r["pts_count"] == pts
        pts = r["pts"]


async def test_an_album_stays_contiguous_among_concurrent_sends(chan):
    g = await _group(B)
    channel = await db.fetchone("SELECT * FROM channels WHERE id = %s", (g["id"],))
    album = [{"message": f"a{i}", "entities": [], "random_id": 500 + i, "grouped_id": 9} for i in range(5)]
    singles = [
        message_writes.write_messages(
            channel,
            B,
            [{"message": f"s{i}", "entities": [], "random_id": 600 + i}],
            silent=False,
            post_author="",
        )
        for i in range(10)
    ]
    results = await asyncio.gather(
        *singles[:5],
        message_writes.write_messages(channel, A, album, silent=True, post_author=""),
        *singles[5:],
    )
    events = results[5]
    ids = [e.message["id"] for e in events]
    assert [e.message["message"] for e in events] == [f"a{i}" for i in range(5)]
    assert ids == list(range(ids[0], ids[0] + 5))
    assert all(e.message["silent"] and e.message["grouped_id"] == 9 for e in events)
    assert not any(r[0].message["silent"] for i, r in enumerate(results) if i != 5)


async def test_a_send_whose_caller_left_before_its_statement_is_not_written(chan):
    g = await _group(B)
    channel = await db.fetchone("SELECT * FROM channels WHERE id = %s", (g["id"],))

    def send(text, rid):
        return asyncio.ensure_future(
            message_writes.write_messages(
                channel,
                A,
                [{"message": text, "entities": [], "random_id": rid}],
                silent=False,
                post_author="",
            )
        )

    first = send("first", 1)
    await asyncio.sleep(0)  # queued; its statement starts on the next turn
    second = send("second", 2)
    await asyncio.sleep(0)
    second.cancel()
    await first
    with pytest.raises(asyncio.CancelledError):
        await second
    stored = await db.fetchall(
        "SELECT message FROM channel_messages WHERE channel_id = %s AND id > 1", (g["id"],)
    )
    assert [r["message"] for r in stored] == ["first"]
    assert not message_writes._queues  # nothing left behind for this loop
