"""Key derivation for encrypted messages: MTProto 2.0, and the SHA1 scheme of 1.0.

1.0 survives in exactly one place: the ``encrypted_message`` of ``auth.bindTempAuthKey``.
"""

from __future__ import annotations

from enum import IntEnum
from hashlib import sha1, sha256


class Direction(IntEnum):
    """The ``x`` of the KDF: which side encrypted the message."""

    CLIENT_TO_SERVER = 0
    SERVER_TO_CLIENT = 8


def msg_key_large(auth_key: bytes, plaintext: bytes, x: int) -> bytes:
    """SHA256 of 32 bytes of the key and the padded plaintext; its first 4 bytes double
    as the quick-ack token."""
    return sha256(auth_key[88 + x : 120 + x] + plaintext).digest()


def msg_key_v2(auth_key: bytes, plaintext: bytes, x: int) -> bytes:
    return msg_key_large(auth_key, plaintext, x)[8:24]


def aes_key_iv_v2(auth_key: bytes, msg_key: bytes, x: int) -> tuple[bytes, bytes]:
    a = sha256(msg_key + auth_key[x : x + 36]).digest()
    b = sha256(auth_key[40 + x : 76 + x] + msg_key).digest()
    return a[:8] + b[8:24] + a[24:32], b[:8] + a[8:24] + b[24:32]


def msg_key_v1(plaintext_without_padding: bytes) -> bytes:
    return sha1(plaintext_without_padding).digest()[4:20]


def aes_key_iv_v1(auth_key: bytes, msg_key: bytes, x: int) -> tuple[bytes, bytes]:
    a = sha1(msg_key + auth_key[x : x + 32]).digest()
    b = sha1(auth_key[32 + x : 48 + x] + msg_key + auth_key[48 + x : 64 + x]).digest()
    c = sha1(auth_key[64 + x : 96 + x] + msg_key).digest()
    d = sha1(msg_key + auth_key[96 + x : 128 + x]).digest()
    key = a[:8] + b[8:20] + c[4:16]
    iv = a[8:20] + b[:8] + c[16:20] + d[:8]
    return key, iv


def auth_key_id_of(auth_key: bytes) -> int:
    """The lower 64 bits of SHA1(auth_key), as the signed TL long clients send."""
    return int.from_bytes(sha1(auth_key).digest()[12:20], "little", signed=True)


def auth_key_aux_hash(auth_key: bytes) -> bytes:
    """The higher 64 bits of SHA1(auth_key) (used by the dh_gen answers and retry_id)."""
    return sha1(auth_key).digest()[:8]
