"""Create the files of the standard reaction catalog ahead of the first request."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from media_app import reaction_assets
from message_core import reactions as rx


class Command(BaseCommand):
    help = (
        "Generate and store the standard reactions' icons and animations (idempotent: "
        "files and documents that exist are kept)."
    )

    def handle(self, *args, **options):
        documents = reaction_assets.do_ensure_reaction_documents(rx.STANDARD)
        n = sum(len(roles) for roles in documents.values())
        self.stdout.write(f"{len(documents)} reactions, {n} documents ready")
