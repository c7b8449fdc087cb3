"""Send load generator on the project's own raw MTProto client (prints figures).

Unlike bench_channels.py and bench_private.py (real Telethon clients, which spend as
much CPU as the server), this drives the listener over ``bench/rawload.py`` connections:
pre-created logged-in auth keys, requests built from a template, answers and pushes
matched by their bytes, so the generator's own CPU stays small against the server's.

Scenarios:
- ``megagroup`` (default): ``--members`` users in one megagroup, one connection each,
  every member sending and receiving every other member's messages live.
- ``private``: ``--members`` users in pairs, each sending to its partner.

Load: closed loop (``--inflight`` requests outstanding per connection) or open loop at
``--rate`` sends/s in total; ``--sweep 200,400,...`` runs one open-loop step per rate
on the same server and ``--plot FILE.png`` draws throughput against latency.
``--difference``: one more member's connection calls
``updates.getChannelDifference(limit=100)`` during the megagroup load, back to back or
one call every ``--difference-every`` ms (a back-to-back reader of 100 messages a call
takes a quarter of a saturated listener itself: paced, it measures a member catching up
under the send load rather than under its own).

Printed per run: throughput, p50/p99/p99.9 send latency, live-delivery latency (send ->
push at each recipient) and how many pushes arrived, server CPU seconds per send (all
listener workers), generator CPU, rows written per send, PostgreSQL CPU per send (the
database shares the box) and how many messages each group-committed send statement
carried.

    TELESRV_DB_NAME=telesrv_bench TELESRV_REDIS_PREFIX=bench \\
        .venv/bin/python bench/loadgen.py --members 8 --seconds 10 --inflight 4 [--workers 2]
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
from bench.rawload import (  # noqa: I001
    Conn, database_cpu_seconds, make_users, mark, pct, print_profile, rows_written, send_statements,
    start_listener,
)  # fmt: skip
from bench.bench_channels import cpu_seconds, setup_django


async def prepare(args):
    """The users and, for the megagroup scenario, the group of all of them (plus the
    difference reader, who is a member too)."""
    from accounts_app.access import user_access_hash
    from channels_app import actions
    from tl import functions, types

    extra = 1 if args.difference else 0
    users = await make_users(args.members + extra)
    templates = {}
    channel = None
    if args.scenario == "megagroup":
        change = await actions.do_create_channel(
            users[0][0], "loadgen", megagroup=True, invite_user_ids=[u for u, _ in users[1:]]
        )
        channel = change.channel
        peer = types.InputPeerChannel(channel_id=channel["id"], access_hash=channel["access_hash"])
        for i in range(args.members):
            templates[i] = peer
    else:
        for i in range(args.members):
            partner = i ^ 1 if (i ^ 1) < args.members else 0
            uid, pid = users[i][0], users[partner][0]
            templates[i] = types.InputPeerUser(user_id=pid, access_hash=user_access_hash(uid, pid))

    def send_body(i: int, seq: int) -> bytes:
        return functions.messages.SendMessage(
            peer=templates[i], message=mark(i, seq), random_id=(i << 40) | seq
        ).to_bytes()

    return users, channel, send_body


class Load:
    def __init__(self, conns: list[Conn], send_body) -> None:
        self.conns = conns
        self.send_body = send_body
        self.seq = [0] * len(conns)

    def send(self, i: int) -> None:
        self.seq[i] += 1
        self.conns[i].call(self.send_body(i, self.seq[i]))

    async def closed_loop(self, inflight: int, until: float) -> None:
        async def one(i: int, c: Conn) -> None:
            while time.perf_counter() < until:
                while len(c.pending) < inflight:
                    self.send(i)
                c.answered.clear()
                await c.answered.wait()

        await asyncio.gather(*(one(i, c) for i, c in enumerate(self.conns)))

    async def open_loop(self, rate: float, until: float) -> None:
        interval, n = 1.0 / rate, 0
        start = time.perf_counter()
        while time.perf_counter() < until:
            self.send(n % len(self.conns))
            n += 1
            delay = start + n * interval - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)


async def difference_reader(
    conn: Conn, channel: dict, load: Load, stop: asyncio.Event, into: list, every: float = 0.0
) -> None:
    """getChannelDifference(limit=100) from 100 events behind the newest, back to back
    or one call every ``every`` seconds."""
    from tl import functions, types

    ic = types.InputChannel(channel_id=channel["id"], access_hash=channel["access_hash"])
    due = time.perf_counter()
    while not stop.is_set():
        due += every
        pts = max(1, sum(load.seq) - 100)
        conn.call(
            functions.updates.GetChannelDifference(
                channel=ic, filter=types.ChannelMessagesFilterEmpty(), pts=pts, limit=100
            ).to_bytes(),
            into,
        )
        conn.answered.clear()
        try:
            await asyncio.wait_for(conn.answered.wait(), 10)
        except TimeoutError:
            continue
        await asyncio.sleep(max(0.0, due - time.perf_counter()))


async def one_step(args, server, conns, load: Load, reader, channel, rate: float) -> dict:
    senders = conns[: args.members]
    for c in conns:
        c.latencies.clear()
        c.deliveries.clear()
    seq0 = sum(load.seq)  # sequence numbers go on across steps: random_ids never repeat
    diff_lat: list[float] = []
    stop_reader = asyncio.Event()
    reading = (
        asyncio.create_task(
            difference_reader(reader, channel, load, stop_reader, diff_lat, args.difference_every / 1e3)
        )
        if reader
        else None
    )
    rows0, batches0 = await rows_written(), send_statements(server)
    cpu0, own0, db0 = cpu_seconds(server.proc.pid), time.process_time(), database_cpu_seconds()
    t0 = time.perf_counter()
    until = t0 + args.seconds
    if rate:
        await load.open_loop(rate, until)
    else:
        await load.closed_loop(args.inflight, until)
    elapsed = time.perf_counter() - t0
    stop_reader.set()
    sent = sum(load.seq) - seq0
    expected = sent * (len(senders) - 1) if args.scenario == "megagroup" else sent
    settle0 = time.perf_counter()
    while time.perf_counter() - settle0 < 15 and (
        any(c.pending for c in senders) or sum(len(c.deliveries) for c in senders) < expected
    ):
        await asyncio.sleep(0.05)
    server_cpu = cpu_seconds(server.proc.pid) - cpu0
    own_cpu = time.process_time() - own0
    db_cpu = database_cpu_seconds() - db0
    statements, batched = (a - b for a, b in zip(send_statements(server), batches0, strict=True))
    if reading:
        await asyncio.wait_for(reading, 15)
    await asyncio.sleep(1.5)  # statistics reach pg_stat_user_tables about once a second
    rows = await rows_written() - rows0
    lat = [x for c in senders for x in c.latencies]
    dlv = [x for c in senders for x in c.deliveries]
    return {
        "rate": rate,
        "sent": sent,
        "elapsed": elapsed,
        "throughput": sent / elapsed,
        "errors": sum(c.errors for c in senders),
        "error": next((c.last_error for c in senders if c.last_error), ""),
        "lat": lat,
        "dlv": dlv,
        "expected": expected,
        "server_cpu": server_cpu,
        "own_cpu": own_cpu,
        "db_cpu": db_cpu,
        "statements": statements,
        "batched": batched,
        "rows": rows,
        "diff": diff_lat,
    }


def report(args, r: dict) -> None:
    mode = f"open loop at {r['rate']:.0f}/s" if r["rate"] else f"closed loop, {args.inflight} in flight each"
    what = "megagroup" if args.scenario == "megagroup" else "private"
    print(f"{what} send, {args.members} online members, {args.workers} listener worker(s) ({mode}):"
          f" {r['sent']} sends in {r['elapsed']:.1f}s -> {r['throughput']:.0f} msg/s; {r['errors']} errors"
          + (f" ({r['error']})" if r["error"] else ""))  # fmt: skip
    if r["lat"]:
        lat = r["lat"]
        print(f"  send latency p50 {pct(lat, 50) * 1e3:.1f} ms, p99 {pct(lat, 99) * 1e3:.1f} ms,"
              f" p99.9 {pct(lat, 99.9) * 1e3:.1f} ms")  # fmt: skip
    if r["dlv"]:
        dlv = r["dlv"]
        print(f"  live delivery: {len(dlv)} of {r['expected']} pushes arrived; send->push p50"
              f" {pct(dlv, 50) * 1e3:.1f} ms, p99 {pct(dlv, 99) * 1e3:.1f} ms,"
              f" p99.9 {pct(dlv, 99.9) * 1e3:.1f} ms")  # fmt: skip
    if r["diff"]:
        d = r["diff"]
        pace = f"one every {args.difference_every:g} ms" if args.difference_every else "back to back"
        print(f"  getChannelDifference(limit=100) under this load ({pace}): {len(d)} calls, p50"
              f" {pct(d, 50) * 1e3:.1f} ms, p99 {pct(d, 99) * 1e3:.1f} ms")  # fmt: skip
    sent = max(r["sent"], 1)
    print(f"  server CPU {r['server_cpu']:.2f}s = {r['server_cpu'] / sent * 1e3:.2f} ms per send;"
          f" load generator CPU {r['own_cpu']:.2f}s; rows written per send {r['rows'] / sent:.1f}")  # fmt: skip
    print(f"  PostgreSQL CPU {r['db_cpu']:.2f}s = {r['db_cpu'] / sent * 1e3:.2f} ms per send"
          + (f"; {r['batched'] / r['statements']:.1f} messages per send statement (group commit)"
             if r["statements"] else ""))  # fmt: skip


def plot(path: str, args, results: list[dict]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    xs = [r["throughput"] for r in results]
    for p, style in ((50, "o-"), (99, "s-"), (99.9, "^--")):
        ax.plot(xs, [pct(r["lat"], p) * 1e3 for r in results], style, label=f"send p{p:g}")
    ax.plot(xs, [pct(r["dlv"], 99) * 1e3 if r["dlv"] else 0 for r in results], "d:", label="delivery p99")
    ax.axhline(150, color="grey", lw=0.8, ls="--")
    ax.set_xlabel("achieved sends per second")
    ax.set_ylabel("latency (ms)")
    ax.set_yscale("log")
    what = "megagroup" if args.scenario == "megagroup" else "private"
    ax.set_title(f"{what} sends, {args.members} members online, {args.workers} worker(s), this 2-core box")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"plot written to {path}")


async def run(args) -> None:
    users, channel, send_body = await prepare(args)
    server = start_listener(
        args.workers, **({"TELESRV_MTPROTO_PROFILE": args.profile} if args.profile else {})
    )
    conns: list[Conn] = []
    try:
        for i, (_uid, keys) in enumerate(users):
            conns.append(await Conn.open(i, server, keys[0]))
        receivers = [asyncio.create_task(c.receive()) for c in conns]
        reader = conns[args.members] if args.difference else None
        load = Load(conns[: args.members], send_body)
        if args.warmup:
            # Not measured: a fresh listener opens its pool connections and threads,
            # loads its clients' layers and fills its caches in the first second.
            await load.closed_loop(1, time.perf_counter() + args.warmup)
            while any(c.pending for c in conns):
                await asyncio.sleep(0.05)
            await asyncio.sleep(0.5)
        rates = [float(x) for x in args.sweep.split(",")] if args.sweep else [args.rate]
        results = []
        for rate in rates:
            r = await one_step(args, server, conns, load, reader, channel, rate)
            report(args, r)
            results.append(r)
        if args.plot and len(results) > 1:
            plot(args.plot, args, results)
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
    ap.add_argument("--scenario", choices=("megagroup", "private"), default="megagroup")
    ap.add_argument("--members", type=int, default=8, help="online users, each sending and receiving")
    ap.add_argument("--seconds", type=float, default=10.0, help="how long to send (per step)")
    ap.add_argument("--inflight", type=int, default=4, help="closed loop: requests outstanding per member")
    ap.add_argument("--rate", type=float, default=0.0, help="open loop: sends/s in total (0: closed loop)")
    ap.add_argument("--sweep", default="", help="open-loop rates to step through, e.g. 200,400,800")
    ap.add_argument("--plot", default="", help="with --sweep: write a throughput/latency PNG here")
    ap.add_argument("--difference", action="store_true", help="measure getChannelDifference under the load")
    ap.add_argument(
        "--difference-every", type=float, default=0.0, help="ms between difference calls (0: back to back)"
    )
    ap.add_argument("--warmup", type=float, default=2.0, help="seconds of unmeasured sends first")
    ap.add_argument("--workers", type=int, default=1, help="listener worker processes (runmtproto --workers)")
    ap.add_argument(
        "--profile", default="", help="profile the listener (cProfile) into this file and print it"
    )
    ap.add_argument("--asyncio", action="store_true", help="the generator on asyncio's own loop, not uvloop")
    args = ap.parse_args()
    setup_django()
    # uvloop: the generator shares the box with what it measures, and asyncio's own loop
    # was about a tenth of its CPU.
    (asyncio.run if args.asyncio else uvloop.run)(run(args))


if __name__ == "__main__":
    main()
