"""Run the MTProto listener: ``manage.py runmtproto [--host H] [--port P] [--health-port N]``.

One asyncio event loop (uvloop when installed) serving TCP clients, with auth keys in
PostgreSQL, the RPC registry as dispatcher and the Redis push subscriber. The server RSA
key must exist (``manage.py rsakey ensure``; ``manage.py serve`` does that first).
Beside it, a small HTTP port answers ``/healthz``, ``/readyz`` and ``/metrics``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import signal
import sys
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from edge_app import background, current, health_http, heap, metrics, push, workers
from edge_app.dispatcher import EdgeDispatcher
from edge_app.keystore import PostgresAuthKeyStore
from edge_app.management.commands.rsakey import key_path, load_key
from edge_app.peer_check import CheckedCodec
from edge_app.startup import refuse_unsafe_settings
from mtproto import transport
from mtproto.server import MTProtoServer

log = logging.getLogger("telesrv.mtproto")

EXPIRE_INTERVAL = 300.0


class Command(BaseCommand):
    help = (
        "Run the MTProto TCP listener (and its /healthz, /readyz, /metrics HTTP port) until"
        " SIGINT or SIGTERM."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--host",
            default=settings.MTPROTO_HOST,
            help="address to listen on for MTProto clients (default: TELESRV_MTPROTO_HOST, %(default)s)",
        )
        parser.add_argument(
            "--port",
            type=int,
            default=settings.MTPROTO_PORT,
            help="MTProto TCP port; 0 picks a free one (default: TELESRV_MTPROTO_PORT, %(default)s)",
        )
        parser.add_argument(
            "--health-host",
            default=settings.MTPROTO_HEALTH_HOST,
            help="address of the health and metrics HTTP port (default: TELESRV_MTPROTO_HEALTH_HOST,"
            " %(default)s)",
        )
        parser.add_argument(
            "--health-port",
            type=int,
            default=settings.MTPROTO_HEALTH_PORT,
            help="HTTP port for /healthz, /readyz and /metrics; 0 picks a free one, -1 turns it off"
            " (default: TELESRV_MTPROTO_HEALTH_PORT, %(default)s)",
        )

        parser.add_argument(
            "--workers",
            type=int,
            default=settings.MTPROTO_WORKERS,
            help="listener processes sharing the port (SO_REUSEPORT), one per core is the rule;"
            " worker i serves health on the health port + i (default: TELESRV_MTPROTO_WORKERS,"
            " %(default)s)",
        )
        # Set by the supervisor for each worker it starts.
        parser.add_argument("--worker-index", type=int, default=None, help=argparse.SUPPRESS)

    def handle(self, *args, host, port, health_host, health_port, workers, worker_index, **options):
        refuse_unsafe_settings()
        rsa_key = load_key(key_path())  # a clear CommandError if it is missing
        if workers < 1:
            raise CommandError("--workers must be at least 1")
        if workers > 1 and worker_index is None:
            self._supervise(host, port, health_port, workers)
            return
        try:
            import uvloop
        except ImportError:
            run = asyncio.run
        else:
            run = uvloop.run
        serving = self._serve(host, port, rsa_key, health_host, health_port, worker_index)
        profile_to = os.environ.get("TELESRV_MTPROTO_PROFILE")
        if not profile_to:
            run(serving)
            return
        # Where the listener's CPU goes (bench/ and docs/performance.md): cProfile over the
        # whole run, written at a clean stop (SIGINT/SIGTERM); one file per worker.
        import cProfile
        import time

        if worker_index is not None:
            profile_to = f"{profile_to}.{worker_index}"
        profiler = cProfile.Profile(time.process_time)  # CPU, not the idle loop
        profiler.enable()
        try:
            run(serving)
        finally:
            profiler.disable()
            profiler.dump_stats(profile_to)

    def _supervise(self, host: str, port: int, health_port: int, count: int) -> None:
        try:
            holder, port = workers.reserve_port(host, port)
        except OSError as exc:
            raise CommandError(f"cannot bind {host}:{port} ({exc})") from None
        manage = str(Path(settings.BASE_DIR) / "manage.py")

        def argv_of(i: int) -> list[str]:
            worker_health = health_port + i if health_port > 0 else health_port
            return [sys.executable, manage, "runmtproto", "--host", host, "--port", str(port),
                    "--health-port", str(worker_health), "--workers", str(count), "--worker-index", str(i)]  # fmt: skip

        self.stdout.write(f"{count} MTProto listener workers on {host}:{port}")
        self.stdout.flush()
        try:
            status = workers.supervise(count, argv_of, write=self.stderr.write)
        finally:
            holder.close()
        if status:
            raise CommandError("the listener workers keep failing to start")

    async def _serve(
        self,
        host: str,
        port: int,
        rsa_key,
        health_host: str,
        health_port: int,
        worker_index: int | None = None,
    ) -> None:
        try:
            trusted_proxies = transport.TrustedProxies(settings.MTPROTO_TRUSTED_PROXIES)
        except ValueError as exc:
            raise CommandError(f"TELESRV_MTPROTO_TRUSTED_PROXIES: {exc}") from None
        try:
            store = await PostgresAuthKeyStore.open()
        except Exception as exc:
            db = settings.DATABASES["default"]
            raise CommandError(
                f"cannot reach PostgreSQL database {db['NAME']!r} at {db['HOST']}:{db['PORT']}: {exc}"
            ) from None
        metrics.watch_pool("auth_keys", lambda: store.pool)
        dispatcher = EdgeDispatcher(store, rate=settings.RPC_RATE_PER_KEY, burst=settings.RPC_BURST_PER_KEY)
        server = MTProtoServer(
            dispatcher,
            store,
            rsa_key,
            codec=CheckedCodec(),
            dc_id=settings.MTPROTO_DC_ID,
            max_connections_per_ip=settings.MTPROTO_MAX_CONNECTIONS_PER_IP,
            frame_deadline=settings.MTPROTO_FRAME_DEADLINE,
            max_frame_bytes=settings.MTPROTO_MAX_FRAME_BYTES,
            trusted_proxies=trusted_proxies,
        )
        # Bound now (the port is known and taken), accepting only once start-up is over:
        # a client that connected during it met a process that stopped its loop for the
        # collector (freeze_startup_heap) with its key exchange half done, and objects of
        # its connection frozen for the life of the process.
        bound = await server.start(host, port, reuse_port=worker_index is not None, serve=False)
        health_server = None
        if health_port >= 0:
            try:
                health_server, health_bound = await health_http.start(health_host, health_port)
            except OSError as exc:
                await server.close()
                await store.close()
                raise CommandError(
                    f"cannot open the health port {health_host}:{health_port} ({exc}); pick another with"
                    " --health-port or TELESRV_MTPROTO_HEALTH_PORT, or -1 to turn it off"
                ) from None
        # Unless told otherwise, advertise the address actually listened on.
        if "TELESRV_MTPROTO_PUBLIC_PORT" not in os.environ:
            settings.MTPROTO_PUBLIC_PORT = bound
        if "TELESRV_MTPROTO_PUBLIC_HOST" not in os.environ and host not in ("0.0.0.0", "::", ""):
            settings.MTPROTO_PUBLIC_HOST = host
        current.set(server)
        loop = asyncio.get_running_loop()
        stop = asyncio.Event()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        ready = asyncio.Event()
        tasks = [
            loop.create_task(push.run_subscriber(server, ready)),
            loop.create_task(_expire_keys(store)),
            # One worker of a machine runs the background jobs; the others only serve.
            *(
                loop.create_task(job(), name=name)
                for name, job in background.jobs().items()
                if not worker_index
            ),
        ]
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(ready.wait(), 10)
        frozen = heap.freeze_startup_heap()
        log.debug("%d start-up objects frozen: full garbage collections no longer walk them", frozen)
        await server.begin_serving()
        self.stdout.write(f"MTProto listener on {host}:{bound} (dc {settings.MTPROTO_DC_ID})")
        if health_server is not None:
            self.stdout.write(
                f"health and metrics on http://{health_host}:{health_bound}/ (healthz, readyz, metrics)"
            )
        self.stdout.flush()
        log.info("MTProto listener on %s:%d", host, bound)
        try:
            await stop.wait()
        finally:
            log.info("MTProto listener stopping")
            current.set(None)
            if health_server is not None:
                health_server.close()
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await server.close()
            await store.close()


async def _expire_keys(store: PostgresAuthKeyStore) -> None:
    while True:
        try:
            gone = await store.expire()
            if gone:
                log.info("dropped %d expired temporary auth keys", gone)
        except Exception:
            log.exception("expiring temporary keys failed")
        await asyncio.sleep(EXPIRE_INTERVAL)
