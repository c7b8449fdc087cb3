"""Console benchmark: prints figures (not a test).

Creates a megagroup with 100,000 members (one set-based INSERT ... generate_series, plus
the user -> channel index rows), then loads the console's members list of that channel
the way a moderator's browser does (Django test client, logged-in moderator, full admin
stack: filters, bounded count, page render) and prints the load times:

- page 1 of the channel-filtered list,
- a keyset "next rows" page deep inside the channel (user_id__gt = the 90,000th member),
- the same list filtered by status (banned members, none of which exist: worst case for
  the filter, every row of the partition is looked at),
- the unfiltered list across every channel.

Target: page 1 under 1 s.

    TELESRV_DB_NAME=telesrv_bench TELESRV_REDIS_PREFIX=bench .venv/bin/python bench/bench_console.py

The channel (id CHANNEL_ID) and its rows are removed at the end.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "telesrv_project.settings")
os.environ.setdefault("TELESRV_DB_NAME", "telesrv_bench")
os.environ.setdefault("TELESRV_REDIS_PREFIX", "bench")

# Far from the ids the Redis counter hands out, so a bench never meets a real channel.
CHANNEL_ID = 9_000_000_001
FIRST_USER = 10_000_000


def setup_django() -> None:
    import django
    from django.core.management import call_command

    from telesrv_project import database

    database.ensure_database()
    django.setup()
    call_command("migrate", verbosity=0)
    call_command("create_staff_groups", verbosity=0, stdout=open(os.devnull, "w"))  # noqa: SIM115


def create_channel(members: int) -> None:
    from django.db import connection, transaction

    with transaction.atomic(), connection.cursor() as cur:
        cur.execute(
            "INSERT INTO channels (id, access_hash, title, creator_user_id, megagroup, date, participants_count,"
            " admins_count) VALUES (%s, 1, 'console bench', %s, true, extract(epoch from now())::int, %s, 1)",
            [CHANNEL_ID, FIRST_USER, members],
        )
        cur.execute(
            "INSERT INTO channel_members (channel_id, user_id, role, status, joined_at)"
            " SELECT %s, u, CASE WHEN u = %s THEN 'creator' ELSE 'member' END, 'active',"
            " extract(epoch from now())::int FROM generate_series(%s, %s) u",
            [CHANNEL_ID, FIRST_USER, FIRST_USER, FIRST_USER + members - 1],
        )
        cur.execute(
            "INSERT INTO user_channel_member_index (user_id, channel_id, status, megagroup)"
            " SELECT u, %s, 'active', true FROM generate_series(%s, %s) u",
            [CHANNEL_ID, FIRST_USER, FIRST_USER + members - 1],
        )
    with connection.cursor() as cur:
        cur.execute("ANALYZE channel_members")


def drop_channel() -> None:
    from django.db import connection, transaction

    with transaction.atomic(), connection.cursor() as cur:
        cur.execute("DELETE FROM user_channel_member_index WHERE channel_id = %s", [CHANNEL_ID])
        cur.execute("DELETE FROM channel_members WHERE channel_id = %s", [CHANNEL_ID])
        cur.execute("DELETE FROM channels WHERE id = %s", [CHANNEL_ID])


def moderator_client():
    from django.contrib.auth.models import Group, User
    from django.test import Client

    user, _ = User.objects.get_or_create(username="bench-moderator", defaults={"is_staff": True})
    user.groups.add(Group.objects.get(name="moderator"))
    client = Client()
    client.force_login(user)
    return client


def timed(client, url: str, params: dict, runs: int, expect: str) -> tuple[float, float]:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        response = client.get(url, params)
        times.append(time.perf_counter() - t0)
        if response.status_code != 200 or expect not in response.content.decode():
            raise SystemExit(f"unexpected page for {url} {params}: {response.status_code}")
    return statistics.median(times), max(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--members", type=int, default=100_000)
    ap.add_argument("--runs", type=int, default=10)
    args = ap.parse_args()
    setup_django()
    from django.test.utils import setup_test_environment

    setup_test_environment()
    drop_channel()
    t0 = time.perf_counter()
    create_channel(args.members)
    print(
        f"created a channel with {args.members:,} members in {time.perf_counter() - t0:.2f} s (set-based SQL)"
    )
    try:
        client = moderator_client()
        url = "/admin/console_app/member/"
        client.get(url, {"channel_id": CHANNEL_ID})  # warm-up: templates, connection
        deep = FIRST_USER + int(args.members * 0.9)
        cases = [
            ("members list, page 1", {"channel_id": CHANNEL_ID}, f"{CHANNEL_ID}.{FIRST_USER}/"),
            (
                "members list, keyset page at 90%",
                {"channel_id": CHANNEL_ID, "user_id__gt": deep},
                f".{deep + 1}/",
            ),
            (
                "members list, status=banned (no match)",
                {"channel_id": CHANNEL_ID, "status": "banned"},
                "0 channel",
            ),
            ("members list, page 50 (OFFSET)", {"channel_id": CHANNEL_ID, "p": 50}, "/change/"),
            ("members list, every channel", {}, "/change/"),
        ]
        print(f"{'page':42} {'median':>9} {'max':>9}   ({args.runs} loads each)")
        for name, params, expect in cases:
            median, worst = timed(client, url, params, args.runs, expect)
            flag = "" if median < 1.0 else "   ABOVE THE 1 s TARGET"
            print(f"{name:42} {median * 1000:7.1f}ms {worst * 1000:7.1f}ms{flag}")
    finally:
        drop_channel()


if __name__ == "__main__":
    main()
