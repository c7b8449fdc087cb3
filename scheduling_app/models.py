from django.db import models


class ScheduledMessage(models.Model):
    """A message its sender scheduled (messages.sendMessage / sendMedia / sendMultiMedia /
    forwardMessages with ``schedule_date``), waiting in this table until the scheduler
    sends it as an ordinary send and deletes the row. The row's ``id`` is the scheduled
    message's id the client sees (ids are never reused, so a client's cache of one chat's
    scheduled messages cannot confuse two of them).

    ``peer_kind``: "p" a user (private chat or Saved Messages), "c" a channel. ``date``:
    when to send, or WHEN_ONLINE (0x7FFFFFFE): as soon as the peer user is online.
    ``group_key``: rows of one album share it (0: no album). ``params``: the send's other
    parts (reply_to_msg_id, top_msg_id, quote, silent, send_as, fwd_from, post,
    invert_media, no_webpage). ``claimed_until``: a worker is sending the row until then
    (a crashed worker's claim lapses and the send, idempotent by random_id, is retried).
    """

    id = models.BigAutoField(primary_key=True)
    owner_id = models.BigIntegerField()
    peer_kind = models.CharField(max_length=1)
    peer_id = models.BigIntegerField()
    date = models.IntegerField()
    random_id = models.BigIntegerField()
    group_key = models.BigIntegerField(default=0)
    message = models.TextField(default="", blank=True)
    entities = models.JSONField(default=list, blank=True)
    media = models.JSONField(null=True, blank=True)
    params = models.JSONField(default=dict, blank=True)
    created = models.IntegerField()
    edit_date = models.IntegerField(default=0)
    claimed_until = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "scheduled_messages"
        constraints = [
            models.UniqueConstraint(fields=["owner_id", "random_id"], name="scheduled_messages_random_uniq")
        ]
        indexes = [
            models.Index(fields=["owner_id", "peer_kind", "peer_id", "date"], name="scheduled_messages_chat"),
            models.Index(fields=["date"], name="scheduled_messages_due"),
        ]

    def __str__(self) -> str:
        return f"scheduled {self.id} of {self.owner_id} to {self.peer_kind}{self.peer_id} at {self.date}"
