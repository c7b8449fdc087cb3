"""Account settings that follow the account to all its devices (``AccountSettings``):
the default reaction, auto-download limits, global privacy switches, the account's
time to live, birthday, personal channel and name / profile colours.

Setters validate and store; callers push what Telegram pushes (updateConfig after a new
default reaction, updateUser after a colour or birthday change). The other settings are
read back by the other devices with their getters, as on Telegram.
"""

from __future__ import annotations

import datetime as dt

from django.db import transaction

from accounts_app.models import AccountSettings, User
from tl.errors import BirthdayInvalidError, ColorInvalidError, TtlDaysInvalidError

# account.setAccountTTL: the periods Telegram's apps offer (1, 3, 6, 12, 18, 24 months)
TTL_DAYS = (30, 90, 180, 365, 548, 730)
DEFAULT_TTL_DAYS = 365
DEFAULT_REACTION = "\N{THUMBS UP SIGN}"
AUTO_DOWNLOAD_SLOTS = ("low", "medium", "high")
AUTO_DOWNLOAD_FIELDS = (
    "disabled",
    "video_preload_large",
    "audio_preload_next",
    "phonecalls_less_data",
    "stories_preload",
    "photo_size_max",
    "video_size_max",
    "file_size_max",
    "video_upload_maxbitrate",
    "small_queue_active_operations_max",
    "large_queue_active_operations_max",
)
_MB = 1024 * 1024
AUTO_DOWNLOAD_DEFAULTS = {
    "low": {"photo_size_max": _MB, "video_size_max": 0, "file_size_max": 0},
    "medium": {"photo_size_max": _MB, "video_size_max": 10 * _MB, "file_size_max": _MB},
    "high": {"photo_size_max": _MB, "video_size_max": 15 * _MB, "file_size_max": 3 * _MB},
}
AUTO_DOWNLOAD_SIZE_MAX = 4000 * 512 * 1024  # the largest file the server stores
GLOBAL_PRIVACY_FLAGS = (
    "archive_and_mute_new_noncontact_peers",
    "keep_archived_unmuted",
    "keep_archived_folders",
    "hide_read_marks",
)
# Accent colours 0..6 are the built-in ones every client has (help.getPeerColors
# offers no more); profile colours 0..15 likewise.
NAME_COLORS = 7
PROFILE_COLORS = 16


def get(user_id: int) -> AccountSettings:
    """The account's settings (defaults, unsaved, when it never changed one)."""
    return AccountSettings.objects.filter(user_id=user_id).first() or AccountSettings(user_id=user_id)


def _update(user_id: int, **fields) -> AccountSettings:
    with transaction.atomic():
        row, _ = AccountSettings.objects.select_for_update().get_or_create(user_id=user_id)
        for name, value in fields.items():
            setattr(row, name, value)
        row.save()
    return row


def default_reaction(user_id: int) -> str:
    return get(user_id).default_reaction or DEFAULT_REACTION


def do_set_default_reaction(user_id: int, reaction: str) -> None:
    """messages.setDefaultReaction (the caller checked the reaction exists)."""
    _update(user_id, default_reaction=reaction)


def auto_download(user_id: int) -> dict[str, dict]:
    saved = get(user_id).auto_download or {}
    return {slot: {**AUTO_DOWNLOAD_DEFAULTS[slot], **saved.get(slot, {})} for slot in AUTO_DOWNLOAD_SLOTS}


def do_save_auto_download(user_id: int, slot: str, values: dict) -> None:
    """account.saveAutoDownloadSettings for one preset (``low`` / ``medium`` /
    ``high``); sizes are clamped to what the server stores."""
    clean = {k: values[k] for k in AUTO_DOWNLOAD_FIELDS if k in values}
    for k in ("photo_size_max", "video_size_max", "file_size_max"):
        clean[k] = max(0, min(int(clean.get(k, 0)), AUTO_DOWNLOAD_SIZE_MAX))
    for k in (
        "video_upload_maxbitrate",
        "small_queue_active_operations_max",
        "large_queue_active_operations_max",
    ):
        clean[k] = max(0, min(int(clean.get(k, 0)), 10000))
    with transaction.atomic():
        row, _ = AccountSettings.objects.select_for_update().get_or_create(user_id=user_id)
        row.auto_download = {**(row.auto_download or {}), slot: clean}
        row.save(update_fields=["auto_download", "updated"])


def global_privacy(user_id: int) -> dict[str, bool]:
    saved = get(user_id).global_privacy or {}
    return {k: bool(saved.get(k)) for k in GLOBAL_PRIVACY_FLAGS}


