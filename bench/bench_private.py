"""Private-chat benchmarks: prints figures (not a test).

1. Private sends through the full stack: N pairs of Telethon 1.45 clients, one of each
   pair sending messages.sendMessage back to back to the other over the real MTProto
   listener; messages/s, p50/p99 latency, and whether every message arrived live.
2. updates.getDifference over 100 new private messages (offline catch-up): p50/p99.

    TELESRV_DB_NAME=telesrv_bench TELESRV_REDIS_PREFIX=bench \\
        .venv/bin/python bench/bench_private.py --pairs 4 --messages 150

Clients and server share this box's cores, as in bench_channels.
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

from bench.bench_channels import cpu_seconds, login, pct, setup_django  # noqa: E402


async def run(pairs: int, messages: int, diff_calls: int) -> None:
    from asgiref.sync import sync_to_async
    from telethon import events, functions, types

    from accounts_app.access import user_access_hash
    from accounts_app.models import User
    from edge_app.management.commands.rsakey import write_key
    from mtproto.crypto import RsaKey
    from tests.e2e import harness

    tmp = Path(tempfile.mkdtemp(prefix="bench-private-"))
    key = tmp / "server_rsa.pem"
    write_key(key, RsaKey.generate())
    env = {"TELESRV_DB_NAME": os.environ["TELESRV_DB_NAME"], "TELESRV_REDIS_PREFIX": os.environ["TELESRV_REDIS_PREFIX"],
           "TELESRV_LOG_LEVEL": "WARNING"}  # fmt: skip
    server = harness.start_edge(env, key, tmp / "edge.log")
    clients = []
    try:
        users = []
        for i in range(pairs * 2):
            phone, code = harness.fresh_phone()
            phone = phone[:-4] + f"{(int(time.time()) + i * 7919) % 10000:04d}"
            user, _ = await sync_to_async(User.objects.get_or_create)(
                phone=phone, defaults={"first_name": f"P{i}"}
            )
            users.append((user, phone, code))
        clients = await asyncio.gather(*(login(server, u, p, c) for u, p, c in users))
        senders = [(clients[2 * i], users[2 * i][0], users[2 * i + 1][0]) for i in range(pairs)]
        received = [0] * pairs
        for i in range(pairs):

            async def count(event, i=i):
                if event.raw_text.startswith(f"p{i}-"):  # not the warm-up message
                    received[i] += 1

            clients[2 * i + 1].add_event_handler(count, events.NewMessage(incoming=True))
        latencies: list[float] = []

        async def sender(idx: int, client, me, to) -> None:
            peer = types.InputPeerUser(to.id, user_access_hash(me.id, to.id))
            for n in range(messages):
                t0 = time.perf_counter()
                await client(
                    functions.messages.SendMessageRequest(
                        peer, f"p{idx}-{n}", random_id=(idx << 32) | (n + 1)
                    )
                )
                latencies.append(time.perf_counter() - t0)

        await senders[0][0].send_message(
            types.InputPeerUser(senders[0][2].id, user_access_hash(senders[0][1].id, senders[0][2].id)),
            "warm",
        )
        received[0] = 0
        t0, server_cpu0 = time.perf_counter(), cpu_seconds(server.proc.pid)
        await asyncio.gather(*(sender(i, c, me, to) for i, (c, me, to) in enumerate(senders)))
        elapsed = time.perf_counter() - t0
        server_cpu = cpu_seconds(server.proc.pid) - server_cpu0
        total = pairs * messages
        settle0 = time.perf_counter()
        while min(received) < messages and time.perf_counter() - settle0 < 15:
            await asyncio.sleep(0.1)
        print(f"private send: {pairs} senders x {messages} = {total} messages in {elapsed:.2f}s"
              f" -> {total / elapsed:.0f} msg/s; latency p50 {pct(latencies, 50) * 1000:.1f} ms,"
              f" p99 {pct(latencies, 99) * 1000:.1f} ms; server CPU {server_cpu:.1f}s")  # fmt: skip
        print(f"      live: each recipient got {min(received)}..{max(received)} of {messages},"
              f" the last {time.perf_counter() - settle0:.1f}s after the last send returned")  # fmt: skip

        reader = clients[1]
        state = await reader(functions.updates.GetStateRequest())
        diff_lat = []
        for _ in range(diff_calls):
            t0 = time.perf_counter()
            d = await reader(
                functions.updates.GetDifferenceRequest(pts=state.pts - 100, date=state.date, qts=0)
            )
            diff_lat.append(time.perf_counter() - t0)
        assert len(d.new_messages) == 100, type(d)
        print(f"getDifference(100 new private messages): {diff_calls} calls,"
              f" p50 {pct(diff_lat, 50) * 1000:.1f} ms, p99 {pct(diff_lat, 99) * 1000:.1f} ms")  # fmt: skip
    finally:
        for c in clients:
            await c.disconnect()
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=4)
    parser.add_argument("--messages", type=int, default=150)
    parser.add_argument("--diff-calls", type=int, default=50)
    args = parser.parse_args()
    setup_django()
    asyncio.run(run(args.pairs, args.messages, args.diff_calls))


if __name__ == "__main__":
    main()
