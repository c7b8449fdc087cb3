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
