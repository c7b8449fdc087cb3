"""The server side of Telegram's SRP password check
(passwordKdfAlgoSHA256SHA256PBKDF2HMACSHA512iter100000SHA256ModPow).

The client derives ``x`` from the password and the two salts and sends only the
verifier ``v = g^x mod p`` when it sets a password; a login sends ``A`` and the proof
``M1``. The server never sees the password or ``x``.

The server's ephemeral secret ``b`` of an ``srp_id`` is derived from a server key,
the id, the user and the verifier, so nothing per attempt is stored; the id carries
its minute of issue, which bounds its life.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time

from mtproto.crypto.dh import DH_G, DH_PRIME

P = DH_PRIME
G = DH_G
SIZE = 256
P_BYTES = P.to_bytes(SIZE, "big")
G_BYTES = G.to_bytes(SIZE, "big")
SRP_ID_TTL_MINUTES = 60
SALT_RANDOM = 32  # bytes of server randomness in a salt; the client appends its own


def _h(*parts: bytes) -> bytes:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part)
    return digest.digest()


def _int(data: bytes) -> int:
    return int.from_bytes(data, "big")


def _bytes(value: int) -> bytes:
    return value.to_bytes(SIZE, "big")


K = _int(_h(P_BYTES, G_BYTES))


def valid_verifier(v_bytes: bytes) -> bool:
    if not v_bytes or len(v_bytes) > SIZE:
        return False
    return 1 < _int(v_bytes) < P - 1


def new_srp_id() -> int:
    minute = int(time.time() // 60)
    return (minute << 24) | secrets.randbits(24)


def srp_id_fresh(srp_id: int) -> bool:
    issued = srp_id >> 24
    return 0 <= int(time.time() // 60) - issued <= SRP_ID_TTL_MINUTES


def ephemeral_secret(server_key: bytes, srp_id: int, user_id: int, verifier: bytes) -> int:
    """``b`` of this srp_id (2048 bits of HMAC output, never 0)."""
    seed = srp_id.to_bytes(8, "big", signed=True) + user_id.to_bytes(8, "big", signed=True) + verifier
    stream = b"".join(
        hmac.new(server_key, i.to_bytes(1, "big") + seed, hashlib.sha256).digest() for i in range(SIZE // 32)
    )
    return (_int(stream) % (P - 2)) + 1


def public_b(v: int, b: int) -> bytes:
    """``srp_B = k*v + g^b mod p``, 256 bytes."""
    return _bytes((K * v + pow(G, b, P)) % P)


def check(v_bytes: bytes, b: int, salt1: bytes, salt2: bytes, a_bytes: bytes, m1: bytes) -> bool:
    """Whether ``M1`` proves knowledge of the password behind ``v`` for this exchange."""
    if not a_bytes or len(a_bytes) > SIZE or len(m1) != 32:
        return False
    a = _int(a_bytes)
    if not 1 < a < P - 1:
        return False
    v = _int(v_bytes)
    a_pad = _bytes(a)
    b_pub = public_b(v, b)
    u = _int(_h(a_pad, b_pub))
    if u == 0:
        return False
    s = pow(a * pow(v, u, P) % P, b, P)
    k_session = _h(_bytes(s))
    hp, hg = _h(P_BYTES), _h(G_BYTES)
    expected = _h(
        bytes(x ^ y for x, y in zip(hp, hg, strict=True)), _h(salt1), _h(salt2), a_pad, b_pub, k_session
    )
    return hmac.compare_digest(expected, m1)
