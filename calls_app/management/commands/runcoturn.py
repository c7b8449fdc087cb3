"""Run coturn (Debian's ``coturn`` package, ``make coturn``) as telesrv's TURN server,
in the foreground, with a configuration made from the settings (never the system
service's /etc/turnserver.conf). ``--print`` shows the configuration instead."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from calls_app.coturn import CoturnConfig, parse_range


class Command(BaseCommand):
    help = "Run coturn with telesrv's TURN settings (TELESRV_CALL_TURN_*), in the foreground."

    def add_arguments(self, parser):
        parser.add_argument("--print", action="store_true", help="print the configuration and exit")
        parser.add_argument("--log-file", default="stdout", help="coturn's log (default: stdout)")
        parser.add_argument(
            "--log-traffic", action="store_true", help="coturn's verbose log: every allocation"
        )
        parser.add_argument(
            "--allow-loopback-peers", action="store_true", help="relay to 127.0.0.0/8 (tests)"
        )

    def handle(self, *args, **options):
        if not settings.CALL_TURN_SECRET:
            raise CommandError("set TELESRV_CALL_TURN_SECRET (shared with coturn) first")
        lo, hi = parse_range(settings.CALL_TURN_RELAY_PORTS)
        host, _, port = settings.CALL_TURN_LISTEN.rpartition(":")
        config = CoturnConfig(
            listen_ip=host or "127.0.0.1", port=int(port), secret=settings.CALL_TURN_SECRET, relay_min=lo,
            relay_max=hi, external_ip=settings.CALL_TURN_EXTERNAL_IP, tls_port=settings.CALL_TURN_TLS_PORT,
            cert=settings.CALL_TURN_CERT, pkey=settings.CALL_TURN_PKEY, log_file=options["log_file"],
            allow_loopback=options["allow_loopback_peers"], verbose=options["log_traffic"],
        )  # fmt: skip
        if options["print"]:
            self.stdout.write(config.text())
            return
        binary = shutil.which("turnserver") or "/usr/bin/turnserver"
        if not os.path.exists(binary):
            raise CommandError("coturn is not installed: make coturn (apt-get install -y coturn)")
        path = Path(settings.TELESRV_STATE_DIR) / "coturn.conf"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(config.text())
        path.chmod(0o600)  # it holds the shared secret
        os.execv(binary, [binary, "-c", str(path), "--pidfile", str(path.with_suffix(".pid"))])
