import importlib

from django.apps import AppConfig

RPC_MODULES = ("auth", "bots", "messages")


class BotsConfig(AppConfig):
    name = "bots_app"
    verbose_name = "Bots"

    def ready(self) -> None:
        from accounts_app import tl_convert as accounts_tl
        from bots_app import tl_convert

        for name in RPC_MODULES:
            importlib.import_module(f"bots_app.rpc.{name}")
        accounts_tl.set_bot_info_renderer(tl_convert.bot_info_for_viewer)
        from bots_app import push, send_rules, service_bot  # noqa: F401  (push registers renderers)
        from edge_app import background
        from message_core import send_hooks

        send_hooks.register_listener(service_bot.on_private_message)
        send_hooks.register_guard(send_rules.guard)
        background.register("bots.service_bot", service_bot.ensure_job)
