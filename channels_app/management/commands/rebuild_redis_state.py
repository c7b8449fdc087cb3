"""``manage.py rebuild_redis_state [--yes]``: after PostgreSQL was restored from a backup
while Redis kept running, Redis is ahead of the database (channel id, message id and pts
counters would hand out values past a gap; the pts journal names allocations the
restored database never had) and its caches describe rows that are gone. This drops
every key of the installation (``TELESRV_REDIS_PREFIX``) - counters, the pts journal,
push ordering, the cache, the channel layer - and sets the counters again from
PostgreSQL, exactly as a listener recovers a lost counter.

Stop every listener and the admin first (docs/operations.md, "Restoring a backup"):
a process still running would keep allocating from the old values. Without ``--yes``
it only counts what it would drop.
"""

from __future__ import annotations

from collections import Counter

from django.core.management.base import BaseCommand
from django.db import connection

from channels_app import counters
from edge_app import redis_conn

BATCH = 1000

_COUNTERS_SQL = """
SELECT c.id,
  GREATEST(COALESCE((SELECT MAX(m.id) FROM channel_messages m WHERE m.channel_id = c.id), 0),
           COALESCE(c.top_message_id, 0)) AS msg_id,
  GREATEST(COALESCE((SELECT MAX(e.pts) FROM channel_update_events e WHERE e.channel_id = c.id), 0),
           COALESCE(c.pts, 0)) AS pts
FROM channels c
"""


class Command(BaseCommand):
    help = (
        "Rebuild Redis state from PostgreSQL after a database restore: drop this installation's keys"
        " (counters, pts journal, caches, push order) and set the counters from the database. Stop the"
        " listeners and the admin first. Without --yes, only reports what it would drop."
    )

    def add_arguments(self, parser):
        parser.add_argument("--yes", action="store_true", help="really drop and rebuild (else a dry run)")

    def handle(self, *args, yes: bool, **options):
        client = redis_conn.sync_client()
        prefix = counters.prefix()
        families: Counter[str] = Counter()
        doomed: list[bytes] = []
        # On a Redis Cluster: the keys of every master.
        for key in redis_conn.scan_keys(f"{prefix}:*", BATCH):
            families[key.decode(errors="replace")[len(prefix) + 1 :].split(":", 1)[0]] += 1
            doomed.append(key)
        summary = ", ".join(f"{n} {family}" for family, n in sorted(families.items())) or "none"
        if not yes:
            self.stdout.write(f"would drop {len(doomed)} keys under {prefix}: ({summary}); run with --yes")
            return
        for i in range(0, len(doomed), BATCH):
            redis_conn.delete_keys(doomed[i : i + BATCH])
        with connection.cursor() as cur:
            cur.execute("SELECT COALESCE(MAX(id), 0) FROM channels")
            top_channel = max(int(cur.fetchone()[0]), counters.CHANNEL_ID_BASE)
            cur.execute(_COUNTERS_SQL)
            rows = cur.fetchall()
        pipe = client.pipeline(transaction=False)
        pipe.set(counters.channel_id_key(), top_channel)
        for n, (channel_id, msg_id, pts) in enumerate(rows, 1):
            pipe.set(counters.msg_id_key(channel_id), int(msg_id))
            pipe.set(counters.pts_key(channel_id), int(pts))
            if n % BATCH == 0:
                pipe.execute()
        pipe.execute()
        self.stdout.write(
            f"dropped {len(doomed)} keys under {prefix}: ({summary}); set the counters of {len(rows)}"
            f" channels from PostgreSQL (channel id {top_channel})"
        )
