"""The rules of a private call, from the request to its end.

Every change locks the call's row (``SELECT ... FOR UPDATE``), checks the state the
change starts from and writes the next one in one transaction; whoever made the change
pushes it after the commit (``calls_app.push``), so two devices answering at once, or a
hang-up racing the ring timeout, end with one winner and one update per state.

The server relays the key exchange and never holds a secret exponent: it checks that
``g_a`` and ``g_b`` lie in the protocol's safe range, that the caller's ``g_a`` matches
the ``g_a_hash`` it committed to before seeing ``g_b`` (so neither side can pick its
value after the other's), and passes the key fingerprint on for the callee to check.

Call dicts (``call_dict``) are what the renderers read: ids, users, state, the exchange
values (hex), the agreed protocol, dates, reason and duration.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass

from django.db import IntegrityError, connection, transaction
from django.db.models import Q

from accounts_app import privacy
from accounts_app.blocking import is_blocked
from accounts_app.models import User
from edge_app.alarm import Alarm
from edge_app.dc import Limits
from edge_app.orm_threads import in_thread
from message_core.clock import now
from mtproto.crypto.dh import DH_PRIME, check_dh_value
from mtproto.crypto.errors import DhRangeError
from tl.errors import (
    CallAlreadyAcceptedError,
    CallAlreadyDeclinedError,
    CallKeyFingerprintInvalidError,
    CallPeerInvalidError,
    DhGAInvalidError,
    DhGBInvalidError,
    InputUserDeactivatedError,
    UserIdInvalidError,
    UserIsBlockedError,
    UserIsBotError,
    UserPrivacyRestrictedError,
    YouBlockedUserError,
)

from . import metrics, protocol
from .models import LIVE_STATES, PhoneCall

REASONS = ("hangup", "busy", "missed", "disconnect")
SIGNALING_MAX = 16 * 1024  # bytes of one sendSignalingData (WebRTC offers are a few KB)
COMMENT_MAX = 1024
DEBUG_MAX = 64 * 1024
_LIMITS = Limits()
RING_TIMEOUT = _LIMITS.call_ring_timeout_ms // 1000
RECEIVE_TIMEOUT = _LIMITS.call_receive_timeout_ms // 1000
CONNECT_TIMEOUT = _LIMITS.call_connect_timeout_ms // 1000
# Rung (after the commit) when a call starts ringing or is accepted here: the timeout
# job (calls_app.timeouts) wakes for its deadline.
timeout_alarm = Alarm()


def call_dict(c: PhoneCall) -> dict:
    return {
        "id": c.id, "access_hash": c.access_hash, "admin_id": c.admin_id, "participant_id": c.participant_id,
        "admin_key_id": c.admin_key_id, "participant_key_id": c.participant_key_id,
        "video": c.video, "state": c.state, "date": c.date, "receive_date": c.receive_date,
        "start_date": c.start_date, "g_a_hash": bytes(c.g_a_hash).hex(), "g_a": bytes(c.g_a).hex(),
        "g_b": bytes(c.g_b).hex(), "key_fingerprint": c.key_fingerprint, "protocol": c.protocol,
        "p2p_allowed": c.p2p_allowed, "reason": c.reason, "duration": c.duration, "outcome": c.outcome,
        "discarded_by": c.discarded_by,
    }  # fmt: skip


@dataclass(slots=True)
class Ended:
    """A call that ended now: its record for the pushes and the history message."""

    call: dict
    rang_devices_of_callee: bool  # the callee never answered: every device was ringing


def _dh_value(raw: bytes, error) -> None:
    if len(raw) != 256:
        raise error()
    try:
        check_dh_value(int.from_bytes(raw, "big"), DH_PRIME)
    except DhRangeError:
        raise error() from None


def _outcome(c: PhoneCall, by: int, reason: str) -> str:
    if c.start_date:
        return "disconnected" if reason == "disconnect" else "completed"
    if reason == "busy" and by == 0:
        return "busy"
    if by == 0:
        return "missed"
    return "declined" if by == c.participant_id else "cancelled"


def _end(c: PhoneCall, by: int, reason: str, at: int) -> Ended:
    """Discard ``c`` (locked by the caller of this function)."""
    rang = c.participant_key_id == 0
    c.outcome = _outcome(c, by, reason)
    c.state, c.reason, c.discarded_by, c.end_date = "discarded", reason, by, at
    c.duration = max(0, at - c.start_date) if c.start_date else 0
    c.save(update_fields=["state", "reason", "discarded_by", "end_date", "duration", "outcome"])
    metrics.CALLS_ENDED.labels(c.outcome, "video" if c.video else "voice").inc()
    if c.start_date:
        metrics.CALL_SECONDS.inc(c.duration)
    return Ended(call_dict(c), rang)


def _in_call(user_id: int) -> bool:
    return (
        PhoneCall.objects.filter(state__in=LIVE_STATES)
        .filter(Q(admin_id=user_id) | Q(participant_id=user_id))
        .exists()
    )


@dataclass(slots=True)
class Requested:
    call: dict
    busy: Ended | None = None  # the callee was in another call: ended at once
    fresh: bool = True  # False: a retried request answered with its call


@in_thread
def do_request_call(
    caller_id: int, callee_id: int, random_id: int, g_a_hash: bytes, proto: dict, *, video: bool, key_id: int
) -> Requested:
    """phone.requestCall. Refuses bots, deleted accounts, blocks either way and the
    callee's "calls" privacy (USER_PRIVACY_RESTRICTED); a callee already in a call makes
    the call end at once as busy."""
    if callee_id == caller_id:
        raise UserIdInvalidError()
    if len(g_a_hash) != 32:
        raise DhGAInvalidError()
    proto = protocol.clean(proto)
    callee = User.objects.filter(id=callee_id).only("id", "deleted", "bot").first()
    if callee is None:
        raise UserIdInvalidError()
    if callee.deleted:
        raise InputUserDeactivatedError()
    if callee.bot is not None:
        raise UserIsBotError()
    if is_blocked(callee_id, caller_id):
        metrics.CALLS_REFUSED.labels("blocked").inc()
        raise UserIsBlockedError()
    if is_blocked(caller_id, callee_id):
        raise YouBlockedUserError()
    if callee_id not in privacy.visibility(caller_id, [callee_id], (privacy.PHONE_CALL,))[privacy.PHONE_CALL]:
        metrics.CALLS_REFUSED.labels("privacy").inc()
        raise UserPrivacyRestrictedError()
    old = PhoneCall.objects.filter(admin_id=caller_id, random_id=random_id).first()
    if old is not None:
        if old.participant_id != callee_id:
            raise CallPeerInvalidError()
        return Requested(call_dict(old), fresh=False)
    at = now()
    try:
        with transaction.atomic():
            # Both users' rows locked in id order: two calls to one callee at once see
            # each other, and the second one is busy.
            list(User.objects.select_for_update().filter(id__in=[caller_id, callee_id]).order_by("id"))
            busy = _in_call(callee_id)
            c = PhoneCall.objects.create(
                id=secrets.randbits(63) or 1, access_hash=secrets.randbits(63), admin_id=caller_id,
                participant_id=callee_id, random_id=random_id, video=video, admin_key_id=key_id,
                g_a_hash=g_a_hash, protocol=proto, date=at,
            )  # fmt: skip
            transaction.on_commit(timeout_alarm.ring)
            first = call_dict(c)
            ended = _end(c, 0, "busy", at) if busy else None
    except IntegrityError:  # the same request, retried at the same moment
        old = PhoneCall.objects.get(admin_id=caller_id, random_id=random_id)
        return Requested(call_dict(old), fresh=False)
    return Requested(first, busy=ended)


def _locked(user_id: int, call_id: int, access_hash: int) -> PhoneCall:
    c = PhoneCall.objects.select_for_update().filter(id=call_id, access_hash=access_hash).first()
    if c is None or user_id not in (c.admin_id, c.participant_id):
        raise CallPeerInvalidError()
    return c


def get_call(user_id: int, call_id: int, access_hash: int) -> dict:
    c = PhoneCall.objects.filter(id=call_id, access_hash=access_hash).first()
    if c is None or user_id not in (c.admin_id, c.participant_id):
        raise CallPeerInvalidError()
    return call_dict(c)


@in_thread
def do_received_call(user_id: int, call_id: int, access_hash: int) -> dict | None:
    """phone.receivedCall: a callee device rings. The first one tells the caller
    (``receive_date``); the call dict when this changed the state, else None."""
    with transaction.atomic():
        c = _locked(user_id, call_id, access_hash)
        if user_id != c.participant_id:
            raise CallPeerInvalidError()
        if c.state != "requested":
            return None
        c.state, c.receive_date = "received", now()
        c.save(update_fields=["state", "receive_date"])
        return call_dict(c)


@in_thread
def do_accept_call(
    user_id: int, call_id: int, access_hash: int, g_b: bytes, proto: dict, *, key_id: int
) -> dict:
    """phone.acceptCall on one callee device: it alone takes the call from now on."""
    _dh_value(g_b, DhGBInvalidError)
    mine = protocol.clean(proto)
    with transaction.atomic():
        c = _locked(user_id, call_id, access_hash)
        if user_id != c.participant_id:
            raise CallPeerInvalidError()
        if c.state == "discarded":
            raise CallAlreadyDeclinedError()
        if c.state not in ("requested", "received"):
            raise CallAlreadyAcceptedError()
        c.protocol = protocol.agree(c.protocol, mine)
        at = now()
        c.state, c.g_b, c.participant_key_id, c.accept_date = "accepted", g_b, key_id, at
        transaction.on_commit(timeout_alarm.ring)
        c.receive_date = c.receive_date or at
        c.save(
            update_fields=["state", "g_b", "participant_key_id", "accept_date", "receive_date", "protocol"]
        )
        return call_dict(c)


def _p2p_allowed(a: int, b: int) -> bool:
    """Peer to peer only when each side's "peer-to-peer" privacy lets the other see its address."""
    return (
        b in privacy.visibility(a, [b], (privacy.PHONE_P2P,))[privacy.PHONE_P2P]
        and a in privacy.visibility(b, [a], (privacy.PHONE_P2P,))[privacy.PHONE_P2P]
    )


