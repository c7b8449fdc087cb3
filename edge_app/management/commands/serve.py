"""Run the whole server: the MTProto listener and the admin console, each in its own
process (sharing one event loop with the admin costs the listener most of its
throughput, see ARCHITECTURE.md). When one of them dies, the other is stopped and the
command says which one and how."""

import signal
import subprocess
import sys
import time

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from edge_app.startup import refuse_unsafe_settings


def describe_exit(returncode: int) -> str:
    if returncode < 0:
        try:
            return f"was killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"was killed by signal {-returncode}"
    return f"exited with status {returncode}"


def next_steps() -> str:
    """What a newcomer does next, said where they look: the admin login, the console's
    groups, and the public key every client needs."""
    return (
        "Next steps (in another terminal):\n"
        "  .venv/bin/python manage.py createsuperuser       # your login for the admin console\n"
        "  .venv/bin/python manage.py create_staff_groups   # the console's operator and moderator groups\n"
        "  .venv/bin/python manage.py rsakey show           # the server's public key: clients need it\n"
        "                                                   # (--tdesktop: as a Telegram Desktop source literal)\n"
        "See README.md (quick start) and docs/operations.md." + calls_note()
    )


def calls_note() -> str:
    """Calls need a TURN server to get through NATs: whether this one runs coturn."""
    return _turn_note() + _sfu_note()


def _sfu_note() -> str:
    if settings.SFU_RUN:
        return (
            f"\nGroup calls: Janus with its API on {settings.SFU_LISTEN}, media ports"
            f" {settings.SFU_RTP_PORTS} (nodes: {', '.join(settings.SFU_NODES) or 'none configured!'})."
        )
    return (
        "\nGroup calls: no SFU. To run one: make sfu, then TELESRV_SFU_RUN=1"
        " TELESRV_SFU_NODES=local=http://127.0.0.1:8088/janus make serve (docs/operations.md, Group calls)."
    )


def _turn_note() -> str:
    if settings.CALL_TURN_RUN:
        return (
            f"\nCalls: coturn on {settings.CALL_TURN_LISTEN} (relay ports {settings.CALL_TURN_RELAY_PORTS})."
        )
    return (
        "\nCalls: no TURN server (peer to peer only). To relay calls through coturn: make coturn, then"
        " TELESRV_CALL_TURN_RUN=1 TELESRV_CALL_TURN_SECRET=<secret>"
        " TELESRV_CALL_TURN_SERVERS=127.0.0.1:3478 make serve (docs/operations.md, Calls)."
    )


class Command(BaseCommand):
    help = (
        "Run the MTProto listener (manage.py runmtproto) and the admin console (daphne) until"
        " interrupted; creates the RSA key on first run. For production run the two under a"
        " process supervisor instead (docs/operations.md)."
    )

    def handle(self, *args, **options):
        refuse_unsafe_settings()
        # The listener refuses to start without its RSA key: make one on first run.
        call_command("rsakey", "ensure", stdout=self.stdout)
        python = sys.executable
        children = [
            ("MTProto listener (manage.py runmtproto)", [python, "manage.py", "runmtproto"]),
            (
                "admin console (daphne)",
                [
                    python,
                    "-m",
                    "daphne",
                    "-b",
                    settings.ADMIN_HOST,
                    "-p",
                    str(settings.ADMIN_PORT),
                    "telesrv_project.asgi:application",
                ],
            ),
        ]
        children.append(("Bot API (manage.py runbotapi)", [python, "manage.py", "runbotapi"]))
        if settings.CALL_TURN_RUN:
            children.append(("coturn (manage.py runcoturn)", [python, "manage.py", "runcoturn"]))
        if settings.SFU_RUN:
            children.append(("group-call SFU, Janus (manage.py runsfu)", [python, "manage.py", "runsfu"]))
        procs = [(name, subprocess.Popen(argv)) for name, argv in children]
        self.stdout.write(
            f"MTProto on {settings.MTPROTO_HOST}:{settings.MTPROTO_PORT}, "
            f"admin on http://{settings.ADMIN_HOST}:{settings.ADMIN_PORT}/admin/, "
            f"Bot API on http://{settings.BOTAPI_HOST}:{settings.BOTAPI_PORT}/ (Ctrl-C stops all)\n"
            + next_steps()
        )
        self.stdout.flush()
        stopping = False

        def stop(signum, frame):
            nonlocal stopping
            stopping = True

        signal.signal(signal.SIGINT, stop)
        signal.signal(signal.SIGTERM, stop)
        crashed = None
        try:
            while not stopping and crashed is None:
                time.sleep(0.5)
                crashed = next(((n, p) for n, p in procs if p.poll() is not None), None)
        finally:
            for _, p in procs:
                if p.poll() is None:
                    p.terminate()
            for _, p in procs:
                try:
                    p.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        if crashed is not None and not stopping:
            name, proc = crashed
            pid = getattr(proc, "pid", "?")
            if proc.returncode == 0:
                self.stdout.write(f"the {name} (pid {pid}) exited; stopped the other process too")
                return
            where = " Its own error is printed above." if proc.returncode > 0 else ""
            raise CommandError(
                f"the {name} {describe_exit(proc.returncode)} (pid {pid}); stopped the other process too.{where}"
            )
