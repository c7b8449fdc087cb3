from django.apps import AppConfig


class SchedulingConfig(AppConfig):
    name = "scheduling_app"
    verbose_name = "Scheduled messages"

    def ready(self) -> None:
        from edge_app import background
        from scheduling_app import push, scheduler  # noqa: F401  (registers renderers)

        background.register("scheduling.deliver", scheduler.run_scheduler_job)
