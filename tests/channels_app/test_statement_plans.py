"""The pool's prepared statements are planned once (message_core.db.PLAN_CACHE_MODE)."""

from channels_app import actions
from channels_app.actions.send_context import fetch_contexts
from message_core import db


async def test_a_send_context_lookup_is_planned_once(chan):
    g = (await actions.do_create_channel(21, "g", invite_user_ids=[22], from_create_chat=True)).channel
    async with db.connection() as conn:
        for rid in range(1, 9):  # psycopg prepares on the 2nd execution; auto mode tries 5 custom plans
            ((channel, member, earlier),) = await fetch_contexts(conn, g["id"], [(22, rid)])
            assert channel["id"] == g["id"] and member["user_id"] == 22 and earlier == 0
        cur = await conn.execute(
            "SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE statement LIKE %s",
            ("%AS senders%",),
        )
        (row,) = await cur.fetchall()
    # The channel tables are partitioned by channel_id: costed without pruning, a generic
    # plan looks 16 partitions dearer, and auto mode would plan every execution anew.
    assert row["custom_plans"] == 0 and row["generic_plans"] >= 6


async def test_a_mention_probes_each_mentioned_membership_by_its_key(chan):
    import re

    from channels_app.actions.mentions import RECORD_MENTIONS

    g = (await actions.do_create_channel(21, "g", invite_user_ids=[22], from_create_chat=True)).channel
    async with db.connection() as conn:
        # 3,000 more active members who have read nothing.
        await conn.execute(
            "INSERT INTO channel_members (channel_id, user_id, inviter_user_id, role, status, joined_at, left_at,"
            " admin_rights, promoted_by, banned_rights, banned_until, kicked_by, rank, available_min_id,"
            " available_min_pts, read_inbox_max_id, read_inbox_date, read_outbox_max_id, slowmode_last_send_date)"
            " SELECT %s, 100000 + n, 21, 'member', 'active', 1, 0, 0, 0, 0, 0, 0, '', 0, 0, 0, 0, 0, 0"
            " FROM generate_series(1, 3000) n",
            (g["id"],),
        )
        names = list(dict.fromkeys(re.findall(r"%\((\w+)\)s", RECORD_MENTIONS)))
        sql = RECORD_MENTIONS
        for i, name in enumerate(names, 1):
            sql = sql.replace(f"%({name})s", f"${i}")
        types = {"c": "bigint", "m": "int", "u": "bigint[]"}
        values = {"c": str(g["id"]), "m": "5", "u": "ARRAY[22, 100007]::bigint[]"}
        await conn.execute("SET plan_cache_mode = force_generic_plan", prepare=False)
        await conn.execute(f"PREPARE rec ({', '.join(types[n] for n in names)}) AS {sql}", prepare=False)
        cur = await conn.execute(
            f"EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE rec ({', '.join(values[n] for n in names)})",
            prepare=False,
        )
        plan = (await cur.fetchone())["QUERY PLAN"]
        await conn.execute("DEALLOCATE rec; RESET plan_cache_mode", prepare=False)
        cur = await conn.execute(
            "SELECT user_id FROM channel_unread_mentions WHERE channel_id = %s ORDER BY user_id", (g["id"],)
        )
        assert [r["user_id"] for r in await cur.fetchall()] == [22, 100007]
    scans = []

    def walk(node):
        if node.get("Relation Name", "").startswith("channel_members"):
            scans.append((node.get("Index Name") or node["Node Type"], node.get("Actual Rows", 0)))
        for child in node.get("Plans", []):
            walk(child)

    walk(plan[0]["Plan"])
    assert scans and all("read_inbox" not in index and rows <= 1 for index, rows in scans), scans


async def test_search_global_probes_the_viewers_memberships_by_key(chan, monkeypatch):
    import re

    from channels_app.actions import search

    g = (await actions.do_create_channel(21, "g", invite_user_ids=[22], from_create_chat=True)).channel
    await actions.do_send_message(21, g["id"], "quarterly report", random_id=1)
    async with db.connection() as conn:
        await conn.execute(
            "INSERT INTO channel_members (channel_id, user_id, inviter_user_id, role, status, joined_at, left_at,"
            " admin_rights, promoted_by, banned_rights, banned_until, kicked_by, rank, available_min_id,"
            " available_min_pts, read_inbox_max_id, read_inbox_date, read_outbox_max_id, slowmode_last_send_date)"
            " SELECT %s, 100000 + n, 21, 'member', 'active', 1, 0, 0, 0, 0, 0, 0, '', 0, 0, 0, 0, 0, 0"
            " FROM generate_series(1, 3000) n",
            (g["id"],),
        )
    seen = []
    real = db.fetchall

    async def capture(sql, params=None):
        seen.append((sql, params))
        return await real(sql, params)

    monkeypatch.setattr(search.db, "fetchall", capture)
    found = await search.search_member_channels(22, "report")
    assert [m["message"] for m in found] == ["quarterly report"]
    sql, params = next((q, p) for q, p in seen if "ILIKE" in q)
    names = list(dict.fromkeys(re.findall(r"%\((\w+)\)s", sql)))
    for i, name in enumerate(names, 1):
        sql = sql.replace(f"%({name})s", f"${i}")

    def literal(v):
        if isinstance(v, list):
            return "ARRAY[" + ", ".join(str(x) for x in v) + "]::bigint[]"
        return f"'{v}'" if isinstance(v, str) else str(v)

    async with db.connection() as conn:
        await conn.execute("SET plan_cache_mode = force_generic_plan", prepare=False)
        await conn.execute(f"PREPARE srch AS {sql}", prepare=False)
        cur = await conn.execute(
            f"EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE srch ({', '.join(literal(params[n]) for n in names)})",
            prepare=False,
        )
        plan = (await cur.fetchone())["QUERY PLAN"]
        await conn.execute("DEALLOCATE srch; RESET plan_cache_mode", prepare=False)
    scans = []

    def walk(node):
        if node.get("Relation Name", "").startswith("channel_members"):
            scans.append((node.get("Index Name") or node["Node Type"], node.get("Actual Rows", 0)))
        for child in node.get("Plans", []):
            walk(child)

    walk(plan[0]["Plan"])
    assert scans and all("read_inbox" not in index and rows <= 1 for index, rows in scans), scans