@in_thread
def do_confirm_call(
    user_id: int, call_id: int, access_hash: int, g_a: bytes, key_fingerprint: int, proto: dict
) -> dict:
    """phone.confirmCall: the caller reveals ``g_a``, which must match its ``g_a_hash``."""
    _dh_value(g_a, DhGAInvalidError)
    if not key_fingerprint:
        raise CallKeyFingerprintInvalidError()
    mine = protocol.clean(proto)
    with transaction.atomic():
        c = _locked(user_id, call_id, access_hash)
        if user_id != c.admin_id:
            raise CallPeerInvalidError()
        if c.state == "discarded":
            raise CallAlreadyDeclinedError()
        if c.state != "accepted":
            raise CallAlreadyAcceptedError() if c.state == "active" else CallPeerInvalidError()
        if hashlib.sha256(g_a).digest() != bytes(c.g_a_hash):
            raise DhGAInvalidError()
        protocol.agree(c.protocol, mine)
        c.state, c.g_a, c.key_fingerprint, c.start_date = "active", g_a, key_fingerprint, now()
        c.p2p_allowed = _p2p_allowed(c.admin_id, c.participant_id)
        c.save(update_fields=["state", "g_a", "key_fingerprint", "start_date", "p2p_allowed"])
        return call_dict(c)


