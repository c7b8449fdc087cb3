"""Channel storage: HASH-partitioned tables described as Django models.

The models exist so migrations create the DDL and the admin can show the rows; the hot
paths (send, history, difference, read) do not go through the ORM but through
``message_core.db`` (psycopg 3 async pool, set-based SQL). Every hot query carries the
partition key: ``channel_id`` for channel-scoped tables, ``user_id`` for owner-scoped
ones.

Times are unix seconds (``int``), as TL carries them; rights are bitmasks whose bits
are the flag positions of ``chatAdminRights`` / ``chatBannedRights`` (see
``channels_app.rights``).
"""

from django.db import models
from psqlextra.models import PostgresPartitionedModel
from psqlextra.types import PostgresPartitioningMethod

# Number of HASH partitions per table (set once in 0001; changing it means a data move).
PARTITIONS = 16


class Channel(PostgresPartitionedModel):
    """A broadcast channel or a megagroup (supergroup). There are no legacy chats."""

    class PartitioningMeta:
        method = PostgresPartitioningMethod.HASH
        key = ["id"]

    id = models.BigIntegerField(primary_key=True)
    access_hash = models.BigIntegerField()
    title = models.CharField(max_length=128)
    about = models.TextField(default="", db_default="", blank=True)
    username = models.CharField(max_length=32, default="", db_default="", blank=True)  # display form
    creator_user_id = models.BigIntegerField()
    broadcast = models.BooleanField(default=False, db_default=False)
    megagroup = models.BooleanField(default=False, db_default=False)
    forum = models.BooleanField(default=False, db_default=False)
    signatures = models.BooleanField(default=False, db_default=False)
    pre_history_hidden = models.BooleanField(default=False, db_default=False)
    participants_hidden = models.BooleanField(default=False, db_default=False)
    noforwards = models.BooleanField(default=False, db_default=False)
    slowmode_seconds = models.IntegerField(default=0, db_default=0)
    ttl_period = models.IntegerField(default=0, db_default=0)
    date = models.IntegerField()
    participants_count = models.IntegerField(default=0, db_default=0)
    admins_count = models.IntegerField(default=0, db_default=0)
    kicked_count = models.IntegerField(default=0, db_default=0)
    banned_count = models.IntegerField(default=0, db_default=0)
    default_banned_rights = models.BigIntegerField(default=0, db_default=0)
    top_message_id = models.IntegerField(default=0, db_default=0)
    top_message_date = models.IntegerField(default=0, db_default=0)
    pinned_message_id = models.IntegerField(default=0, db_default=0)
    pts = models.IntegerField(default=0, db_default=0)
    deleted = models.BooleanField(default=False, db_default=False)
    # Appearance and paid settings (channels.updateColor / updateEmojiStatus /
    # toggleAutotranslation / restrictSponsoredMessages / updatePaidMessagesPrice).
    # NULL is "not set"; an explicit color 0 is kept, as clients distinguish the two.
    color = models.IntegerField(null=True, blank=True)
    color_background_emoji_id = models.BigIntegerField(null=True, blank=True)
    profile_color = models.IntegerField(null=True, blank=True)
    profile_background_emoji_id = models.BigIntegerField(null=True, blank=True)
    emoji_status_document_id = models.BigIntegerField(null=True, blank=True)
    emoji_status_until = models.IntegerField(null=True, blank=True)
    autotranslation = models.BooleanField(default=False, db_default=False)
    restricted_sponsored = models.BooleanField(default=False, db_default=False)
    # Megagroups: stars per message; broadcasts: the price of direct messages.
    send_paid_messages_stars = models.BigIntegerField(null=True, blank=True)
    broadcast_messages_allowed = models.BooleanField(default=False, db_default=False)
    # Admin log ids are allocated with UPDATE ... RETURNING in the same transaction.
    admin_log_seq = models.BigIntegerField(default=0, db_default=0)
    # messages.setChatAvailableReactions: NULL = every standard reaction (the default),
    # else {"kind": "all"|"some"|"none", "reactions": [emoticon, ...]}.
    available_reactions = models.JSONField(null=True, blank=True)
    reactions_limit = models.IntegerField(default=0, db_default=0)  # 0 = the server's cap
    photo = models.JSONField(null=True, blank=True)  # the chat photo (media_app.actions.photo_dict)
    # channels.setDiscussionGroup: a broadcast's discussion megagroup and that group's
    # broadcast point at each other (0: none), so each side renders has_link alone.
    linked_chat_id = models.BigIntegerField(default=0, db_default=0)
    forum_tabs = models.BooleanField(default=False, db_default=False)  # channels.toggleForum(tabs)
    # Active members that are bots, kept by a trigger on channel_members (0016) whatever
    # path changes a membership. Every send reads the row anyway, so a send into a chat
    # without bots skips the bots' update queues at no cost. It may count a deleted bot
    # (a superset only sends the send to the exact check).
    bot_members = models.IntegerField(default=0, db_default=0)
    # The chat's group call (voice chat / live stream), kept by calls_app through
    # channels_app.actions.group_calls: every render of the chat shows call_active /
    # call_not_empty and channelFull.call from the row it already reads. 0: none.
    call_id = models.BigIntegerField(default=0, db_default=0)
    call_access_hash = models.BigIntegerField(default=0, db_default=0)
    call_not_empty = models.BooleanField(default=False, db_default=False)

    class Meta:
        db_table = "channels"

    def __str__(self) -> str:
        return f"{self.title} ({self.id})"


