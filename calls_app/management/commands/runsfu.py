"""Run Janus (Debian's ``janus`` package, ``make sfu``) as telesrv's group-call SFU node,
in the foreground, with the configuration in calls_app/sfu/janus/ filled in from the
settings (never the system service's /etc/janus). ``--print-dir`` writes the
configuration and prints its directory instead."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from calls_app.sfu import janus_config


class Command(BaseCommand):
    help = "Run Janus with telesrv's SFU settings (TELESRV_SFU_*), in the foreground."

    def add_arguments(self, parser):
        parser.add_argument("--listen", default=None, help="HTTP API host:port (default TELESRV_SFU_LISTEN)")
        parser.add_argument(
            "--rtp-ports", default=None, help="UDP range lo-hi (default TELESRV_SFU_RTP_PORTS)"
        )
        parser.add_argument("--config-dir", default=None, help="where to write Janus' configuration")
        parser.add_argument("--log-file", default=None, help="Janus' log (default: stdout)")
        parser.add_argument("--print-dir", action="store_true", help="write the configuration and exit")

    def handle(self, *args, **options):
        listen = options["listen"] or settings.SFU_LISTEN
        host, _, port = listen.rpartition(":")
        target = Path(options["config_dir"] or Path(settings.TELESRV_STATE_DIR) / "janus")
        janus_config.write(
            target, http_ip=host or "127.0.0.1", http_port=int(port),
            rtp_ports=options["rtp_ports"] or settings.SFU_RTP_PORTS, interface=settings.SFU_INTERFACE,
        )  # fmt: skip
        if options["print_dir"]:
            self.stdout.write(str(target))
            return
        binary = shutil.which("janus") or "/usr/bin/janus"
        if not os.path.exists(binary):
            raise CommandError("Janus is not installed: make sfu (apt-get install -y janus)")
        argv = [binary, "-F", str(target), "-C", str(target / "janus.jcfg")]
        if options["log_file"]:
            argv += ["-L", options["log_file"]]
        os.execv(binary, argv)
