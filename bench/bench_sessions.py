"""Memory per idle connected session (prints figures, not a test).

Opens ``--sessions`` connections (5,000 by default), each its own MTProto session on a
logged-in auth key (``--users`` users share the keys), each having made one call
(``updates.getState``, so it is a live push target), then leaves them idle and reads the
listener's resident memory before and after. Printed: RSS at start, with every session
open, and the difference per session.

    TELESRV_DB_NAME=telesrv_bench TELESRV_REDIS_PREFIX=bench \\
        .venv/bin/python bench/bench_sessions.py --sessions 5000
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

# rawload first: it sets the bench's environment before Django is imported.
from bench.rawload import Conn, make_users, rss_kib, start_listener  # noqa: I001
from bench.bench_channels import setup_django


async def run(args) -> None:
    per_user = -(-args.sessions // args.users)
    t0 = time.perf_counter()
    users = await make_users(args.users, keys_per_user=per_user, tag="S")
    keys = [k for _, ks in users for k in ks][: args.sessions]
    print(f"setup: {len(keys)} logged-in auth keys for {len(users)} users in {time.perf_counter() - t0:.1f}s")
    server = start_listener(1)
    conns: list[Conn] = []
    try:
        # One warm-up session, so start-up allocations (first call's imports and caches)
        # do not count as session memory.
        conns.append(await Conn.open(0, server, keys[0]))
        await asyncio.sleep(1)
        base = rss_kib(server.proc.pid)
        t0 = time.perf_counter()
        for start in range(1, len(keys), 100):
            conns += await asyncio.gather(
                *(Conn.open(i, server, keys[i]) for i in range(start, min(len(keys), start + 100)))
            )
        opened = time.perf_counter() - t0
        await asyncio.sleep(3)  # idle: let the listener settle
        full = rss_kib(server.proc.pid)
        n = len(conns) - 1
        print(f"{n} idle sessions (one connection each) opened in {opened:.1f}s")
        print(f"  listener RSS {base / 1024:.0f} MiB with one session, {full / 1024:.0f} MiB with {n + 1}:"
              f" {(full - base) / max(n, 1):.1f} KiB per idle session")  # fmt: skip
    finally:
        for c in conns:
            c.close()
        server.stop()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sessions", type=int, default=5000)
    ap.add_argument("--users", type=int, default=100)
    args = ap.parse_args()
    setup_django()
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
