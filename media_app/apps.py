from django.apps import AppConfig


class MediaConfig(AppConfig):
    name = "media_app"
    verbose_name = "Media and files"

    def ready(self) -> None:
        from media_app import rpc  # noqa: F401  (registers upload.saveFilePart / saveBigFilePart)
