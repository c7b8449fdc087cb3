"""Accounts: users, login codes, authorizations, contacts and the account update log."""

from django.db import models
from django.db.models.functions import Lower

# Where the ids of new accounts start (migration 0014 moves the sequence): above every id
# a client reserves or special-cases - Web K files peer 1 as its Archive folder, and
# 777000 (the service account), 489000, 2666000 and 1271266957 mean fixed things to the
# apps - and apart from channel ids (channels_app.counters.CHANNEL_ID_BASE). The service
# account is created with its own fixed id below the range.
USER_ID_BASE = 5_000_000_000


class User(models.Model):
    """A Telegram account. ``id`` is the user id clients see."""

    id = models.BigAutoField(primary_key=True)
    # Unique through user_phones (a trigger keeps it): a unique index here would have to
    # include ``id`` once users are distributed by it (telesrv_project/sharding.py).
    phone = models.CharField(max_length=32, db_index=True, help_text="digits only, no leading +")
    first_name = models.CharField(max_length=64)
    last_name = models.CharField(max_length=64, blank=True, default="")
    # Display spelling; uniqueness is case-insensitive (user_usernames, kept by a trigger)
    # and shared with channels through accounts_app.usernames.
    username = models.CharField(max_length=32, null=True, blank=True)
    about = models.CharField(max_length=255, blank=True, default="")
    lang_code = models.CharField(max_length=16, blank=True, default="")
    # userStatusOnline(expires) while online_until is in the future, else
    # userStatusOffline(was_online=last_seen).
    online_until = models.DateTimeField(null=True, blank=True)
    last_seen = models.DateTimeField(null=True, blank=True)
    created = models.DateTimeField(auto_now_add=True)
    deleted = models.BooleanField(default=False)
    # Where login codes go by e-mail (LOGIN_CODE_DELIVERY="email"), set with
    # account.sendVerifyEmailCode / verifyEmail; the address being verified and its code.
    login_email = models.CharField(max_length=254, blank=True, default="")
    login_email_pending = models.CharField(max_length=254, blank=True, default="")
    login_email_code = models.CharField(max_length=16, blank=True, default="")
    # Last pts allocated in this user's account update log (user_update_events). Bumped
    # under the row lock, so allocation is gapless and ordered per user. A new account
    # starts at 1 as on Telegram: clients read pts 0 from updates.getState as "no saved
    # state" and would start fresh, losing their catch-up.
    pts = models.BigIntegerField(default=1)
    # The current profile photo as users see it on the user: {"id", "stripped"} (media_app
    # keeps the photos themselves).
    photo = models.JSONField(null=True, blank=True)
    # Set on bot accounts only: how a bot renders on the user object, a snapshot kept by
    # bots_app (which owns the bot's token, owner and settings): {"v": bot_info_version,
    # "nochats": bool, "history": bool (privacy mode off), "placeholder": str | None}.
    bot = models.JSONField(null=True, blank=True)

    class Meta:
        db_table = "users"
        # Not "user": the console also lists Django's own staff users.
        verbose_name = "Telegram user"
        indexes = [models.Index(Lower("username"), name="users_username_lower")]

    def __str__(self) -> str:
        name = f"{self.first_name} {self.last_name}".strip()
        return f"{name} ({self.id})"


class UserPhone(models.Model):
    """Which user holds a phone number: its primary key makes phones unique across all
    users. Written only by the trigger on ``users`` (migration 0013), never by code."""

    phone = models.CharField(max_length=32, primary_key=True)
    user_id = models.BigIntegerField()

    class Meta:
        db_table = "user_phones"


class UserUsername(models.Model):
    """Which user holds a username (lower case): unique across all users, like
    ``user_phones``, and written the same way."""

    username_lower = models.CharField(max_length=32, primary_key=True)
    user_id = models.BigIntegerField()

    class Meta:
        db_table = "user_usernames"


