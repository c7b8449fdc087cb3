import importlib

from django.apps import AppConfig

RPC_MODULES = ("sets", "library", "discovery", "emoji")


class StickersConfig(AppConfig):
    name = "stickers_app"
    verbose_name = "Stickers, GIFs and custom emoji"

    def ready(self) -> None:
        for name in RPC_MODULES:
            importlib.import_module(f"stickers_app.rpc.{name}")
        from stickers_app import update_kinds

        update_kinds.install()
