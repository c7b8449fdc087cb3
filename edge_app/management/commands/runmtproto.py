"""Run the MTProto listener (placeholder until the mtproto package lands)."""

import asyncio
import logging

from django.conf import settings
from django.core.management.base import BaseCommand

log = logging.getLogger("telesrv.mtproto")


class Command(BaseCommand):
    help = "Run the MTProto TCP listener."

    def add_arguments(self, parser):
        parser.add_argument("--host", default=settings.MTPROTO_HOST)
        parser.add_argument("--port", type=int, default=settings.MTPROTO_PORT)

    def handle(self, *args, host, port, **options):
        asyncio.run(self._serve(host, port))

    async def _serve(self, host: str, port: int) -> None:
        async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            log.info("connection from %s", writer.get_extra_info("peername"))
            writer.close()

        server = await asyncio.start_server(on_connect, host, port)
        log.info("MTProto listener on %s:%d", host, port)
        async with server:
            await server.serve_forever()
