"""Megagroup load generator on the project's own raw MTProto client (prints figures).

Unlike bench_channels.py (real Telethon clients, which spend as much CPU as the server),
this drives the listener with pre-created auth keys and logged-in sessions over
``tests/e2e/harness.RawClient``: requests are built once per send from a template,
answers and pushes are matched by scanning decrypted bytes (no TL decoding), so the
generator's own CPU stays small against the server's.

Each member has one connection; every member sends (closed loop, ``--inflight``
requests outstanding per connection, or open loop at ``--rate`` sends/s in total) and
every member receives every other member's messages live. Printed: throughput,
p50/p99/p99.9 send latency, live-delivery latency (send -> push at each other member)
and how many pushes arrived, server CPU seconds per send, rows written per send.

    TELESRV_DB_NAME=telesrv_bench TELESRV_REDIS_PREFIX=bench \\
        .venv/bin/python bench/loadgen.py --members 8 --seconds 10 --inflight 4
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import os
import re
import struct
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "telesrv_project.settings")
os.environ.setdefault("TELESRV_DB_NAME", "telesrv_bench")
os.environ.setdefault("TELESRV_REDIS_PREFIX", "bench")
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

from bench.bench_channels import cpu_seconds, pct, setup_django  # noqa: E402

# The text of every message: "LG<member>-<seq>-<send time, ns>"; found again in the
# raw bytes of each push without decoding it.
MARK = re.compile(rb"LG(\d+)-(\d+)-(\d+)")


async def prepare(members: int):
    """Users, permanent auth keys logged in as them, and one megagroup of all of them."""
    from asgiref.sync import sync_to_async

    from accounts_app.actions import do_create_user
    from accounts_app.models import Authorization
    from channels_app import actions
    from edge_app.keystore import PostgresAuthKeyStore
    from mtproto import crypto
    from mtproto.keys import AuthKey

    store = await PostgresAuthKeyStore.open(max_size=2)
    stamp = int(time.time()) % 100000
    users = []
    for i in range(members):
        user = await sync_to_async(do_create_user)(f"77{stamp:05d}{i:04d}", f"L{i}")
        key = os.urandom(256)
        await store.put(AuthKey.create(key))
        await sync_to_async(Authorization.objects.create)(
            perm_auth_key_id=crypto.auth_key_id_of(key),
            user=user,
            hash=struct.unpack("<q", os.urandom(8))[0],
        )
        users.append((user.id, key))
    await store.close()
    change = await actions.do_create_channel(
        users[0][0], "loadgen", megagroup=True, invite_user_ids=[u for u, _ in users[1:]]
    )
    return users, change.channel


class Member:
    """One logged-in connection: sends, and matches answers and pushes by their bytes."""

    def __init__(self, index: int, client, send_template) -> None:
        self.index = index
        self.client = client
        self.template = send_template
        self.seq = 0
        self.pending: dict[int, float] = {}  # msg_id -> send time (perf_counter)
        self.latencies: list[float] = []
        self.errors = 0
        self.deliveries: list[float] = []  # seconds from send to this member's push
        self.answered = asyncio.Event()
        self.to_ack: list[int] = []

    def send_one(self) -> None:
        self.seq += 1
        text = f"LG{self.index}-{self.seq}-{time.time_ns()}".encode()
        msg_id = self.client.send(self.template(text, (self.index << 40) | self.seq))
        self.pending[msg_id] = time.perf_counter()

    def on_body(self, msg_id: int, seq: int, body: bytes) -> None:
        if seq & 1:
            self.to_ack.append(msg_id)
        (cid,) = struct.unpack_from("<I", body)
        if cid == 0xF35C6D01:  # rpc_result: req_msg_id, then the result
            (req,) = struct.unpack_from("<q", body, 4)
            sent = self.pending.pop(req, None)
            if sent is not None:
                self.latencies.append(time.perf_counter() - sent)
                if struct.unpack_from("<I", body, 12)[0] == 0x2144CA19:
                    self.errors += 1
                self.answered.set()
            return
        if cid == 0x3072CFA1:  # gzip_packed push
            body = gzip.decompress(_tl_bytes(body, 4))
        now = time.time_ns()
        for m in MARK.finditer(body):
            if int(m.group(1)) != self.index:
                self.deliveries.append((now - int(m.group(3))) / 1e9)

    async def receive(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            try:
                messages = await self.client.recv(timeout=1.0)
            except TimeoutError:
                continue
            except (ConnectionError, asyncio.IncompleteReadError):
                return
            for msg_id, seq, body in messages:
                self.on_body(msg_id, seq, body)
            if self.to_ack:
                ids, self.to_ack = self.to_ack, []
                self.client.send(struct.pack("<III", 0x62D6B459, 0x1CB5C415, len(ids)) +
                                 struct.pack(f"<{len(ids)}q", *ids), content=False)  # fmt: skip


def _tl_bytes(data: bytes, offset: int) -> bytes:
    n = data[offset]
    if n < 254:
        return data[offset + 1 : offset + 1 + n]
    n = int.from_bytes(data[offset + 1 : offset + 4], "little")
    return data[offset + 4 : offset + 4 + n]


async def run(args) -> None:
    from edge_app.management.commands.rsakey import write_key
    from mtproto.crypto import RsaKey
    from tests.e2e import harness
    from tl import functions, types

    users, channel = await prepare(args.members)
    peer = types.InputPeerChannel(channel_id=channel["id"], access_hash=channel["access_hash"])

    def template(text: bytes, random_id: int) -> bytes:
        return functions.messages.SendMessage(
            peer=peer, message=text.decode(), random_id=random_id
        ).to_bytes()

    tmp = Path(tempfile.mkdtemp(prefix="loadgen-"))
    key = tmp / "server_rsa.pem"
    write_key(key, RsaKey.generate())
    # No per-key request rate limit: the point is the server's capacity, not its FLOOD_WAIT.
    env = {"TELESRV_DB_NAME": os.environ["TELESRV_DB_NAME"], "TELESRV_REDIS_PREFIX": os.environ["TELESRV_REDIS_PREFIX"],
           "TELESRV_LOG_LEVEL": "WARNING", "TELESRV_RPC_RATE_PER_KEY": "0",
           "TELESRV_MTPROTO_WORKERS": str(args.workers), "TELESRV_MTPROTO_HEALTH_PORT": "0"}  # fmt: skip
    server = harness.start_edge(env, key, tmp / "edge.log")
    for _ in range(300):  # every worker listening, or the first one gets all connections
        if server.log().count("health and metrics on") >= args.workers:
            break
        await asyncio.sleep(0.1)
    stop = asyncio.Event()
    members: list[Member] = []
    try:
        for i, (_uid, auth_key) in enumerate(users):
            client = await harness.RawClient(server.host, server.port, auth_key, kind="abridged").connect()
            await client.handshake()
            m = Member(i, client, template)
            members.append(m)
            # Any authorized call makes the session a push target.
            client.send(functions.updates.GetState().to_bytes())
            await client.expect(0xF35C6D01, timeout=30)
        receivers = [asyncio.create_task(m.receive(stop)) for m in members]

        async def closed_loop(m: Member, until: float) -> None:
            while time.perf_counter() < until:
                while len(m.pending) < args.inflight:
                    m.send_one()
                m.answered.clear()
                await m.answered.wait()

        async def open_loop(until: float) -> None:
            interval, n = 1.0 / args.rate, 0
            start = time.perf_counter()
            while time.perf_counter() < until:
                members[n % len(members)].send_one()
                n += 1
                delay = start + n * interval - time.perf_counter()
                if delay > 0:
                    await asyncio.sleep(delay)

        rows0 = await rows_written()
        cpu0, own0 = cpu_seconds(server.proc.pid), time.process_time()
        t0 = time.perf_counter()
        until = t0 + args.seconds
        if args.rate:
            await open_loop(until)
        else:
            await asyncio.gather(*(closed_loop(m, until) for m in members))
        elapsed = time.perf_counter() - t0
        # Answers and pushes still in flight (bounded wait).
        sent = sum(m.seq for m in members)
        expected = sent * (len(members) - 1)
        settle0 = time.perf_counter()
        while time.perf_counter() - settle0 < 15 and (
            any(m.pending for m in members) or sum(len(m.deliveries) for m in members) < expected
        ):
            await asyncio.sleep(0.05)
        server_cpu = cpu_seconds(server.proc.pid) - cpu0
        own_cpu = time.process_time() - own0
        stop.set()
        await asyncio.gather(*receivers, return_exceptions=True)
        await asyncio.sleep(1.5)  # statistics reach pg_stat_user_tables about once a second
        rows = await rows_written() - rows0

        lat = [x for m in members for x in m.latencies]
        dlv = [x for m in members for x in m.deliveries]
        errors = sum(m.errors for m in members)
        mode = f"open loop at {args.rate}/s" if args.rate else f"closed loop, {args.inflight} in flight each"
        print(f"megagroup send, {len(members)} online members ({mode}): {sent} sends in {elapsed:.1f}s"
              f" -> {sent / elapsed:.0f} msg/s; {errors} errors")  # fmt: skip
        if lat:
            print(f"  send latency p50 {pct(lat, 50) * 1e3:.1f} ms, p99 {pct(lat, 99) * 1e3:.1f} ms,"
                  f" p99.9 {pct(lat, 99.9) * 1e3:.1f} ms")  # fmt: skip
        if dlv:
            print(f"  live delivery: {len(dlv)} of {expected} pushes arrived; send->push p50"
                  f" {pct(dlv, 50) * 1e3:.1f} ms, p99 {pct(dlv, 99) * 1e3:.1f} ms,"
                  f" p99.9 {pct(dlv, 99.9) * 1e3:.1f} ms")  # fmt: skip
        print(f"  server CPU {server_cpu:.2f}s = {server_cpu / max(sent, 1) * 1e3:.2f} ms per send;"
              f" load generator CPU {own_cpu:.2f}s; rows written per send {rows / max(sent, 1):.1f}")  # fmt: skip
    finally:
        stop.set()
        for m in members:
            m.client.close()
        server.stop()


async def rows_written() -> int:
    from channels_app import db

    row = await db.fetchone(
        "SELECT COALESCE(sum(n_tup_ins + n_tup_upd + n_tup_del), 0)::bigint AS n FROM pg_stat_user_tables"
    )
    return int(row["n"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--members", type=int, default=8, help="online members, each sending and receiving")
    ap.add_argument("--seconds", type=float, default=10.0, help="how long to send")
    ap.add_argument("--inflight", type=int, default=4, help="closed loop: requests outstanding per member")
    ap.add_argument(
        "--rate", type=float, default=0.0, help="open loop: sends per second in total (0: closed loop)"
    )
    ap.add_argument("--workers", type=int, default=1, help="listener worker processes (runmtproto --workers)")
    args = ap.parse_args()
    setup_django()
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
