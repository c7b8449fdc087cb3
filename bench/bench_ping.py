"""Encrypted ping round trips per second through the MTProto listener.

Starts the listener in a child process (in-memory key store, no database: this measures
transport + decryption + session + encryption), then runs sequential ping/pong loops over
1 and over 100 connections (each its own session on one auth key) and prints the
rates and latencies.

    .venv/bin/python bench/bench_ping.py [--seconds 5] [--connections 1,100] [--transport intermediate]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import struct
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mtproto.session import wire  # noqa: E402
from tests.e2e.harness import RawClient, free_port, wait_for_port  # noqa: E402


class NullDispatcher:
    async def dispatch(self, ctx, request):
        raise RuntimeError("the ping benchmark sends no API requests")

    async def connection_initialized(self, ctx, info):
        pass

    async def session_closed(self, session):
        pass


async def serve(port: int, key_hex: str) -> None:
    from mtproto.crypto import RsaKey
    from mtproto.keys import AuthKey, MemoryAuthKeyStore
    from mtproto.server import MTProtoServer

    store = MemoryAuthKeyStore()
    await store.put(AuthKey.create(bytes.fromhex(key_hex)))
    server = MTProtoServer(NullDispatcher(), store, RsaKey.generate())
    await server.start("127.0.0.1", port)
    await asyncio.Event().wait()


async def connect(port: int, key: bytes, kind: str) -> RawClient:
    client = await RawClient("127.0.0.1", port, key, kind=kind).connect()
    await client.handshake()  # learns the salt; not measured
    return client


async def ping_loop(client: RawClient, until: float, latencies: list[float]) -> int:
    done = 0
    ping_id = 0
    while time.perf_counter() < until:
        ping_id += 1
        start = time.perf_counter()
        client.send(struct.pack("<Iq", wire.PING, ping_id))
        while True:
            msgs = await client.recv(timeout=10)
            if any(
                wire.constructor_of(b) == wire.PONG and struct.unpack_from("<q", b, 12)[0] == ping_id
                for _, _, b in msgs
            ):
                break
        latencies.append(time.perf_counter() - start)
        done += 1
    return done


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process (Linux), to tell a busy server from a busy client."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def run(port: int, key: bytes, connections: int, seconds: float, kind: str, server_pid: int) -> None:
    clients = await asyncio.gather(*(connect(port, key, kind) for _ in range(connections)))
    latencies: list[float] = []
    server_cpu = cpu_seconds(server_pid)
    client_cpu = time.process_time()
    started = time.perf_counter()
    counts = await asyncio.gather(*(ping_loop(c, started + seconds, latencies) for c in clients))
    elapsed = time.perf_counter() - started
    server_load = (cpu_seconds(server_pid) - server_cpu) / elapsed * 100
    client_load = (time.process_time() - client_cpu) / elapsed * 100
    for client in clients:
        client.close()
    total = sum(counts)
    lat = sorted(latencies)
    p50 = statistics.median(lat) * 1000 if lat else 0.0
    p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))] * 1000 if lat else 0.0
    print(
        f"{connections:>4} connection(s), {kind}: {total / elapsed:8.0f} pings/s "
        f"({total} in {elapsed:.1f} s), latency p50 {p50:.2f} ms, p99 {p99:.2f} ms; "
        f"CPU server {server_load:.0f}%, client {client_load:.0f}%"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--connections", default="1,100")
    parser.add_argument("--transport", default="intermediate")
    parser.add_argument("--serve", nargs=2, metavar=("PORT", "KEY_HEX"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    try:
        import uvloop

        runner = uvloop.run
    except ImportError:
        runner = asyncio.run
    if args.serve:
        runner(serve(int(args.serve[0]), args.serve[1]))
        return
    key = os.urandom(256)
    port = free_port()
    server = subprocess.Popen([sys.executable, __file__, "--serve", str(port), key.hex()], cwd=ROOT)
    try:
        wait_for_port(port, server)
        print(f"listener pid {server.pid} on 127.0.0.1:{port}; {args.seconds:.0f} s per run")
        for n in (int(x) for x in args.connections.split(",")):
            runner(run(port, key, n, args.seconds, args.transport, server.pid))
    finally:
        server.terminate()
        server.wait(timeout=10)


if __name__ == "__main__":
    main()