def do_set_global_privacy(user_id: int, flags: dict) -> dict[str, bool]:
    """account.setGlobalPrivacySettings: the switches this server applies (archiving new
    non-contacts, read marks); premium / paid-message switches have no effect here."""
    clean = {k: bool(flags.get(k)) for k in GLOBAL_PRIVACY_FLAGS}
    if not clean["archive_and_mute_new_noncontact_peers"]:
        clean["keep_archived_unmuted"] = False
    _update(user_id, global_privacy=clean)
    return clean


def ttl_days(user_id: int) -> int:
    return get(user_id).ttl_days or DEFAULT_TTL_DAYS


def do_set_account_ttl(user_id: int, days: int) -> None:
    if days not in TTL_DAYS:
        raise TtlDaysInvalidError()
    _update(user_id, ttl_days=days)


def check_birthday(day: int, month: int, year: int | None) -> dict:
    this_year = dt.date.today().year
    if year is not None and not (this_year - 150 <= year <= this_year):
        raise BirthdayInvalidError()
    try:
        dt.date(year or 2000, month, day)  # 2000: a leap year, so 29 February is valid
    except (TypeError, ValueError):
        raise BirthdayInvalidError() from None
    return {"day": day, "month": month, **({"year": year} if year else {})}


def do_update_birthday(user_id: int, birthday: dict | None) -> None:
    """account.updateBirthday (None removes it)."""
    _update(user_id, birthday=check_birthday(**birthday) if birthday else None)


def do_update_personal_channel(user_id: int, channel_id: int) -> None:
    """account.updatePersonalChannel (0 removes it); the chat kinds check the user owns
    the channel before calling."""
    _update(user_id, personal_channel_id=channel_id)


def do_update_color(user_id: int, *, for_profile: bool, color: int | None, background_emoji_id: int) -> None:
    """account.updateColor: the colour of the user's name (or profile page), with an
    optional background emoji; no colour and no emoji resets it."""
    limit = PROFILE_COLORS if for_profile else NAME_COLORS
    if color is not None and not 0 <= color < limit:
        raise ColorInvalidError()
    value = None
    if color is not None or background_emoji_id:
        value = {"color": color, "background_emoji_id": background_emoji_id or 0}
    _update(user_id, **{"profile_color" if for_profile else "color": value})
    # the user's rendering changed for everyone (message_core's user cache drops it)
    from accounts_app.render_changes import user_render_changed

    user_render_changed(user_id)


def colors(user_ids: list[int]) -> dict[int, tuple[dict | None, dict | None]]:
    """(name colour, profile colour) of the users that set one."""
    return {
        r.user_id: (r.color, r.profile_color)
        for r in AccountSettings.objects.filter(user_id__in=user_ids).exclude(
            color__isnull=True, profile_color__isnull=True
        )
    }


def user_exists(user_id: int) -> bool:
    return User.objects.filter(id=user_id, deleted=False).exists()


def do_set_contact_signup_silent(user_id: int, silent: bool) -> None:
    """account.setContactSignUpNotification."""
    _update(user_id, contact_signup_silent=silent)


AUTHORIZATION_TTL_MIN, AUTHORIZATION_TTL_MAX = 7, 366


def authorization_ttl_days(user_id: int) -> int:
    return get(user_id).authorization_ttl_days or 180


def do_set_authorization_ttl(user_id: int, days: int) -> None:
    """account.setAuthorizationTTL: devices idle longer are logged out (by the
    self-destruct job). Telegram's apps offer 1 week .. 1 year."""
    if not AUTHORIZATION_TTL_MIN <= days <= AUTHORIZATION_TTL_MAX:
        raise TtlDaysInvalidError()
    _update(user_id, authorization_ttl_days=days)


def do_set_sensitive_enabled(user_id: int, enabled: bool) -> None:
    """account.setContentSettings."""
    _update(user_id, sensitive_enabled=enabled)


def contact_birthdays(viewer_id: int) -> list[tuple[int, dict]]:
    """contacts.getBirthdays: the viewer's contacts whose birthday their privacy rule
    shows the viewer (Telegram Desktop suggests greetings from it)."""
    from accounts_app import privacy
    from accounts_app.models import Contact

    ids = list(Contact.objects.filter(owner_id=viewer_id).values_list("user_id", flat=True)[:10_000])
    rows = dict(
        AccountSettings.objects.filter(user_id__in=ids, birthday__isnull=False).values_list(
            "user_id", "birthday"
        )
    )
    if not rows:
        return []
    seen = privacy.visibility(viewer_id, list(rows), (privacy.BIRTHDAY,))[privacy.BIRTHDAY]
    return [(uid, b) for uid, b in sorted(rows.items()) if uid in seen and b]
