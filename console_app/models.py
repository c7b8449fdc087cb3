"""Admin-side views of the channel tables, and the console's own permissions.

Django 5.2's admin refuses models with a composite primary key, and the channel tables
keyed by ``(channel_id, ...)`` are exactly those. These unmanaged models map the same
tables with a *stand-in* single-column primary key so the admin accepts them; the real
identity of a row is its ``key_fields`` pair, which ``console_app.admin`` uses for
links, checkboxes and lookups (always with the partition key, so one partition is read).

They declare only the columns the console shows: a column added to the real table later
does not break them. Nothing writes through them (the admin classes are read-only; state
changes go through the domain actions so clients are told).
"""

from django.db import models


class ConsoleAccess(models.Model):
    """No table: carries the permissions of the console's own pages and actions."""

    class Meta:
        managed = False
        db_table = "console_no_table"
        verbose_name = "console access"
        default_permissions = ()
        permissions = [
            ("moderate_channels", "Run moderation actions (ban, delete, revoke, approve)"),
            ("terminate_authorizations", "Terminate a user's authorization (log a device out)"),
            ("manage_accounts", "Deactivate Telegram accounts and revoke their usernames"),
            ("view_pts_state", "View the channel pts / update log state page"),
        ]


class Member(models.Model):
    key_fields = ("channel_id", "user_id")

    channel_id = models.BigIntegerField()
    # Stand-in primary key (see the module docstring); unique only within a channel.
    user_id = models.BigIntegerField(primary_key=True)
    inviter_user_id = models.BigIntegerField()
    role = models.CharField(max_length=8)
    status = models.CharField(max_length=8)
    joined_at = models.IntegerField()
    left_at = models.IntegerField()
    admin_rights = models.BigIntegerField()
    promoted_by = models.BigIntegerField()
    banned_rights = models.BigIntegerField()
    banned_until = models.IntegerField()
    kicked_by = models.BigIntegerField()
    rank = models.CharField(max_length=16)
    available_min_id = models.IntegerField()
    available_min_pts = models.IntegerField()
    read_inbox_max_id = models.IntegerField()
    read_inbox_date = models.IntegerField()
    read_outbox_max_id = models.IntegerField()

    class Meta:
        managed = False
        db_table = "channel_members"
        verbose_name = "channel member"
        default_permissions = ("view",)

    def __str__(self) -> str:
        return f"user {self.user_id} in {self.channel_id}"


class Message(models.Model):
    key_fields = ("channel_id", "id")

    channel_id = models.BigIntegerField()
    id = models.IntegerField(primary_key=True)  # stand-in, see the module docstring
    sender_user_id = models.BigIntegerField()
    date = models.IntegerField()
    edit_date = models.IntegerField()
    post = models.BooleanField()
    silent = models.BooleanField()
    noforwards = models.BooleanField()
    post_author = models.CharField(max_length=128)
    message = models.TextField()
    entities = models.JSONField()
    reply_to_msg_id = models.IntegerField()
    reply_to_top_id = models.IntegerField()
    fwd_from = models.JSONField(null=True)
    action = models.JSONField(null=True)
    media = models.JSONField(null=True)
    pts = models.IntegerField()
    deleted = models.BooleanField()

    class Meta:
        managed = False
        db_table = "channel_messages"
        verbose_name = "channel message"
        default_permissions = ("view",)

    def __str__(self) -> str:
        return f"message {self.id} in {self.channel_id}"


class UpdateEvent(models.Model):
    key_fields = ("channel_id", "pts")

    channel_id = models.BigIntegerField()
    pts = models.IntegerField(primary_key=True)  # stand-in, see the module docstring
    pts_count = models.IntegerField()
    type = models.CharField(max_length=24)
    date = models.IntegerField()
    message_id = models.IntegerField()
    message_ids = models.JSONField()
    sender_user_id = models.BigIntegerField()
    user_ids = models.JSONField()
    payload = models.JSONField(null=True)

    class Meta:
        managed = False
        db_table = "channel_update_events"
        verbose_name = "channel update event"
        default_permissions = ("view",)

    def __str__(self) -> str:
        return f"pts {self.pts} of {self.channel_id}"


class Invite(models.Model):
    key_fields = ("channel_id", "id")

    channel_id = models.BigIntegerField()
    id = models.BigIntegerField(primary_key=True)  # stand-in, see the module docstring
    hash = models.CharField(max_length=32)
    admin_user_id = models.BigIntegerField()
    title = models.CharField(max_length=32)
    permanent = models.BooleanField()
    revoked = models.BooleanField()
    request_needed = models.BooleanField()
    expire_date = models.IntegerField()
    usage_limit = models.IntegerField()
    usage_count = models.IntegerField()
    requested_count = models.IntegerField()
    date = models.IntegerField()

    class Meta:
        managed = False
        db_table = "channel_invites"
        verbose_name = "invite link"
        default_permissions = ("view",)

    def __str__(self) -> str:
        return f"invite {self.id} of {self.channel_id}"


class Importer(models.Model):
    """Who joined through a link (``requested`` false) or asks to join (true)."""

    key_fields = ("channel_id", "user_id")

    channel_id = models.BigIntegerField()
    user_id = models.BigIntegerField(primary_key=True)  # stand-in, see the module docstring
    invite_id = models.BigIntegerField()
    requested = models.BooleanField()
    date = models.IntegerField()
    about = models.CharField(max_length=255)
    approved_by = models.BigIntegerField()

    class Meta:
        managed = False
        db_table = "channel_invite_importers"
        verbose_name = "join request or link importer"
        default_permissions = ("view",)

    def __str__(self) -> str:
        return f"user {self.user_id} at {self.channel_id}"


class AdminLogEvent(models.Model):
    key_fields = ("channel_id", "id")

    channel_id = models.BigIntegerField()
    id = models.BigIntegerField(primary_key=True)  # stand-in, see the module docstring
    actor_user_id = models.BigIntegerField()
    date = models.IntegerField()
    event_type = models.CharField(max_length=32)
    target_user_id = models.BigIntegerField()
    data = models.JSONField()
    query = models.TextField()

    class Meta:
        managed = False
        db_table = "channel_admin_log_events"
        verbose_name = "admin log event"
        default_permissions = ("view",)

    def __str__(self) -> str:
        return f"admin log {self.id} of {self.channel_id}"
