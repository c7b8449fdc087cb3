from django.apps import AppConfig


class ChatlistsConfig(AppConfig):
    name = "chatlists_app"
    verbose_name = "Shared folders (folder links)"

    def ready(self) -> None:
        from accounts_app import app_config
        from chatlists_app import actions
        from chatlists_app.rpc import chatlists  # noqa: F401 - registers the handlers
        from messages_app import dialog_filters
        from webpages_app import actions as webpages

        dialog_filters.on_filter_deleted(actions.forget_folder)
        webpages.register_local_reader(actions.link_page)
        # The limits these handlers enforce; no premium here, so both values alike.
        limits = {
            "chatlist_invites_limit": actions.INVITES_PER_FOLDER_MAX,
            "chatlists_joined_limit": actions.CHATLISTS_JOINED_MAX,
            "chatlist_joined_limit": actions.CHATLISTS_JOINED_MAX,  # the key some clients read
        }
        values = {f"{k}_{kind}": v for k, v in limits.items() for kind in ("default", "premium")}
        values["chatlist_update_period"] = actions.UPDATE_PERIOD
        app_config.contribute(values)
