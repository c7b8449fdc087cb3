import importlib
import logging

from django.apps import AppConfig

log = logging.getLogger("telesrv.channels")

RPC_MODULES = (
    "channels",
    "updates",
    "admin",
    "invites",
    "settings",
    "legacy_chats",
    "compat_stubs",
    "stats",
    "search",
    "discussion",
    "personal_channel",
)


class ChannelsConfig(AppConfig):
    name = "channels_app"
    verbose_name = "Channels and supergroups"

    def ready(self) -> None:
        for name in RPC_MODULES:
            importlib.import_module(f"channels_app.rpc.{name}")
        from channels_app import account_updates, notify_store, privacy_hooks, usernames
        from channels_app.chat_context import chats_for
        from message_core.context import set_chats_renderer

        set_chats_renderer(chats_for)

        account_updates.install()
        usernames.install()
        notify_store.install()
        privacy_hooks.install()
        from channels_app import push

        push.install()
        from channels_app.actions import pts_repair
        from edge_app import background

        background.register("channels.pts_repair", pts_repair.run_repair_job)
