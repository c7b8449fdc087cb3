from django.apps import AppConfig


class MediaConfig(AppConfig):
    name = "media_app"
    verbose_name = "Media and files"

    def ready(self) -> None:
        from accounts_app.tl_convert import set_photo_renderer
        from media_app import (
            rpc,  # noqa: F401  (registers upload.* part and photos.* handlers)
            rpc_ringtones,  # noqa: F401  (account.*Ringtone*)
            rpc_wallpapers,  # noqa: F401  (account.*WallPaper*, setChatWallPaper)
        )
        from media_app.tl_convert import photo_to_tl

        set_photo_renderer(photo_to_tl)
