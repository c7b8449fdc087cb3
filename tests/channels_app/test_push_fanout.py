"""Live fan-out on one edge: every online member gets a channel event, however many
there are against the per-query cap; typing reaches a bounded few."""

from __future__ import annotations

from channels_app import actions, push
from message_core import limits
from tests.edge_app.test_push import FakeEdge, FakeSession
from tl import types

OWNER = 31
MEMBERS = list(range(32, 39))  # 7 more, against a cap of 2 per query


async def test_every_online_member_gets_the_event_past_the_query_cap(chan, monkeypatch):
    monkeypatch.setattr(limits, "REALTIME_FANOUT_MAX", 2)
    monkeypatch.setattr(limits, "TYPING_FANOUT_MAX", 2)
    monkeypatch.setattr(push, "_members_cache", {})
    g = (await actions.do_create_channel(OWNER, "crowd", megagroup=True, invite_user_ids=MEMBERS)).channel
    sessions = {u: FakeSession(u, 1000 + u, 1) for u in [OWNER, *MEMBERS]}
    sessions[999] = FakeSession(999, 1999, 1)  # online, not a member
    edge = FakeEdge(list(sessions.values()))

    # Typing first: the members it looks up must not cut down the event's audience.
    typing = types.SendMessageTypingAction().to_bytes().hex()
    await push._on_typing({"channel_id": g["id"], "user_id": OWNER, "action": typing}, edge)
    heard = [u for u, s in sessions.items() if s.pushed]
    assert len(heard) == 2 and OWNER not in heard

    for s in sessions.values():
        s.pushed.clear()
    (ev,) = (await actions.do_send_message(OWNER, g["id"], "all of you", random_id=1)).events
    await push._render_and_push({"event": ev.to_payload(), "exclude": None}, edge)
    got = {u for u, s in sessions.items() if s.pushed}
    assert got == {OWNER, *MEMBERS}
    (update,) = sessions[MEMBERS[-1]].pushed[0].updates
    assert update.message.message == "all of you" and not update.message.out
    assert sessions[OWNER].pushed[0].updates[0].message.out


async def test_online_members_are_probed_not_scanned_in_a_big_channel(chan):
    """The members lookup of a fan-out reads the online users' rows only, under a
    generic plan too, however big the channel and whatever the statistics say (here
    they were taken while the channel was small, as in a channel that grew fast)."""
    from message_core import db

    g = (await actions.do_create_channel(OWNER, "big", broadcast=True)).channel
    async with db.connection() as conn:
        await conn.execute(
            "INSERT INTO channel_members (channel_id, user_id, role, status, joined_at)"
            " SELECT %s, u, 'member', 'active', 0 FROM generate_series(100000, 100010) u",
            (g["id"],),
        )
        await conn.execute("ANALYZE channel_members", prepare=False)
        await conn.execute(
            "INSERT INTO channel_members (channel_id, user_id, role, status, joined_at)"
            " SELECT %s, u, 'member', 'active', 0 FROM generate_series(200000, 280000) u",
            (g["id"],),
        )
        # A page of online users as big as a fan-out query takes; one of them no member.
        online = ",".join(map(str, [5, *range(200000, 200000 + limits.REALTIME_FANOUT_MAX - 1)]))
        sql = push._ONLINE_MEMBERS.replace("%s", "$1", 1).replace("%s", "$2", 1).replace("%s", "$3", 1)
        plans = {}
        for mode in ("force_custom_plan", "force_generic_plan"):
            await conn.execute(f"SET plan_cache_mode = {mode}", prepare=False)
            await conn.execute(f"PREPARE online_members (bigint[], bigint, bigint[]) AS {sql}", prepare=False)
            cur = await conn.execute(
                f"EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE online_members ('{{{online}}}', {g['id']}, '{{}}')",
                prepare=False,
            )
            plans[mode] = (await cur.fetchone())["QUERY PLAN"][0]["Plan"]
            await conn.execute("DEALLOCATE online_members; RESET plan_cache_mode", prepare=False)

    def rows_read(node) -> int:
        loops = node.get("Actual Loops", 1)
        own = (node["Actual Rows"] + node.get("Rows Removed by Filter", 0)) * loops
        mine = own if node.get("Relation Name", "").startswith("channel_members") else 0
        return mine + sum(rows_read(child) for child in node.get("Plans", []))

    for mode, plan in plans.items():
        assert plan["Actual Rows"] == limits.REALTIME_FANOUT_MAX - 1, mode
        assert rows_read(plan) <= limits.REALTIME_FANOUT_MAX, (mode, rows_read(plan))
