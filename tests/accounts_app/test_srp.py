"""The server's SRP check against Telethon's client-side computation."""

from __future__ import annotations

import os

from accounts_app import srp


def _client_side(password: str, b_pub: bytes, srp_id: int, salt1: bytes, salt2: bytes):
    from telethon import password as tp
    from telethon.tl import types as tt

    algo = tt.PasswordKdfAlgoSHA256SHA256PBKDF2HMACSHA512iter100000SHA256ModPow(
        salt1=salt1, salt2=salt2, g=srp.G, p=srp.P_BYTES
    )
    pw = tt.account.Password(
        new_algo=tt.PasswordKdfAlgoUnknown(),
        new_secure_algo=tt.SecurePasswordKdfAlgoUnknown(),
        secure_random=b"",
        has_password=True,
        current_algo=algo,
        srp_B=b_pub,
        srp_id=srp_id,
    )
    return tp.compute_digest(algo, password), tp.compute_check(pw, password)


def test_right_password_passes_wrong_fails_and_ids_expire():
    from telethon import password as tp
    from telethon.tl import types as tt

    salt1, salt2 = os.urandom(64), os.urandom(16)
    algo = tt.PasswordKdfAlgoSHA256SHA256PBKDF2HMACSHA512iter100000SHA256ModPow(
        salt1=salt1, salt2=salt2, g=srp.G, p=srp.P_BYTES
    )
    v = tp.compute_digest(algo, "s3cret")
    assert srp.valid_verifier(v)
    srp_id = srp.new_srp_id()
    b = srp.ephemeral_secret(b"k" * 32, srp_id, 42, v)
    b_pub = srp.public_b(int.from_bytes(v, "big"), b)
    _, good = _client_side("s3cret", b_pub, srp_id, salt1, salt2)
    _, bad = _client_side("s3cret!", b_pub, srp_id, salt1, salt2)
    assert srp.check(v, b, salt1, salt2, good.A, good.M1)
    assert not srp.check(v, b, salt1, salt2, bad.A, bad.M1)
    # Another srp id (another b) does not accept a proof made for this one.
    other_b = srp.ephemeral_secret(b"k" * 32, srp_id + 1, 42, v)
    assert not srp.check(v, other_b, salt1, salt2, good.A, good.M1)
    # A = 0 or p would make the shared secret predictable.
    assert not srp.check(v, b, salt1, salt2, b"\0" * 256, good.M1)
    assert not srp.check(v, b, salt1, salt2, srp.P_BYTES, good.M1)
    assert srp.srp_id_fresh(srp_id)
    assert not srp.srp_id_fresh(srp_id - ((srp.SRP_ID_TTL_MINUTES + 1) << 24))
