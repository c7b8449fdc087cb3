"""Print what one client family changes to connect to this deployment: ``manage.py
clientconfig <client>`` (edge_app.client_config; docs/clients.md). For Telegram Desktop,
``--patch BINARY -o OUT`` writes a pointed copy of a Linux build instead
(edge_app.tdesktop_patch)."""

from __future__ import annotations

import os
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from edge_app import client_config, tdesktop_patch
from edge_app.management.commands.rsakey import load_key


class Command(BaseCommand):
    help = "Print the DC list and RSA key in the form a client family takes them."

    def add_arguments(self, parser):
        parser.add_argument("client", choices=client_config.CLIENTS)
        parser.add_argument("--ws-url", default="", help="the public wss:// URL web clients use")
        parser.add_argument(
            "--patch", metavar="BINARY", help="tdesktop: a Linux Telegram Desktop binary to copy"
        )
        parser.add_argument(
            "-o", "--output", metavar="OUT", help="tdesktop --patch: where the pointed copy goes"
        )

    def handle(self, *args, client, ws_url, patch, output, **options):
        d = client_config.deployment(load_key(), ws_url)
        if patch is None:
            self.stdout.write(client_config.render(client, d).rstrip("\n"))
            return
        if client != "tdesktop" or not output:
            raise CommandError("--patch BINARY -o OUT is for tdesktop only, and needs both")
        self._patch(d, Path(patch), Path(output))

    def _patch(self, d: client_config.Deployment, binary: Path, out: Path) -> None:
        try:
            data = binary.read_bytes()
        except OSError as exc:
            raise CommandError(f"cannot read {binary}: {exc}") from exc
        m = d.main
        try:
            pointed, report = tdesktop_patch.patch(data, m.host, m.port, d.pem.encode())
        except tdesktop_patch.PatchRefused as exc:
            raise CommandError(f"{binary}: {exc} (nothing written)") from exc
        tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
        tmp.write_bytes(pointed)
        tmp.chmod(0o755)
        os.replace(tmp, out)
        ports = (
            f"ports rewritten to {m.port} in {report.ports_rewritten} DC entries"
            if report.ports_rewritten
            else f"port {tdesktop_patch.TELEGRAM_PORT} (the listener's public port)"
        )
        self.stdout.write(
            f"wrote {out}: {len(report.addresses)} DC addresses -> {m.host} "
            f"(IPv6: {tdesktop_patch.ipv6_stand_in(m.host)}), {ports}, "
            f"RSA keys replaced ({', '.join(report.keys)}; fingerprint {d.fingerprint:016x})"
        )
