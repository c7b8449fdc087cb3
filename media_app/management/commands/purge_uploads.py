"""Delete upload parts no message or photo used within the TTL (TELESRV_UPLOAD_TTL)."""

from __future__ import annotations

import sys

from django.core.management.base import BaseCommand

from media_app import uploads


def progress(done: int, total: int, out) -> None:
    width = 30
    filled = width * done // total if total else width
    out.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
    out.flush()


class Command(BaseCommand):
    help = "Delete expired upload parts (uploads left unused for longer than TELESRV_UPLOAD_TTL seconds)."

    def add_arguments(self, parser):
        parser.add_argument("--ttl", type=int, default=None, help="seconds (default: TELESRV_UPLOAD_TTL)")
        parser.add_argument("--dry-run", action="store_true", help="only count what would be deleted")

    def handle(self, *args, ttl=None, dry_run=False, **options):
        expired = uploads.expired_uploads(ttl=ttl)
        out = self.stdout if self.stdout.isatty() else sys.stderr
        for i, d in enumerate(expired, 1):
            if not dry_run:
                uploads.purge(d)
            progress(i, len(expired), out)
        if expired:
            out.write("\n")
        verb = "would delete" if dry_run else "deleted"
        self.stdout.write(f"{verb} {len(expired)} expired upload(s)")
