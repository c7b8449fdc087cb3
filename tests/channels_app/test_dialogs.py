"""Dialog list from SQL: order, seek across pages with pins and folders, unread after
deletes, the visible top after deleting the top message and after a local clear."""

import re

import pytest

from channels_app import actions
from channels_app.actions import dialogs
from channels_app.errors import FolderIdInvalidError
from message_core import db
from messages_app import pins
from tests.channels_app.plans import add_active_members, generic_plan, member_scans, nodes

A, B = 31, 32
# A first page of B's dialogs, for plans of the page statement.
_PAGE_VALUES = {"u": B, "f": 0, "lim": 100, "cap": 1000, "unread_max": 10000}
_PAGE_TYPES = {"u": "bigint", "f": "smallint", "lim": "int", "cap": "int", "unread_max": "int"}


async def group(title="g"):
    return (await actions.do_create_channel(A, title, invite_user_ids=[B], from_create_chat=True)).channel


async def send(cid, user=A, n=1, text="m"):
    out = []
    for _ in range(n):
        send.rid += 1
        out.append((await actions.do_send_message(user, cid, text, random_id=send.rid)).events[0].message)
    return out


send.rid = 1000


async def backdate(cid, seconds):
    await db.fetchone(
        "UPDATE channel_messages SET date = date - %s WHERE channel_id = %s RETURNING 1", (seconds, cid)
    )


def ids(d):
    return [e.channel["id"] for e in d.entries]


async def test_order_seek_pins_and_folders(chan):
    chans = []
    for i in range(6):
        g = await group(f"g{i}")
        await send(g["id"])
        await backdate(g["id"], 1000 - i * 10)  # later groups have newer tops
        chans.append(g["id"])
    newest_first = list(reversed(chans))
    assert ids(await actions.get_dialogs(B)) == newest_first
    # Pin two old ones: they lead, the most recently pinned first.
    await pins.do_toggle_dialog_pin(B, ("c", chans[0]), True)
    await pins.do_toggle_dialog_pin(B, ("c", chans[1]), True)
    full = [chans[1], chans[0], *[c for c in newest_first if c not in chans[:2]]]
    d = await actions.get_dialogs(B)
    assert ids(d) == full and d.complete and d.count == 6
    # Archive one: gone from folder 0 (before LIMIT), alone in folder 1.
    await actions.do_set_dialog_folder(B, chans[3], 1)
    main = [c for c in full if c != chans[3]]
    assert ids(await actions.get_dialogs(B, folder_id=1)) == [chans[3]]
    # Page through folder 0 two at a time with the client's cursor (last dialog's top).
    seen, cursor = [], {}
    while True:
        page = await actions.get_dialogs(B, limit=2, **cursor)
        assert page.count == 5
        if not page.entries:
            break
        seen += ids(page)
        last = page.entries[-1]
        cursor = {
            "offset_date": last.top_message["date"],
            "offset_id": last.top_message["id"],
            "offset_channel_id": last.channel["id"],
        }
        assert not page.complete
    assert seen == main
    excl = await actions.get_dialogs(B, exclude_pinned=True)
    assert ids(excl) == main[2:] and not excl.complete and excl.count == 5
    assert ids(await actions.get_pinned_dialogs(B)) == chans[1::-1]
    with pytest.raises(FolderIdInvalidError):
        await actions.get_dialogs(B, folder_id=2)


async def test_unread_counts_deleted_messages_out(chan):
    g = await group()
    msgs = await send(g["id"], n=5)
    (e,) = (await actions.get_dialogs(B)).entries
    assert e.unread_count == 6  # the invite service message + 5
    await actions.do_delete_messages(A, g["id"], [msgs[1]["id"], msgs[2]["id"]])
    (e,) = (await actions.get_dialogs(B)).entries
    assert e.unread_count == 4
    await actions.do_read_history(B, g["id"], msgs[3]["id"])
    (e,) = (await actions.get_peer_dialogs(B, [g["id"]])).entries
    assert e.unread_count == 1


async def test_top_after_deleting_top_and_after_local_clear(chan):
    g = await group()
    msgs = await send(g["id"], n=3)
    await actions.do_delete_messages(A, g["id"], [msgs[-1]["id"]])
    (e,) = (await actions.get_dialogs(B)).entries
    assert e.top_message["id"] == msgs[1]["id"] and not e.top_message["deleted"]
    # A stale channels.top pointing at a deleted message is never shown either.
    await db.fetchone(
        "UPDATE channels SET top_message_id = %s WHERE id = %s RETURNING 1", (msgs[-1]["id"], g["id"])
    )
    (e,) = (await actions.get_dialogs(B)).entries
    assert e.top_message["id"] == msgs[1]["id"]
    await actions.do_delete_history(B, g["id"], 0, for_everyone=False)
    (e,) = (await actions.get_dialogs(B)).entries
    assert e.top_message is None and e.unread_count == 0
    (e,) = (await actions.get_dialogs(A)).entries
    assert e.top_message["id"] == msgs[1]["id"]
    new = await send(g["id"])
    (e,) = (await actions.get_dialogs(B)).entries
    assert e.top_message["id"] == new[0]["id"] and e.unread_count == 1


