"""Soak: mixed load against the full stack for a long time, sampling what must not grow.

Starts a listener (``manage.py runmtproto``) and the HTTP Bot API (``manage.py
runbotapi``) on this machine's PostgreSQL and Redis, logs in ``--users`` real Telethon
clients (one megagroup of all of them, private chats in pairs) and one bot, then runs for
``--minutes``: each client in a loop picks megagroup sends, private sends, read marks,
edits of its own messages, reactions, photo uploads and reconnects; the bot sends over
the Bot API and long-polls getUpdates. Every ``--sample`` seconds one line of JSON:

- ``rss_listener_mib``, ``rss_botapi_mib``: resident memory of each process;
- ``tcp``: established TCP connections to the listener's port;
- ``redis_used_mib`` (the whole instance, which may be shared) and ``redis_keys``
  (DBSIZE of this run's Redis database);
- ``pg_conns``: PostgreSQL connections to this run's database;
- ``ops`` and ``p50_ms`` / ``p99_ms`` / ``max_ms`` of the operations of the interval,
  ``errors``;
- ``load1``: the machine's one-minute load average (the box may be shared).

It fails (exit 1) when, from the sample after ``--warmup`` minutes to the end, a bound
is broken: either process's RSS grows more than ``--max-rss-growth`` (25 %) plus 20 MiB,
PostgreSQL connections by more than 5, TCP connections by more than 4, the p99 of the
last interval is above 3x the warm one plus 50 ms, or more than 1 % of operations failed.
Redis keys are printed, not bounded (counters and leases grow with the chats made).
``--plot FILE.png`` draws the samples. Not part of ``make test``.

    TELESRV_DB_NAME=telesrv_soak TELESRV_REDIS_URL=redis://127.0.0.1:6379/6 \\
    TELESRV_REDIS_PREFIX=soak .venv/bin/python bench/soak.py --minutes 60 --plot soak.png
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import json
import logging
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import bench.env  # noqa: E402, F401
from bench.bench_channels import login, pct, setup_django  # noqa: E402
from bench.rawload import rss_kib  # noqa: E402

# Operation mix per client iteration (weights).
MIX = {
    "group_send": 30,
    "private_send": 20,
    "read": 15,
    "edit": 10,
    "reaction": 10,
    "upload": 5,
    "history": 8,
    "reconnect": 2,
}


class Stats:
    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.errors = 0
        self.by_op: dict[str, int] = {}
        self.error_kinds: dict[str, int] = {}

    def take(self) -> tuple[list[float], int, dict, dict]:
        out = (self.latencies, self.errors, self.by_op, self.error_kinds)
        self.latencies, self.errors, self.by_op, self.error_kinds = [], 0, {}, {}
        return out


async def timed(stats: Stats, op: str, coro, latency: bool = True) -> None:
    """Run one operation, counted; ``latency``: its time goes into the percentiles (a
    long poll's does not: it waits on purpose)."""
    t0 = time.perf_counter()
    try:
        await coro
    except Exception as exc:
        stats.errors += 1
        kind = f"{op}: {type(exc).__name__}"
        stats.error_kinds[kind] = stats.error_kinds.get(kind, 0) + 1
        return
    if latency:
        stats.latencies.append(time.perf_counter() - t0)
    stats.by_op[op] = stats.by_op.get(op, 0) + 1


def _photo() -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (64, 64), tuple(random.randrange(256) for _ in range(3))).save(buf, "JPEG")
    return buf.getvalue()


async def client_loop(i, client, group, partner, stats: Stats, until: float, pause: float) -> None:
    from telethon import functions, types

    mine: list[int] = []
    n = 0
    ops, weights = list(MIX), list(MIX.values())
    while time.monotonic() < until:
        n += 1
        op = random.choices(ops, weights)[0]
        if op == "group_send":

            async def send(text=f"soak {i}/{n}"):
                m = await client.send_message(group, text)
                mine.append(m.id)
                del mine[:-20]

            await timed(stats, op, send())
        elif op == "private_send":
            await timed(stats, op, client.send_message(partner, f"dm {i}/{n}"))
        elif op == "read":
            await timed(stats, op, client.send_read_acknowledge(group))
        elif op == "edit" and mine:
            await timed(stats, op, client.edit_message(group, random.choice(mine), f"edited {i}/{n}"))
        elif op == "reaction" and mine:
            request = functions.messages.SendReactionRequest(
                peer=group, msg_id=random.choice(mine), reaction=[types.ReactionEmoji(emoticon="👍")]
            )
            await timed(stats, op, client(request))
        elif op == "upload":
            data = _photo()
            await timed(
                stats, op, client.send_file(group, io.BytesIO(data), file_name="p.jpg", force_document=False)
            )
        elif op == "history":
            await timed(stats, op, client.get_messages(group, limit=20))
        elif op == "reconnect":

            async def reconnect():
                await client.disconnect()
                await client.connect()
                await client.get_me()

            await timed(stats, op, reconnect())
        await asyncio.sleep(pause * random.random() * 2)


