"""Private (user-to-user) messages: one shared content row, one box per owner.

As on Telegram, private message ids count up per account: the sender's and the
recipient's copies of a message have different ids, each in its owner's sequence.
The content (text, entities, forward header, edit date) is stored once and both
boxes point at it, so an edit is one write and both sides see it.
"""

from django.db import models


class PrivateMessage(models.Model):
    id = models.BigAutoField(primary_key=True)
    sender_id = models.BigIntegerField()
    date = models.IntegerField()
    message = models.TextField(blank=True, default="")
    entities = models.JSONField(default=list, blank=True)
    # The origin of a forwarded message (same shape as channel messages' fwd_from).
    fwd_from = models.JSONField(null=True, blank=True)
    media = models.JSONField(null=True, blank=True)  # photo / document snapshot and flags
    grouped_id = models.BigIntegerField(default=0)  # an album
    # A bot's keyboard under the message (message_core.tl_convert_markup's stored form).
    reply_markup = models.JSONField(null=True, blank=True)
    # Sent through this bot's inline mode ("via @bot"); 0: not.
    via_bot_id = models.BigIntegerField(default=0, db_default=0)
    edit_date = models.IntegerField(default=0)
    silent = models.BooleanField(default=False)
    # A voice note or round video the recipient has played (readMessageContents): both
    # sides stop showing it unread, the sender sees it "listened".
    media_read = models.BooleanField(default=False, db_default=False)

    class Meta:
        db_table = "private_messages"

    def __str__(self) -> str:
        return f"{self.id} from {self.sender_id}"


class MessageBox(models.Model):
    """A private message as its owner sees it: the owner's id for it, the other side of
    the dialog, its direction, and the reply in the owner's own numbering."""

    id = models.BigAutoField(primary_key=True)
    owner_id = models.BigIntegerField()
    box_id = models.IntegerField()
    peer_id = models.BigIntegerField()
    message = models.ForeignKey(
        PrivateMessage, on_delete=models.CASCADE, db_constraint=False, related_name="boxes"
    )
    out = models.BooleanField()
    reply_to_box_id = models.IntegerField(default=0)
    # Set on the sender's box only: a retried send returns this message.
    random_id = models.BigIntegerField(null=True, blank=True)
    deleted = models.BooleanField(default=False)
    # The owner's message has reactions from the other side they have not seen yet.
    reaction_unread = models.BooleanField(default=False)
    # Saved Messages only (owner == peer): the chat the message came from, which is the
    # Saved Messages sublist it is in (messages.getSavedDialogs): a user id, or minus a
    # channel id; the owner's own id for what they wrote there. 0 in other dialogs.
    saved_peer = models.BigIntegerField(default=0, db_default=0)

    class Meta:
        db_table = "private_message_boxes"
        constraints = [
            models.UniqueConstraint(fields=["owner_id", "box_id"], name="private_boxes_owner_box"),
            models.UniqueConstraint(
                fields=["owner_id", "random_id"],
                condition=models.Q(random_id__isnull=False),
                name="private_boxes_owner_random",
            ),
        ]
        indexes = [
            models.Index(
                fields=["owner_id", "peer_id", "-box_id"],
                condition=models.Q(deleted=False),
                name="private_boxes_history",
            ),
            models.Index(fields=["message"], name="private_boxes_message"),
            models.Index(
                fields=["owner_id", "peer_id", "-box_id"],
                condition=models.Q(reaction_unread=True, deleted=False),
                name="private_boxes_unread_reactions",
            ),
            models.Index(
                fields=["owner_id", "saved_peer", "-box_id"],
                condition=~models.Q(saved_peer=0) & models.Q(deleted=False),
                name="private_boxes_saved_sublists",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.owner_id}#{self.box_id} with {self.peer_id}"


class PrivateDialog(models.Model):
    """The owner's dialog with one user: its visible top and read marks (owner ids)."""

    id = models.BigAutoField(primary_key=True)
    owner_id = models.BigIntegerField()
    peer_id = models.BigIntegerField()
    top_box_id = models.IntegerField(default=0)
    top_date = models.IntegerField(default=0)
    read_inbox_max_id = models.IntegerField(default=0)
    read_outbox_max_id = models.IntegerField(default=0)
    unread_mark = models.BooleanField(default=False)
    folder_id = models.IntegerField(default=0)  # 0 main list, 1 archive
    # Pins share one order with channel dialogs (channels_app.actions.pins): higher on top.
    pinned = models.BooleanField(default=False)
    pinned_order = models.IntegerField(default=0)
    # The owner's live boxes of this dialog (the history's total), kept by triggers on
    # private_message_boxes (migration 0009) so every write path keeps it without
    # knowing of it, and a history page never counts the boxes.
    message_count = models.IntegerField(default=0, db_default=0)

    class Meta:
        db_table = "private_dialogs"
        constraints = [
            models.UniqueConstraint(fields=["owner_id", "peer_id"], name="private_dialogs_owner_peer")
        ]
        indexes = [
            models.Index(
                fields=["owner_id", "folder_id", "-top_date", "-top_box_id", "-peer_id"],
                condition=models.Q(top_box_id__gt=0),
                name="private_dialogs_order",
            )
        ]

    def __str__(self) -> str:
        return f"{self.owner_id} with {self.peer_id}"


class PrivateMessageReaction(models.Model):
    """One user's current reaction to a private message: stored once for the shared
    content, so both sides' boxes show the same reactions."""

    id = models.BigAutoField(primary_key=True)
    message = models.ForeignKey(
        PrivateMessage, on_delete=models.CASCADE, db_constraint=False, related_name="reactions"
    )
    user_id = models.BigIntegerField()
    reaction = models.CharField(max_length=32)
    chosen_order = models.IntegerField(default=0)
    big = models.BooleanField(default=False)
    date = models.IntegerField()

    class Meta:
        db_table = "private_message_reactions"
        constraints = [
            models.UniqueConstraint(
                fields=["message", "user_id", "reaction"], name="private_reactions_message_user"
            )
        ]
        indexes = [models.Index(fields=["message", "-date"], name="private_reactions_recent")]


class PrivateReadDate(models.Model):
    """When the owner's outgoing messages up to ``max_id`` were read by the peer (one
    row per advance of the outbox mark, kept for messages.getOutboxReadDate's window)."""

    id = models.BigAutoField(primary_key=True)
    owner_id = models.BigIntegerField()
    peer_id = models.BigIntegerField()
    max_id = models.IntegerField()
    date = models.IntegerField()

    class Meta:
        db_table = "private_read_dates"
        indexes = [models.Index(fields=["owner_id", "peer_id", "max_id"], name="private_read_dates_mark")]


class SavedDialogPin(models.Model):
    """A Saved Messages sublist the owner pinned (messages.toggleSavedDialogPin);
    higher ``order`` shows first."""

    id = models.BigAutoField(primary_key=True)
    owner_id = models.BigIntegerField()
    saved_peer = models.BigIntegerField()  # as MessageBox.saved_peer
    order = models.IntegerField(default=0)

    class Meta:
        db_table = "private_saved_dialog_pins"
        constraints = [
            models.UniqueConstraint(fields=["owner_id", "saved_peer"], name="private_saved_pins_owner_peer")
        ]
