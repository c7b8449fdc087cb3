"""Shared folders: the links a user exports for one of their folders, and the folders
other users joined through such a link (their own dialog filter, messages_app)."""

from django.db import models


class ChatlistInvite(models.Model):
    """One folder link (t.me/addlist/<slug>): the owner's folder, the chats it offers in
    the owner's order, and for each private chat among them the chat invite link it was
    given (joining through the folder link uses it)."""

    slug = models.CharField(max_length=32, unique=True)
    owner_id = models.BigIntegerField()
    filter_id = models.IntegerField()
    title = models.CharField(max_length=64, blank=True, default="")
    peers = models.JSONField(default=list, blank=True)  # channel ids
    chat_invites = models.JSONField(default=dict, blank=True)  # str(channel id) -> chat invite hash
    date = models.IntegerField()
    # A moderator's revoke: the link stops working and leaves its owner's list; the row
    # stays for the console.
    revoked = models.BooleanField(default=False)

    class Meta:
        db_table = "chatlist_invites"
        indexes = [models.Index(fields=["owner_id", "filter_id"], name="chatlist_invites_owner")]
        ordering = ["-date", "-id"]
        verbose_name = "folder link"

    def __str__(self) -> str:
        return f"t.me/addlist/{self.slug}"


class JoinedChatlist(models.Model):
    """A folder ``user_id`` added through a link: where its later chats come from
    (chatlists.getChatlistUpdates) and which of them the user dismissed."""

    user_id = models.BigIntegerField()
    filter_id = models.IntegerField()
    slug = models.CharField(max_length=32)
    owner_id = models.BigIntegerField()
    owner_filter_id = models.IntegerField()
    hidden = models.JSONField(default=list, blank=True)  # channel ids
    date = models.IntegerField()

    class Meta:
        db_table = "chatlist_joins"
        constraints = [
            models.UniqueConstraint(fields=["user_id", "filter_id"], name="chatlist_joins_user_filter_uniq")
        ]
        verbose_name = "joined folder"

    def __str__(self) -> str:
        return f"folder {self.filter_id} of {self.user_id} from {self.slug}"
