"""The limits help.getAppConfig announces, taken from the modules that enforce them, so
a client never offers more than the server accepts (accounts_app.app_config)."""

from __future__ import annotations


def install() -> None:
    from accounts_app import actions as account_actions
    from accounts_app import app_config
    from channels_app.actions.usernames import PUBLIC_CHANNELS_PER_USER_MAX
    from media_app.uploads import PARTS_MAX
    from message_core import limits
    from messages_app.dialog_filters import FILTERS_MAX

    both = {
        "about_length_limit": account_actions.ABOUT_MAX,
        "caption_length_limit": limits.CAPTION_MAX,
        "channels_limit": limits.CHANNELS_PER_USER_MAX,
        "channels_public_limit": PUBLIC_CHANNELS_PER_USER_MAX,
        "dialog_filters_limit": FILTERS_MAX,
        "dialogs_pinned_limit": limits.PINNED_DIALOGS_MAX,
        "dialogs_folder_pinned_limit": limits.PINNED_DIALOGS_MAX,
        "upload_max_fileparts": PARTS_MAX,
    }
    values = {f"{key}_{kind}": value for key, value in both.items() for kind in ("default", "premium")}
    values["quote_length_max"] = limits.QUOTE_TEXT_MAX
    values["topics_pinned_limit"] = limits.FORUM_PINNED_TOPICS_MAX
    app_config.contribute(values)
