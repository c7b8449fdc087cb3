"""Auth keys as the edge sees them, and the storage seam for them.

``mtproto`` only defines the record and the :class:`AuthKeyStore` protocol (with an
in-memory implementation for tests and tools); ``edge_app`` stores them in PostgreSQL.
Key ids are the signed 64-bit values of the wire (the TL ``long`` clients send).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Protocol

from .crypto.kdf import auth_key_id_of

AUTH_KEY_SIZE = 256


@dataclass(slots=True)
class AuthKey:
    key: bytes
    auth_key_id: int
    created: int  # unix time
    expires_at: int | None = None  # temporary keys only
    perm_auth_key_id: int | None = None  # a temporary key's binding, once bound
    dc_id: int = 0
    # The layer the key last announced (invokeWithLayer), as stored: a client that
    # reconnects to another listener process, or after a restart, need not announce it
    # again (Telegram Desktop does not).
    layer: int = 0

    @classmethod
    def create(
        cls, key: bytes, *, created: int | None = None, expires_at: int | None = None, dc_id: int = 0
    ) -> AuthKey:
        if len(key) != AUTH_KEY_SIZE:
            raise ValueError("an auth key is 256 bytes")
        return cls(
            key=bytes(key),
            auth_key_id=auth_key_id_of(key),
            created=int(time.time()) if created is None else created,
            expires_at=expires_at,
            dc_id=dc_id,
        )

    @property
    def id(self) -> int:
        return self.auth_key_id

    @property
    def is_temporary(self) -> bool:
        return self.expires_at is not None

    def expired(self, now: float | None = None) -> bool:
        return self.expires_at is not None and (time.time() if now is None else now) >= self.expires_at

    @property
    def effective_perm_id(self) -> int | None:
        """The permanent key that authorizations hang off: itself for a permanent key,
        the bound key for a bound temporary one, None for an unbound temporary key."""
        return self.perm_auth_key_id if self.is_temporary else self.auth_key_id


class AuthKeyStore(Protocol):
    async def get(self, auth_key_id: int) -> AuthKey | None:
        """The key, or None if unknown or an expired temporary key."""

    async def put(self, key: AuthKey) -> None:
        """Store a new key (an existing id is replaced)."""

    async def bind(self, temp_auth_key_id: int, perm_auth_key_id: int, expires_at: int) -> None:
        """Bind a temporary key to a permanent one (a new bind replaces an old one);
        ``expires_at`` is what the client asked for in ``auth.bindTempAuthKey``."""

    async def delete(self, auth_key_id: int) -> None:
        """Forget a key (``destroy_auth_key``); temporary keys bound to it go too."""

    async def expire(self, now: float | None = None) -> int:
        """Drop expired temporary keys; returns how many went."""


class MemoryAuthKeyStore:
    """:class:`AuthKeyStore` in a dict, for tests and single-process tools."""

    def __init__(self) -> None:
        self.keys: dict[int, AuthKey] = {}

    async def get(self, auth_key_id: int) -> AuthKey | None:
        key = self.keys.get(auth_key_id)
        if key is None or key.expired():
            return None
        return key

    async def put(self, key: AuthKey) -> None:
        self.keys[key.auth_key_id] = key

    async def bind(self, temp_auth_key_id: int, perm_auth_key_id: int, expires_at: int) -> None:
        temp = self.keys.get(temp_auth_key_id)
        if temp is None or not temp.is_temporary:
            raise KeyError(temp_auth_key_id)
        perm = self.keys.get(perm_auth_key_id)
        if perm is None or perm.is_temporary:
            raise KeyError(perm_auth_key_id)
        temp.perm_auth_key_id = perm_auth_key_id
        # the binding cannot outlive the key the handshake created
        temp.expires_at = min(temp.expires_at, expires_at)

    async def delete(self, auth_key_id: int) -> None:
        self.keys.pop(auth_key_id, None)
        for kid in [k.auth_key_id for k in self.keys.values() if k.perm_auth_key_id == auth_key_id]:
            del self.keys[kid]

    async def expire(self, now: float | None = None) -> int:
        gone = [k.auth_key_id for k in self.keys.values() if k.expired(now)]
        for kid in gone:
            del self.keys[kid]
        return len(gone)
