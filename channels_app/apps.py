import importlib
import logging

from django.apps import AppConfig

log = logging.getLogger("telesrv.channels")

RPC_MODULES = (
    "channels",
    "messages",
    "updates",
    "admin",
    "invites",
    "settings",
    "legacy_chats",
    "compat_stubs",
    "messages_compat",
)


class ChannelsConfig(AppConfig):
    name = "channels_app"
    verbose_name = "Channels and supergroups"

    def ready(self) -> None:
        for name in RPC_MODULES:
            importlib.import_module(f"channels_app.rpc.{name}")
        from channels_app import account_updates, usernames

        account_updates.install()
        usernames.install()
        from channels_app import push

        push.install()
