from django.apps import AppConfig


class CallsConfig(AppConfig):
    name = "calls_app"
    verbose_name = "Calls"

    def ready(self) -> None:
        from calls_app import group_actions, group_liveness, group_push, group_rpc, push, rpc, timeouts  # noqa: F401  (registers handlers and renderers)
        from channels_app import viewer_hooks
        from edge_app import background

        background.register("calls.timeouts", timeouts.run_timeout_job)
        background.register("calls.group_liveness", group_liveness.run_liveness_job)
        viewer_hooks.register_default_join_as(group_actions.default_join_as)
