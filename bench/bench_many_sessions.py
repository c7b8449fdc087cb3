"""Many sessions over several listeners (issue 34, benchmark 3; prints figures, not a test).

Starts the test bed of ``scripts/testbed.py`` (listeners in their own network namespaces
where possible, Redis single or a cluster, no balancer in the path: the load generator
connects to each listener directly, round robin), then opens ``--sessions`` sessions
(20,000 by default) over ``--listeners`` listeners (4), each session its own connection
on a logged-in auth key and live (it has made one ``updates.getState``):

- ``--members`` of them (20) are the members of one supergroup, spread evenly over the
  listeners; they send ``--rate`` messages per second in total (100) for ``--seconds``;
- the rest are idle sessions of other users, held by ``--holders`` child processes (a
  process may not hold 20,000 sockets here: the descriptor limit is 20,000).

Printed: each listener's resident memory with one session and with all of them, and the
difference per session; the load's live delivery (send -> push at every other member)
p50/p99/p99.9 and how many pushes arrived; each listener's CPU during the load.

    TELESRV_DB_NAME=telesrv_bench TELESRV_REDIS_PREFIX=bench \\
        .venv/bin/python bench/bench_many_sessions.py [--sessions 20000] [--redis cluster]
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

# rawload first: it sets the bench's environment before Django is imported.
from bench.rawload import Conn, make_users, mark, pct, rss_kib  # noqa: I001
from bench.bench_channels import cpu_seconds, setup_django

ROOT = Path(__file__).resolve().parents[1]


def load_testbed():
    spec = importlib.util.spec_from_file_location("testbed", ROOT / "scripts" / "testbed.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("testbed", module)
    spec.loader.exec_module(module)
    return module


class Target:
    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port


async def open_many(keys: list[bytes], targets: list[Target], first_index: int = 0, batch: int = 100):
    """One live session per key, round robin over ``targets``, ``batch`` at a time."""
    conns: list[Conn] = []
    for start in range(0, len(keys), batch):
        conns += await asyncio.gather(
            *(
                Conn.open(first_index + i, targets[(first_index + i) % len(targets)], keys[i])
                for i in range(start, min(len(keys), start + batch))
            )
        )
    return conns


async def hold(key_file: Path, targets: list[Target], first_index: int) -> None:
    """A holder process: open the sessions, say so, read (and drop) what arrives until the
    parent closes stdin."""
    keys = [bytes.fromhex(line) for line in key_file.read_text().split()]
    conns = await open_many(keys, targets, first_index)
    readers = [asyncio.create_task(c.receive()) for c in conns]
    print(f"ready {len(conns)}", flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    for task in readers:
        task.cancel()
    for c in conns:
        c.close()


def parse_targets(spec: str) -> list[Target]:
    return [Target(h, int(p)) for h, p in (item.rsplit(":", 1) for item in spec.split(","))]


def write_rsa_key(path: Path) -> None:
    from mtproto.crypto import RsaKey

    path.write_bytes(RsaKey.generate().private_pem())
    path.chmod(0o600)


async def run(args, bed) -> None:
    from channels_app import actions
    from tl import functions, types

    targets = [Target(lst.address, lst.port) for lst in bed.listeners]
    pids = [lst.proc.pid for lst in bed.listeners]
    t0 = time.perf_counter()
    members = await make_users(args.members, tag="M")
    idle_count = args.sessions - args.members
    idle_users = max(1, min(200, idle_count // 100))
    await asyncio.sleep(1.1)  # make_users numbers phones by the second
    idle = await make_users(idle_users, keys_per_user=-(-idle_count // idle_users), tag="I")
    idle_keys = [k for _, ks in idle for k in ks][:idle_count]
    change = await actions.do_create_channel(
        members[0][0], "scale-out", megagroup=True, invite_user_ids=[u for u, _ in members[1:]]
    )
    channel = change.channel
    peer = types.InputPeerChannel(channel_id=channel["id"], access_hash=channel["access_hash"])
    print(f"setup: {args.members} group members and {len(idle_keys)} idle sessions' keys"
          f" in {time.perf_counter() - t0:.1f}s")  # fmt: skip

    # One warm-up session per listener: start-up allocations are not session memory.
    warm = await open_many([ks[0] for _, ks in members[: len(targets)]], targets)
    await asyncio.sleep(2)
    base = [rss_kib(pid) for pid in pids]
    for c in warm:
        c.close()

    t0 = time.perf_counter()
    holders = []
    share = -(-len(idle_keys) // args.holders)
    workdir = Path(tempfile.mkdtemp(prefix="many-sessions-"))
    for h in range(args.holders):
        chunk = idle_keys[h * share : (h + 1) * share]
        key_file = workdir / f"keys-{h}"
        key_file.write_text("\n".join(k.hex() for k in chunk))
        holders.append(
            subprocess.Popen(
                [
                    sys.executable,
                    __file__,
                    "--hold",
                    str(key_file),
                    "--targets",
                    ",".join(f"{t.host}:{t.port}" for t in targets),
                    "--first-index",
                    str(args.members + h * share),
                ],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
        )
    conns = await open_many([ks[0] for _, ks in members], targets)
    receivers = [asyncio.create_task(c.receive()) for c in conns]
    for proc in holders:
        line = await asyncio.to_thread(proc.stdout.readline)
        if not line.startswith("ready"):
            raise RuntimeError(f"a holder failed: {line!r}")
    opened = time.perf_counter() - t0
    await asyncio.sleep(5)  # idle: let the listeners settle
    full = [rss_kib(pid) for pid in pids]
    n = args.sessions
    print(f"{n} sessions (one connection each) over {len(pids)} listeners opened in {opened:.1f}s")
    for i, (b, f) in enumerate(zip(base, full, strict=True)):
        print(
            f"  l{i + 1}: RSS {b / 1024:.0f} MiB with one session, {f / 1024:.0f} MiB with {n // len(pids)}"
        )
    per = (sum(full) - sum(base)) / max(n - len(pids), 1)
    print(f"  {per:.1f} KiB per connected session (all listeners' growth / sessions)")

    def body(i: int, seq: int) -> bytes:
        return functions.messages.SendMessage(
            peer=peer, message=mark(i, seq), random_id=(i << 40) | seq
        ).to_bytes()

    # Member i is on listener i % listeners; --senders-on-one: only listener 1's send.
    senders = [i for i in range(len(conns)) if not args.senders_on_one or i % len(targets) == 0]
    seq = 0

    async def open_loop(seconds: float) -> tuple[int, float]:
        nonlocal seq
        interval, sent = 1.0 / args.rate, 0
        start = time.perf_counter()
        while time.perf_counter() < start + seconds:
            i = senders[seq % len(senders)]
            seq += 1
            sent += 1
            conns[i].call(body(i, seq))
            delay = start + sent * interval - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
        return sent, time.perf_counter() - start

    # Unmeasured first seconds: a fresh group's caches and the pools' connections.
    await open_loop(args.warmup)
    await asyncio.sleep(2)
    for c in conns:
        c.latencies.clear()
        c.deliveries.clear()
    cpu0, own0 = [cpu_seconds(pid) for pid in pids], time.process_time()
    sent, elapsed = await open_loop(args.seconds)
    expected = sent * (len(conns) - 1)
    settle = time.perf_counter()
    while time.perf_counter() - settle < 15 and sum(len(c.deliveries) for c in conns) < expected:
        await asyncio.sleep(0.05)
    cpu = [cpu_seconds(pid) - c0 for pid, c0 in zip(pids, cpu0, strict=True)]
    own = time.process_time() - own0
    lat = [x for c in conns for x in c.latencies]
    dlv = [x for c in conns for x in c.deliveries]
    errors = sum(c.errors for c in conns)
    print(f"supergroup of {len(conns)} online members ({len(conns) // len(pids)} per listener), open loop"
          f" {sent / elapsed:.0f} msg/s for {elapsed:.0f}s; {errors} errors"
          + (f" ({next(c.last_error for c in conns if c.last_error)})" if errors else ""))  # fmt: skip
    if lat:
        print(f"  send latency p50 {pct(lat, 50) * 1e3:.1f} ms, p99 {pct(lat, 99) * 1e3:.1f} ms")
    if dlv:
        print(f"  live delivery: {len(dlv)} of {expected} pushes arrived; send->push p50"
              f" {pct(dlv, 50) * 1e3:.1f} ms, p99 {pct(dlv, 99) * 1e3:.1f} ms,"
              f" p99.9 {pct(dlv, 99.9) * 1e3:.1f} ms")  # fmt: skip
    print("  listener CPU during the load: "
          + ", ".join(f"l{i + 1} {c / elapsed * 100:.0f}%" for i, c in enumerate(cpu))
          + f"; the load generator's own CPU {own / elapsed * 100:.0f}%")  # fmt: skip
    for task in receivers:
        task.cancel()
    for c in conns:
        c.close()
    for proc in holders:
        proc.stdin.close()
    for proc in holders:
        proc.wait(timeout=60)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sessions", type=int, default=20000)
    ap.add_argument("--listeners", type=int, default=4)
    ap.add_argument("--members", type=int, default=20)
    ap.add_argument("--rate", type=float, default=100)
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--warmup", type=float, default=3, help="seconds of load before the measured run")
    ap.add_argument("--holders", type=int, default=2)
    ap.add_argument(
        "--db-pool", type=int, default=8, help="each listener's messages pool (PostgreSQL connections)"
    )
    ap.add_argument(
        "--senders-on-one",
        action="store_true",
        help="only the members on the first listener send (the others still receive)",
    )
    ap.add_argument("--redis", choices=["single", "cluster"], default="cluster")
    ap.add_argument("--loopback", action="store_true", help="loopback addresses even where namespaces work")
    ap.add_argument("--hold", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--targets", help=argparse.SUPPRESS)
    ap.add_argument("--first-index", type=int, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.hold:
        asyncio.run(hold(args.hold, parse_targets(args.targets), args.first_index))
        return
    testbed = load_testbed()
    workdir = Path(tempfile.mkdtemp(prefix="many-sessions-bed-"))
    key = workdir / "server_rsa.pem"
    write_rsa_key(key)
    # Migrated before the listeners start: their /readyz (the balancer's check) wants it.
    subprocess.run([sys.executable, "-m", "telesrv_project.database"], cwd=ROOT, check=True)
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, check=True)
    bed = testbed.Testbed(
        workdir,
        db_name=os.environ["TELESRV_DB_NAME"],
        rsa_key=key,
        listeners=args.listeners,
        redis_cluster=args.redis == "cluster",
        use_netns=False if args.loopback else None,
        env={
            "TELESRV_REDIS_PREFIX": os.environ["TELESRV_REDIS_PREFIX"],
            "TELESRV_LOG_LEVEL": "WARNING",
            "TELESRV_RPC_RATE_PER_KEY": "0",
            # The generator connects straight to the listeners, from one address.
            "TELESRV_MTPROTO_TRUSTED_PROXIES": "",
            "TELESRV_MTPROTO_MAX_CONNECTIONS_PER_IP": "100000",
            "TELESRV_CHANNEL_DB_POOL": str(args.db_pool),
        },
    )
    with bed:
        print(bed.describe())
        # The benchmark's own Django (users, the group) works on the bed's Redis.
        os.environ["TELESRV_REDIS_URL"] = bed.redis.url
        setup_django()
        asyncio.run(run(args, bed))


if __name__ == "__main__":
    main()
