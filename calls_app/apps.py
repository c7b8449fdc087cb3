from django.apps import AppConfig


class CallsConfig(AppConfig):
    name = "calls_app"
    verbose_name = "Calls"

    def ready(self) -> None:
        from calls_app import push, rpc, timeouts  # noqa: F401  (registers handlers and renderers)
        from edge_app import background

        background.register("calls.timeouts", timeouts.run_timeout_job)
