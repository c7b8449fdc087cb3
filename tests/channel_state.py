"""Forgetting the Redis state kept per channel id, for fixtures that empty the tables.

With the id counters gone, channel ids start over on the emptied tables, so every
key named after a channel id must go with them: a later test's channel would
otherwise inherit an earlier one's published push position (``edge_app.push_order``
would publish its events at once, out of pts order) or pts journal."""

import redis
from django.conf import settings

from channels_app import counters

KINDS = ("counter", "push_order", "pts_pending")


def forget_channel_state() -> None:
    client = redis.Redis.from_url(settings.REDIS_URL)
    try:
        keys = [
            k for kind in KINDS for k in client.scan_iter(match=f"{counters.prefix()}:{kind}*", count=1000)
        ]
        if keys:
            client.delete(*keys)
    finally:
        client.close()
