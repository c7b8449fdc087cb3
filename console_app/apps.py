from django.apps import AppConfig


class ConsoleConfig(AppConfig):
    name = "console_app"
    verbose_name = "Console"

    def ready(self) -> None:
        from console_app import stickers_admin  # noqa: F401  (the sticker set pages)
