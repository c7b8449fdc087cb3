"""Media benchmark: prints figures (not a test).

Upload and download of one large file through the real MTProto listener with
Telethon 1.45 + cryptg: MB/s each way (upload = saveBigFilePart parts + the
sendMedia that assembles them; download = upload.getFile windows), and the server's
resident memory sampled during each (baseline and peak: it must not grow by the file).

    TELESRV_DB_NAME=telesrv_bench TELESRV_REDIS_PREFIX=bench \\
        .venv/bin/python bench/bench_media.py --mb 50

Client and server share this box's cores.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.bench_channels import cpu_seconds, login, setup_django  # noqa: E402


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


class RssSampler:
    def __init__(self, pid: int) -> None:
        self.pid, self.peak, self.task = pid, 0.0, None

    async def _run(self) -> None:
        while True:
            self.peak = max(self.peak, rss_mb(self.pid))
            await asyncio.sleep(0.05)

    def __enter__(self):
        self.base = rss_mb(self.pid)
        self.peak = self.base
        self.task = asyncio.get_running_loop().create_task(self._run())
        return self

    def __exit__(self, *exc) -> None:
        self.task.cancel()


async def run(size_mb: int) -> None:
    from asgiref.sync import sync_to_async

    from accounts_app.models import User
    from edge_app.management.commands.rsakey import write_key
    from mtproto.crypto import RsaKey
    from tests.e2e import harness

    tmp = Path(tempfile.mkdtemp(prefix="bench-media-"))
    key = tmp / "server_rsa.pem"
    write_key(key, RsaKey.generate())
    env = {"TELESRV_DB_NAME": os.environ["TELESRV_DB_NAME"], "TELESRV_REDIS_PREFIX": os.environ["TELESRV_REDIS_PREFIX"],
           "TELESRV_LOG_LEVEL": "WARNING", "TELESRV_MEDIA_DIR": str(tmp / "media")}  # fmt: skip
    server = harness.start_edge(env, key, tmp / "edge.log")
    client = None
    try:
        phone, code = harness.fresh_phone()
        user, _ = await sync_to_async(User.objects.get_or_create)(
            phone=phone, defaults={"first_name": "Bench"}
        )
        client = await login(server, user, phone, code)
        src = tmp / "big.bin"
        with open(src, "wb") as f:
            for _ in range(size_mb):
                f.write(os.urandom(1024 * 1024))
        digest = hashlib.sha256(src.read_bytes()).hexdigest()
        await client.send_message("me", "warm")
        pid = server.proc.pid

        with RssSampler(pid) as up_rss:
            t0, cpu0, me0 = time.perf_counter(), cpu_seconds(pid), time.process_time()
            msg = await client.send_file("me", str(src), force_document=True)
            up_s, up_cpu = time.perf_counter() - t0, cpu_seconds(pid) - cpu0
            up_me = time.process_time() - me0
        print(f"upload   {size_mb} MB in {up_s:.2f}s -> {size_mb / up_s:.1f} MB/s; server CPU {up_cpu:.1f}s,"
              f" client CPU {up_me:.1f}s; load average {os.getloadavg()[0]:.1f};"
              f" server RSS {up_rss.base:.0f} MB before, peak {up_rss.peak:.0f} MB")  # fmt: skip

        dst = tmp / "back.bin"
        with RssSampler(pid) as down_rss:
            t0, cpu0, me0 = time.perf_counter(), cpu_seconds(pid), time.process_time()
            with open(dst, "wb") as out:
                async for chunk in client.iter_download(msg.document, request_size=1024 * 1024):
                    out.write(chunk)
            down_s, down_cpu = time.perf_counter() - t0, cpu_seconds(pid) - cpu0
            down_me = time.process_time() - me0
        same = hashlib.sha256(dst.read_bytes()).hexdigest() == digest
        print(f"download {size_mb} MB in {down_s:.2f}s -> {size_mb / down_s:.1f} MB/s; server CPU {down_cpu:.1f}s,"
              f" client CPU {down_me:.1f}s;"
              f" server RSS {down_rss.base:.0f} MB before, peak {down_rss.peak:.0f} MB;"
              f" bytes identical: {same}")  # fmt: skip
    finally:
        if client is not None:
            await client.disconnect()
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=50)
    args = parser.parse_args()
    setup_django()
    asyncio.run(run(args.mb))


if __name__ == "__main__":
    main()