class LoginCode(models.Model):
    """One code sent by auth.sendCode; operators read ``code`` in the admin."""

    phone = models.CharField(max_length=32, db_index=True)
    phone_code_hash = models.CharField(max_length=64, unique=True)
    code = models.CharField(max_length=16)
    created = models.DateTimeField(auto_now_add=True)
    expires = models.DateTimeField()
    attempts = models.PositiveIntegerField(default=0)
    resends = models.PositiveIntegerField(default=0)
    # auth.signIn checked the code for a phone without an account: auth.signUp may now
    # use this phone_code_hash without a code (that is how the API defines sign-up).
    verified = models.BooleanField(default=False)
    # Set once the code was used to sign in / up, or cancelled: it never works again.
    used = models.BooleanField(default=False)
    # Too many wrong attempts lock the phone until then (FLOOD_WAIT_X).
    locked_until = models.DateTimeField(null=True, blank=True)
    # How the code went out last (accounts_app.code_delivery): "app" (a message from the
    # service user to the account's other sessions), "email", "sms" (webhook), "log".
    via = models.CharField(max_length=8, blank=True, default="log")

    class Meta:
        db_table = "login_codes"
        indexes = [models.Index(fields=["phone", "-created"], name="login_codes_phone_recent")]

    def __str__(self) -> str:
        return f"+{self.phone} {self.code}"


class Authorization(models.Model):
    """A logged-in device: the permanent auth key it signed in with, and the user.

    Temporary keys are bound to a permanent key (auth.bindTempAuthKey), so looking up by
    the permanent key id covers both.
    """

    perm_auth_key_id = models.BigIntegerField(unique=True)
    # No database constraint: authorizations stay on the coordinator and users are
    # distributed (telesrv_project/sharding.py); the ORM still cascades deletes.
    user = models.ForeignKey(
        User, on_delete=models.CASCADE, db_constraint=False, related_name="authorizations"
    )
    # The `hash` of the authorization TL object (account.getAuthorizations / reset).
    hash = models.BigIntegerField(unique=True)
    api_id = models.IntegerField(default=0)
    device_model = models.CharField(max_length=128, blank=True, default="")
    platform = models.CharField(max_length=64, blank=True, default="")
    system_version = models.CharField(max_length=128, blank=True, default="")
    app_name = models.CharField(max_length=128, blank=True, default="")
    app_version = models.CharField(max_length=64, blank=True, default="")
    ip = models.CharField(max_length=64, blank=True, default="")
    # The language the device uses (initConnection's lang_code), kept per authorization.
    lang_code = models.CharField(max_length=16, blank=True, default="", db_default="")
    created = models.DateTimeField(auto_now_add=True)
    active = models.DateTimeField(auto_now=True)
    # The login code was right but the account has a two-step password: the key
    # authorizes nobody until auth.checkPassword succeeds.
    password_pending = models.BooleanField(default=False)

    class Meta:
        db_table = "authorizations"

    def __str__(self) -> str:
        return f"{self.user_id} on {self.device_model or 'unknown device'}"


class Contact(models.Model):
    """``owner`` has ``user`` in their contact list under the names they chose."""

    owner = models.ForeignKey(User, on_delete=models.CASCADE, related_name="contacts")
    # The contact's row lives on another shard than the owner's (telesrv_project/sharding.py).
    user = models.ForeignKey(User, on_delete=models.CASCADE, db_constraint=False, related_name="+")
    first_name = models.CharField(max_length=64, blank=True, default="")
    last_name = models.CharField(max_length=64, blank=True, default="")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "contacts"
        constraints = [models.UniqueConstraint(fields=["owner", "user"], name="contacts_owner_user_uniq")]
        indexes = [models.Index(fields=["user", "owner"], name="contacts_user_owner")]