class ChannelMember(PostgresPartitionedModel):
    """One user's membership of one channel: role, rights, read and visibility bounds."""

    class PartitioningMeta:
        method = PostgresPartitioningMethod.HASH
        key = ["channel_id"]

    pk = models.CompositePrimaryKey("channel_id", "user_id")
    channel_id = models.BigIntegerField()
    user_id = models.BigIntegerField()
    inviter_user_id = models.BigIntegerField(default=0, db_default=0)
    role = models.CharField(max_length=8, default="member", db_default="member")  # member / admin / creator
    status = models.CharField(
        max_length=8, default="active", db_default="active"
    )  # active / left / kicked / banned
    joined_at = models.IntegerField(default=0, db_default=0)
    left_at = models.IntegerField(default=0, db_default=0)
    admin_rights = models.BigIntegerField(default=0, db_default=0)
    promoted_by = models.BigIntegerField(default=0, db_default=0)
    banned_rights = models.BigIntegerField(default=0, db_default=0)
    banned_until = models.IntegerField(default=0, db_default=0)
    kicked_by = models.BigIntegerField(default=0, db_default=0)
    rank = models.CharField(max_length=16, default="", db_default="", blank=True)
    available_min_id = models.IntegerField(default=0, db_default=0)
    available_min_pts = models.IntegerField(default=0, db_default=0)
    read_inbox_max_id = models.IntegerField(default=0, db_default=0)
    read_inbox_date = models.IntegerField(default=0, db_default=0)
    read_outbox_max_id = models.IntegerField(default=0, db_default=0)
    slowmode_last_send_date = models.IntegerField(default=0, db_default=0)

    class Meta:
        db_table = "channel_members"
        indexes = [
            # Only a helper inside one partition: it cannot prune channel_id partitions,
            # so user -> channel paths use user_channel_member_index instead.
            models.Index(fields=["user_id", "channel_id"], name="channel_members_user_idx"),
            models.Index(
                fields=["channel_id", "read_inbox_max_id", "user_id"],
                name="channel_members_read_idx",
                condition=models.Q(status="active"),
            ),
        ]


