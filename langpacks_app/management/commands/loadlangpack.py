"""Load (or reload) one language of an app's pack from a .strings / .xml / .json file."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from langpacks_app import packs


class Command(BaseCommand):
    help = (
        "Load a language pack: Telegram's .strings (Desktop/iOS) or .xml (Android) export, "
        "or a JSON object of key -> string (plural forms as {one, other, ...}). The whole "
        "language is replaced; clients get the changes through langpack.getDifference."
    )

    def add_arguments(self, parser):
        parser.add_argument("file")
        parser.add_argument("--code", required=True, help="language code, e.g. de, pt-br")
        parser.add_argument(
            "--pack", default="", help='app pack: tdesktop, android, ios, macos, webk, weba; "" for all'
        )
        parser.add_argument("--name", required=True, help="English name, e.g. German")
        parser.add_argument("--native-name", required=True, help="its own name, e.g. Deutsch")
        parser.add_argument("--plural-code", default="", help="plural rules code (default: the language)")
        parser.add_argument("--base", default="", help="base language code of a variant")
        parser.add_argument("--rtl", action="store_true")
        parser.add_argument("--unofficial", action="store_true")

    def handle(self, *args, **opts):
        path = Path(opts["file"])
        try:
            parsed = packs.parse_file(path.name, path.read_text(encoding="utf-8"))
            result = packs.do_load_language(
                opts["pack"], opts["code"], parsed, name=opts["name"], native_name=opts["native_name"],
                plural_code=opts["plural_code"], base_lang_code=opts["base"], rtl=opts["rtl"],
                official=not opts["unofficial"],
            )  # fmt: skip
        except (OSError, ValueError) as exc:
            raise CommandError(str(exc)) from exc
        lang = result.language
        if result.added or result.changed or result.deleted:
            from asgiref.sync import async_to_sync

            from langpacks_app.push import announce_change

            try:
                async_to_sync(announce_change)(lang.lang_pack, lang.lang_code)
            except Exception as exc:  # Redis down: clients catch up at their next start
                self.stderr.write(f"connected clients not told: {exc}")
        self.stdout.write(
            f"{lang}: version {lang.version}, {lang.strings_count} strings "
            f"(+{result.added} ~{result.changed} -{result.deleted})"
        )
