"""The pool's prepared statements are planned once (message_core.db.PLAN_CACHE_MODE)."""

from channels_app import actions
from channels_app.actions.send_context import fetch_contexts
from message_core import db
from tests.channels_app.plans import add_active_members, generic_plan, member_scans


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


def _assert_probed_by_key(plan: dict) -> None:
    """Every channel_members scan of the plan is a key probe finding at most one row,
    never the partial index of active members."""
    scans = [(n.get("Index Name") or n["Node Type"], n.get("Actual Rows", 0)) for n in member_scans(plan)]
    assert scans and all("read_inbox" not in index and rows <= 1 for index, rows in scans), scans


async def test_a_mention_probes_each_mentioned_membership_by_its_key(chan):
    from channels_app.actions.mentions import RECORD_MENTIONS

    g = (await actions.do_create_channel(21, "g", invite_user_ids=[22], from_create_chat=True)).channel
    await add_active_members(g["id"], 3000, 21)  # who have read nothing
    plan = await generic_plan(
        RECORD_MENTIONS,
        {"c": g["id"], "m": 5, "u": [22, 100007]},
        {"c": "bigint", "m": "int", "u": "bigint[]"},
    )
    rows = await db.fetchall(
        "SELECT user_id FROM channel_unread_mentions WHERE channel_id = %s ORDER BY user_id", (g["id"],)
    )
    assert [r["user_id"] for r in rows] == [22, 100007]
    _assert_probed_by_key(plan)


async def test_search_global_probes_the_viewers_memberships_by_key(chan, monkeypatch):
    from channels_app.actions import search

    g = (await actions.do_create_channel(21, "g", invite_user_ids=[22], from_create_chat=True)).channel
    await actions.do_send_message(21, g["id"], "quarterly report", random_id=1)
    await add_active_members(g["id"], 3000, 21)

    seen = []

    def capturing(real):
        async def capture(sql, params=None, **kw):
            seen.append((sql, params))
            return await real(sql, params, **kw)

        return capture

    # The walk of the newest messages, then (a rare word) the trigram index.
    for name in ("fetchall_lagging", "fetchall_planned_for_values"):
        monkeypatch.setattr(search.db, name, capturing(getattr(db, name)))
    monkeypatch.setattr(search, "WALK_ROWS", 1)  # the group's newest message is not the match
    monkeypatch.setattr(search, "WALK_DEEP_CHANNELS", 0)
    await actions.do_send_message(21, g["id"], "not it", random_id=2)
    found = await search.search_member_channels(22, "report")
    assert [m["message"] for m in found] == ["quarterly report"]
    texts = [(q, p) for q, p in seen if "ILIKE" in q]
    assert len(texts) == 2 and "hits" in texts[1][0], [q[:80] for q, _ in texts]
    for sql, params in texts:
        _assert_probed_by_key(await generic_plan(sql, params))


async def test_a_channel_and_one_membership_are_read_in_one_key_probe(chan):
    from channels_app.actions.common import CHANNEL_WITH_MEMBER, load_channel_with_member

    g = (await actions.do_create_channel(21, "g", invite_user_ids=[22], from_create_chat=True)).channel
    await add_active_members(g["id"], 3000, 21)
    async with db.connection() as conn:
        channel, member = await load_channel_with_member(conn, g["id"], 22)
        assert channel["id"] == g["id"] and channel["pts"] == g["pts"] and "user_id" not in channel
        assert member["user_id"] == 22 and member["channel_id"] == g["id"] and "title" not in member
        assert await load_channel_with_member(conn, g["id"], 23) == (channel, None)  # not a member
        assert await load_channel_with_member(conn, g["id"] + 1000, 22) == (None, None)
    plan = await generic_plan(
        CHANNEL_WITH_MEMBER, {"c": g["id"], "u": 100007}, {"c": "bigint", "u": "bigint"}
    )
    _assert_probed_by_key(plan)
    assert len(member_scans(plan)) == 1  # pruned to the channel's partition


async def test_a_difference_page_probes_each_message_by_its_key(chan):
    from channels_app.actions.difference import _EVENTS_AFTER

    from .plans import nodes

    g = (await actions.do_create_channel(21, "g", invite_user_ids=[22], from_create_chat=True)).channel
    for i in range(1, 31):
        await actions.do_send_message(21, g["id"], f"m{i}", random_id=i)
    async with db.connection() as conn:  # a long history the page must not read through
        await conn.execute(
            "INSERT INTO channel_messages (channel_id, id, sender_user_id, date, entities, pts)"
            " SELECT %s, 1000 + n, 21, n, '[]', 0 FROM generate_series(1, 5000) n",
            (g["id"],),
        )
    plan = await generic_plan(
        _EVENTS_AFTER, {"c": g["id"], "start": 5, "n": 11}, {"c": "bigint", "start": "int", "n": "int"}
    )
    scans = [n for n in nodes(plan) if n.get("Relation Name", "").startswith("channel_messages")]
    # One partition, probed by its key once for each event of the page.
    assert len(scans) == 1 and scans[0]["Index Name"].endswith("_pkey"), scans
    assert scans[0]["Actual Loops"] == 11 and scans[0]["Actual Rows"] == 1
    assert "id = e.message_id" in scans[0]["Index Cond"]


async def test_a_send_updates_the_senders_membership_by_its_key(chan):
    from channels_app.actions.message_writes import _INSERT

    g = (await actions.do_create_channel(21, "g", invite_user_ids=[22], from_create_chat=True)).channel
    await add_active_members(g["id"], 3000, 21)
    plan = await generic_plan(
        _INSERT,
        {"c": g["id"], "d": 1, "post": False, "rows": "[]", "by": [22], "by_top": [5], "top": 5, "last_pts": 5},
        {"c": "bigint", "d": "int", "post": "bool", "rows": "text", "by": "bigint[]", "by_top": "int[]",
         "top": "int", "last_pts": "int"},
    )  # fmt: skip
    # The read mark and slow mode of the senders only: one key probe per sender, never
    # every member of the channel (a 50k group read 50,003 rows per send; here 3,002).
    reads = [
        (n["Node Type"], n["Actual Rows"]) for n in member_scans(plan) if n["Node Type"] != "ModifyTable"
    ]
    assert reads and all(rows <= 1 for _, rows in reads), reads