class UserChannelMemberIndex(PostgresPartitionedModel):
    """user -> channel read model of ``channel_members`` (kept in the same transactions)."""

    class PartitioningMeta:
        method = PostgresPartitioningMethod.HASH
        key = ["user_id"]

    pk = models.CompositePrimaryKey("user_id", "channel_id")
    user_id = models.BigIntegerField()
    channel_id = models.BigIntegerField()
    status = models.CharField(max_length=8, default="active", db_default="active")
    megagroup = models.BooleanField(default=False, db_default=False)
    broadcast = models.BooleanField(default=False, db_default=False)
    deleted = models.BooleanField(default=False, db_default=False)
    joined_at = models.IntegerField(default=0, db_default=0)

    class Meta:
        db_table = "user_channel_member_index"
        indexes = [
            models.Index(
                fields=["user_id", "channel_id"],
                name="user_channel_common_idx",
                condition=models.Q(status="active", megagroup=True, broadcast=False, deleted=False),
            ),
        ]


class ChannelMessage(PostgresPartitionedModel):
    """The one copy of a channel message; ``id`` is channel-scoped (what clients see)."""

    class PartitioningMeta:
        method = PostgresPartitioningMethod.HASH
        key = ["channel_id"]

    pk = models.CompositePrimaryKey("channel_id", "id")
    channel_id = models.BigIntegerField()
    id = models.IntegerField()
    random_id = models.BigIntegerField(null=True, blank=True)  # NULL for service messages
    sender_user_id = models.BigIntegerField()
    date = models.IntegerField()
    edit_date = models.IntegerField(default=0, db_default=0)
    post = models.BooleanField(default=False, db_default=False)
    silent = models.BooleanField(default=False, db_default=False)
    noforwards = models.BooleanField(default=False, db_default=False)
    post_author = models.CharField(max_length=128, default="", db_default="", blank=True)
    message = models.TextField(default="", db_default="", blank=True)
    entities = models.JSONField(default=list, blank=True)
    reply_to_msg_id = models.IntegerField(default=0, db_default=0)
    reply_to_top_id = models.IntegerField(default=0, db_default=0)
    # The author of the replied-to message in a megagroup: a reply to someone is a
    # mention of them (their badge, their "mentioned" flag), without loading the target.
    reply_to_user_id = models.BigIntegerField(default=0, db_default=0)
    fwd_from = models.JSONField(null=True, blank=True)
    action = models.JSONField(null=True, blank=True)  # service message action
    media = models.JSONField(null=True, blank=True)  # photo / document snapshot and flags
    grouped_id = models.BigIntegerField(default=0, db_default=0)  # an album
    pts = models.IntegerField()
    deleted = models.BooleanField(default=False, db_default=False)
    # Counted once per viewer (channel_message_viewers) and per forward of a post.
    views_count = models.IntegerField(default=0, db_default=0)
    forwards_count = models.IntegerField(default=0, db_default=0)
    # {emoticon: count} kept with the reaction rows in one transaction, so a history
    # page reads the totals with the message instead of aggregating reaction rows.
    reaction_counts = models.JSONField(null=True, blank=True)
    # In a forum: the message lives in the topic ``reply_to_top_id`` (its header says
    # forum_topic), as opposed to a reply thread of the General topic.
    forum_topic = models.BooleanField(default=False, db_default=False)
    # Sent as the channel itself (an anonymous admin, or a discussion root sent as its
    # broadcast): from_id names this channel, never the user in sender_user_id.
    send_as_channel_id = models.BigIntegerField(default=0, db_default=0)
    # A post of a linked broadcast names its discussion root in the group, and the root
    # names its post back; the thread counters live on both rows (messageReplies).
    discussion_channel_id = models.BigIntegerField(default=0, db_default=0)
    discussion_message_id = models.IntegerField(default=0, db_default=0)
    replies_count = models.IntegerField(default=0, db_default=0)
    replies_max_id = models.IntegerField(default=0, db_default=0)
    replies_pts = models.IntegerField(default=0, db_default=0)
    # The newest distinct repliers, newest first: user ids, channels as negative ids.
    recent_repliers = models.JSONField(null=True, blank=True)
    # A bot's keyboard under the message (message_core.tl_convert_markup's stored form).
    reply_markup = models.JSONField(null=True, blank=True)
    # Sent through this bot's inline mode ("via @bot"); 0: not.
    via_bot_id = models.BigIntegerField(default=0, db_default=0)

    class Meta:
        db_table = "channel_messages"
        indexes = [
            models.Index(
                fields=["channel_id", "-id"],
                name="channel_messages_history_idx",
                condition=models.Q(deleted=False),
            ),
            models.Index(
                fields=["channel_id", "sender_user_id", "-id"],
                name="channel_messages_sender_idx",
                condition=models.Q(deleted=False),
            ),
            models.Index(
                fields=["channel_id", "reply_to_top_id", "-id"],
                name="channel_messages_thread_idx",
                condition=models.Q(reply_to_top_id__gt=0, deleted=False),
            ),
            # offset_date seek for getHistory (ids and dates are both monotone in time,
            # but only this index finds the pivot without a scan).
            models.Index(fields=["channel_id", "date"], name="channel_messages_date_idx"),
            models.Index(
                fields=["discussion_channel_id", "discussion_message_id"],
                name="channel_messages_disc_idx",
                condition=models.Q(discussion_channel_id__gt=0, discussion_message_id__gt=0, deleted=False),
            ),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["channel_id", "sender_user_id", "random_id"], name="channel_messages_random_uniq"
            ),
        ]


