"""What users reported (messages.report, account.reportPeer, reportSpam ...): the queue
moderators work through in the console."""

from django.db import models


class Report(models.Model):
    """One report by one user. ``peer_kind`` "channel" or "user" says where: a channel
    (its messages ``message_ids``) or a user (their private messages with the reporter,
    their profile, their profile photo ``photo_id``). ``subject_user_id`` is the person
    the report is about, when one is named (a spammer in a group, a reacting user)."""

    STATUS_OPEN = "open"
    STATUS_RESOLVED = "resolved"
    STATUS_DISMISSED = "dismissed"

    id = models.BigAutoField(primary_key=True)
    reporter_id = models.BigIntegerField()
    source = models.CharField(max_length=40)  # the method: "messages.report", ...
    peer_kind = models.CharField(max_length=8)  # "channel" | "user"
    peer_id = models.BigIntegerField()
    message_ids = models.JSONField(default=list)
    subject_user_id = models.BigIntegerField(default=0)
    photo_id = models.BigIntegerField(default=0)
    reason = models.CharField(max_length=32)
    comment = models.TextField(blank=True, default="")
    date = models.IntegerField()
    status = models.CharField(max_length=10, default=STATUS_OPEN)
    handled_by = models.CharField(max_length=150, blank=True, default="")
    handled_at = models.IntegerField(default=0)
    outcome = models.TextField(blank=True, default="")

    class Meta:
        db_table = "user_reports"
        verbose_name = "user report"
        indexes = [
            # The queue: open reports, oldest first.
            models.Index(fields=["status", "id"], name="user_reports_queue"),
            models.Index(fields=["reporter_id", "id"], name="user_reports_reporter"),
            models.Index(fields=["peer_kind", "peer_id", "id"], name="user_reports_peer"),
        ]

    def __str__(self) -> str:
        return f"report {self.id} ({self.reason})"
