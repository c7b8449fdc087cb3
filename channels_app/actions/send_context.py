"""What a send is checked against, read for every send of a channel arriving in one
loop turn with one query (``edge_app.turn_batches``): the channel, and per sender their
membership, an earlier message with the send's random id and their saved send-as
default.

Under load the sends of a busy group arrive together, and each read of four
partitioned tables costs PostgreSQL more in locking the plan's partitions than in
reading the four rows: one query for all of them is most of that cost saved, and one
pooled connection and round trip instead of one per send.
"""

from __future__ import annotations

from edge_app.turn_batches import TurnBatcher
from message_core import db

# Each sender's rows are looked up by key in correlated subqueries (one index probe
# each, in every plan); the channel row comes once. The dialogs are distributed by user,
# not by channel: the senders are named by value, so their shards are known.
_CONTEXTS = (
    "SELECT row_to_json(c) AS channel, (SELECT json_agg(json_build_object("
    "   'member', (SELECT row_to_json(m) FROM channel_members m WHERE m.channel_id = %(c)s AND m.user_id = r.u),"
    "   'original_pts', (SELECT o.pts FROM channel_messages o WHERE o.channel_id = %(c)s"
    "     AND o.sender_user_id = r.u AND o.random_id = r.rid),"
    "   'send_as', (SELECT CASE WHEN d.default_send_as_peer_type = 'channel' THEN d.default_send_as_peer_id"
    "     ELSE 0 END FROM channel_dialogs d WHERE d.user_id = r.u AND d.user_id = ANY(%(us)s::bigint[])"
    "     AND d.channel_id = %(c)s)"
    " ) ORDER BY r.i) FROM unnest(%(us)s::bigint[], %(rids)s::bigint[]) WITH ORDINALITY AS r(u, rid, i)) AS senders"
    " FROM channels c WHERE c.id = %(c)s"
)

Context = tuple[dict | None, dict | None, int]


async def fetch_contexts(conn, channel_id: int, sends: list[tuple[int, int]]) -> list[Context]:
    """For each (sender, random_id): the channel (with the sender's ``default_send_as``,
    0 = the user; None if there is no such channel), the sender's member row (or None)
    and the pts of the sender's earlier message with that random id (0: none)."""
    cur = await conn.execute(
        _CONTEXTS, {"c": channel_id, "us": [u for u, _ in sends], "rids": [r for _, r in sends]}
    )
    row = await cur.fetchone()
    if row is None:
        return [(None, None, 0)] * len(sends)
    channel = row["channel"]
    return [
        ({**channel, "default_send_as": s["send_as"] or 0}, s["member"], s["original_pts"] or 0)
        for s in row["senders"]
    ]


async def _fetch(channel_id: int, sends: list[tuple[int, int]]) -> list[Context]:
    async with db.connection() as conn:
        return await fetch_contexts(conn, channel_id, sends)


_batches = TurnBatcher(_fetch)


async def load_send_context(channel_id: int, sender_id: int, random_id: int) -> Context:
    """:func:`fetch_contexts` of one send, read together with the channel's other sends
    of this loop turn."""
    return await _batches.submit(channel_id, (sender_id, random_id))
