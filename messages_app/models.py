from django.db import models


class DialogFilter(models.Model):
    """One chat folder of a user (messages.updateDialogFilter), or, with ``filter_id``
    0, where "All chats" stands among them. ``data`` holds the folder's rules with
    peers as ["c", channel_id] / ["p", user_id] (messages_app.dialog_filters)."""

    user_id = models.BigIntegerField()
    filter_id = models.IntegerField()
    position = models.IntegerField(default=0)
    data = models.JSONField(default=dict, blank=True)

    class Meta:
        db_table = "dialog_filters"
        constraints = [
            models.UniqueConstraint(fields=["user_id", "filter_id"], name="dialog_filters_user_id_uniq")
        ]
        ordering = ["user_id", "position", "filter_id"]

    def __str__(self) -> str:
        return f"folder {self.filter_id} of {self.user_id}"
