"""Account settings (accounts_app.account_settings) <-> TL."""

from __future__ import annotations

from accounts_app import account_settings
from tl import types


def auto_download_from_tl(s) -> dict:
    return {name: getattr(s, name) for name in account_settings.AUTO_DOWNLOAD_FIELDS}


def auto_download_to_tl(presets: dict[str, dict]):
    def one(values: dict):
        return types.AutoDownloadSettings(
            disabled=values.get("disabled") or None,
            video_preload_large=values.get("video_preload_large") or None,
            audio_preload_next=values.get("audio_preload_next") or None,
            phonecalls_less_data=values.get("phonecalls_less_data") or None,
            stories_preload=values.get("stories_preload") or None,
            photo_size_max=int(values.get("photo_size_max", 0)),
            video_size_max=int(values.get("video_size_max", 0)),
            file_size_max=int(values.get("file_size_max", 0)),
            video_upload_maxbitrate=int(values.get("video_upload_maxbitrate") or 100),
            small_queue_active_operations_max=int(values.get("small_queue_active_operations_max") or 5),
            large_queue_active_operations_max=int(values.get("large_queue_active_operations_max") or 2),
        )

    return types.account.AutoDownloadSettings(
        low=one(presets["low"]), medium=one(presets["medium"]), high=one(presets["high"])
    )


def global_privacy_from_tl(s) -> dict:
    return {name: bool(getattr(s, name, False)) for name in account_settings.GLOBAL_PRIVACY_FLAGS}


def global_privacy_to_tl(flags: dict):
    return types.GlobalPrivacySettings(**{k: (True if v else None) for k, v in flags.items()})


def account_ttl_to_tl(days: int):
    return types.AccountDaysTTL(days=days)


def birthday_from_tl(b) -> dict | None:
    if b is None:
        return None
    return {"day": b.day, "month": b.month, "year": b.year}


def color_from_tl(c) -> tuple[int | None, int]:
    """(colour, background emoji id) of a PeerColor (a collectible colour is refused by
    the caller: there are no collectibles here)."""
    if c is None:
        return None, 0
    return c.color, c.background_emoji_id or 0


def config_changed_to_tl():
    """Other sessions re-read help.getConfig (its reactions_default changed)."""
    from accounts_app.tl_convert import update_short_to_tl

    return update_short_to_tl(types.UpdateConfig())


def support_to_tl(phone: str, user):
    return types.help.Support(phone_number=phone, user=user)


def reaction_to_tl(reaction: str):
    if reaction.startswith("custom:"):
        return types.ReactionCustomEmoji(document_id=int(reaction[7:]))
    return types.ReactionEmoji(emoticon=reaction)


def content_settings_to_tl(sensitive_enabled: bool):
    return types.account.ContentSettings(
        sensitive_enabled=sensitive_enabled or None, sensitive_can_change=True
    )
