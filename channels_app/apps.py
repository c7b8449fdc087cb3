from django.apps import AppConfig


class ChannelsConfig(AppConfig):
    name = "channels_app"
    verbose_name = "Channels and supergroups"