@in_thread
def do_discard_call(
    user_id: int, call_id: int, access_hash: int, reason: str, *, key_id: int
) -> Ended | dict:
    """phone.discardCall by either side (the callee from any of its devices while it
    rings, then only from the one that answered). The server measures the duration:
    from confirmation to now (clients such as py-tgcalls always send 0). An ended
    call answers its final state (a dict) and changes nothing."""
    if reason not in REASONS:
        reason = "hangup"
    with transaction.atomic():
        c = _locked(user_id, call_id, access_hash)
        if c.state == "discarded":
            return call_dict(c)
        if user_id == c.participant_id and c.participant_key_id and c.participant_key_id != key_id:
            raise CallAlreadyAcceptedError()  # answered on another device
        return _end(c, user_id, reason, now())


@in_thread
def check_signaling(user_id: int, call_id: int, access_hash: int, data: bytes) -> dict:
    """phone.sendSignalingData: whom it goes to (the call dict; the handler relays)."""
    if len(data) > SIGNALING_MAX:
        raise CallPeerInvalidError()
    c = PhoneCall.objects.filter(id=call_id, access_hash=access_hash).first()
    if c is None or user_id not in (c.admin_id, c.participant_id):
        raise CallPeerInvalidError()
    if c.state not in ("accepted", "active"):
        raise CallAlreadyDeclinedError() if c.state == "discarded" else CallPeerInvalidError()
    return call_dict(c)


