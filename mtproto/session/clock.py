"""Message identifiers: the server's own, and the checks on the client's.

A msg_id is unix time in seconds * 2**32 plus a sub-second part. Server ids are odd:
``% 4 == 1`` for a response to a client message, ``% 4 == 3`` for anything the server
sends on its own (updates, new_session_created); client ids are divisible by 4.
"""

from __future__ import annotations

import time

# How far a client msg_id may lie from the server's clock (protocol values).
PAST_WINDOW = 300
FUTURE_WINDOW = 30

# bad_msg_notification error codes.
MSG_ID_TOO_LOW = 16
MSG_ID_TOO_HIGH = 17
MSG_ID_BAD_BITS = 18
CONTAINER_ID_REUSED = 19
MSG_ID_TOO_OLD = 20
SEQNO_TOO_LOW = 32
SEQNO_TOO_HIGH = 33
SEQNO_EXPECTED_EVEN = 34
SEQNO_EXPECTED_ODD = 35
BAD_SALT = 48
BAD_CONTAINER = 64

# What each code means, for the DEBUG log of every bad_msg_notification sent.
BAD_MSG_REASONS = {
    MSG_ID_TOO_LOW: "msg_id too low (more than 300 s in the past)",
    MSG_ID_TOO_HIGH: "msg_id too high (more than 30 s in the future)",
    MSG_ID_BAD_BITS: "msg_id not divisible by 4",
    CONTAINER_ID_REUSED: "container msg_id reused by a message inside it",
    MSG_ID_TOO_OLD: "msg_id older than what the session still remembers",
    SEQNO_TOO_LOW: "seqno lower than that of an earlier message",
    SEQNO_TOO_HIGH: "seqno too high",
    SEQNO_EXPECTED_EVEN: "even seqno expected (not content-related), odd received",
    SEQNO_EXPECTED_ODD: "odd seqno expected (content-related), even received",
    BAD_SALT: "bad server salt",
    BAD_CONTAINER: "invalid container",
}


class MsgIdClock:
    """Strictly increasing server msg_ids (shared by all sessions of a process)."""

    __slots__ = ("_last",)

    def __init__(self) -> None:
        self._last = 0

    def next(self, response: bool) -> int:
        low = 1 if response else 3
        base = int(time.time() * 4294967296.0) & ~3
        if base <= self._last:
            base = (self._last & ~3) + 4
        msg_id = base | low
        self._last = msg_id
        return msg_id


def check_client_msg_id(msg_id: int, now: float | None = None) -> int:
    """0 if ``msg_id`` is acceptable, else the bad_msg_notification code."""
    if msg_id % 4:
        return MSG_ID_BAD_BITS
    if now is None:
        now = time.time()
    seconds = msg_id / 4294967296.0
    if seconds < now - PAST_WINDOW:
        return MSG_ID_TOO_LOW
    if seconds > now + FUTURE_WINDOW:
        return MSG_ID_TOO_HIGH
    return 0
