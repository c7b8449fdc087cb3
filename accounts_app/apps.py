from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts_app"
    verbose_name = "Accounts"
