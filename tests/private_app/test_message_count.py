"""A private history's total is the dialog's counter kept with the writes
(private_dialogs.message_count, issue 48), exact past 100,000 messages and never a
count of the boxes; a text search walks the history index newest first with a LIMIT."""

import pytest
from asgiref.sync import sync_to_async
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts_app.actions import do_create_user
from message_core import db, limits
from private_app import actions
from private_app.models import MessageBox
from tests.channels_app.plans import nodes


@pytest.fixture
async def users(chan):
    mk = sync_to_async(do_create_user)
    a = await mk("99966300001", "Alice")
    b = await mk("99966300002", "Bob")
    return a.id, b.id


async def totals(a, b) -> tuple[int, int]:
    """Each side's history total, as a first page answers it."""
    return (await actions.get_history(a, b, limit=1)).count, (await actions.get_history(b, a, limit=1)).count


@sync_to_async
def live(owner, peer) -> int:
    return MessageBox.objects.filter(owner_id=owner, peer_id=peer, deleted=False).count()


async def test_the_count_follows_sends_albums_forwards_and_deletes(users):
    a, b = users
    for i in range(5):
        await actions.do_send_private_message(a, b, f"m{i}", 10 + i)
    await actions.do_send_private_message(b, a, "reply", 20)
    await actions.do_send_private_message(a, b, "m0", 10)  # a retry writes nothing
    assert await totals(a, b) == (6, 6)
    await actions.do_send_private_service(a, b, {"kind": "web_view_data_sent", "text": "x"}, 21)
    doc = {"kind": "document", "document_id": 1}
    album = [{"message": "", "media": doc, "random_id": 30 + i} for i in range(3)]
    await actions.do_send_private_album(a, b, album)
    src = await actions.get_forwardable(a, b, [1, 2])
    await actions.do_forward_to_user(a, b, src, [40, 41], source=("u", b))
    assert await totals(a, b) == (12, 12) == (await live(a, b), await live(b, a))

    await actions.do_delete_private_messages(a, [1, 2])  # for A only
    assert await totals(a, b) == (10, 12)
    await actions.do_delete_private_messages(a, [1, 3, 4], revoke=True)  # 1 is gone already
    assert await totals(a, b) == (8, 10) == (await live(a, b), await live(b, a))

    _, n, _ = await actions.do_delete_private_history(a, b)  # clear, for A only
    assert n == 8 and await totals(a, b) == (0, 10)
    await actions.do_send_private_message(b, a, "again", 22)
    assert await totals(a, b) == (1, 11)
    await actions.do_delete_private_history(b, a, revoke=True)  # for both sides
    assert await totals(a, b) == (0, 0) == (await live(a, b), await live(b, a))


async def test_saved_messages_and_paged_history_deletes_count_too(users, monkeypatch):
    a, b = users
    for i in range(4):
        await actions.do_send_private_message(a, a, f"note{i}", 50 + i)
    assert (await actions.get_history(a, a, limit=2)).count == 4
    for i in range(7):
        await actions.do_send_private_message(a, b, f"m{i}", 100 + i)
    monkeypatch.setattr(limits, "DELETE_HISTORY_PAGE", 5)
    _, n, more = await actions.do_delete_private_history(a, b, revoke=True)
    assert (n, more) == (5, True) and await totals(a, b) == (2, 2)
    await actions.do_delete_private_history(a, b, revoke=True)
    assert await totals(a, b) == (0, 0)
    assert (await actions.get_history(a, a, limit=2)).count == 4


@sync_to_async
def captured(owner, peer, **kw):
    """A history page and the statements it ran."""
    with CaptureQueriesContext(connection) as queries:
        h = actions.get_history.__wrapped__(owner, peer, **kw)
    return h, queries.captured_queries


async def _bulk_boxes(owner, peer, n, message_of="") -> None:
    """``n`` more live boxes of one content row (the newest, or the one with this text),
    as a raw insert (the bench loader's way)."""
    async with db.connection() as conn:
        cur = await conn.execute(
            "SELECT b.message_id, (SELECT max(box_id) FROM private_message_boxes WHERE owner_id = %(o)s) AS top"
            " FROM private_message_boxes b JOIN private_messages m ON m.id = b.message_id"
            " WHERE b.owner_id = %(o)s AND (m.message = %(t)s OR %(t)s = '') ORDER BY b.box_id DESC LIMIT 1",
            {"o": owner, "t": message_of},
        )
        row = await cur.fetchone()
        await conn.execute(
            'INSERT INTO private_message_boxes (owner_id, box_id, peer_id, message_id, "out",'
            " reply_to_box_id, deleted, reaction_unread, saved_peer)"
            " SELECT %s, %s + g, %s, %s, true, 0, false, false, 0 FROM generate_series(1, %s) g",
            (owner, row["top"], peer, row["message_id"], n),
        )


async def test_the_total_is_exact_past_100000_and_no_page_counts_the_boxes(users):
    a, b = users
    await actions.do_send_private_message(a, b, "first", 1)
    await _bulk_boxes(a, b, 100_001)
    h, queries = await captured(a, b, limit=20)
    assert h.count == 100_002 and len(h.messages) == 20 and not h.inexact
    sql = " ".join(q["sql"] for q in queries).upper()
    assert "COUNT(" not in sql and "MESSAGE_COUNT" in sql


