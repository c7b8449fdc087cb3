"""Import a sticker or custom emoji set from a folder of .webp/.png/.tgs/.webm files
(e.g. an organisation's own emoji): every file is checked by the same rules as an
upload, the set gets its short name and can be featured right away.

    manage.py import_sticker_set ./acme-emoji --title "ACME" --short-name acme --kind emojis --feature
"""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from accounts_app.models import User
from stickers_app import operator
from tl.errors import RpcError


class Command(BaseCommand):
    help = "Create a sticker set from a folder of sticker files (emoji per file from emoji.json or the file name)."

    def add_arguments(self, parser):
        parser.add_argument("folder", type=Path)
        parser.add_argument("--title", required=True)
        parser.add_argument("--short-name", required=True)
        parser.add_argument("--kind", choices=("stickers", "masks", "emojis"), default="stickers")
        parser.add_argument(
            "--owner-phone", help="the user who owns (and may edit) the set; default: the operator"
        )
        parser.add_argument("--emoji", default=operator.DEFAULT_EMOJI, help="emoji of files that name none")
        parser.add_argument("--feature", action="store_true", help="show it in everyone's trending sets")
        parser.add_argument(
            "--special", default="",
            help="answer for a built-in set clients ask for by kind: animated_emoji, dice:🎲, emoji_default_statuses, ...",
        )  # fmt: skip

    def handle(self, *args, folder: Path, title: str, short_name: str, kind: str, owner_phone, emoji, feature,
               special, **options):  # fmt: skip
        if not folder.is_dir():
            raise CommandError(f"{folder} is not a folder")
        owner_id = 0
        if owner_phone:
            owner = User.objects.filter(phone=owner_phone).first()
            if owner is None:
                raise CommandError(f"no user with phone {owner_phone}")
            owner_id = owner.id
        try:
            row = operator.import_folder(
                folder, title=title, short_name=short_name, kind=kind, owner_id=owner_id,
                default_emoji=emoji, feature_it=feature, special=special,
            )  # fmt: skip
        except RpcError as e:
            raise CommandError(f"refused: {e.message}") from None
        except ValueError as e:
            raise CommandError(str(e)) from None
        self.stdout.write(
            f"created set {row.short_name} (id {row.id}, {kind}{', featured' if feature else ''})"
        )
