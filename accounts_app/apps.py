import importlib

from django.apps import AppConfig

RPC_MODULES = (
    "auth",
    "account",
    "users",
    "contacts",
    "updates",
    "startup",
    "notify",
    "privacy",
    "password",
    "login_email",
    "settings",
    "takeout",
    "countries",
)


class AccountsConfig(AppConfig):
    name = "accounts_app"
    verbose_name = "Accounts"

    def ready(self) -> None:
        from accounts_app import update_kinds  # noqa: F401  (registers renderers)
        from edge_app import registry

        for name in RPC_MODULES:
            importlib.import_module(f"accounts_app.rpc.{name}")
        from accounts_app import push  # noqa: F401  (registers the push renderer)
        from accounts_app.authorizer import authorize

        registry.set_authorizer(authorize)
        from accounts_app import takeout

        registry.set_takeout_checker(takeout.check)
        from accounts_app import app_config, tl_convert

        app_config.contribute(tl_convert.APP_CONFIG)
        from accounts_app import account_deletion
        from edge_app import background

        background.register("accounts.self_destruct", account_deletion.run_self_destruct_job)