async def bot_loop(http, base: str, token: str, chat_id: int, stats: Stats, until: float) -> None:
    async def post(method: str, **params) -> dict:
        async with http.post(f"{base}/bot{token}/{method}", json=params) as r:
            body = await r.json()
        if not body.get("ok"):
            raise RuntimeError(f"{method}: {body}")
        return body

    async def sender():
        n = 0
        while time.monotonic() < until:
            n += 1
            await timed(stats, "bot_send", post("sendMessage", chat_id=chat_id, text=f"bot {n}"))
            await asyncio.sleep(1.0)

    async def poller():
        offset = 0
        while time.monotonic() < until:

            async def poll():
                nonlocal offset
                got = (await post("getUpdates", offset=offset, timeout=5))["result"]
                if got:
                    offset = got[-1]["update_id"] + 1

            await timed(stats, "bot_poll", poll(), latency=False)

    await asyncio.gather(sender(), poller())


def _tcp_to(port: int) -> int:
    out = subprocess.run(
        ["ss", "-Htn", "state", "established", f"( sport = :{port} )"], capture_output=True, text=True
    ).stdout
    return len([line for line in out.splitlines() if line.strip()])


async def sample(server, api, stats: Stats, started: float) -> dict:
    import redis.asyncio as redis
    from django.conf import settings

    from message_core import db

    r = redis.from_url(settings.REDIS_URL)
    try:
        info = await r.info("memory")
        keys = await r.dbsize()
    finally:
        await r.aclose()
    row = await db.fetchall("SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database()")
    lat, errors, by_op, error_kinds = stats.take()
    ms = [x * 1000 for x in lat]
    done = sum(by_op.values())
    return {
        "minute": round((time.monotonic() - started) / 60, 2),
        "load1": round(os.getloadavg()[0], 2),
        "rss_listener_mib": round(rss_kib(server.proc.pid) / 1024, 1),
        "rss_botapi_mib": round(rss_kib(api.proc.pid) / 1024, 1),
        "tcp": _tcp_to(server.port),
        "redis_used_mib": round(info["used_memory"] / 2**20, 1),
        "redis_keys": keys,
        "pg_conns": row[0]["n"] - 1,  # not this sampler's own
        "ops": done,
        "errors": errors,
        "p50_ms": round(pct(ms, 50), 1) if ms else None,
        "p99_ms": round(pct(ms, 99), 1) if ms else None,
        "max_ms": round(max(ms), 1) if ms else None,
        "by_op": by_op,
        "error_kinds": error_kinds,
    }


def judge(samples: list[dict], args) -> list[str]:
    warm = next((s for s in samples if s["minute"] >= args.warmup), None)
    if warm is None or warm is samples[-1]:
        return ["too short to judge: no sample after the warm-up and before the end"]
    last = samples[-1]
    after = samples[samples.index(warm) :]
    broken = []
    for key in ("rss_listener_mib", "rss_botapi_mib"):
        bound = warm[key] * (1 + args.max_rss_growth) + 20
        if max(s[key] for s in after) > bound:
            broken.append(f"{key}: {max(s[key] for s in after)} > {bound:.1f} (warm {warm[key]})")
    if max(s["pg_conns"] for s in after) > warm["pg_conns"] + 5:
        broken.append(f"pg_conns: {max(s['pg_conns'] for s in after)} > {warm['pg_conns']} + 5")
    if max(s["tcp"] for s in after) > warm["tcp"] + 4:
        broken.append(f"tcp: {max(s['tcp'] for s in after)} > {warm['tcp']} + 4")
    if warm["p99_ms"] is not None and last["p99_ms"] is not None and last["p99_ms"] > 3 * warm["p99_ms"] + 50:
        broken.append(f"p99: last {last['p99_ms']} ms > 3 x warm {warm['p99_ms']} ms + 50")
    ops, errors = sum(s["ops"] for s in after), sum(s["errors"] for s in after)
    if errors > 0.01 * max(ops + errors, 1):
        broken.append(f"errors: {errors} of {ops + errors} operations")
    return broken


