"""Per-account settings that follow the account to every device."""

from django.db import models


class AccountSettings(models.Model):
    """One row per account that changed a default (accounts_app.account_settings)."""

    user = models.OneToOneField(
        "accounts_app.User", on_delete=models.CASCADE, primary_key=True, related_name="+"
    )
    # messages.setDefaultReaction: the emoji (or "custom:<document id>") of a double tap
    default_reaction = models.CharField(max_length=64, blank=True, default="")
    # account.saveAutoDownloadSettings: {"low"|"medium"|"high": {field: value}}
    auto_download = models.JSONField(default=dict, blank=True)
    # account.setGlobalPrivacySettings: the flags of globalPrivacySettings that are set
    global_privacy = models.JSONField(default=dict, blank=True)
    # account.setAccountTTL: the account is deleted after this many days without activity
    ttl_days = models.IntegerField(default=365)
    # account.updateBirthday: {"day", "month", "year"?}; shown as the birthday privacy
    # rule allows
    birthday = models.JSONField(null=True, blank=True)
    # account.updatePersonalChannel: a channel the user owns, shown on their profile
    personal_channel_id = models.BigIntegerField(default=0)
    # account.updateColor: {"color", "background_emoji_id"} for names / the profile
    color = models.JSONField(null=True, blank=True)
    profile_color = models.JSONField(null=True, blank=True)
    # account.setAuthorizationTTL: devices inactive this long are logged out
    authorization_ttl_days = models.IntegerField(default=180)
    # account.setContentSettings: show sensitive media
    sensitive_enabled = models.BooleanField(default=False)
    # account.setContactSignUpNotification(silent): no "X joined Telegram" notices
    contact_signup_silent = models.BooleanField(default=False)
    # account.deleteAccount of an account with a password, without the password: the
    # deletion waits until then (the self-destruct job carries it out)
    delete_at = models.DateTimeField(null=True, blank=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "account_settings"
        indexes = [
            models.Index(
                fields=["delete_at"],
                name="account_settings_delete_at",
                condition=models.Q(delete_at__isnull=False),
            )
        ]
