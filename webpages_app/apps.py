from django.apps import AppConfig


class WebPagesConfig(AppConfig):
    name = "webpages_app"
    verbose_name = "Link previews"

    def ready(self) -> None:
        from edge_app import background
        from webpages_app import push, worker  # noqa: F401  (registers renderers)

        background.register("webpages.fetch", worker.run_fetch_job)
