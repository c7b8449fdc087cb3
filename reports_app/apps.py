from django.apps import AppConfig


class ReportsConfig(AppConfig):
    name = "reports_app"
    verbose_name = "User reports"
