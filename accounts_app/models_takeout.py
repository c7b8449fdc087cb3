"""Data export sessions (account.initTakeoutSession)."""

from django.db import models


class TakeoutSession(models.Model):
    """One export: requests wrapped in invokeWithTakeout(id) belong to it until
    account.finishTakeoutSession. ``id`` is random: it is the client's only credential
    besides the key."""

    id = models.BigIntegerField(primary_key=True)
    user = models.ForeignKey("accounts_app.User", on_delete=models.CASCADE, related_name="+")
    perm_auth_key_id = models.BigIntegerField()
    # what the user chose to export: contacts, message_users, message_chats,
    # message_megagroups, message_channels, files, file_max_size
    scopes = models.JSONField(default=dict)
    created = models.DateTimeField(auto_now_add=True)
    finished = models.DateTimeField(null=True, blank=True)
    success = models.BooleanField(default=False)

    class Meta:
        db_table = "takeout_sessions"
        indexes = [models.Index(fields=["user", "-created"], name="takeout_sessions_user_recent")]
