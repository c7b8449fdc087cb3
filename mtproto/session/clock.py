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
