"""Shared parts of the raw-MTProto benchmarks (loadgen, bench_fanout, bench_sessions).

Users and their logged-in permanent auth keys are written straight into the database,
so a run spends no time on key exchanges or logins; the listener is started as a child
process (``runmtproto``, optionally with several workers); each connection is a
``tests/e2e/harness.RawClient`` whose answers and pushes are matched by scanning the
decrypted bytes, never decoded, so the generator's own CPU stays small against the
server's.
"""

from __future__ import annotations

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
import bench.env  # noqa: E402, F401  (before Django)

RPC_RESULT = 0xF35C6D01
RPC_ERROR = 0x2144CA19
GZIP_PACKED = 0x3072CFA1
MSGS_ACK = 0x62D6B459
VECTOR = 0x1CB5C415

# A benchmark message's text: "LG<sender>-<seq>-<send time, ns>"; found again in the raw
# bytes of each push without decoding it.
MARK = re.compile(rb"LG(\d+)-(\d+)-(\d+)")


def mark(sender: int, seq: int) -> str:
    return f"LG{sender}-{seq}-{time.time_ns()}"


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * p / 100))]


async def make_users(count: int, keys_per_user: int = 1, tag: str = "L") -> list[tuple[int, list[bytes]]]:
    """``count`` new users, each with ``keys_per_user`` logged-in permanent auth keys."""
    from asgiref.sync import sync_to_async

    from accounts_app.actions import do_create_user
    from accounts_app.models import Authorization
    from edge_app.keystore import PostgresAuthKeyStore
    from mtproto import crypto
    from mtproto.keys import AuthKey

    store = await PostgresAuthKeyStore.open(max_size=4)
    stamp = int(time.time()) % 100000
    out: list[tuple[int, list[bytes]]] = []
    auths = []
    try:
        for i in range(count):
            user = await sync_to_async(do_create_user)(f"7{stamp:05d}{i:05d}", f"{tag}{i}")
            keys = [os.urandom(256) for _ in range(keys_per_user)]
            await asyncio.gather(*(store.put(AuthKey.create(k)) for k in keys))
            auths += [
                Authorization(
                    perm_auth_key_id=crypto.auth_key_id_of(k),
                    user_id=user.id,
                    hash=struct.unpack("<q", os.urandom(8))[0],
                )
                for k in keys
            ]
            out.append((user.id, keys))
        await sync_to_async(Authorization.objects.bulk_create)(auths, batch_size=1000)
    finally:
        await store.close()
    return out


def start_listener(workers: int = 1, **env: str):
    """``runmtproto`` in a child process (no per-key rate limit or per-address connection
    cap: the point is capacity, not FLOOD_WAIT), every worker listening before this
    returns."""
    from edge_app.management.commands.rsakey import write_key
    from mtproto.crypto import RsaKey
    from tests.e2e import harness

    tmp = Path(tempfile.mkdtemp(prefix="rawload-"))
    key = tmp / "server_rsa.pem"
    write_key(key, RsaKey.generate())
    server = harness.start_edge(
        {
            "TELESRV_DB_NAME": os.environ["TELESRV_DB_NAME"],
            "TELESRV_REDIS_PREFIX": os.environ["TELESRV_REDIS_PREFIX"],
            "TELESRV_LOG_LEVEL": "WARNING",
            "TELESRV_RPC_RATE_PER_KEY": "0",
            # Every benchmark connection comes from 127.0.0.1.
            "TELESRV_MTPROTO_MAX_CONNECTIONS_PER_IP": "100000",
            "TELESRV_MTPROTO_WORKERS": str(workers),
            "TELESRV_MTPROTO_HEALTH_PORT": "0",
            **env,
        },
        key,
        tmp / "edge.log",
    )
    deadline = time.monotonic() + 60
    while server.log().count("health and metrics on") < workers and time.monotonic() < deadline:
        time.sleep(0.1)
    return server


def _tl_bytes(data: bytes, offset: int) -> bytes:
    n = data[offset]
    if n < 254:
        return data[offset + 1 : offset + 1 + n]
    n = int.from_bytes(data[offset + 1 : offset + 4], "little")
    return data[offset + 4 : offset + 4 + n]


