"""Run the Bot API server: ``manage.py runbotapi [--host H] [--port P]``.

An aiohttp server on one event loop: the HTTP methods call the domain actions directly,
the push subscriber wakes long polls and queues callback queries, and the webhook sender
delivers to bots that set a webhook."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal

from aiohttp import web
from django.conf import settings
from django.core.management.base import BaseCommand

from botapi_app import queue, webhook
from botapi_app.server import make_app
from edge_app import push
from edge_app.startup import refuse_unsafe_settings


class _NoSessions:
    """The push subscriber's edge: this process holds no MTProto sessions."""

    def sessions_of_user(self, user_id: int) -> list:
        return []

    def online_user_ids(self) -> list:
        return []  # channel pushes heard here find nobody to render for

    def drop_auth_key(self, auth_key_id: int) -> None:
        pass


class Command(BaseCommand):
    help = "Run the HTTP Bot API server (/bot<token>/<method>, /healthz, /readyz, /metrics) until SIGINT or SIGTERM."

    def add_arguments(self, parser):
        parser.add_argument("--host", default=settings.BOTAPI_HOST,
                            help="address to listen on (default: TELESRV_BOTAPI_HOST, %(default)s)")  # fmt: skip
        parser.add_argument("--port", type=int, default=settings.BOTAPI_PORT,
                            help="HTTP port (default: TELESRV_BOTAPI_PORT, %(default)s)")  # fmt: skip

    def handle(self, *args, **options):
        refuse_unsafe_settings()
        try:
            import uvloop  # as the listener: the loop's own work is a share of every call
        except ImportError:
            run = asyncio.run
        else:
            run = uvloop.run
        serving = self._serve(options["host"], options["port"])
        profile_to = os.environ.get("TELESRV_BOTAPI_PROFILE")
        if not profile_to:
            run(serving)
            return
        # Where the process's CPU goes (bench/bench_botapi.py --profile, docs/bots.md):
        # cProfile over the whole run, written at a clean stop.
        import cProfile
        import time

        profiler = cProfile.Profile(time.process_time)
        profiler.enable()
        try:
            run(serving)
        finally:
            profiler.disable()
            profiler.dump_stats(profile_to)

    async def _serve(self, host: str, port: int) -> None:
        push.subscriber(push.USERS_KIND)(queue.on_pushed)
        push.subscriber(queue.WAKE_EVENT)(queue.on_wake)
        runner = web.AppRunner(make_app(), access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, host, port)
        await site.start()
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        tasks = [
            loop.create_task(push.run_subscriber(_NoSessions(), listener=False)),
            loop.create_task(webhook.run_sender()),
        ]
        self.stdout.write(f"Bot API on http://{host}:{port}/bot<token>/<method>")
        self.stdout.flush()
        try:
            await stop.wait()
        finally:
            for t in tasks:
                t.cancel()
            for t in tasks:
                with contextlib.suppress(asyncio.CancelledError):
                    await t
            await runner.cleanup()
