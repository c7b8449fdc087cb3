"""Targeted delivery between listeners (edge_app.presence): prints figures, not a test.

Listener processes here are the real push path of a listener (``push.run_subscriber``,
presence leases, the channel fan-out of ``channels_app.push`` with its database reads)
holding lightweight fake sessions (a ``push`` that notes the arrival time) instead of
MTProto connections: the figures are the delivery work, not the encryption and
socket writes of each session (bench_fanout.py measures those on one listener).

(1) ``rate``: the same total send rate (``--rate`` events/s to users picked at random)
    with 1, 2 and 4 listeners holding ``--users`` users between them; per listener:
    events received and CPU seconds, with targeted delivery and, for comparison, with
    the broadcast channel of before (every listener receives every event).
(2) ``bigpost``: one post in a broadcast of ``--members`` subscribers (rows written
    with generate_series) with ``--online`` of them online, spread over ``--listeners``
    listeners: the time until every online subscriber had it, and the rows the post
    wrote (none per subscriber).

    .venv/bin/python bench/bench_scaleout.py rate [--rate 400 --seconds 10 --users 2000]
    .venv/bin/python bench/bench_scaleout.py bigpost [--members 1000000 --online 10000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import bench.env  # noqa: E402, F401 - the bench's database and Redis prefix

START, STOP = "bench.start", "bench.stop"
DM = "bench.dm"
# PostgreSQL's table statistics of an idle connection arrive within 10 s.
STATS_DELAY = 11.0
# Subscribers that are only rows live far above the ids real users get.
FIRST_MEMBER = 900_000_000


# --- a listener process with fake sessions ---------------------------------------------------


class FakeSession:
    __slots__ = ("arrivals", "auth_key_id", "destroyed", "session_id", "user_id")

    def __init__(self, user_id: int) -> None:
        self.user_id, self.auth_key_id, self.session_id = user_id, user_id, 1
        self.destroyed = False
        self.arrivals: list[float] = []

    async def push(self, updates) -> None:
        self.arrivals.append(time.time())


class FakeEdge:
    def __init__(self, user_ids: list[int]) -> None:
        self.by_user = {u: [FakeSession(u)] for u in user_ids}

    def sessions_of_user(self, user_id: int):
        return self.by_user.get(user_id, ())

    def online_user_ids(self):
        return list(self.by_user)

    def drop_auth_key(self, auth_key_id: int) -> None:
        pass


async def listener_main(first: int, count: int, with_channels: bool) -> None:
    from edge_app import metrics, presence, push

    if not with_channels:
        presence.set_channel_lookup(None)
    edge = FakeEdge(list(range(first, first + count)))
    marks: dict = {}
    done = asyncio.Event()

    def counters() -> float:
        return sum(metrics.PUSH_EVENTS_RECEIVED.labels(k)._value.get() for k in ("listener", "broadcast"))

    async def on_start(payload, _edge):
        marks["cpu"], marks["received"] = time.process_time(), counters()
        marks["unwanted"] = metrics.PUSH_EVENTS_UNWANTED._value.get()

    async def on_stop(payload, _edge):
        arrivals = [t for ss in edge.by_user.values() for s in ss for t in s.arrivals]
        posts = payload.get("posts") or []
        windows = [*posts[1:], float("inf")] if posts else []
        per_post = [
            [t for t in arrivals if start <= t < end] for start, end in zip(posts, windows, strict=True)
        ]
        report = {
            "cpu": time.process_time() - marks["cpu"],
            "received": counters() - marks["received"] - 1,  # not the stop event itself
            "unwanted": metrics.PUSH_EVENTS_UNWANTED._value.get() - marks["unwanted"],
            "pushed": len(arrivals),
            "sessions_reached": sum(1 for ss in edge.by_user.values() if ss[0].arrivals),
            "last_arrival": max(arrivals) if arrivals else None,
            "per_post": [
                (len(a), max(a) - start if a else None, min(a) - start if a else None)
                for a, start in zip(per_post, posts, strict=True)
            ],
        }
        print(json.dumps(report), flush=True)
        done.set()

    async def render(payload, viewer):
        return payload

    push._subscribers[START] = [on_start]
    push._subscribers[STOP] = [on_stop]
    push._renderers[DM] = render
    ready = asyncio.Event()
    task = asyncio.create_task(push.run_subscriber(edge, ready))
    await asyncio.wait_for(ready.wait(), 30)
    for start in range(0, count, 500):  # the session manager's hook, in waves
        batch = list(range(first + start, first + min(count, start + 500)))
        for u in batch:
            presence.user_online(u)
        for u in batch:
            await presence.settled(u)
    print(json.dumps({"ready": True}), flush=True)
    await done.wait()
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


# --- the conductor ---------------------------------------------------------------------------


class Listeners:
    def __init__(self, n: int, first: int, users: int, with_channels: bool) -> None:
        per = users // n
        self.procs = [
            subprocess.Popen(
                [sys.executable, __file__, "listener", "--first", str(first + i * per), "--count", str(per)]
                + (["--channels"] if with_channels else []),
                cwd=ROOT,
                stdout=subprocess.PIPE,
                text=True,
                # Small pools: four listeners share the box's PostgreSQL with the rest.
                env={**os.environ, "TELESRV_CHANNEL_DB_POOL": os.environ.get("TELESRV_CHANNEL_DB_POOL", "3")},
            )
            for i in range(n)
        ]

    def wait_ready(self) -> None:
        for p in self.procs:
            line = p.stdout.readline()
            if not line or not json.loads(line).get("ready"):
                raise RuntimeError("a listener did not start")

    def reports(self) -> list[dict]:
        out = [json.loads(p.stdout.readline()) for p in self.procs]
        for p in self.procs:
            p.wait(timeout=30)
        return out

    def stop(self) -> None:
        for p in self.procs:
            if p.poll() is None:
                p.terminate()


async def _send_at_rate(rate: int, seconds: float, users: list[int], targeted: bool) -> int:
    from edge_app import push

    sent, t0 = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - t0) < seconds:
        due = int(elapsed * rate)
        while sent < due:
            u = random.choice(users)
            payload = {"n": sent, "pad": "x" * 200}
            if targeted:
                await push.push_to_users([u], DM, payload)
            else:  # before targeted delivery: one channel every listener hears in full
                await push.publish(
                    push.USERS_KIND, {"user_ids": [u], "kind": DM, "payload": payload, "exclude": None}
                )
            sent += 1
        await asyncio.sleep(0.002)
    return sent


async def _one_run(n: int, args, targeted: bool) -> list[dict]:
    from edge_app import push

    listeners = Listeners(n, 1, args.users, with_channels=False)
    try:
        listeners.wait_ready()
        await asyncio.sleep(0.5)
        await push.publish(START, {})
        await asyncio.sleep(0.2)
        users = list(range(1, 1 + (args.users // n) * n))
        sent = await _send_at_rate(args.rate, args.seconds, users, targeted)
        await asyncio.sleep(1.0)
        await push.publish(STOP, {})
        reports = listeners.reports()
        for r in reports:
            r["sent"] = sent
        return reports
    finally:
        listeners.stop()


def rate_main(args) -> None:
    import django

    django.setup()
    print(f"(1) {args.rate} events/s to random users of {args.users}, {args.seconds:.0f} s per run;"
          " per listener: events received, push CPU (ms per second of run), updates pushed")  # fmt: skip
    for mode in ("targeted", "broadcast (before)"):
        for n in args.listeners:
            reports = asyncio.run(_one_run(n, args, mode == "targeted"))
            rec = [r["received"] for r in reports]
            cpu = [r["cpu"] / args.seconds * 1000 for r in reports]
            print(
                f"  {mode:19s} {n} listener(s): received/listener {sum(rec) / n:8.0f}"
                f" ({sum(rec) / n / reports[0]['sent']:.2f} of all sent),"
                f" CPU/listener {sum(cpu) / n:6.1f} ms/s, pushed {sum(r['pushed'] for r in reports)}"
                f" of {reports[0]['sent']}, unwanted {sum(r['unwanted'] for r in reports):.0f}"
            )


async def _seed(members: int) -> tuple[int, int]:
    from channels_app import actions
    from message_core import db

    owner = (await db.fetchall("SELECT min(id) AS id FROM users"))[0]["id"]
    if owner is None:
        from asgiref.sync import sync_to_async

        from accounts_app.actions import do_create_user

        owner = (await sync_to_async(do_create_user)("99988800001", "Bench", "Owner")).id
    change = await actions.do_create_channel(owner, "a million", broadcast=True)
    cid = change.channel["id"]
    t0 = time.perf_counter()
    async with db.connection() as conn, conn.transaction():
        hi = FIRST_MEMBER + members - 2
        for sql in (
            "INSERT INTO channel_members (channel_id, user_id, role, status, joined_at)"
            " SELECT %s, u, 'member', 'active', 0 FROM generate_series(%s::bigint, %s::bigint) u",
            "INSERT INTO user_channel_member_index (user_id, channel_id, status, broadcast)"
            " SELECT u, %s, 'active', true FROM generate_series(%s::bigint, %s::bigint) u",
            "INSERT INTO channel_dialogs (user_id, channel_id, notify_settings)"
            " SELECT u, %s, '{}' FROM generate_series(%s::bigint, %s::bigint) u",
        ):
            await conn.execute(sql, (cid, FIRST_MEMBER, hi))
        await conn.execute("UPDATE channels SET participants_count = %s WHERE id = %s", (members, cid))
    async with db.connection() as conn:
        await conn.execute("ANALYZE channel_members")
    print(f"setup: a broadcast with {members} subscribers in {time.perf_counter() - t0:.1f}s")
    return owner, cid


async def _rows_written() -> int:
    """Rows inserted, updated or deleted in this database so far, as PostgreSQL's table
    statistics count them (an idle connection reports its counts within 10 s)."""
    from message_core import db

    rows = await db.fetchall(
        "SELECT coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0)::bigint AS n FROM pg_stat_user_tables"
    )
    return int(rows[0]["n"])


async def _bigpost(args) -> tuple[list[float], list[float], list[dict]]:
    from channels_app import actions
    from edge_app import push

    owner, cid = await _seed(args.members)
    listeners = Listeners(args.listeners, FIRST_MEMBER, args.online, with_channels=True)
    try:
        t0 = time.perf_counter()
        listeners.wait_ready()
        print(f"setup: {args.online} online subscribers over {args.listeners} listeners"
              f" (presence and interest written) in {time.perf_counter() - t0:.1f}s")  # fmt: skip
        await push.publish(START, {})
        await asyncio.sleep(0.3)
        times, returned = [], []
        for n in range(args.posts):
            await asyncio.sleep(STATS_DELAY)
            rows0 = await _rows_written()
            sent = time.time()
            await actions.do_send_message(owner, cid, f"post {n}", random.getrandbits(62))
            returned.append(time.time() - sent)
            times.append(sent)
            await asyncio.sleep(STATS_DELAY)
            print(f"  post {n}: rows written, updated or deleted for it: {await _rows_written() - rows0}")
        await push.publish(STOP, {"posts": times})
        reports = listeners.reports()
    finally:
        listeners.stop()
    return times, returned, reports


def _print_bigpost(args, times, returned, reports) -> None:
    reached = sum(r["sessions_reached"] for r in reports)
    pushed = sum(r["pushed"] for r in reports)
    print(f"(2) {args.posts} post(s) to a {args.members}-subscriber broadcast, {args.online} online over"
          f" {args.listeners} listeners: {pushed} of {args.posts * args.online} pushes arrived,"
          f" {reached} subscribers reached")  # fmt: skip
    for n in range(args.posts):
        got = sum(r["per_post"][n][0] for r in reports)
        slowest = max(r["per_post"][n][1] or 0 for r in reports)
        first = min(r["per_post"][n][2] or 0 for r in reports)
        print(f"  post {n}: {got} of {args.online} online subscribers had it, the first {first * 1000:.0f} ms,"
              f" the last {slowest * 1000:.0f} ms after it was sent (the send action itself returned after"
              f" {returned[n] * 1000:.0f} ms)")  # fmt: skip
    for i, r in enumerate(reports):
        print(f"  listener {i}: received {r['received']:.0f} events, CPU {r['cpu']:.2f} s for {args.posts} posts,"
              f" unwanted {r['unwanted']:.0f}")  # fmt: skip


def bigpost_main(args) -> None:
    import django
    from django.core.management import call_command

    from telesrv_project import database

    database.ensure_database()
    django.setup()
    call_command("migrate", verbosity=0)
    _print_bigpost(args, *asyncio.run(_bigpost(args)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="what", required=True)
    r = sub.add_parser("rate")
    r.add_argument("--rate", type=int, default=400)
    r.add_argument("--seconds", type=float, default=10)
    r.add_argument("--users", type=int, default=2000)
    r.add_argument("--listeners", type=int, nargs="+", default=[1, 2, 4])
    b = sub.add_parser("bigpost")
    b.add_argument("--members", type=int, default=1_000_000)
    b.add_argument("--online", type=int, default=10_000)
    b.add_argument("--listeners", type=int, default=4)
    b.add_argument("--posts", type=int, default=3)
    ls = sub.add_parser("listener")
    ls.add_argument("--first", type=int, required=True)
    ls.add_argument("--count", type=int, required=True)
    ls.add_argument("--channels", action="store_true")
    args = ap.parse_args()
    if args.what == "listener":
        import django

        django.setup()
        profile = os.environ.get("BENCH_PROFILE")
        if profile and args.first == FIRST_MEMBER:  # the first listener of bigpost
            import cProfile

            cProfile.runctx(
                "asyncio.run(listener_main(args.first, args.count, args.channels))",
                globals(),
                locals(),
                profile,
            )
        else:
            asyncio.run(listener_main(args.first, args.count, args.channels))
    elif args.what == "rate":
        rate_main(args)
    else:
        bigpost_main(args)


if __name__ == "__main__":
    os.environ.setdefault("TELESRV_LOG_LEVEL", "WARNING")
    main()
