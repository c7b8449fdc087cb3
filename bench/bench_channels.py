"""Channel benchmarks: prints figures (not a test).

1. Megagroup sends through the full stack: N Telethon 1.45 clients, each sending
   messages.sendMessage back to back into one megagroup over the real MTProto listener;
   messages/s and p50/p99 latency.
2. updates.getChannelDifference(limit=100) over the real listener: p50/p99.
3. Rows one post writes in a channel with 100,000 members (counted exactly: rows whose
   xmin is the send's transaction), and its latency there.

    TELESRV_DB_NAME=telesrv_bench TELESRV_REDIS_PREFIX=bench \\
        .venv/bin/python bench/bench_channels.py --senders 8 --messages 150

The database is created and migrated if needed; clients and server share this box's
cores, so the client side (Telethon is pure Python) is part of what is measured.
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
import bench.env  # noqa: E402, F401  (before Django)


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, round(p / 100 * (len(values) - 1)))]


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process and its live descendants (a listener with several
    workers), to tell server time from client time."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    own = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        children = []
    return own + sum(cpu_seconds(int(c)) for c in children if Path(f"/proc/{c}").exists())


def setup_django() -> None:
    import django
    from django.core.management import call_command

    from telesrv_project import database

    database.ensure_database()
    django.setup()
    call_command("migrate", verbosity=0)


async def login(server, user, phone, code):
    from telethon import TelegramClient, connection
    from telethon.sessions import MemorySession

    from tests.e2e import harness

    harness.telethon_trust(server.public_pem)
    session = MemorySession()
    session.set_dc(2, server.host, server.port)
    client = TelegramClient(
        session, harness.API_ID, harness.API_HASH, connection=connection.ConnectionTcpAbridged,
        receive_updates=True, catch_up=False, timeout=30, request_retries=1, auto_reconnect=False,
    )  # fmt: skip
    await client.connect()
    sent = await client.send_code_request(phone)
    await client.sign_in(phone, code=code, phone_code_hash=sent.phone_code_hash)
    return client


async def full_stack(senders: int, messages: int, diff_calls: int) -> None:
    from asgiref.sync import sync_to_async
    from telethon import functions, types

    from accounts_app.access import user_access_hash
    from accounts_app.models import User
    from edge_app.management.commands.rsakey import write_key
    from mtproto.crypto import RsaKey
    from tests.e2e import harness

    tmp = Path(tempfile.mkdtemp(prefix="bench-channels-"))
    key = tmp / "server_rsa.pem"
    write_key(key, RsaKey.generate())
    env = {"TELESRV_DB_NAME": os.environ["TELESRV_DB_NAME"], "TELESRV_REDIS_PREFIX": os.environ["TELESRV_REDIS_PREFIX"],
           "TELESRV_LOG_LEVEL": "WARNING"}  # fmt: skip
    server = harness.start_edge(env, key, tmp / "edge.log")
    clients = []
    try:
        users = []
        for i in range(senders):
            phone, code = harness.fresh_phone()
            phone = phone[:-4] + f"{(int(time.time()) + i * 7919) % 10000:04d}"
            user, _ = await sync_to_async(User.objects.get_or_create)(
                phone=phone, defaults={"first_name": f"S{i}"}
            )
            users.append((user, phone, code))
        clients = await asyncio.gather(*(login(server, u, p, c) for u, p, c in users))
        owner = users[0][0]
        invite = [types.InputUser(u.id, user_access_hash(owner.id, u.id)) for u, _, _ in users[1:]]
        created = await clients[0](
            functions.channels.CreateChannelRequest(title="bench", about="", megagroup=True)
        )
        ch = next(c for c in created.chats if isinstance(c, types.Channel))
        if invite:
            await clients[0](
                functions.channels.InviteToChannelRequest(types.InputChannel(ch.id, ch.access_hash), invite)
            )
        peer = types.InputPeerChannel(ch.id, ch.access_hash)
        for c in clients[1:]:
            await c(functions.channels.GetFullChannelRequest(types.InputChannel(ch.id, ch.access_hash)))

        latencies: list[float] = []

        async def sender(idx: int, client) -> None:
            for n in range(messages):
                t0 = time.perf_counter()
                await client(
                    functions.messages.SendMessageRequest(
                        peer, f"s{idx}-{n}", random_id=(idx << 32) | (n + 1)
                    )
                )
                latencies.append(time.perf_counter() - t0)

        # Every member is online and receives every message live: count what arrives.
        from telethon import events

        received = [0] * len(clients)
        for i, c in enumerate(clients):

            async def count(_event, i=i):
                received[i] += 1

            c.add_event_handler(count, events.NewMessage(incoming=True))
        # warm-up (connections, prepared statements)
        await clients[0](functions.messages.SendMessageRequest(peer, "warm", random_id=7))
        t0, server_cpu0, own_cpu0 = time.perf_counter(), cpu_seconds(server.proc.pid), time.process_time()
        await asyncio.gather(*(sender(i, c) for i, c in enumerate(clients)))
        elapsed = time.perf_counter() - t0
        server_cpu = cpu_seconds(server.proc.pid) - server_cpu0
        client_cpu = time.process_time() - own_cpu0
        total = senders * messages
        print(f"send: {senders} concurrent senders x {messages} = {total} messages in {elapsed:.2f}s"
              f" -> {total / elapsed:.0f} msg/s; latency p50 {pct(latencies, 50) * 1000:.1f} ms,"
              f" p99 {pct(latencies, 99) * 1000:.1f} ms")  # fmt: skip
        expected = total - messages  # each member gets everyone's messages but its own
        # Pushes still queued when the last send returns keep arriving: wait (bounded).
        settle0 = time.perf_counter()
        while min(received) < expected and time.perf_counter() - settle0 < 15:
            await asyncio.sleep(0.1)
        settle = time.perf_counter() - settle0
        print(f"      live fan-out: each member received {min(received)}..{max(received)} of {expected}"
              f" messages from the others, the last {settle:.1f}s after the last send returned")  # fmt: skip
        print(f"      CPU during sends: server process {server_cpu:.1f}s, clients (this process)"
              f" {client_cpu:.1f}s, wall {elapsed:.1f}s on {os.cpu_count()} cores")  # fmt: skip

        ic = types.InputChannel(ch.id, ch.access_hash)
        full = await clients[1](functions.channels.GetFullChannelRequest(ic))
        current = full.full_chat.pts
        diff_lat = []
        for _ in range(diff_calls):
            t0 = time.perf_counter()
            d = await clients[1](
                functions.updates.GetChannelDifferenceRequest(
                    ic, types.ChannelMessagesFilterEmpty(), current - 100, 100
                )
            )
            diff_lat.append(time.perf_counter() - t0)
        assert len(d.new_messages) == 100, type(d)
        print(f"getChannelDifference(limit=100, 100 new messages): {diff_calls} calls,"
              f" p50 {pct(diff_lat, 50) * 1000:.1f} ms, p99 {pct(diff_lat, 99) * 1000:.1f} ms")  # fmt: skip
    finally:
        for c in clients:
            await c.disconnect()
        server.stop()


async def add_subscribers(conn, channel_id: int, user_ids: list[int]) -> None:
    """Active members of a broadcast written set-based: the rows a join leaves (membership,
    the user's index entry, the dialog), without the join's events."""
    for sql in (
        "INSERT INTO channel_members (channel_id, user_id, role, status, joined_at)"
        " SELECT %s, u, 'member', 'active', 0 FROM unnest(%s::bigint[]) u",
        "INSERT INTO user_channel_member_index (user_id, channel_id, status, broadcast)"
        " SELECT u, %s, 'active', true FROM unnest(%s::bigint[]) u",
        "INSERT INTO channel_dialogs (user_id, channel_id, notify_settings)"
        " SELECT u, %s, '{}' FROM unnest(%s::bigint[]) u",
    ):
        await conn.execute(sql, (channel_id, user_ids))


async def big_channel(members: int) -> None:
    from channels_app import actions
    from message_core import db

    change = await actions.do_create_channel(1, "big", broadcast=True)
    cid = change.channel["id"]
    t0 = time.perf_counter()
    async with db.connection() as conn, conn.transaction():
        await add_subscribers(conn, cid, list(range(2, members + 1)))
        await conn.execute("UPDATE channels SET participants_count = %s WHERE id = %s", (members, cid))
    print(f"setup: {members} members in {time.perf_counter() - t0:.1f}s")
    lat = []
    for i in range(20):
        t0 = time.perf_counter()
        sent = await actions.do_send_message(1, cid, f"post {i}", random_id=1000 + i)
        lat.append(time.perf_counter() - t0)
    msg_id = sent.events[0].message["id"]
    async with db.connection() as conn:
        cur = await conn.execute(
            "SELECT xmin::text AS x FROM channel_messages WHERE channel_id = %s AND id = %s", (cid, msg_id)
        )
        xid = (await cur.fetchone())["x"]
        counts = {}
        for table in ("channels", "channel_members", "user_channel_member_index", "channel_messages",
                      "channel_update_events", "channel_dialogs"):  # fmt: skip
            cur = await conn.execute(f"SELECT count(*) AS n FROM {table} WHERE xmin::text = %s", (xid,))
            counts[table] = (await cur.fetchone())["n"]
    written = {k: v for k, v in counts.items() if v}
    print(f"one post to a {members}-member channel writes {sum(counts.values())} rows: {written};"
          f" post latency p50 {pct(lat, 50) * 1000:.1f} ms, max {max(lat) * 1000:.1f} ms")  # fmt: skip
    await db.close_pools()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--senders", type=int, default=8)
    ap.add_argument("--messages", type=int, default=150)
    ap.add_argument("--diff-calls", type=int, default=200)
    ap.add_argument("--members", type=int, default=100_000)
    ap.add_argument("--skip-stack", action="store_true")
    args = ap.parse_args()
    setup_django()
    if not args.skip_stack:
        asyncio.run(full_stack(args.senders, args.messages, args.diff_calls))
    asyncio.run(big_channel(args.members))


if __name__ == "__main__":
    main()
