"""The Bot API's durable state: each bot's queue of updates (what getUpdates returns and
webhooks deliver) and how the bot receives them."""

from django.db import models


class BotUpdate(models.Model):
    """One update waiting for a bot. ``id`` is the ``update_id`` (increasing per bot;
    gaps are allowed, as on Telegram). ``kind`` is the Update field it fills
    ("message", "callback_query", ...); ``body`` that field's object. ``dedup`` keeps an
    event heard by several processes to one row."""

    id = models.BigAutoField(primary_key=True)
    bot_id = models.BigIntegerField()
    kind = models.CharField(max_length=32)
    body = models.JSONField()
    dedup = models.CharField(max_length=64)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "botapi_updates"
        indexes = [models.Index(fields=["bot_id", "id"], name="botapi_updates_bot_id")]
        constraints = [models.UniqueConstraint(fields=["bot_id", "dedup"], name="botapi_updates_dedup")]


class BotApiState(models.Model):
    """A bot's delivery settings: its webhook (empty url: getUpdates), the update kinds
    it asked for, and the last delivery error getWebhookInfo reports."""

    bot_id = models.BigIntegerField(primary_key=True)
    allowed_updates = models.JSONField(default=list, blank=True)  # [] = all but the opt-in kinds
    webhook_url = models.CharField(max_length=2048, blank=True, default="")
    secret_token = models.CharField(max_length=256, blank=True, default="")
    max_connections = models.IntegerField(default=40)
    last_error_date = models.BigIntegerField(default=0)
    last_error_message = models.CharField(max_length=256, blank=True, default="")
    # Back-off of the webhook after failed deliveries: no try before this time (unix).
    retry_at = models.FloatField(default=0)
    failures = models.IntegerField(default=0)

    class Meta:
        db_table = "botapi_state"


class BotChatMember(models.Model):
    """What the bot was last told of its own membership of a group or channel (the
    ``new_chat_member`` of its last ``my_chat_member``), so each change is told once,
    whichever path and process made it; ``version`` numbers the changes."""

    pk = models.CompositePrimaryKey("bot_id", "channel_id")
    bot_id = models.BigIntegerField()
    channel_id = models.BigIntegerField()
    member = models.JSONField(default=dict)
    version = models.IntegerField(default=0)

    class Meta:
        db_table = "botapi_chat_members"
