"""Private calls: one row per call, from the request to its end.

telesrv is the signalling plane only: the row keeps what the two sides exchange to agree
on a key (``g_a_hash``, ``g_b``, ``g_a``, the key's fingerprint) without ever holding a
secret exponent, so the server cannot derive the call key. Media go peer to peer or
through a TURN server (``calls_app.turn``).

States, as Telegram's ``PhoneCall`` constructors: ``requested`` (the caller asked),
``received`` (a callee device rang: the caller's ``phoneCallWaiting`` gets
``receive_date``), ``accepted`` (a callee device answered with ``g_b``), ``active``
(the caller confirmed with ``g_a``), ``discarded`` (ended: ``reason``, ``duration``).
``participant_key_id``: the callee device (permanent auth key) that answered; later
updates go to it alone, the callee's other devices stop ringing.
"""

from django.db import models

LIVE_STATES = ("requested", "received", "accepted", "active")


class PhoneCall(models.Model):
    id = models.BigIntegerField(primary_key=True)
    access_hash = models.BigIntegerField()
    admin_id = models.BigIntegerField()  # the caller
    participant_id = models.BigIntegerField()  # the callee
    random_id = models.BigIntegerField()
    video = models.BooleanField(default=False)
    state = models.CharField(max_length=10, default="requested")
    admin_key_id = models.BigIntegerField(default=0)
    participant_key_id = models.BigIntegerField(default=0)
    g_a_hash = models.BinaryField()
    g_a = models.BinaryField(default=b"")
    g_b = models.BinaryField(default=b"")
    key_fingerprint = models.BigIntegerField(default=0)
    protocol = models.JSONField(default=dict)  # the caller's; the agreed one once accepted
    p2p_allowed = models.BooleanField(default=False)
    date = models.IntegerField()  # requested at
    receive_date = models.IntegerField(default=0)
    accept_date = models.IntegerField(default=0)
    start_date = models.IntegerField(default=0)  # confirmed (active) at
    end_date = models.IntegerField(default=0)
    reason = models.CharField(max_length=12, blank=True, default="")  # hangup busy missed disconnect
    duration = models.IntegerField(default=0)  # seconds, measured by the server
    discarded_by = models.BigIntegerField(default=0)  # 0: the server (a timeout, busy)
    # How it ended, as the console and /metrics tell it: completed, disconnected, missed,
    # declined, cancelled, busy ("" while it goes on).
    outcome = models.CharField(max_length=12, blank=True, default="")
    rating = models.IntegerField(default=0)
    comment = models.TextField(blank=True, default="")
    debug = models.TextField(blank=True, default="")  # saveCallDebug's JSON, capped
    log_saved = models.BooleanField(default=False)

    class Meta:
        db_table = "phone_calls"
        constraints = [
            models.UniqueConstraint(fields=["admin_id", "random_id"], name="phone_calls_caller_random"),
        ]
        indexes = [
            models.Index(fields=["admin_id", "-date"], name="phone_calls_caller"),
            models.Index(fields=["participant_id", "-date"], name="phone_calls_callee"),
            # The timeout job and the busy check read only the calls still going on.
            models.Index(fields=["date"], condition=models.Q(state__in=LIVE_STATES), name="phone_calls_live"),
        ]

    def __str__(self) -> str:
        return f"call {self.id} {self.admin_id} -> {self.participant_id} ({self.state})"