async def test_a_text_search_walks_the_history_index_with_a_limit(users):
    a, b = users
    await actions.do_send_private_message(a, b, "plain", 199)
    await _bulk_boxes(a, b, 20_000, message_of="plain")  # older, none matching
    for i in range(30):
        await actions.do_send_private_message(a, b, f"quokka {i}" if i % 3 == 0 else f"plain {i}", 200 + i)
    async with db.connection() as conn:
        await conn.execute("ANALYZE private_message_boxes", prepare=False)
        await conn.execute("ANALYZE private_messages", prepare=False)
    h, queries = await captured(a, b, q="QUOKKA", limit=4)
    assert [m["message"] for m in h.messages] == ["quokka 27", "quokka 24", "quokka 21", "quokka 18"]
    assert h.inexact and h.count == 5
    page = [q["sql"] for q in queries if "LIKE" in q["sql"].upper()]
    assert len(page) == 1
    async with db.connection() as conn:
        cur = await conn.execute(f"EXPLAIN (ANALYZE, FORMAT JSON) {page[0]}", prepare=False)
        plan = (await cur.fetchone())["QUERY PLAN"][0]["Plan"]
    kinds = [n["Node Type"] for n in nodes(plan)]
    assert "Sort" not in kinds and kinds[0] == "Limit", kinds
    boxes = [n for n in nodes(plan) if n.get("Relation Name") == "private_message_boxes"]
    assert [(n["Node Type"], n["Scan Direction"]) for n in boxes] == [("Index Scan", "Backward")], boxes
    # each box's text is probed by key as it is reached, never joined in bulk before the LIMIT
    subplans = [n for n in nodes(plan) if n.get("Parent Relationship") == "SubPlan"]
    texts = [n for n in nodes(plan) if "~~" in n.get("Filter", "")]
    assert texts and all(any(n in list(nodes(sub)) for sub in subplans) for n in texts), kinds
    # the last page: fewer than asked, nothing newer skipped
    rest = await actions.get_history(a, b, q="quokka", offset_id=h.messages[-1]["id"], limit=20)
    assert [m["message"] for m in rest.messages][-1] == "quokka 0" and len(rest.messages) == 6


async def test_the_migration_backfills_the_counts_of_existing_dialogs(users):
    import importlib

    backfill = importlib.import_module("private_app.migrations.0009_dialog_message_count").BACKFILL
    a, b = users
    for i in range(3):
        await actions.do_send_private_message(a, b, f"m{i}", 300 + i)
    await actions.do_delete_private_messages(a, [1])
    async with db.connection() as conn:
        await conn.execute("UPDATE private_dialogs SET message_count = 0 WHERE owner_id = ANY(%s)", ([a, b],))
        await conn.execute(backfill)
    assert await totals(a, b) == (2, 3)


async def test_a_rare_word_is_found_through_the_index_below_any_window(users):
    from message_core.text import SEARCH_WINDOW

    a, b = users
    for i in range(6):
        await actions.do_send_private_message(a, b, f"ammonite {i}" if i % 2 else f"plain {i}", 400 + i)
    await _bulk_boxes(a, b, SEARCH_WINDOW + 10, message_of="plain 4")  # newer, none matching
    h, queries = await captured(a, b, q="Ammonite", limit=2)
    assert [m["message"] for m in h.messages] == ["ammonite 5", "ammonite 3"] and h.inexact
    assert any("ILIKE" in q["sql"].upper() for q in queries)
    rest = await actions.get_history(a, b, q="ammonite", offset_id=h.messages[-1]["id"], limit=20)
    assert [m["message"] for m in rest.messages] == ["ammonite 1"]
    assert (await actions.get_history(a, b, q="100%", limit=5)).messages == []  # a pattern's own % is literal


async def test_a_word_common_in_other_chats_reads_only_this_chats_matches(users):
    a, b = users
    other = (await sync_to_async(do_create_user)("99966300003", "Carol")).id
    for i in range(4):
        one, two = (a, b) if i < 2 else (b, a)
        await actions.do_send_private_message(one, two, f"ammonite {i}" if i % 2 else f"plain {i}", 500 + i)
    async with db.connection() as conn:  # texts of other chats (their boxes do not matter here)
        for sender, text in ((other, "ammonite"), (a, "plain"), (b, "plain")):
            await conn.execute(
                "INSERT INTO private_messages (sender_id, date, message, entities, grouped_id, via_bot_id,"
                " edit_date, silent, media_read) SELECT %s, 1, %s || ' ' || g, '[]', 0, 0, 0, false, false"
                " FROM generate_series(1, 5000) g",
                (sender, text),
            )
        await conn.execute("ANALYZE private_messages", prepare=False)
    await _bulk_boxes(a, b, 3000, message_of="plain 2")  # newer than the walk's reach
    h, queries = await captured(a, b, q="ammonite", limit=5)
    assert [m["message"] for m in h.messages] == ["ammonite 3", "ammonite 1"]
    texts = [q["sql"] for q in queries if "ILIKE" in q["sql"].upper()]
    # one statement per sender, each for that sender's matches only (not Carol's 5,000)
    assert sorted(f"sender_id = {x}" in sql for x in (a, b) for sql in texts) == [False, False, True, True]
    assert not any(str(other) in sql for sql in texts), texts
    async with db.connection() as conn:
        cur = await conn.execute(
            "SELECT indexdef FROM pg_indexes WHERE indexname = 'private_messages_sender_body_trgm_idx'"
        )
        (index,) = await cur.fetchall()
    # the index that serves both conditions at scale (a table this small is read whole:
    # the plans at 250k messages are in docs/performance.md, "Data scale")
    assert "gin (sender_id, message gin_trgm_ops)" in index["indexdef"], index