@in_thread
def do_rate_call(user_id: int, call_id: int, access_hash: int, rating: int, comment: str) -> None:
    """phone.setCallRating (1-5 stars and a comment; kept for the operators)."""
    with transaction.atomic():
        c = _locked(user_id, call_id, access_hash)
        c.rating, c.comment = max(1, min(5, rating)), comment[:COMMENT_MAX]
        c.save(update_fields=["rating", "comment"])


@in_thread
def do_save_debug(user_id: int, call_id: int, access_hash: int, data: str, *, log: bool = False) -> None:
    """phone.saveCallDebug (the library's JSON statistics, capped) / saveCallLog."""
    with transaction.atomic():
        c = _locked(user_id, call_id, access_hash)
        if log:
            c.log_saved = True
            c.save(update_fields=["log_saved"])
        else:
            c.debug = data[:DEBUG_MAX]
            c.save(update_fields=["debug"])


def claim_timed_out(limit: int = 100) -> list[Ended]:
    """End the calls nobody answered in time as missed (and accepted ones the caller
    never confirmed as disconnected). Rows are claimed with ``FOR UPDATE SKIP LOCKED``:
    several workers each end a call once."""
    at = now()
    due = (
        Q(state="requested", date__lt=at - RECEIVE_TIMEOUT)
        | Q(state="received", date__lt=at - RING_TIMEOUT)
        | Q(state="accepted", accept_date__lt=at - CONNECT_TIMEOUT)
    )
    with transaction.atomic():
        rows = list(
            PhoneCall.objects.select_for_update(skip_locked=True)
            .filter(state__in=LIVE_STATES)
            .filter(due)
            .order_by("date")[:limit]
        )
        return [_end(c, 0, "disconnect" if c.state == "accepted" else "missed", at) for c in rows]


def next_timeout() -> int | None:
    """The second the earliest live call times out at (``claim_timed_out`` ends it
    then), None: no call is waiting."""
    with connection.cursor() as cur:
        cur.execute(
            "SELECT min(CASE state WHEN 'requested' THEN date + %s WHEN 'received' THEN date + %s"
            " ELSE accept_date + %s END) + 1 FROM phone_calls WHERE state IN ('requested', 'received', 'accepted')",
            [RECEIVE_TIMEOUT, RING_TIMEOUT, CONNECT_TIMEOUT],
        )
        return cur.fetchone()[0]


def calls_of(user_id: int, limit: int = 50) -> list[dict]:
    """A user's latest calls, both directions, newest first (the console)."""
    limit = max(1, min(limit, 200))
    rows = PhoneCall.objects.filter(Q(admin_id=user_id) | Q(participant_id=user_id)).order_by("-date")[:limit]
    return [call_dict(c) for c in rows]