async def test_page_query_prunes_partitions(chan):
    g = await group()
    await send(g["id"])
    sql = dialogs.page_sql("d.folder_id = %(f)s")
    params = {"u": B, "f": 0, "lim": 100, "cap": 1000, "unread_max": 10000}
    async with db.connection() as conn:
        cur = await conn.execute("EXPLAIN (ANALYZE, COSTS OFF, FORMAT JSON) " + sql, params)
        plan = (await cur.fetchone())["QUERY PLAN"]
    executed = set()

    def walk(node):
        if node.get("Relation Name") and node.get("Actual Loops", 0) > 0:
            executed.add(node["Relation Name"])
        for child in node.get("Plans", []):
            walk(child)

    walk(plan[0]["Plan"])
    for table in ("channel_dialogs", "channels", "channel_members", "channel_messages"):
        scanned = {t for t in executed if t.startswith(table + "_p")}
        assert len(scanned) == 1, (table, scanned)


async def test_nudge_for_edit_only_channel_not_for_untouched(chan):
    from channels_app.account_updates import channels_with_events_since

    edited, untouched = await group("e"), await group("u")
    (m,) = await send(edited["id"])
    for cid in (edited["id"], untouched["id"]):
        await db.fetchone(
            "UPDATE channel_update_events SET date = date - 1000 WHERE channel_id = %s RETURNING 1", (cid,)
        )
        await db.fetchone(
            "UPDATE channels SET top_message_date = top_message_date - 1000 WHERE id = %s RETURNING 1", (cid,)
        )
    import time

    since = int(time.time()) - 100
    assert await channels_with_events_since(B, since) == []
    await actions.do_edit_message(A, edited["id"], m["id"], "changed", [])
    news = await channels_with_events_since(B, since)
    assert [cid for cid, _ in news] == [edited["id"]]


async def test_nudge_for_an_event_in_the_second_of_the_clients_state(chan):
    """A client whose state date is second S and a message sent later in that second:
    getDifference must still nudge it to the channel (mtcute then catches up)."""
    from channels_app.account_updates import channels_with_events_since

    g = await group("same second")
    await send(g["id"])
    row = await db.fetchone(
        "SELECT date FROM channel_update_events WHERE channel_id = %s ORDER BY pts DESC LIMIT 1", (g["id"],)
    )
    assert [cid for cid, _ in await channels_with_events_since(B, row["date"])] == [g["id"]]
    assert await channels_with_events_since(B, row["date"] + 1) == []


async def test_hidden_prehistory_left_and_deleted_channels(chan):
    from channels_app.actions.admin import do_delete_channel
    from channels_app.actions.settings import do_toggle_pre_history_hidden

    old = await group("old")
    await send(old["id"])
    await backdate(old["id"], 5000)
    hidden = (await actions.do_create_channel(A, "h", megagroup=True)).channel
    await do_toggle_pre_history_hidden(A, hidden["id"], True)
    before = await send(hidden["id"], n=2)
    await backdate(hidden["id"], 10_000)  # the prehistory is older than every other top
    join = (await actions.do_invite_to_channel(A, hidden["id"], [B])).events[0].message
    (e,) = (await actions.get_peer_dialogs(B, [hidden["id"]])).entries
    assert e.top_message["id"] == join["id"] and e.unread_count == 1
    # The join message deleted: channels.top is the last hidden message, below the
    # viewer's floor, so nothing is visible; the dialog sorts by the join date.
    await actions.do_delete_messages(A, hidden["id"], [join["id"]])
    d = await actions.get_dialogs(B)
    assert ids(d) == [hidden["id"], old["id"]]
    e = d.entries[0]
    assert e.top_message is None and e.unread_count == 0
    assert e.top_date == max(hidden["date"], e.member["joined_at"])
    (e,) = (await actions.get_peer_dialogs(A, [hidden["id"]])).entries  # the creator sees it all
    assert e.top_message["id"] == before[-1]["id"]
    # Left and deleted channels are not listed, nor counted.
    left, gone = await group("left"), await group("gone")
    await send(left["id"])
    await send(gone["id"])
    assert (await actions.get_dialogs(B)).count == 4
    await actions.do_leave_channel(B, left["id"])
    await do_delete_channel(A, gone["id"])
    d = await actions.get_dialogs(B)
    assert ids(d) == [hidden["id"], old["id"]] and d.count == 2 and d.complete


