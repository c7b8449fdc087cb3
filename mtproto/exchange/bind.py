"""Checking the ``encrypted_message`` of ``auth.bindTempAuthKey``.

The client encrypts ``bind_auth_key_inner`` as a whole MTProto message under the
*permanent* key, the MTProto 1.0 way (SHA1 msg_key over the unpadded plaintext, SHA1
KDF, 0..15 bytes of padding; the 2.0 scheme is accepted too), with the msg_id of the outer bindTempAuthKey call. That
proves it holds both keys.
"""

from __future__ import annotations

import hmac
import os
import struct
from collections.abc import Callable

from tl import mt
from tl.runtime import DecodeError, Reader

from ..crypto import aes
from ..crypto.kdf import aes_key_iv_v1, aes_key_iv_v2, auth_key_id_of, msg_key_v1, msg_key_v2
from .errors import BindError

_HEADER = struct.Struct("<qqqii")  # salt, session_id, msg_id, seq_no, length


def verify_bind_message(
    *,
    perm_auth_key: bytes,
    encrypted_message: bytes,
    temp_auth_key_id: int,
    temp_session_id: int,
    msg_id: int,
    perm_auth_key_id: int | None = None,
    nonce: int | None = None,
    expires_at: int | None = None,
) -> mt.BindAuthKeyInner:
    """Decrypt and check a bind message; return its ``bind_auth_key_inner``.

    ``temp_auth_key_id``/``temp_session_id``/``msg_id`` are those of the encrypted
    message that carried the call; ``perm_auth_key_id``/``nonce``/``expires_at``, when
    given, are the call's own arguments, which the inner object must repeat.
    Raises :class:`BindError` on any mismatch.
    """
    perm_id = auth_key_id_of(perm_auth_key)
    if perm_auth_key_id is not None and perm_auth_key_id != perm_id:
        raise BindError("perm_auth_key_id is not the id of the permanent key")
    data = encrypted_message
    if len(data) < 24 + 32 + 40 or (len(data) - 24) % 16:
        raise BindError(f"encrypted_message of {len(data)} bytes")
    (key_id,) = struct.unpack_from("<q", data)
    if key_id != perm_id:
        raise BindError("encrypted_message is not under the permanent key")
    msg_key = bytes(data[8:24])
    plain = _decrypt_v1(perm_auth_key, msg_key, data[24:])
    if plain is None:
        plain = _decrypt_v2(perm_auth_key, msg_key, data[24:])
    if plain is None:
        raise BindError("msg_key mismatch (neither MTProto 1.0 nor 2.0)")
    _salt, _session, inner_msg_id, _seq, length = _HEADER.unpack_from(plain)
    if inner_msg_id != msg_id:
        raise BindError("inner msg_id differs from the bindTempAuthKey call's")
    reader = Reader(plain[_HEADER.size : _HEADER.size + length])
    try:
        if reader.read_uint() != mt.BindAuthKeyInner.CONSTRUCTOR_ID:
            raise BindError("not a bind_auth_key_inner")
        inner = mt.BindAuthKeyInner.read(reader)
    except DecodeError as exc:
        raise BindError(f"bind_auth_key_inner: {exc}") from exc
    checks = [
        (inner.temp_auth_key_id, temp_auth_key_id, "temp_auth_key_id"),
        (inner.perm_auth_key_id, perm_id, "perm_auth_key_id"),
        (inner.temp_session_id, temp_session_id, "temp_session_id"),
    ]
    if nonce is not None:
        checks.append((inner.nonce, nonce, "nonce"))
    if expires_at is not None:
        checks.append((inner.expires_at, expires_at, "expires_at"))
    for got, want, name in checks:
        if got != want:
            raise BindError(f"{name} in bind_auth_key_inner does not match")
    return inner


def _body_length(plain: bytes, min_pad: int, max_pad: int) -> int | None:
    length = _HEADER.unpack_from(plain)[4]
    pad = len(plain) - _HEADER.size - length
    return length if length >= 0 and min_pad <= pad <= max_pad else None


def _decrypt_v1(auth_key: bytes, msg_key: bytes, data: bytes) -> bytes | None:
    key, iv = aes_key_iv_v1(auth_key, msg_key, 0)
    plain = aes.ige_decrypt(data, key, iv)
    length = _body_length(plain, 0, 15)
    if length is None or not hmac.compare_digest(msg_key_v1(plain[: _HEADER.size + length]), msg_key):
        return None
    return plain


def _decrypt_v2(auth_key: bytes, msg_key: bytes, data: bytes) -> bytes | None:
    # Not what the docs prescribe, but a client that uses its usual 2.0 encryption here
    # proves possession of the key just as well.
    key, iv = aes_key_iv_v2(auth_key, msg_key, 0)
    plain = aes.ige_decrypt(data, key, iv)
    if not hmac.compare_digest(msg_key_v2(auth_key, plain, 0), msg_key):
        return None
    return plain if _body_length(plain, 12, 1024) is not None else None


def encrypt_bind_message(
    perm_auth_key: bytes,
    inner: mt.BindAuthKeyInner,
    msg_id: int,
    *,
    rand: Callable[[int], bytes] = os.urandom,
) -> bytes:
    """The client's side (tests, tools): wrap ``inner`` as the docs prescribe."""
    body = inner.to_bytes()
    salt, session = struct.unpack("<qq", rand(16))
    plain = _HEADER.pack(salt, session, msg_id, 0, len(body)) + body
    msg_key = msg_key_v1(plain)
    key, iv = aes_key_iv_v1(perm_auth_key, msg_key, 0)
    padded = plain + rand(-len(plain) % 16)
    return struct.pack("<q", auth_key_id_of(perm_auth_key)) + msg_key + aes.ige_encrypt(padded, key, iv)
