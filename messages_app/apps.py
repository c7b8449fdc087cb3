import importlib

from django.apps import AppConfig

RPC_MODULES = (
    "messages", "dialogs", "dialog_filters", "search", "compat", "reactions", "media", "topics", "reports",
    "scheduled", "webpages", "polls", "stories", "saved",
)  # fmt: skip


class MessagesConfig(AppConfig):
    name = "messages_app"
    verbose_name = "Messages of any peer"

    def ready(self) -> None:
        for name in RPC_MODULES:
            importlib.import_module(f"messages_app.rpc.{name}")
        from messages_app import update_kinds

        update_kinds.install()
        from messages_app import poll_push

        poll_push.install()
        from messages_app import app_config_limits

        app_config_limits.install()
