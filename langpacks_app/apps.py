from django.apps import AppConfig


class LangpacksConfig(AppConfig):
    name = "langpacks_app"
    verbose_name = "Language packs"

    def ready(self) -> None:
        from langpacks_app import push, rpc  # noqa: F401  (registers the langpack.* handlers, the push)