class ChannelUpdateEvent(PostgresPartitionedModel):
    """The channel pts log that updates.getChannelDifference reads.

    ``pts`` is the pts *after* the event; the event occupies ``pts - pts_count + 1 ..
    pts``. ``payload`` holds the domain snapshot at event time (a difference never
    re-reads the current message). ``noop`` rows fill pts that were allocated for a
    transaction that failed.
    """

    class PartitioningMeta:
        method = PostgresPartitioningMethod.HASH
        key = ["channel_id"]

    pk = models.CompositePrimaryKey("channel_id", "pts")
    channel_id = models.BigIntegerField()
    pts = models.IntegerField()
    pts_count = models.IntegerField()
    type = models.CharField(max_length=24)  # new_message / edit_message / delete_messages / pin / noop
    date = models.IntegerField()
    message_id = models.IntegerField(default=0, db_default=0)
    message_ids = models.JSONField(default=list, blank=True)
    sender_user_id = models.BigIntegerField(default=0, db_default=0)
    user_ids = models.JSONField(default=list, blank=True)
    payload = models.JSONField(null=True, blank=True)

    class Meta:
        db_table = "channel_update_events"


class ChannelDialog(PostgresPartitionedModel):
    """The owner's dialog state for one channel (pin, folder, read, manual unread)."""

    class PartitioningMeta:
        method = PostgresPartitioningMethod.HASH
        key = ["user_id"]

    pk = models.CompositePrimaryKey("user_id", "channel_id")
    user_id = models.BigIntegerField()
    channel_id = models.BigIntegerField()
    folder_id = models.IntegerField(default=0, db_default=0)
    pinned = models.BooleanField(default=False, db_default=False)
    pinned_order = models.IntegerField(default=0, db_default=0)
    top_message_id = models.IntegerField(default=0, db_default=0)
    top_message_date = models.IntegerField(default=0, db_default=0)
    read_inbox_max_id = models.IntegerField(default=0, db_default=0)
    read_outbox_max_id = models.IntegerField(default=0, db_default=0)
    unread_count = models.IntegerField(default=0, db_default=0)
    unread_mentions = models.IntegerField(default=0, db_default=0)
    unread_reactions_count = models.IntegerField(default=0, db_default=0)
    unread_mark = models.BooleanField(default=False, db_default=False)
    view_forum_as_messages = models.BooleanField(default=False, db_default=False)
    # messages.saveDefaultSendAs: "" is the user itself, "channel" the peer id below.
    default_send_as_peer_type = models.CharField(max_length=8, default="", db_default="", blank=True)
    default_send_as_peer_id = models.BigIntegerField(default=0, db_default=0)
    notify_settings = models.JSONField(default=dict, blank=True)

    class Meta:
        db_table = "channel_dialogs"
        indexes = [
            models.Index(
                fields=[
                    "user_id",
                    "folder_id",
                    "-pinned",
                    "-pinned_order",
                    "-top_message_date",
                    "-top_message_id",
                    "-channel_id",
                ],
                name="channel_dialogs_order_idx",
            ),
        ]


