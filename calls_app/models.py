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


class GroupCall(models.Model):
    """A voice chat (supergroup) or live stream (broadcast channel): Telegram's group
    call. States: ``scheduled`` (announced for ``schedule_date``), ``active``,
    ``discarded``. ``version`` counts participant changes (updateGroupCallParticipants
    carries it, clients apply them in order). ``node``: the SFU node the call is pinned
    to (``calls_app.sfu``), chosen at its first join."""

    id = models.BigIntegerField(primary_key=True)
    access_hash = models.BigIntegerField()
    channel_id = models.BigIntegerField()
    creator_id = models.BigIntegerField()  # the user who started it
    node = models.CharField(max_length=64, blank=True, default="")
    title = models.CharField(max_length=64, blank=True, default="")
    state = models.CharField(max_length=10, default="active")
    random_id = models.IntegerField(default=0)
    date = models.IntegerField()  # created at
    schedule_date = models.IntegerField(default=0)
    start_date = models.IntegerField(default=0)  # 0 while scheduled
    end_date = models.IntegerField(default=0)
    duration = models.IntegerField(default=0)
    join_muted = models.BooleanField(default=False)
    version = models.IntegerField(default=1)
    rtmp_stream = models.BooleanField(default=False)
    record_start_date = models.IntegerField(default=0)
    invite_hash = models.CharField(max_length=32, blank=True, default="")
    ended_by = models.BigIntegerField(default=0)  # 0: the operator or the last one left

    class Meta:
        db_table = "group_calls"
        constraints = [
            # One live call per chat, as Telegram (a second create answers the first).
            models.UniqueConstraint(
                fields=["channel_id"], condition=~models.Q(state="discarded"), name="group_calls_one_live"
            ),
        ]

    def __str__(self) -> str:
        return f"group call {self.id} in {self.channel_id} ({self.state})"


class GroupCallParticipant(models.Model):
    """One user in a call, speaking as themselves or as a channel they run (``peer_*``).
    ``source``: the audio SSRC of the main connection (unique in the call);
    ``muted`` with ``can_self_unmute`` false is "muted by an admin". ``alive_at``: the
    last sign the participant is still there (checkGroupCall, any edit, an online
    session), read by the liveness job."""

    call = models.ForeignKey(GroupCall, on_delete=models.CASCADE, related_name="participants")
    user_id = models.BigIntegerField()
    peer_kind = models.CharField(max_length=7, default="user")  # user | channel
    peer_id = models.BigIntegerField()
    auth_key_id = models.BigIntegerField(default=0)  # the joining device (permanent key)
    source = models.IntegerField()
    presentation_source = models.IntegerField(default=0)
    muted = models.BooleanField(default=False)
    can_self_unmute = models.BooleanField(default=True)
    volume = models.IntegerField(default=10000)
    volume_by_admin = models.BooleanField(default=False)
    raise_hand_rating = models.BigIntegerField(default=0)
    video = models.JSONField(null=True, blank=True)  # {endpoint, source_groups, paused}
    presentation = models.JSONField(null=True, blank=True)
    params = models.JSONField(default=dict)  # the client's join JSON (sources, groups)
    date = models.IntegerField()  # joined at
    active_date = models.IntegerField(default=0)
    alive_at = models.IntegerField(default=0)
    checks = models.BooleanField(default=False)  # the client calls checkGroupCall

    class Meta:
        db_table = "group_call_participants"
        constraints = [
            models.UniqueConstraint(fields=["call", "user_id"], name="group_call_participants_user"),
            models.UniqueConstraint(fields=["call", "source"], name="group_call_participants_source"),
        ]
        indexes = [models.Index(fields=["alive_at"], name="group_call_participants_alive")]

    def __str__(self) -> str:
        return f"{self.peer_kind} {self.peer_id} in call {self.call_id}"


class GroupCallSubscriber(models.Model):
    """phone.toggleGroupCallStartSubscription: told when a scheduled call starts."""

    call = models.ForeignKey(GroupCall, on_delete=models.CASCADE, related_name="subscribers")
    user_id = models.BigIntegerField()

    class Meta:
        db_table = "group_call_subscribers"
        constraints = [
            models.UniqueConstraint(fields=["call", "user_id"], name="group_call_subscribers_user")
        ]


class GroupCallJoinAs(models.Model):
    """phone.saveDefaultGroupCallJoinAs: who a user speaks as in a chat's calls."""

    user_id = models.BigIntegerField()
    channel_id = models.BigIntegerField()
    peer_kind = models.CharField(max_length=7, default="user")
    peer_id = models.BigIntegerField()

    class Meta:
        db_table = "group_call_join_as"
        constraints = [
            models.UniqueConstraint(fields=["user_id", "channel_id"], name="group_call_join_as_once")
        ]
