"""Counter allocation benchmark: prints figures (not a test).

``counters.next_message`` (a message id and a pts with the journal entry, one Lua call)
from C concurrent callers over N channels for T seconds, then the journal settled: calls
per second and latency p50/p99, against the Redis of ``TELESRV_REDIS_URL`` - one Redis,
or a Redis Cluster (``--cluster`` starts a throw-away 3+3 one, tests/support).

    TELESRV_DB_NAME=telesrv_bench TELESRV_REDIS_PREFIX=bench \\
        .venv/bin/python bench/bench_counters.py [--cluster] [--callers 64] [--channels 100]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
import bench.env  # noqa: E402, F401  (before Django)
from bench.bench_channels import pct, setup_django  # noqa: E402


async def run(callers: int, channels: int, seconds: float) -> None:
    from channels_app import counters
    from edge_app import redis_conn

    base = 2_000_000_000 + int.from_bytes(os.urandom(3), "big") * 1000
    ids = [base + i for i in range(channels)]
    for cid in ids:  # first use: recovery from PostgreSQL, not measured
        await counters.next_message(cid)
    latencies: list[float] = []
    done: list[tuple[int, int]] = []
    deadline = time.monotonic() + seconds

    async def caller(n: int) -> None:
        i = n
        while time.monotonic() < deadline:
            cid = ids[i % channels]
            i += callers
            start = time.perf_counter()
            _, pts = await counters.next_message(cid)
            latencies.append(time.perf_counter() - start)
            done.append((cid, pts))

    start = time.monotonic()
    await asyncio.gather(*(caller(n) for n in range(callers)))
    elapsed = time.monotonic() - start
    for cid, pts in done:
        counters.settle_soon(cid, pts, 1)
    await counters.close_clients()
    kind = "Redis Cluster" if redis_conn.is_cluster() else "one Redis"
    print(
        f"{kind}: {len(done) / elapsed:,.0f} next_message calls/s ({callers} callers, {channels} channels);"
        f" p50 {pct(latencies, 50) * 1000:.2f} ms, p99 {pct(latencies, 99) * 1000:.2f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cluster", action="store_true", help="start a throw-away 3+3 Redis Cluster")
    parser.add_argument("--callers", type=int, default=64)
    parser.add_argument("--channels", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=5)
    args = parser.parse_args()
    cluster = None
    if args.cluster:
        from tests.support.redis_cluster import RedisCluster

        cluster = RedisCluster().start()
        os.environ["TELESRV_REDIS_URL"] = cluster.url
    try:
        setup_django()
        asyncio.run(run(args.callers, args.channels, args.seconds))
    finally:
        if cluster is not None:
            cluster.stop()


if __name__ == "__main__":
    main()
