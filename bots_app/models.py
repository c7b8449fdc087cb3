"""Bots: the bot accounts' tokens, owners and settings, their command lists, and the
service bot's conversations.

A bot is a user (``accounts_app.User``) with a :class:`Bot` row; the user row carries
the snapshot of flags every rendering of the user needs (``User.bot``), kept in step by
``bots_app.actions``.
"""

from django.db import models

from accounts_app.models import User


class Bot(models.Model):
    user = models.OneToOneField(User, on_delete=models.CASCADE, primary_key=True, related_name="+")
    # The owner's row lives on another shard than the bot's (telesrv_project/sharding.py).
    owner = models.ForeignKey(User, on_delete=models.CASCADE, db_constraint=False, related_name="+")
    # SHA-256 (hex) of the token's secret part; the token itself is shown once, when made.
    token_hash = models.CharField(max_length=64)
    # Hashes of revoked secrets (newest last, capped): logging in with one answers
    # ACCESS_TOKEN_EXPIRED instead of ACCESS_TOKEN_INVALID, as on Telegram.
    revoked_hashes = models.JSONField(default=list, blank=True)
    # Privacy mode: in groups the bot sees only commands, mentions, replies to itself
    # and service messages (admins see everything anyway).
    privacy = models.BooleanField(default=True)
    join_groups = models.BooleanField(default=True)
    # Inline mode is on when the placeholder is set ("" = off).
    inline_placeholder = models.CharField(max_length=64, blank=True, default="")
    inline_feedback = models.BooleanField(default=False)
    description = models.CharField(max_length=512, blank=True, default="")
    # None: the client's default; {"commands": true}; or {"text": .., "url": ..} (a web app).
    menu_button = models.JSONField(null=True, blank=True)
    # HMAC-SHA256(key="WebAppData", msg=token) of the current token, hex: the key web app
    # initData is signed with (bots_app.webapp_init_data). One-way, so the token itself
    # is still never kept; "" until the token is next issued or used.
    webapp_secret = models.CharField(max_length=64, blank=True, default="", db_default="")
    # Per language code: {"name", "about", "description"} set by bots.setBotInfo.
    localized = models.JSONField(default=dict, blank=True)
    # Bumped whenever botInfo changes, so clients refetch users.getFullUser.
    info_version = models.IntegerField(default=1)
    # An operator switched the bot off: its sessions are logged out, it cannot log in.
    deactivated = models.BooleanField(default=False)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "bots"
        indexes = [models.Index(fields=["owner", "created"], name="bots_owner_created")]

    def __str__(self) -> str:
        return f"bot {self.user_id} of {self.owner_id}"


class BotCommandSet(models.Model):
    """The commands of one scope and language (bots.setBotCommands).

    ``scope``: "default", "users", "chats", "chat_admins", "peer:<peer key>",
    "peer_admins:<peer key>", "peer_user:<peer key>:<user id>" (peer key: "u<id>" /
    "c<id>" for a user / channel).
    """

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="command_sets")
    scope = models.CharField(max_length=64)
    lang_code = models.CharField(max_length=16, blank=True, default="")
    commands = models.JSONField(default=list)  # [{"command", "description"}]

    class Meta:
        db_table = "bot_command_sets"
        constraints = [
            models.UniqueConstraint(fields=["bot", "scope", "lang_code"], name="bot_command_sets_uniq")
        ]


class ServiceChat(models.Model):
    """Where a user's conversation with the service bot stands: the command waiting for
    its next answer (``step``), the bot it is about and what was collected so far."""

    user = models.OneToOneField(User, on_delete=models.CASCADE, primary_key=True, related_name="+")
    step = models.CharField(max_length=32, blank=True, default="")
    bot_id = models.BigIntegerField(null=True, blank=True)
    data = models.JSONField(default=dict, blank=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "bot_service_chats"


class BotWebApp(models.Model):
    """A bot's named Mini App (@BotFather's /newapp): opened by ``t.me/bot/short_name``
    links through messages.getBotApp / requestAppWebView."""

    id = models.BigAutoField(primary_key=True)
    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="web_apps")
    access_hash = models.BigIntegerField()
    short_name = models.CharField(max_length=64)
    title = models.CharField(max_length=64)
    description = models.CharField(max_length=512, blank=True, default="")
    url = models.CharField(max_length=512)
    # Bumped on each change: messages.getBotApp's hash.
    version = models.IntegerField(default=1)

    class Meta:
        db_table = "bot_web_apps"
        constraints = [
            models.UniqueConstraint(fields=["bot", "short_name"], name="bot_web_apps_short_name"),
        ]
