import importlib
import logging

from django.apps import AppConfig

log = logging.getLogger("telesrv.accounts")

RPC_MODULES = (
    "auth",
    "account",
    "users",
    "contacts",
    "updates",
    "photos",
    "startup",
    # Remove when channels_app serves the dialog list (see the module).
    "dialogs_placeholder",
)


class AccountsConfig(AppConfig):
    name = "accounts_app"
    verbose_name = "Accounts"

    def ready(self) -> None:
        from accounts_app import update_kinds  # noqa: F401  (registers renderers)
        from edge_app import registry

        for name in RPC_MODULES:
            importlib.import_module(f"accounts_app.rpc.{name}")
        try:
            from accounts_app import push  # noqa: F401  (needs edge_app.push)
        except ImportError:
            log.warning("edge_app.push is missing: account updates are not pushed live")
        set_authorizer = getattr(registry, "set_authorizer", None)
        if set_authorizer is not None:
            from accounts_app.authorizer import authorize

            set_authorizer(authorize)