class UserUpdateEvent(models.Model):
    """The durable account update log: what updates.getDifference replays.

    ``pts`` is the user's pts after this event; the event covers
    ``pts - pts_count + 1 .. pts``.
    """

    id = models.BigAutoField(primary_key=True)
    user = models.ForeignKey(User, on_delete=models.CASCADE, db_constraint=False, related_name="+")
    pts = models.BigIntegerField()
    pts_count = models.IntegerField(default=1)
    type = models.CharField(max_length=64)
    payload = models.JSONField(default=dict)
    date = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "user_update_events"
        constraints = [models.UniqueConstraint(fields=["user", "pts"], name="user_update_events_user_pts")]

    def __str__(self) -> str:
        return f"{self.user_id}@{self.pts} {self.type}"


class NotifySetting(models.Model):
    """The owner's notification settings for one user peer (``scope="user"``) or for a
    peer kind (``scope`` "users" / "chats" / "broadcasts", ``peer_id`` 0). A channel's
    live on its channel dialog (accounts_app.notify_settings.register_peer_store)."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, db_constraint=False, related_name="+")
    scope = models.CharField(max_length=16)
    peer_id = models.BigIntegerField(default=0)
    settings = models.JSONField(default=dict)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "notify_settings"
        constraints = [
            models.UniqueConstraint(
                fields=["user", "scope", "peer_id"], name="notify_settings_user_scope_peer"
            )
        ]


class Block(models.Model):
    """``owner`` blocked ``user`` (contacts.block)."""

    id = models.BigAutoField(primary_key=True)
    owner = models.ForeignKey(User, on_delete=models.CASCADE, related_name="+")
    # The blocked user's row lives on another shard than the owner's.
    user = models.ForeignKey(User, on_delete=models.CASCADE, db_constraint=False, related_name="+")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "blocks"
        constraints = [models.UniqueConstraint(fields=["owner", "user"], name="blocks_owner_user_uniq")]
        indexes = [models.Index(fields=["owner", "-id"], name="blocks_owner_recent")]


class PrivacySetting(models.Model):
    """The owner's rules for one privacy key, in the order the client sent them
    (``[{"t": "allow_contacts"}, {"t": "disallow_users", "ids": [..]}, ...]``)."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=32)
    rules = models.JSONField(default=list)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "privacy_settings"
        constraints = [models.UniqueConstraint(fields=["user", "key"], name="privacy_settings_user_key")]


class TwoStepPassword(models.Model):
    """The SRP verifier of a user's two-step verification password (never the password).

    ``salt1`` / ``salt2`` / ``verifier`` follow Telegram's
    passwordKdfAlgoSHA256SHA256PBKDF2HMACSHA512iter100000SHA256ModPow (accounts_app.srp).
    """

    user = models.OneToOneField(User, on_delete=models.CASCADE, primary_key=True, related_name="+")
    salt1 = models.BinaryField()
    salt2 = models.BinaryField()
    verifier = models.BinaryField()
    hint = models.CharField(max_length=128, blank=True, default="")
    email = models.CharField(max_length=254, blank=True, default="")
    # An e-mail being confirmed (account.confirmPasswordEmail) and its code.
    email_unconfirmed = models.CharField(max_length=254, blank=True, default="")
    email_code = models.CharField(max_length=16, blank=True, default="")
    # auth.requestPasswordRecovery's code, sent to ``email``.
    recovery_code = models.CharField(max_length=16, blank=True, default="")
    recovery_expires = models.DateTimeField(null=True, blank=True)
    # Wrong passwords in a row and the wait they imposed (flood limit).
    failed_attempts = models.PositiveIntegerField(default=0)
    locked_until = models.DateTimeField(null=True, blank=True)
    # account.resetPassword without the password: it is removed once this moment has
    # passed; declining a reset bars a new request until ``reset_retry_at``.
    reset_at = models.DateTimeField(null=True, blank=True)
    reset_retry_at = models.DateTimeField(null=True, blank=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "two_step_passwords"


from .models_login_tokens import *  # noqa: E402, F403
from .models_reactions import *  # noqa: E402, F403  (so Django sees the reaction lists)
from .models_settings import *  # noqa: E402, F403
from .models_takeout import *  # noqa: E402, F403
