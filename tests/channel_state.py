"""Forgetting the Redis state kept per channel id, for fixtures that empty the tables.

With the id counters gone, channel ids start over on the emptied tables, so every
key named after a channel id must go with them: a later test's channel would
otherwise inherit an earlier one's published push position (``edge_app.push_order``
would publish its events at once, out of pts order) or pts journal."""

from channels_app import counters
from edge_app import redis_conn

KINDS = ("counter", "push_order", "pts_pending")


def forget_channel_state() -> None:
    keys = [k for kind in KINDS for k in redis_conn.scan_keys(f"{counters.prefix()}:{kind}*")]
    redis_conn.delete_keys(keys)
