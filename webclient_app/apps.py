from django.apps import AppConfig


class WebclientConfig(AppConfig):
    name = "webclient_app"
    verbose_name = "Web client"
