"""Live fan-out of one post in a big broadcast channel (prints figures, not a test).

A broadcast with ``--members`` subscribers (100,000 by default: the online ones are real
users with logged-in auth keys, the rest are rows written set-based), ``--online`` of
them connected (1,000 by default, over ``bench/rawload.py`` connections), then the
owner posts ``--posts`` times, one post at a time. Printed per run: for each post the
time until the last online subscriber had it, and over all posts the p50/p99 of
send -> push, how many pushes arrived, and the listener's CPU per post.

    TELESRV_DB_NAME=telesrv_bench TELESRV_REDIS_PREFIX=bench \\
        .venv/bin/python bench/bench_fanout.py --members 100000 --online 1000 [--workers 2]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

import uvloop

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

# rawload first: it sets the bench's environment before Django is imported.
from bench.rawload import Conn, make_users, print_profile, mark, pct, start_listener  # noqa: I001
from bench.bench_channels import add_subscribers, cpu_seconds, setup_django

# Subscribers that are only rows live far above the ids real users get.
FILLER_FIRST_USER = 900_000_000


async def make_channel(owner: int, online: list[int], members: int) -> dict:
    from channels_app import actions
    from message_core import db

    change = await actions.do_create_channel(owner, "fanout", broadcast=True)
    channel = change.channel
    cid = channel["id"]
    filler = max(0, members - 1 - len(online))
    t0 = time.perf_counter()
    async with db.connection() as conn, conn.transaction():
        await add_subscribers(conn, cid, online + list(range(FILLER_FIRST_USER, FILLER_FIRST_USER + filler)))
        await conn.execute("UPDATE channels SET participants_count = %s WHERE id = %s", (members, cid))
    print(f"setup: a broadcast with {members} subscribers in {time.perf_counter() - t0:.1f}s")
    return channel


async def run(args) -> None:
    from tl import functions, types

    t0 = time.perf_counter()
    users = await make_users(args.online + 1, tag="F")
    print(f"setup: {len(users)} users with logged-in keys in {time.perf_counter() - t0:.1f}s")
    owner = users[0][0]
    channel = await make_channel(owner, [u for u, _ in users[1:]], args.members)
    peer = types.InputPeerChannel(channel_id=channel["id"], access_hash=channel["access_hash"])
    server = start_listener(
        args.workers, **({"TELESRV_MTPROTO_PROFILE": args.profile} if args.profile else {})
    )
    conns: list[Conn] = []
    try:
        t0 = time.perf_counter()
        for start in range(0, len(users), 50):  # connect in waves: the listener is one process
            conns += await asyncio.gather(
                *(Conn.open(i, server, users[i][1][0]) for i in range(start, min(len(users), start + 50)))
            )
        print(f"setup: {len(conns)} connections logged in in {time.perf_counter() - t0:.1f}s")
        receivers = [asyncio.create_task(c.receive()) for c in conns]
        poster, subscribers = conns[0], conns[1:]
        last_arrivals = []
        cpu0, own0 = cpu_seconds(server.proc.pid), time.process_time()
        for n in range(args.posts):
            before = sum(len(c.deliveries) for c in subscribers)
            poster.call(
                functions.messages.SendMessage(
                    peer=peer, message=mark(0, n), random_id=1_000_000 + n
                ).to_bytes()
            )
            sent = time.perf_counter()
            deadline = sent + 10
            while sum(len(c.deliveries) for c in subscribers) < before + len(subscribers):
                if time.perf_counter() > deadline:
                    break
                await asyncio.sleep(0.002)
            last_arrivals.append(time.perf_counter() - sent)
            await asyncio.sleep(0.3)  # one post at a time
        cpu, own = cpu_seconds(server.proc.pid) - cpu0, time.process_time() - own0
        dlv = [x for c in subscribers for x in c.deliveries]
        expected = args.posts * len(subscribers)
        print(f"one post to a {args.members}-subscriber broadcast with {len(subscribers)} online,"
              f" {args.workers} listener worker(s): {len(dlv)} of {expected} pushes arrived")  # fmt: skip
        print(f"  all online subscribers had it after: p50 {pct(last_arrivals, 50) * 1e3:.0f} ms,"
              f" max {max(last_arrivals) * 1e3:.0f} ms over {args.posts} posts")  # fmt: skip
        if dlv:
            print(f"  send->push p50 {pct(dlv, 50) * 1e3:.0f} ms, p99 {pct(dlv, 99) * 1e3:.0f} ms;"
                  f" listener CPU {cpu / args.posts * 1e3:.0f} ms per post,"
                  f" load generator CPU {own / args.posts * 1e3:.0f} ms per post")  # fmt: skip
        for task in receivers:
            task.cancel()
        await asyncio.gather(*receivers, return_exceptions=True)
    finally:
        for c in conns:
            c.close()
        server.stop()
        if args.profile:
            print_profile(args.profile, args.workers)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--members", type=int, default=100_000)
    ap.add_argument("--online", type=int, default=1000)
    ap.add_argument("--posts", type=int, default=10)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument(
        "--profile", default="", help="profile the listener (cProfile) into this file and print it"
    )
    args = ap.parse_args()
    setup_django()
    uvloop.run(run(args))  # the generator shares the box with the listener (see loadgen)


if __name__ == "__main__":
    main()
