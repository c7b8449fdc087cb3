"""The restore drill's last step: Redis kept running while PostgreSQL went back to a
backup, so its counters are ahead and its cache holds rows that are gone;
``manage.py rebuild_redis_state --yes`` drops the installation's keys and sets the
counters from the database, and the next post continues without a gap."""

from __future__ import annotations

import io

import redis
from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.management import call_command

from channels_app import actions, counters

A, B = 61, 62


def rebuild(*args: str) -> str:
    out = io.StringIO()
    call_command("rebuild_redis_state", *args, stdout=out)
    return out.getvalue()


async def test_counters_ahead_after_a_restore_are_set_back_from_postgresql(chan):
    cid = (await actions.do_create_channel(A, "g", megagroup=True, invite_user_ids=[B])).channel["id"]
    sent = [(await actions.do_send_message(A, cid, f"m{i}", random_id=i)).events[0] for i in (1, 2)]
    last_id, last_pts = sent[-1].message["id"], sent[-1].pts
    client = redis.Redis.from_url(settings.REDIS_URL)
    # What a restore to an older backup leaves: counters far ahead, a stale cache entry.
    client.set(counters.msg_id_key(cid), last_id + 50)
    client.set(counters.pts_key(cid), last_pts + 50)
    stale = f"{counters.prefix()}:1:some_cached_row"
    client.set(stale, "gone")
    outsider = "not-telesrv:keep-me"
    client.set(outsider, "1")
    try:
        dry = await sync_to_async(rebuild)()
        assert "would drop" in dry and client.get(stale) == b"gone"
        done = await sync_to_async(rebuild)("--yes")
        assert "set the counters of" in done
        assert client.get(stale) is None and client.get(outsider) == b"1"
        assert int(client.get(counters.msg_id_key(cid))) == last_id
        assert int(client.get(counters.pts_key(cid))) == last_pts
        # The next post follows the last stored one: no gap for clients to trip on.
        nxt = (await actions.do_send_message(A, cid, "after the restore", random_id=3)).events[0]
        assert (nxt.message["id"], nxt.pts) == (last_id + 1, last_pts + 1)
        other = (await actions.do_create_channel(A, "h", megagroup=True)).channel["id"]
        assert other == cid + 1
    finally:
        client.delete(outsider)
        client.close()
