"""Dialog-list benchmark: prints figures (not a test).

One user in N megagroups (default 800, under CHANNELS_PER_USER_MAX), each with a few
messages from another member, some deleted, a few pinned dialogs and some unread
mentions; then messages.getDialogs(limit=100) pages through the domain action (the
SQL the RPC handler runs), first page and seek pages, p50/p99. ``--big N``: ten of the
groups have N more active members each (a user in some big groups).

    TELESRV_DB_NAME=telesrv_bench TELESRV_REDIS_PREFIX=bench \\
        .venv/bin/python bench/bench_dialogs.py --channels 800
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
import bench.env  # noqa: E402, F401  (before Django)
from bench.bench_channels import pct, setup_django  # noqa: E402

VIEWER, POSTER = 7_000_001, 7_000_002


async def populate(channels: int, big: int = 0) -> None:
    from channels_app import actions
    from message_core import db
    from messages_app import pins

    async with db.connection() as conn:
        await conn.execute("DELETE FROM channel_dialogs WHERE user_id = %s", (VIEWER,))
        await conn.execute(
            "UPDATE user_channel_member_index SET status = 'left' WHERE user_id = ANY(%s)",
            ([VIEWER, POSTER],),
        )
        await conn.execute(
            "UPDATE channel_members SET status = 'left' WHERE user_id = ANY(%s) AND status = 'active'",
            ([VIEWER, POSTER],),
        )
    t0 = time.perf_counter()
    for i in range(channels):
        cid = (await actions.do_create_channel(POSTER, f"g{i}", megagroup=True)).channel["id"]
        await actions.do_invite_to_channel(POSTER, cid, [VIEWER])
        ids = []
        for k in range(3):
            sent = await actions.do_send_message(POSTER, cid, f"m{k}", random_id=i * 10 + k + 1)
            ids.append(sent.events[0].message["id"])
        if i % 5 == 0:
            await actions.do_delete_messages(POSTER, cid, [ids[-1]])
        if i < 5:
            await pins.do_toggle_dialog_pin(VIEWER, ("c", cid), True)
        if big and i < 10:
            async with db.connection() as conn:
                await conn.execute(
                    "INSERT INTO channel_members (channel_id, user_id, inviter_user_id, role, status, joined_at,"
                    " left_at, admin_rights, promoted_by, banned_rights, banned_until, kicked_by, rank,"
                    " available_min_id, available_min_pts, read_inbox_max_id, read_inbox_date, read_outbox_max_id,"
                    " slowmode_last_send_date) SELECT %s, 50000000 + n, %s, 'member', 'active', 1, 0, 0, 0, 0, 0,"
                    " 0, '', 0, 0, 0, 0, 0, 0 FROM generate_series(1, %s) n",
                    (cid, POSTER, big),
                )
    # As autovacuum would after such a load; this box runs PostgreSQL with it off.
    async with db.connection() as conn:
        await conn.execute(
            "ANALYZE channels, channel_members, channel_dialogs, channel_messages, user_channel_member_index"
        )
    print(f"setup: {channels} channels in {time.perf_counter() - t0:.1f}s")


async def measure(rounds: int) -> None:
    from channels_app import actions
    from message_core import db

    first, seek = [], []
    for _ in range(rounds):
        t0 = time.perf_counter()
        page = await actions.get_dialogs(VIEWER, limit=100)
        first.append(time.perf_counter() - t0)
        last = page.entries[-1]
        t0 = time.perf_counter()
        await actions.get_dialogs(
            VIEWER, limit=100, offset_date=last.top_message["date"] if last.top_message else 0,
            offset_id=last.top_message["id"] if last.top_message else 0, offset_channel_id=last.channel["id"],
        )  # fmt: skip
        seek.append(time.perf_counter() - t0)
    print(f"getDialogs(100), user in {page.count} channels: first page p50 {pct(first, 50) * 1000:.1f} ms,"
          f" p99 {pct(first, 99) * 1000:.1f} ms; seek page p50 {pct(seek, 50) * 1000:.1f} ms,"
          f" p99 {pct(seek, 99) * 1000:.1f} ms ({rounds} rounds)")  # fmt: skip
    await db.close_pools()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--channels", type=int, default=800)
    ap.add_argument("--rounds", type=int, default=200)
    ap.add_argument("--big", type=int, default=0, help="more active members in each of ten groups")
    args = ap.parse_args()
    setup_django()

    async def run():
        from channels_app import counters

        await populate(args.channels, args.big)
        await measure(args.rounds)
        await counters.close_clients()

    asyncio.run(run())


if __name__ == "__main__":
    main()
