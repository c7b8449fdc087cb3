"""Dialog list from SQL: order, seek across pages with pins and folders, unread after
deletes, the visible top after deleting the top message and after a local clear."""

import pytest

from channels_app import actions, db
from channels_app.actions import dialogs
from channels_app.errors import FolderIdInvalidError

A, B = 31, 32


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
    await actions.do_toggle_dialog_pin(B, chans[0], True)
    await actions.do_toggle_dialog_pin(B, chans[1], True)
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