class Conn:
    """One logged-in connection. ``call`` sends a request and records when; answers go
    to ``latencies`` (or the per-kind list given), pushes carrying a benchmark mark to
    ``deliveries`` as seconds since that message was sent."""

    def __init__(self, index: int, client) -> None:
        self.index = index
        self.client = client
        self.pending: dict[int, tuple[float, list[float]]] = {}
        self.latencies: list[float] = []
        self.errors = 0
        self.last_error = ""
        self.deliveries: list[float] = []
        self.answered = asyncio.Event()
        self.to_ack: list[int] = []

    @classmethod
    async def open(cls, index: int, server, auth_key: bytes) -> Conn:
        from tests.e2e import harness
        from tl import functions

        client = await harness.RawClient(server.host, server.port, auth_key, kind="abridged").connect()
        await client.handshake()
        # Any authorized call makes the session a push target.
        client.send(functions.updates.GetState().to_bytes())
        await client.expect(RPC_RESULT, timeout=60)
        return cls(index, client)

    def call(self, body: bytes, into: list[float] | None = None) -> None:
        msg_id = self.client.send(body)
        self.pending[msg_id] = (time.perf_counter(), self.latencies if into is None else into)

    def on_body(self, msg_id: int, seq: int, body: bytes) -> None:
        if seq & 1:
            self.to_ack.append(msg_id)
        (cid,) = struct.unpack_from("<I", body)
        if cid == RPC_RESULT:
            (req,) = struct.unpack_from("<q", body, 4)
            entry = self.pending.pop(req, None)
            if entry is not None:
                sent, into = entry
                into.append(time.perf_counter() - sent)
                if struct.unpack_from("<I", body, 12)[0] == RPC_ERROR:
                    self.errors += 1
                    self.last_error = _tl_bytes(body, 20).decode(errors="replace")
                self.answered.set()
            return
        if cid == GZIP_PACKED:
            body = gzip.decompress(_tl_bytes(body, 4))
        now = time.time_ns()
        for m in MARK.finditer(body):
            if int(m.group(1)) != self.index:
                self.deliveries.append((now - int(m.group(3))) / 1e9)

    async def receive(self) -> None:
        """Reads until the connection closes; the caller cancels it when done."""
        while True:
            try:
                messages = await self.client.recv(timeout=None)
            except (ConnectionError, asyncio.IncompleteReadError):
                return
            for msg_id, seq, body in messages:
                self.on_body(msg_id, seq, body)
            if self.to_ack:
                ids, self.to_ack = self.to_ack, []
                self.client.send(
                    struct.pack("<III", MSGS_ACK, VECTOR, len(ids)) + struct.pack(f"<{len(ids)}q", *ids),
                    content=False,
                )

    def close(self) -> None:
        self.client.close()


async def rows_written() -> int:
    from message_core import db

    row = await db.fetchone(
        "SELECT COALESCE(sum(n_tup_ins + n_tup_upd + n_tup_del), 0)::bigint AS n FROM pg_stat_user_tables"
    )
    return int(row["n"])


def database_cpu_seconds() -> float:
    """utime + stime of every PostgreSQL process on this machine (the benchmark runs
    alone: the database's share of the box belongs to the load)."""
    total = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        name, rest = text.split("(", 1)[1].rsplit(")", 1)
        if name == "postgres":
            fields = rest.split()
            total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def send_statements(server) -> tuple[float, float]:
    """(statements, rows) of the listener's group-committed channel sends so far, summed
    over its workers' /metrics (``telesrv_send_batch_rows``)."""
    import urllib.request

    statements = rows = 0.0
    for port in re.findall(r"health and metrics on http://[^:]+:(\d+)/", server.log()):
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as answer:
            text = answer.read().decode()
        for name, value in re.findall(r"^telesrv_send_batch_rows_(count|sum) (\S+)$", text, re.M):
            if name == "count":
                statements += float(value)
            else:
                rows += float(value)
    return statements, rows


def print_profile(path: str, workers: int = 1, top: int = 30) -> None:
    """The listener's profile (``TELESRV_MTPROTO_PROFILE``): functions by own time. With
    several workers each writes its own file (``path.i``); the first one's is shown."""
    import pstats

    if workers > 1:
        path = f"{path}.0"
    stats = pstats.Stats(path)
    print(f"listener profile ({path}), by own time:")
    stats.sort_stats("tottime").print_stats(top)
    stats.sort_stats("cumulative").print_stats(top)


def rss_kib(pid: int) -> int:
    """Resident memory of a process and its live descendants (KiB)."""
    total = 0
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            total = int(line.split()[1])
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        children = []
    return total + sum(rss_kib(int(c)) for c in children if Path(f"/proc/{c}").exists())
