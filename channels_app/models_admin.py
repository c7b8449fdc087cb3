"""Administration storage: invite links, join requests, pins, join settings, admin log.

Channel-scoped tables are HASH-partitioned by ``channel_id`` like the rest of the
channel storage (``channels_app.models``); every query carries that key. The one
exception is ``channel_invite_hashes``: an import arrives with only the hash, so the
hash -> (channel, invite) map is a small plain table with the hash as primary key.
Times are unix seconds.
"""

from django.db import models
from psqlextra.models import PostgresPartitionedModel
from psqlextra.types import PostgresPartitioningMethod


class ChannelInvite(PostgresPartitionedModel):
    """An exported invite link (the permanent one of an admin, or an additional one)."""

    class PartitioningMeta:
        method = PostgresPartitioningMethod.HASH
        key = ["channel_id"]

    pk = models.CompositePrimaryKey("channel_id", "id")
    channel_id = models.BigIntegerField()
    id = models.BigIntegerField()
    hash = models.CharField(max_length=32)
    admin_user_id = models.BigIntegerField()
    title = models.CharField(max_length=32, default="", db_default="", blank=True)
    permanent = models.BooleanField(default=False, db_default=False)
    revoked = models.BooleanField(default=False, db_default=False)
    request_needed = models.BooleanField(default=False, db_default=False)
    expire_date = models.IntegerField(default=0, db_default=0)  # 0: never
    usage_limit = models.IntegerField(default=0, db_default=0)  # 0: unlimited
    usage_count = models.IntegerField(default=0, db_default=0)
    requested_count = models.IntegerField(default=0, db_default=0)
    date = models.IntegerField()

    class Meta:
        db_table = "channel_invites"
        indexes = [
            # The links page: by admin, revoked or not, newest first, seek on (date, hash).
            models.Index(
                fields=["channel_id", "admin_user_id", "revoked", "-date", "-hash"],
                name="channel_invites_admin_idx",
            ),
        ]


class ChannelInviteHash(models.Model):
    """hash -> invite; kept when the invite is revoked so its detail page still opens."""

    hash = models.CharField(max_length=32, primary_key=True)
    channel_id = models.BigIntegerField()
    invite_id = models.BigIntegerField()

    class Meta:
        db_table = "channel_invite_hashes"


class ChannelInviteImporter(PostgresPartitionedModel):
    """Who joined through a link, or asked to (``requested``); one current row per user.

    ``invite_id`` 0 is a join request made through channels.joinChannel on a public
    megagroup with join requests on.
    """

    class PartitioningMeta:
        method = PostgresPartitioningMethod.HASH
        key = ["channel_id"]

    pk = models.CompositePrimaryKey("channel_id", "user_id")
    channel_id = models.BigIntegerField()
    user_id = models.BigIntegerField()
    invite_id = models.BigIntegerField(default=0, db_default=0)
    requested = models.BooleanField(default=False, db_default=False)
    date = models.IntegerField()
    about = models.CharField(max_length=255, default="", db_default="", blank=True)
    approved_by = models.BigIntegerField(default=0, db_default=0)

    class Meta:
        db_table = "channel_invite_importers"
        indexes = [
            models.Index(
                fields=["channel_id", "invite_id", "requested", "-date", "-user_id"],
                name="channel_importers_link_idx",
            ),
            models.Index(
                fields=["channel_id", "requested", "-date", "-user_id"], name="channel_importers_req_idx"
            ),
        ]


class ChannelPinnedMessage(PostgresPartitionedModel):
    """The pinned messages of a channel (``channels.pinned_message_id`` is the newest)."""

    class PartitioningMeta:
        method = PostgresPartitioningMethod.HASH
        key = ["channel_id"]

    pk = models.CompositePrimaryKey("channel_id", "message_id")
    channel_id = models.BigIntegerField()
    message_id = models.IntegerField()
    date = models.IntegerField()

    class Meta:
        db_table = "channel_pinned_messages"


class ChannelJoinSettings(PostgresPartitionedModel):
    """Settings of the public-join path (Channel flags 28/29) and the anti-spam switch,
    which have no column in ``channels``; no row means all off."""

    class PartitioningMeta:
        method = PostgresPartitioningMethod.HASH
        key = ["channel_id"]

    channel_id = models.BigIntegerField(primary_key=True)
    join_to_send = models.BooleanField(default=False, db_default=False)
    join_request = models.BooleanField(default=False, db_default=False)
    antispam = models.BooleanField(default=False, db_default=False)
    gigagroup = models.BooleanField(default=False, db_default=False)

    class Meta:
        db_table = "channel_join_settings"


class ChannelAdminLogEvent(PostgresPartitionedModel):
    """One channels.getAdminLog entry. ``id`` is per channel (``channels.admin_log_seq``);
    ``actor_user_id`` 0 is the server's operator console. ``data`` holds the before and
    after values of the action in domain form (tl_convert_admin renders them)."""

    class PartitioningMeta:
        method = PostgresPartitioningMethod.HASH
        key = ["channel_id"]

    pk = models.CompositePrimaryKey("channel_id", "id")
    channel_id = models.BigIntegerField()
    id = models.BigIntegerField()
    actor_user_id = models.BigIntegerField()
    date = models.IntegerField()
    event_type = models.CharField(max_length=32)
    target_user_id = models.BigIntegerField(default=0, db_default=0)
    data = models.JSONField(default=dict, blank=True)
    # What the q filter searches: titles, usernames, about texts, message bodies.
    query = models.TextField(default="", db_default="", blank=True)

    class Meta:
        db_table = "channel_admin_log_events"
        indexes = [
            models.Index(fields=["channel_id", "-id"], name="channel_admin_log_idx"),
            models.Index(fields=["channel_id", "actor_user_id", "-id"], name="channel_admin_log_actor_idx"),
            models.Index(fields=["channel_id", "event_type", "-id"], name="channel_admin_log_type_idx"),
        ]
