from django.apps import AppConfig


class PrivateConfig(AppConfig):
    name = "private_app"
    verbose_name = "Private messages"

    def ready(self) -> None:
        from private_app import rpc, service_messages, typing, update_kinds  # noqa: F401  (registers handlers and renderers)

        service_messages.install()
