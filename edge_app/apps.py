from django.apps import AppConfig


class EdgeConfig(AppConfig):
    """The Django side of the MTProto edge: auth key storage, the RPC dispatcher that
    the ``mtproto`` package calls, and the commands that run the listener."""

    name = "edge_app"
    verbose_name = "MTProto edge"

    def ready(self) -> None:
        from edge_app.rpc import help  # noqa: F401 - registers the handlers
