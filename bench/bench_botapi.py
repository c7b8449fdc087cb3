"""HTTP Bot API benchmarks: prints figures (not a test).

1. sendMessage throughput: N bots (default 100), each sending M messages back to back
   over HTTP keep-alive (``manage.py runbotapi``); messages/s and p50/p99. By default
   all to one user (``--users 1``): every private send locks its two owners' rows (each
   side's pts), so the sends to one user are one line whatever serves them; with
   ``--users K`` bot i writes to user i mod K (the users that are not the reader are
   not connected: their pushes find no session).
2. getUpdates latency: every bot long-polls at once; the user writes to each bot over
   MTProto; the time from the user's send (its start, and its answer) to the bot's poll
   returning, p50/p99 over ``--rounds`` rounds.

    TELESRV_DB_NAME=telesrv_bench TELESRV_REDIS_PREFIX=bench \\
        .venv/bin/python bench/bench_botapi.py --bots 100 --messages 10

Clients and servers share this box's cores, as in bench_channels.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import bench.env  # noqa: E402, F401
from bench.bench_channels import cpu_seconds, login, pct, setup_django  # noqa: E402

BOTS_PER_OWNER = 20


async def run(bots: int, messages: int, rounds: int, profile: str = "", users: int = 1) -> None:
    import aiohttp
    from asgiref.sync import sync_to_async

    from accounts_app.models import User
    from bots_app import actions
    from edge_app.management.commands.rsakey import write_key
    from mtproto.crypto import RsaKey
    from private_app import actions as private_actions
    from tests.e2e import harness
    from tests.e2e.botapi_fixtures import start_botapi

    tmp = Path(tempfile.mkdtemp(prefix="bench-botapi-"))
    key = tmp / "server_rsa.pem"
    write_key(key, RsaKey.generate())
    env = {"TELESRV_DB_NAME": os.environ["TELESRV_DB_NAME"], "TELESRV_REDIS_PREFIX": os.environ["TELESRV_REDIS_PREFIX"],
           "TELESRV_LOG_LEVEL": "WARNING"}  # fmt: skip
    server = harness.start_edge(env, key, tmp / "edge.log")
    api = start_botapi(
        {**env, **({"TELESRV_BOTAPI_PROFILE": profile} if profile else {})}, tmp / "botapi.log"
    )
    client = None
    try:
        stamp = int(time.time())
        owners = []
        for i in range((bots + BOTS_PER_OWNER - 1) // BOTS_PER_OWNER):
            owner, _ = await sync_to_async(User.objects.get_or_create)(
                phone=f"4479{stamp % 100000:05d}{i:03d}", defaults={"first_name": f"Owner{i}"}
            )
            owners.append(owner)
        made = []
        for i in range(bots):
            username = f"b{stamp % 100000}_{i}_bot"
            created = await sync_to_async(actions.do_create_bot)(
                owners[i // BOTS_PER_OWNER].id, f"B{i}", username
            )
            made.append((created.user.id, username, created.token))
        phone, code = harness.fresh_phone()
        user, _ = await sync_to_async(User.objects.get_or_create)(
            phone=phone, defaults={"first_name": "Reader"}
        )
        client = await login(server, user, phone, code)
        for _, username, _ in made:
            await client.send_message(username, "/start")  # the bots may write to the user now
        recipients = [user.id]
        for k in range(1, users):
            other, _ = await sync_to_async(User.objects.get_or_create)(
                phone=f"4478{stamp % 100000:05d}{k:03d}", defaults={"first_name": f"Reader{k}"}
            )
            recipients.append(other.id)
        for i, (bot_id, _, _) in enumerate(made):
            if i % users:  # as the reader did: the user writes first
                await private_actions.do_send_private_message(recipients[i % users], bot_id, "/start", i + 1)

        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=bots)) as http:

            async def post(token: str, method: str, **params) -> dict:
                async with http.post(f"{api.base}/bot{token}/{method}", json=params) as r:
                    return await r.json()

            # Confirm the /start updates so the polls below wait for new ones.
            offsets = {}
            for bot_id, _, token in made:
                got = (await post(token, "getUpdates"))["result"]
                offsets[bot_id] = got[-1]["update_id"] + 1 if got else 0
                await post(token, "getUpdates", offset=offsets[bot_id], limit=1)

            latencies: list[float] = []

            async def sender(token: str, chat_id: int) -> None:
                for n in range(messages):
                    t0 = time.perf_counter()
                    body = await post(token, "sendMessage", chat_id=chat_id, text=f"m{n}")
                    assert body["ok"], body
                    latencies.append(time.perf_counter() - t0)

            t0, api_cpu0, edge_cpu0 = (
                time.perf_counter(),
                cpu_seconds(api.proc.pid),
                cpu_seconds(server.proc.pid),
            )
            await asyncio.gather(
                *(sender(token, recipients[i % users]) for i, (_, _, token) in enumerate(made))
            )
            elapsed = time.perf_counter() - t0
            api_cpu, edge_cpu = cpu_seconds(api.proc.pid) - api_cpu0, cpu_seconds(server.proc.pid) - edge_cpu0
            total = bots * messages
            print(f"sendMessage: {bots} bots x {messages} = {total} messages to {users} user(s) in {elapsed:.2f} s,"
                  f" {total / elapsed:.0f} msg/s, p50 {pct(latencies, 50) * 1000:.1f} ms,"
                  f" p99 {pct(latencies, 99) * 1000:.1f} ms")  # fmt: skip
            # On a shared box the rate follows the other load; the CPU per call does not.
            print(f"      Bot API process CPU {api_cpu:.2f} s = {api_cpu / total * 1000:.2f} ms per sendMessage;"
                  f" listener CPU {edge_cpu:.2f} s (the user's pushes)")  # fmt: skip

            # Every bot long-polls at once; the user writes to each in turn. Measured from
            # the start of the user's send (its own round trip included) and from its
            # return, to the bot's getUpdates returning; ``rounds`` times.
            from_start: list[float] = []
            from_return: list[float] = []
            for _ in range(rounds):
                woke: dict[int, float] = {}

                async def poll(bot_id: int, token: str, woke=woke) -> None:
                    body = await post(token, "getUpdates", offset=offsets[bot_id], timeout=30)
                    assert body["result"], body
                    woke[bot_id] = time.perf_counter()
                    offsets[bot_id] = body["result"][-1]["update_id"] + 1

                polls = [asyncio.create_task(poll(bot_id, token)) for bot_id, _, token in made]
                await asyncio.sleep(1.0)  # every poll is waiting
                started: dict[int, float] = {}
                returned: dict[int, float] = {}
                for bot_id, username, _ in made:
                    started[bot_id] = time.perf_counter()
                    await client.send_message(username, "ping")
                    returned[bot_id] = time.perf_counter()
                await asyncio.wait_for(asyncio.gather(*polls), 60)
                from_start += [woke[b] - started[b] for b in started]
                from_return += [max(0.0, woke[b] - returned[b]) for b in returned]
            print(f"getUpdates wake-up, {bots} bots long-polling at once, {rounds} rounds:"
                  f" from the user's send p50 {pct(from_start, 50) * 1000:.1f} ms,"
                  f" p99 {pct(from_start, 99) * 1000:.1f} ms; from its answer"
                  f" p50 {pct(from_return, 50) * 1000:.1f} ms, p99 {pct(from_return, 99) * 1000:.1f} ms")  # fmt: skip
    finally:
        if client is not None:
            await client.disconnect()
        from message_core import db

        await db.close_pools()
        api.stop()
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=100)
    parser.add_argument("--messages", type=int, default=10)
    parser.add_argument("--users", type=int, default=1, help="recipients: bot i writes to user i mod K")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the getUpdates wake-up measure")
    parser.add_argument(
        "--profile", default="", help="cProfile the Bot API process into this file and print it"
    )
    args = parser.parse_args()
    setup_django()
    asyncio.run(run(args.bots, args.messages, args.rounds, args.profile, max(1, args.users)))
    if args.profile:
        import pstats

        stats = pstats.Stats(args.profile)
        print(f"Bot API process profile ({args.profile}):")
        stats.sort_stats("tottime").print_stats(25)
        stats.sort_stats("cumulative").print_stats(40)


if __name__ == "__main__":
    main()
