"""Reaction benchmarks: prints figures (not a test).

1. messages.sendReaction through the real MTProto listener: R Telethon 1.45 members of a
   megagroup react back to back (replacing their reaction each time, so every call
   writes) to the owner's 100 messages while everyone is online; p50/p99 latency.
2. messages.getAvailableReactions: the first call (which makes the catalog's files when
   they are missing), a full answer afterwards, and notModified.
3. Rendering reactions on a 100-message history page where every message has
   reactions: messages.getHistory(limit=100) through the listener (p50/p99), and the
   one query that attaches reactions and views to the page, measured alone in-process.

    TELESRV_DB_NAME=telesrv_bench TELESRV_REDIS_PREFIX=bench \\
        .venv/bin/python bench/bench_reactions.py --reactors 3 --rounds 2
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
sys.path.insert(0, str(ROOT / "bench"))
from bench_channels import login, pct, setup_django  # noqa: E402

import bench.env  # noqa: E402, F401  (before Django)

PAGE = 100
EMOJI = ("👍", "❤", "🔥", "🎉")


async def run(reactors: int, rounds: int, history_calls: int) -> None:
    from asgiref.sync import sync_to_async
    from telethon import functions, types

    from accounts_app.access import user_access_hash
    from accounts_app.models import User
    from channels_app import actions
    from channels_app.actions import reactions
    from edge_app.management.commands.rsakey import write_key
    from message_core import db
    from mtproto.crypto import RsaKey
    from tests.e2e import harness

    tmp = Path(tempfile.mkdtemp(prefix="bench-reactions-"))
    key = tmp / "server_rsa.pem"
    write_key(key, RsaKey.generate())
    env = {"TELESRV_DB_NAME": os.environ["TELESRV_DB_NAME"], "TELESRV_REDIS_PREFIX": os.environ["TELESRV_REDIS_PREFIX"],
           "TELESRV_LOG_LEVEL": "WARNING", "TELESRV_MEDIA_DIR": str(tmp / "media")}  # fmt: skip
    server = harness.start_edge(env, key, tmp / "edge.log")
    clients = []
    try:
        users = []
        for i in range(reactors + 1):
            phone, code = harness.fresh_phone()
            phone = phone[:-4] + f"{(int(time.time()) + i * 7919) % 10000:04d}"
            user, _ = await sync_to_async(User.objects.get_or_create)(
                phone=phone, defaults={"first_name": f"R{i}"}
            )
            users.append((user, phone, code))
        clients = await asyncio.gather(*(login(server, u, p, c) for u, p, c in users))
        owner = users[0][0]

        # The catalog: its files are made on the first request (cold: a fresh media
        # directory, rows possibly left by an earlier run), then served from the rows.
        t0 = time.perf_counter()
        catalog = await clients[0](functions.messages.GetAvailableReactionsRequest(hash=0))
        cold = time.perf_counter() - t0
        warm, same = [], []
        for _ in range(20):
            t0 = time.perf_counter()
            await clients[0](functions.messages.GetAvailableReactionsRequest(hash=0))
            warm.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            await clients[0](functions.messages.GetAvailableReactionsRequest(hash=catalog.hash))
            same.append(time.perf_counter() - t0)
        print(f"getAvailableReactions ({len(catalog.reactions)} reactions x 7 documents): first {cold * 1000:.0f} ms,"
              f" then p50 {pct(warm, 50) * 1000:.1f} ms; notModified p50 {pct(same, 50) * 1000:.1f} ms")  # fmt: skip
        invite = [types.InputUser(u.id, user_access_hash(owner.id, u.id)) for u, _, _ in users[1:]]
        created = await clients[0](
            functions.channels.CreateChannelRequest(title="rx", about="", megagroup=True)
        )
        ch = next(c for c in created.chats if isinstance(c, types.Channel))
        ic = types.InputChannel(ch.id, ch.access_hash)
        await clients[0](functions.channels.InviteToChannelRequest(ic, invite))
        peer = types.InputPeerChannel(ch.id, ch.access_hash)
        ids = []
        for n in range(PAGE):
            sent = await clients[0](
                functions.messages.SendMessageRequest(peer, f"m{n}", random_id=(1 << 40) + n)
            )
            ids.append(next(u.id for u in sent.updates if isinstance(u, types.UpdateMessageID)))
        for c in clients[1:]:
            await c(functions.channels.GetFullChannelRequest(ic))

        latencies: list[float] = []

        async def reactor(idx: int, client) -> None:
            # Each member starts at its own place in the page: members reacting to the
            # same message at the same instant would measure its row lock, not the path.
            order = ids[idx * PAGE // (reactors + 1) :] + ids[: idx * PAGE // (reactors + 1)]
            for r in range(rounds):
                for n, msg_id in enumerate(order):
                    emoji = EMOJI[(idx + n + r) % len(EMOJI)]
                    t0 = time.perf_counter()
                    await client(
                        functions.messages.SendReactionRequest(
                            peer=peer, msg_id=msg_id, reaction=[types.ReactionEmoji(emoticon=emoji)]
                        )
                    )
                    latencies.append(time.perf_counter() - t0)

        # The same members sending messages concurrently: the box's baseline for a write.
        base: list[float] = []

        async def sender(idx: int, client) -> None:
            for n in range(20):
                t0 = time.perf_counter()
                await client(
                    functions.messages.SendMessageRequest(peer, f"b{idx}-{n}", random_id=(idx << 20) | n + 1)
                )
                base.append(time.perf_counter() - t0)

        await asyncio.gather(*(sender(i, c) for i, c in enumerate(clients[1:], 1)))
        print(f"baseline sendMessage, same {reactors} members concurrently: p50 {pct(base, 50) * 1000:.1f} ms,"
              f" p99 {pct(base, 99) * 1000:.1f} ms")  # fmt: skip
        await clients[1](
            functions.messages.SendReactionRequest(
                peer=peer, msg_id=ids[0], reaction=[types.ReactionEmoji("🤔")]
            )
        )  # warm-up
        t0 = time.perf_counter()
        await asyncio.gather(*(reactor(i, c) for i, c in enumerate(clients[1:], 1)))
        elapsed = time.perf_counter() - t0
        total = len(latencies)
        print(f"sendReaction: {reactors} concurrent members x {rounds * PAGE} = {total} reactions in"
              f" {elapsed:.2f}s -> {total / elapsed:.0f}/s; latency p50 {pct(latencies, 50) * 1000:.1f} ms,"
              f" p99 {pct(latencies, 99) * 1000:.1f} ms (every member online: each change is pushed live)")  # fmt: skip

        hist_lat = []
        for _ in range(history_calls):
            t0 = time.perf_counter()
            h = await clients[0](
                functions.messages.GetHistoryRequest(peer, 0, None, 0, PAGE, ids[-1] + 1, 0, 0)
            )
            hist_lat.append(time.perf_counter() - t0)
        with_reactions = sum(1 for m in h.messages if getattr(m, "reactions", None))
        print(f"getHistory(limit={PAGE}), {with_reactions} messages with reactions, through the listener:"
              f" p50 {pct(hist_lat, 50) * 1000:.1f} ms, p99 {pct(hist_lat, 99) * 1000:.1f} ms")  # fmt: skip

        history = await actions.get_history(owner.id, ch.id, limit=PAGE)
        attach_lat = []
        for _ in range(history_calls):
            page = [dict(m) for m in history.messages]
            t0 = time.perf_counter()
            await reactions.attach(owner.id, history.channel, page)
            attach_lat.append(time.perf_counter() - t0)
        plain_lat = []
        for _ in range(history_calls):
            t0 = time.perf_counter()
            async with db.connection() as conn:
                await conn.execute(
                    "SELECT id FROM channel_messages WHERE channel_id = %s AND id = ANY(%s)", (ch.id, ids)
                )
            plain_lat.append(time.perf_counter() - t0)
        print(f"attaching reactions + views to a {PAGE}-message page (one query, in-process):"
              f" p50 {pct(attach_lat, 50) * 1000:.2f} ms, p99 {pct(attach_lat, 99) * 1000:.2f} ms"
              f" (a bare id lookup of the same page: p50 {pct(plain_lat, 50) * 1000:.2f} ms)")  # fmt: skip
        await db.close_pools()
    finally:
        for c in clients:
            await c.disconnect()
        server.stop()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reactors", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--history-calls", type=int, default=100)
    args = ap.parse_args()
    setup_django()
    asyncio.run(run(args.reactors, args.rounds, args.history_calls))


if __name__ == "__main__":
    main()
