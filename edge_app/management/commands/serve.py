"""Run the whole server: the MTProto listener and the admin console, each in its own
process (sharing one event loop with the admin costs the listener most of its
throughput, see ARCHITECTURE.md)."""

import signal
import subprocess
import sys
import time

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Run the MTProto listener and the admin console until interrupted."

    def handle(self, *args, **options):
        # The listener refuses to start without its RSA key: make one on first run.
        call_command("rsakey", "ensure", stdout=self.stdout)
        python = sys.executable
        procs = [
            subprocess.Popen([python, "manage.py", "runmtproto"]),
            subprocess.Popen(
                [
                    python,
                    "-m",
                    "daphne",
                    "-b",
                    settings.ADMIN_HOST,
                    "-p",
                    str(settings.ADMIN_PORT),
                    "telesrv_project.asgi:application",
                ]
            ),
        ]
        self.stdout.write(
            f"MTProto on {settings.MTPROTO_HOST}:{settings.MTPROTO_PORT}, "
            f"admin on http://{settings.ADMIN_HOST}:{settings.ADMIN_PORT}/admin/ (Ctrl-C stops both)"
        )
        stopping = False

        def stop(signum, frame):
            nonlocal stopping
            stopping = True

        signal.signal(signal.SIGINT, stop)
        signal.signal(signal.SIGTERM, stop)
        try:
            while not stopping and all(p.poll() is None for p in procs):
                time.sleep(0.5)
        finally:
            for p in procs:
                if p.poll() is None:
                    p.terminate()
            for p in procs:
                try:
                    p.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    p.kill()
        failed = [p for p in procs if p.returncode not in (0, -signal.SIGTERM, None)]
        if failed and not stopping:
            raise SystemExit(1)