class ChannelUsername(models.Model):
    """Public username claims (the unique index lives here, not on partitioned channels)."""

    username_lower = models.CharField(max_length=32, primary_key=True)
    channel_id = models.BigIntegerField(unique=True)

    class Meta:
        db_table = "channel_usernames"


class ChannelForumTopic(PostgresPartitionedModel):
    """A stored topic of a forum megagroup (the General topic, id 1, is virtual). The
    topic id is the id of its ``messageActionTopicCreate`` root message."""

    class PartitioningMeta:
        method = PostgresPartitioningMethod.HASH
        key = ["channel_id"]

    pk = models.CompositePrimaryKey("channel_id", "id")
    channel_id = models.BigIntegerField()
    id = models.IntegerField()
    title = models.CharField(max_length=128)
    icon_color = models.IntegerField(default=0, db_default=0)
    icon_emoji_id = models.BigIntegerField(default=0, db_default=0)
    creator_user_id = models.BigIntegerField()
    date = models.IntegerField()
    closed = models.BooleanField(default=False, db_default=False)
    hidden = models.BooleanField(default=False, db_default=False)
    pinned_order = models.IntegerField(default=0, db_default=0)  # 0: not pinned; 1 is first
    top_message_id = models.IntegerField(default=0, db_default=0)
    top_message_date = models.IntegerField(default=0, db_default=0)
    deleted = models.BooleanField(default=False, db_default=False)

    class Meta:
        db_table = "channel_forum_topics"
        indexes = [
            # getForumTopics: latest activity (the top message id) first, seek on it.
            models.Index(
                fields=["channel_id", "-top_message_id"],
                name="channel_forum_topics_seek_idx",
                condition=models.Q(deleted=False),
            ),
        ]


class ChannelThreadRead(PostgresPartitionedModel):
    """The owner's read mark inside one thread (a discussion root's comments, a reply
    thread or a forum topic): messages.readDiscussion. Partitioned by the owner."""

    class PartitioningMeta:
        method = PostgresPartitioningMethod.HASH
        key = ["user_id"]

    pk = models.CompositePrimaryKey("user_id", "channel_id", "top_msg_id")
    user_id = models.BigIntegerField()
    channel_id = models.BigIntegerField()
    top_msg_id = models.IntegerField()
    read_max_id = models.IntegerField(default=0, db_default=0)
    date = models.IntegerField(default=0, db_default=0)

    class Meta:
        db_table = "channel_thread_reads"


class ChannelUnreadMention(PostgresPartitionedModel):
    """The owner's unread mentions (the design's ``channel_unread_mentions``): one row per
    (owner, channel, message) that mentions or replies to the owner and that they have
    not read; no copy of the message. Partitioned by the owner, like their dialogs."""

    class PartitioningMeta:
        method = PostgresPartitioningMethod.HASH
        key = ["user_id"]

    pk = models.CompositePrimaryKey("user_id", "channel_id", "message_id")
    user_id = models.BigIntegerField()
    channel_id = models.BigIntegerField()
    message_id = models.IntegerField()
    media_unread = models.BooleanField(default=False, db_default=False)

    class Meta:
        db_table = "channel_unread_mentions"


