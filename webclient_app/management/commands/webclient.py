"""``manage.py webclient build --src DIR``: build Telegram's web app (Web K) from a
source tree for this deployment; ``manage.py webclient status``: what is served.
docs/webclient.md."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from webclient_app import builder, pointing


class Command(BaseCommand):
    help = "Build the web client (Web K) from a source tree, or show the served build."

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        b = sub.add_parser("build", help="build a Web K tree (cached by its contents)")
        b.add_argument(
            "--src", required=True, help="the Web K source tree (a checkout of morethanwords/tweb)"
        )
        b.add_argument("--force", action="store_true", help="build again even if cached")
        sub.add_parser("status", help="the served build and where it points")

    def handle(self, *args, action, **options):
        if action == "build":
            src = Path(options["src"]).expanduser()
            if not src.is_dir():
                raise CommandError(f"{src} is not a directory")
            try:
                out = builder.build(src, log=self.stdout.write, force=options["force"])
            except pointing.UnknownTree as exc:
                raise CommandError(str(exc)) from exc
            self.stdout.write(f"serving {out / 'app'} at /web/ (WebSocket {pointing.ws_url()})")
            return
        found = builder.current()
        if found is None:
            self.stdout.write("no web client built yet: manage.py webclient build --src DIR")
            return
        self.stdout.write(f"{found} (WebSocket {pointing.ws_url()})")
