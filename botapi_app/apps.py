from django.apps import AppConfig


class BotApiConfig(AppConfig):
    name = "botapi_app"
    verbose_name = "Bot API"

    def ready(self) -> None:
        from message_core import send_hooks

        from . import queue

        # In whichever process delivers a private message (the listener, a command, the
        # Bot API itself): the bot's queue row is written there, so nothing is lost while
        # the Bot API process is down.
        send_hooks.register_listener(queue.on_private_message)
        send_hooks.register_listener(queue.on_channel_message)