class ChannelMessageViewer(PostgresPartitionedModel):
    """Who has viewed a post (messages.getMessagesViews with increment): a viewer
    counts once per post; views_count on the message is the total."""

    class PartitioningMeta:
        method = PostgresPartitioningMethod.HASH
        key = ["channel_id"]

    pk = models.CompositePrimaryKey("channel_id", "message_id", "viewer_user_id")
    channel_id = models.BigIntegerField()
    message_id = models.IntegerField()
    viewer_user_id = models.BigIntegerField()
    date = models.IntegerField()

    class Meta:
        db_table = "channel_message_viewers"


class ChannelMediaRead(PostgresPartitionedModel):
    """Who has played a voice note or round video (channels.readMessageContents): for
    them it is no longer ``media_unread``; for its sender it is "listened" once anyone
    else has played it. Only plays are stored, never one row per member and message."""

    class PartitioningMeta:
        method = PostgresPartitioningMethod.HASH
        key = ["channel_id"]

    pk = models.CompositePrimaryKey("channel_id", "message_id", "user_id")
    channel_id = models.BigIntegerField()
    message_id = models.IntegerField()
    user_id = models.BigIntegerField()
    date = models.IntegerField()

    class Meta:
        db_table = "channel_media_reads"


class ChannelMessageReaction(PostgresPartitionedModel):
    """One user's current reaction to one channel message (a user has at most
    the per-user cap of them). ``author_user_id`` is the message's sender, whose
    unread reactions these rows are while ``unread``."""

    class PartitioningMeta:
        method = PostgresPartitioningMethod.HASH
        key = ["channel_id"]

    pk = models.CompositePrimaryKey("channel_id", "message_id", "user_id", "reaction_value")
    channel_id = models.BigIntegerField()
    message_id = models.IntegerField()
    user_id = models.BigIntegerField()
    reaction_type = models.CharField(max_length=8, default="emoji", db_default="emoji")
    reaction_value = models.CharField(max_length=32)
    chosen_order = models.IntegerField(default=0, db_default=0)
    big = models.BooleanField(default=False, db_default=False)
    unread = models.BooleanField(default=False, db_default=False)
    author_user_id = models.BigIntegerField(default=0, db_default=0)
    date = models.IntegerField()

    class Meta:
        db_table = "channel_message_reactions"
        indexes = [
            models.Index(
                fields=["channel_id", "message_id", "-date", "-user_id", "reaction_value"],
                name="channel_reactions_recent_idx",
            ),
            models.Index(
                fields=["channel_id", "message_id", "reaction_type", "reaction_value", "-date", "-user_id"],
                name="channel_reactions_value_idx",
            ),
            models.Index(
                fields=["channel_id", "author_user_id", "-message_id"],
                name="channel_reactions_unread_idx",
                condition=models.Q(unread=True),
            ),
        ]


from .models_admin import *  # noqa: E402, F403  (so Django sees the administration tables)


class Draft(models.Model):
    """The owner's cloud draft in one dialog (a channel's or a private chat's): what
    messages.saveDraft stores so the owner's other devices show it too."""

    owner_id = models.BigIntegerField()
    peer_kind = models.CharField(max_length=1)  # "c" channel, "p" user
    peer_id = models.BigIntegerField()
    message = models.TextField(blank=True, default="")
    entities = models.JSONField(default=list, blank=True)
    reply_to_msg_id = models.IntegerField(default=0)
    no_webpage = models.BooleanField(default=False)
    date = models.IntegerField()

    class Meta:
        db_table = "dialog_drafts"
        constraints = [
            models.UniqueConstraint(
                fields=["owner_id", "peer_kind", "peer_id"], name="dialog_drafts_owner_peer"
            )
        ]

    def __str__(self) -> str:
        return f"{self.owner_id} in {self.peer_kind}{self.peer_id}"
