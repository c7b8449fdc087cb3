from django.apps import AppConfig


class BotApiConfig(AppConfig):
    name = "botapi_app"
    verbose_name = "Bot API"

    def ready(self) -> None:
        from accounts_app import blocking
        from channels_app import notify
        from message_core import send_hooks
        from polls_app import vote_hooks

        from . import chat_updates, queue

        # In whichever process delivers a private message (the listener, a command, the
        # Bot API itself): the bot's queue row is written there, so nothing is lost while
        # the Bot API process is down.
        send_hooks.register_listener(queue.on_private_message)
        send_hooks.register_listener(queue.on_channel_message)
        send_hooks.register_edit_listener(queue.on_private_edit)
        send_hooks.register_edit_listener(queue.on_channel_edit)
        # Membership changes, told where they are made (durable as messages are).
        notify.add_sink(chat_updates.on_notify)
        vote_hooks.register(queue.on_poll_changed)
        blocking.register_listener(chat_updates.on_block)
