"""Encrypted MTProto 2.0 messages: ``auth_key_id + msg_key + AES-IGE(plaintext)``.

The plaintext is ``salt(8) session_id(8) msg_id(8) seq_no(4) length(4) body padding``.
"""

from __future__ import annotations

import hmac
import os
import struct
from collections.abc import Callable
from dataclasses import dataclass

from .aes import ige_decrypt, ige_encrypt
from .errors import AuthKeyMismatch, BadEncryptedLength, BadPlaintext, MsgKeyMismatch
from .kdf import Direction, aes_key_iv_v2, auth_key_id_of, msg_key_large

HEADER = struct.Struct("<qqqii")  # salt, session_id, msg_id, seq_no, body length
MIN_PADDING = 12
MAX_PADDING = 1024

RandomSource = Callable[[int], bytes]


@dataclass(slots=True, frozen=True)
class InnerMessage:
    """One decrypted message."""

    salt: int
    session_id: int
    msg_id: int
    seq_no: int
    body: bytes
    # first 32 bits of msg_key_large with the top bit set: what a quick ack echoes
    quick_ack_token: int


def pack_plaintext(salt: int, session_id: int, msg_id: int, seq_no: int, body: bytes) -> bytes:
    """The plaintext header and body, without padding."""
    return HEADER.pack(salt, session_id, msg_id, seq_no, len(body)) + body


def padding_length(plain_len: int, extra_blocks: int = 0) -> int:
    """Smallest padding of at least 12 bytes that aligns to 16, plus ``extra_blocks``."""
    pad = MIN_PADDING + (-(plain_len + MIN_PADDING) % 16) + 16 * extra_blocks
    if pad > MAX_PADDING:
        raise ValueError("padding would exceed 1024 bytes")
    return pad


def quick_ack_token(auth_key: bytes, padded_plaintext: bytes, direction: Direction) -> int:
    large = msg_key_large(auth_key, padded_plaintext, direction)
    return int.from_bytes(large[:4], "little") | 0x80000000


def encrypt_message(
    auth_key: bytes,
    plaintext: bytes,
    direction: Direction = Direction.SERVER_TO_CLIENT,
    *,
    auth_key_id: int | None = None,
    rand: RandomSource = os.urandom,
    extra_padding_blocks: int = 0,
) -> bytes:
    """Pad ``plaintext`` (see :func:`pack_plaintext`) and encrypt it for the wire."""
    if auth_key_id is None:
        auth_key_id = auth_key_id_of(auth_key)
    padded = plaintext + rand(padding_length(len(plaintext), extra_padding_blocks))
    x = int(direction)
    msg_key = msg_key_large(auth_key, padded, x)[8:24]
    key, iv = aes_key_iv_v2(auth_key, msg_key, x)
    return struct.pack("<q", auth_key_id) + msg_key + ige_encrypt(padded, key, iv)


def decrypt_message(
    auth_key: bytes,
    data: bytes,
    direction: Direction = Direction.CLIENT_TO_SERVER,
    *,
    auth_key_id: int | None = None,
) -> InnerMessage:
    """Decrypt and check an encrypted message.

    Raises :class:`AuthKeyMismatch`, :class:`BadEncryptedLength`, :class:`MsgKeyMismatch`
    or :class:`BadPlaintext`; on any of them the message must be dropped.
    """
    if len(data) < 24 + 32 + 16 or (len(data) - 24) % 16:
        raise BadEncryptedLength(f"encrypted message of {len(data)} bytes")
    if auth_key_id is None:
        auth_key_id = auth_key_id_of(auth_key)
    (got_id,) = struct.unpack_from("<q", data)
    if got_id != auth_key_id:
        raise AuthKeyMismatch(f"message for auth key {got_id}, not {auth_key_id}")
    x = int(direction)
    msg_key = bytes(data[8:24])
    key, iv = aes_key_iv_v2(auth_key, msg_key, x)
    padded = ige_decrypt(data[24:], key, iv)
    large = msg_key_large(auth_key, padded, x)
    # constant-time: a timing oracle on msg_key is what the 2.0 scheme is meant to remove
    if not hmac.compare_digest(large[8:24], msg_key):
        raise MsgKeyMismatch("msg_key does not match the plaintext")
    salt, session_id, msg_id, seq_no, length = HEADER.unpack_from(padded)
    pad = len(padded) - HEADER.size - length
    if length < 0 or length % 4 or not MIN_PADDING <= pad <= MAX_PADDING:
        raise BadPlaintext(f"body length {length} in a {len(padded)}-byte plaintext")
    body = padded[HEADER.size : HEADER.size + length]
    token = int.from_bytes(large[:4], "little") | 0x80000000
    return InnerMessage(salt, session_id, msg_id, seq_no, body, token)