def plot(path: str, samples: list[dict]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t = [s["minute"] for s in samples]
    fig, axes = plt.subplots(2, 2, figsize=(11, 7))
    ax = axes[0][0]
    ax.plot(t, [s["rss_listener_mib"] for s in samples], label="listener")
    ax.plot(t, [s["rss_botapi_mib"] for s in samples], label="Bot API")
    ax.set_title("RSS (MiB)")
    ax.legend()
    ax = axes[0][1]
    ax.plot(t, [s["p50_ms"] or 0 for s in samples], label="p50")
    ax.plot(t, [s["p99_ms"] or 0 for s in samples], label="p99")
    ax.set_title("operation latency (ms)")
    ax.legend()
    ax = axes[1][0]
    ax.plot(t, [s["pg_conns"] for s in samples], label="PostgreSQL connections")
    ax.plot(t, [s["tcp"] for s in samples], label="client TCP connections")
    ax.set_title("connections")
    ax.legend()
    ax = axes[1][1]
    ax.plot(t, [s["redis_keys"] for s in samples], label="Redis keys (this db)")
    ax.set_title("Redis keys; machine load")
    ax.legend(loc="upper left")
    if all("load1" in s for s in samples):
        twin = ax.twinx()
        twin.plot(t, [s["load1"] for s in samples], color="grey", linestyle=":", label="load1")
        twin.legend(loc="upper right")
    for row in axes:
        for a in row:
            a.set_xlabel("minute")
    fig.tight_layout()
    fig.savefig(path, dpi=80)


async def run(args) -> int:
    import aiohttp
    from asgiref.sync import sync_to_async
    from telethon import functions, types

    from accounts_app.access import user_access_hash
    from accounts_app.models import User
    from bots_app import actions as bot_actions
    from edge_app.management.commands.rsakey import write_key
    from message_core import db
    from mtproto.crypto import RsaKey
    from tests.e2e import harness
    from tests.e2e.botapi_fixtures import start_botapi

    tmp = Path(tempfile.mkdtemp(prefix="soak-"))
    key = tmp / "server_rsa.pem"
    write_key(key, RsaKey.generate())
    env = {
        "TELESRV_DB_NAME": os.environ["TELESRV_DB_NAME"],
        "TELESRV_REDIS_PREFIX": os.environ["TELESRV_REDIS_PREFIX"],
        "TELESRV_LOG_LEVEL": "WARNING",
    }
    server = harness.start_edge(env, key, tmp / "edge.log")
    api = start_botapi(env, tmp / "botapi.log")
    clients = []
    samples: list[dict] = []
    try:
        stamp = int(time.time()) % 100000
        users = []
        for i in range(args.users):
            phone = f"99966{2}{(stamp * 7 + i) % 10000:04d}"
            user, _ = await sync_to_async(User.objects.get_or_create)(
                phone=phone, defaults={"first_name": f"S{i}"}
            )
            users.append(user)
            clients.append(await login(server, user, phone, "22222"))
        owner = users[0]
        created = await sync_to_async(bot_actions.do_create_bot)(owner.id, "Soak", f"soak{stamp}_bot")
        await clients[0].send_message(f"soak{stamp}_bot", "/start")
        made = await clients[0](
            functions.channels.CreateChannelRequest(title="soak", about="", megagroup=True)
        )
        group_id = made.chats[0].id

        def input_user(viewer, user):
            return types.InputUser(user_id=user.id, access_hash=user_access_hash(viewer.id, user.id))

        await clients[0](
            functions.channels.InviteToChannelRequest(
                channel=made.chats[0], users=[input_user(owner, u) for u in users[1:]]
            )
        )
        groups, partners = [], []
        for i, c in enumerate(clients):
            await c.get_dialogs()
            groups.append(await c.get_input_entity(group_id))
            other = users[i ^ 1] if (i ^ 1) < len(users) else users[0]
            partners.append(input_user(users[i], other))
        stats = Stats()
        started = time.monotonic()
        until = started + args.minutes * 60
        print(
            json.dumps({"users": args.users, "minutes": args.minutes, "listener_port": server.port}),
            flush=True,
        )

        async def sampler():
            while time.monotonic() < until:
                await asyncio.sleep(min(args.sample, max(until - time.monotonic(), 0.1)))
                s = await sample(server, api, stats, started)
                samples.append(s)
                print(json.dumps(s), flush=True)

        async with aiohttp.ClientSession() as http:
            await asyncio.gather(
                sampler(),
                bot_loop(http, api.base, created.token, owner.id, stats, until),
                *(
                    client_loop(i, c, groups[i], partners[i], stats, until, args.pause)
                    for i, c in enumerate(clients)
                ),
            )
    finally:
        for c in clients:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(c.disconnect(), 5)
        api.stop()
        server.stop()
        await db.close_pools()
    if args.plot and samples:
        plot(args.plot, samples)
    broken = judge(samples, args)
    print(json.dumps({"verdict": "fail" if broken else "pass", "broken": broken}), flush=True)
    return 1 if broken else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--minutes", type=float, default=60)
    parser.add_argument("--users", type=int, default=6)
    parser.add_argument("--sample", type=float, default=60, help="seconds between samples")
    parser.add_argument("--warmup", type=float, default=2, help="minutes before the reference sample")
    parser.add_argument(
        "--pause", type=float, default=0.25, help="mean seconds between a client's operations"
    )
    parser.add_argument("--max-rss-growth", type=float, default=0.25)
    parser.add_argument("--plot", default="")
    args = parser.parse_args()
    logging.getLogger("telethon").setLevel(logging.WARNING)
    setup_django()
    sys.exit(asyncio.run(run(args)))


if __name__ == "__main__":
    main()
