"""Server salts.

A salt is valid for one time window and derived from a server secret, the auth key id
and the window number, so every edge process that shares the secret agrees on it without
talking to the others. The salt of the previous window stays accepted for one more
window (clients switch lazily), and the key exchange's initial salt
(new_nonce[0:8] xor server_nonce[0:8]) is accepted for a new key's first window.
"""

from __future__ import annotations

import hashlib
import hmac
import struct
import time

WINDOW = 1800
MAX_FUTURE = 64
MAX_CACHED = 100_000


class SaltSchedule:
    def __init__(self, secret: bytes, window: int = WINDOW) -> None:
        self._secret = secret
        self.window = window
        # Every packet checks one salt and stamps another: remember them.
        self._cache: dict[tuple[int, int], int] = {}

    def salt(self, auth_key_id: int, index: int) -> int:
        cached = self._cache.get((auth_key_id, index))
        if cached is not None:
            return cached
        mac = hmac.new(self._secret, struct.pack("<qq", auth_key_id, index), hashlib.sha256).digest()
        value = struct.unpack_from("<q", mac)[0]
        if len(self._cache) >= MAX_CACHED:
            self._cache.clear()
        self._cache[(auth_key_id, index)] = value
        return value

    def current(self, auth_key_id: int, now: float | None = None) -> int:
        return self.salt(auth_key_id, int((time.time() if now is None else now) // self.window))

    def is_valid(
        self,
        auth_key_id: int,
        salt: int,
        now: float | None = None,
        initial: int | None = None,
        key_created: float | None = None,
    ) -> bool:
        now = time.time() if now is None else now
        index = int(now // self.window)
        if salt in (self.salt(auth_key_id, index), self.salt(auth_key_id, index - 1)):
            return True
        return (
            initial is not None
            and salt == initial
            and (key_created is None or now - key_created < self.window)
        )

    def future(self, auth_key_id: int, num: int, now: float | None = None) -> list[tuple[int, int, int]]:
        """(valid_since, valid_until, salt) for the current and the next windows."""
        num = max(1, min(num, MAX_FUTURE))
        index = int((time.time() if now is None else now) // self.window)
        out = []
        for i in range(index, index + num):
            since = i * self.window
            # Valid until the end of the grace window, which is when the server stops
            # accepting it.
            out.append((since, since + 2 * self.window, self.salt(auth_key_id, i)))
        return out