async def _dialog_lists(user):
    """Every kind of page: first, folders, seek inside and after the pins, pinned, peers."""
    first = await actions.get_dialogs(user, limit=100)
    out = [first]
    for last in first.entries[:-1]:
        top = last.top_message
        cursor = {
            "offset_date": top["date"] if top else last.top_date,
            "offset_id": top["id"] if top else 0,
            "offset_channel_id": last.channel["id"],
        }
        out.append(await actions.get_dialogs(user, limit=2, **cursor))
    out.append(await actions.get_dialogs(user, folder_id=1))
    out.append(await actions.get_dialogs(user, exclude_pinned=True))
    out.append(await actions.get_pinned_dialogs(user))
    out.append(await actions.get_peer_dialogs(user, ids(first)[::-1]))
    return [
        (
            ids(d),
            d.count,
            d.complete,
            [(e.top_message and e.top_message["id"], e.top_date, e.unread_count) for e in d.entries],
        )
        for d in out
    ]


async def _mixed_dialogs():
    """Dialogs in every state the order key distinguishes."""
    chans = []
    for i in range(8):
        g = await group(f"g{i}")
        msgs = await send(g["id"], n=3)
        await backdate(g["id"], 1000 - i * 10)
        chans.append((g["id"], msgs))
    await actions.do_delete_messages(A, chans[1][0], [chans[1][1][-1]["id"]])  # top deleted
    await actions.do_delete_history(B, chans[2][0], 0, for_everyone=False)  # cleared: no top
    await actions.do_read_history(B, chans[3][0], chans[3][1][0]["id"])
    await pins.do_toggle_dialog_pin(B, ("c", chans[4][0]), True)
    await pins.do_toggle_dialog_pin(B, ("c", chans[0][0]), True)
    await actions.do_set_dialog_folder(B, chans[5][0], 1)
    return chans


async def test_generic_plan_same_dialogs(chan, monkeypatch):
    """The statement runs prepared (psycopg ``prepare_threshold``), so the server may
    pick its generic plan: every page must be the same as with custom plans."""
    await _mixed_dialogs()
    custom = await _dialog_lists(B)
    await db.close_pools()
    monkeypatch.setenv("PGOPTIONS", "-c plan_cache_mode=force_generic_plan")
    for _ in range(3):  # past the prepare threshold: EXECUTE of the generic plan
        assert await _dialog_lists(B) == custom
    async with db.connection() as conn:
        cur = await conn.execute(
            "SELECT current_setting('plan_cache_mode') AS mode, COALESCE(sum(generic_plans), 0) AS n"
            " FROM pg_prepared_statements WHERE position('row_to_json(d) AS dialog' IN statement) > 0"
        )
        row = await cur.fetchone()
    assert row["mode"] == "force_generic_plan" and row["n"] > 0


async def test_generic_plan_probes_per_dialog(chan):
    """The generic plan (no parameter values, no statistics) still looks up each
    dialog's channel and membership by ``channel_id``: no join that compares every
    dialog with every membership (quadratic in the user's channels)."""
    chans = await _mixed_dialogs()
    plan = await generic_plan(dialogs.page_sql("d.folder_id = %(f)s"), _PAGE_VALUES, _PAGE_TYPES)
    removed = [n.get("Rows Removed by Join Filter", 0) * n.get("Actual Loops", 1) for n in nodes(plan)]
    assert plan["Actual Rows"] == len(chans) - 1  # the archived one is in folder 1
    assert sum(removed) < len(chans), removed


async def test_membership_probed_by_its_key_in_a_big_group(chan):
    """The viewer's membership is one look-up of (channel_id, user_id): not a walk of
    the channel's active members (the partial index on them leads with channel_id and
    read marks), which in a group of thousands costs thousands of entries per dialog."""
    g = await group("big")
    await send(g["id"])
    await add_active_members(g["id"], 3000, A)
    plan = await generic_plan(dialogs.page_sql("d.folder_id = %(f)s"), _PAGE_VALUES, _PAGE_TYPES)
    scans = [(n.get("Index Name"), n.get("Index Cond")) for n in member_scans(plan)]
    assert plan["Actual Rows"] == 1
    assert scans and all(
        re.match(r"\(\((channel_id|user_id) = .*\) AND \((channel_id|user_id) = .*\)\)$", cond or "")
        and "read_inbox" not in (index or "")
        for index, cond in scans
    ), scans
