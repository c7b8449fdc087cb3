"""Run the MTProto listener: ``manage.py runmtproto [--host H] [--port P]``.

One asyncio event loop (uvloop when installed) serving TCP clients, with auth keys in
PostgreSQL, the RPC registry as dispatcher and the Redis push subscriber. The server RSA
key must exist (``manage.py rsakey ensure``; ``manage.py serve`` does that first).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from edge_app import current, push
from edge_app.dispatcher import EdgeDispatcher
from edge_app.keystore import PostgresAuthKeyStore
from edge_app.management.commands.rsakey import key_path, load_key
from mtproto.server import MTProtoServer

log = logging.getLogger("telesrv.mtproto")

EXPIRE_INTERVAL = 300.0


class Command(BaseCommand):
    help = "Run the MTProto TCP listener."

    def add_arguments(self, parser):
        parser.add_argument("--host", default=settings.MTPROTO_HOST)
        parser.add_argument("--port", type=int, default=settings.MTPROTO_PORT)

    def handle(self, *args, host, port, **options):
        rsa_key = load_key(key_path())  # a clear CommandError if it is missing
        try:
            import uvloop
        except ImportError:
            run = asyncio.run
        else:
            run = uvloop.run
        run(self._serve(host, port, rsa_key))

    async def _serve(self, host: str, port: int, rsa_key) -> None:
        try:
            store = await PostgresAuthKeyStore.open()
        except Exception as exc:
            db = settings.DATABASES["default"]
            raise CommandError(
                f"cannot reach PostgreSQL database {db['NAME']!r} at {db['HOST']}:{db['PORT']}: {exc}"
            ) from None
        server = MTProtoServer(EdgeDispatcher(store), store, rsa_key, dc_id=settings.MTPROTO_DC_ID)
        bound = await server.start(host, port)
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
        ]
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(ready.wait(), 10)
        self.stdout.write(f"MTProto listener on {host}:{bound} (dc {settings.MTPROTO_DC_ID})")
        self.stdout.flush()
        log.info("MTProto listener on %s:%d", host, bound)
        try:
            await stop.wait()
        finally:
            log.info("MTProto listener stopping")
            current.set(None)
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
