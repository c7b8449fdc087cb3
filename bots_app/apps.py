import importlib

from django.apps import AppConfig

RPC_MODULES = ("auth", "bots", "inline", "messages", "webapps")


class BotsConfig(AppConfig):
    name = "bots_app"
    verbose_name = "Bots"

    def ready(self) -> None:
        from accounts_app import tl_convert as accounts_tl
        from bots_app import group_info, method_rules, privacy_mode, push, send_rules, service_bot, tl_convert  # noqa: F401
        from channels_app import viewer_hooks
        from edge_app import background, registry
        from message_core import send_hooks

        for name in RPC_MODULES:
            importlib.import_module(f"bots_app.rpc.{name}")
        accounts_tl.set_bot_info_renderer(tl_convert.bot_info_for_viewer)
        send_hooks.register_listener(service_bot.on_private_message)
        send_hooks.register_guard(send_rules.guard)
        registry.add_gate(method_rules.gate)
        viewer_hooks.register_message_filter(privacy_mode.hides)
        viewer_hooks.register_viewer_prefetch(privacy_mode.prefetch)
        viewer_hooks.register_bot_info_renderer(group_info.bot_infos)
        viewer_hooks.register_difference_cap(send_rules.difference_cap)
        background.register("bots.service_bot", service_bot.ensure_job)
