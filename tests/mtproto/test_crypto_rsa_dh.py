"""The server's RSA key and DH arithmetic, checked against what real clients compute."""

import hashlib

import pytest
from telethon.crypto import rsa as telethon_rsa

from mtproto import crypto
from mtproto.crypto import DhRangeError, RsaDecryptError, RsaKey
from mtproto.crypto.rsa import rsa_pad_encrypt, sha1_scheme_encrypt, tl_bytes

from .test_crypto import CountingRandom


@pytest.fixture(scope="module")
def key() -> RsaKey:
    return RsaKey.generate()


def _measure(data: bytes) -> int:
    """A stand-in TL object: constructor id, then one `bytes` field."""
    if len(data) < 5 or data[:4] != b"\x01\x02\x03\x04":
        raise ValueError("not our object")
    n = data[4]
    return 4 + len(tl_bytes(data[5 : 5 + n]))


PAYLOAD = b"\x01\x02\x03\x04" + tl_bytes(b"inner data of the handshake")


def test_tl_bytes_serialization():
    assert tl_bytes(b"abc") == b"\x03abc"
    assert tl_bytes(b"") == b"\x00\x00\x00\x00"
    long = tl_bytes(b"x" * 256)
    assert long[:4] == b"\xfe\x00\x01\x00" and len(long) == 260


def test_fingerprint_matches_telethon(key):
    pem = key.public_pem().decode()
    assert pem.startswith("-----BEGIN RSA PUBLIC KEY-----")
    telethon_rsa.add_key(pem, old=False)
    try:
        assert key.fingerprint in telethon_rsa._server_keys
    finally:
        telethon_rsa._server_keys.pop(key.fingerprint, None)


def test_fingerprint_of_telegrams_published_key():
    # Telegram's production key; its fingerprint is the well-known 0xd09d1d85de64fd85
    # clients look for
    n = int(
        "E8BB3305C0B52C6CF2AFDF7637313489E63E05268E5BADB601AF417786472E5F"
        "93B85438968E20E6729A301C0AFC121BF7151F834436F7FDA680847A66BF64AC"
        "CEC78EE21C0B316F0EDAFE2F41908DA7BD1F4A5107638EEB67040ACE472A14F9"
        "0D9F7C2B7DEF99688BA3073ADB5750BB02964902A359FE745D8170E36876D4FD"
        "8A5D41B2A76CBFF9A13267EB9580B2D06D10357448D20D9DA2191CB5D8C93982"
        "961CDFDEDA629E37F1FB09A0722027696032FE61ED663DB7A37F6F263D370F69"
        "DB53A0DC0A1748BDAAFF6209D5645485E6E001D1953255757E4B8E42813347B1"
        "1DA6AB500FD0ACE7E6DFA3736199CCAF9397ED0745A427DCFA6CD67BCB1ACFF3",
        16,
    )
    assert crypto.fingerprint_of(n, 65537) % 2**64 == 0xD09D1D85DE64FD85


def test_pem_roundtrip(key):
    again = RsaKey.from_pem(key.private_pem())
    assert (again.n, again.e, again.fingerprint) == (key.n, key.e, key.fingerprint)


def test_raw_rsa_roundtrip_uses_crt_correctly(key):
    block = b"\0" + bytes(range(255))
    assert key.decrypt_raw(key.encrypt_raw(block)) == block


def test_rsa_pad_roundtrip(key):
    data = PAYLOAD
    encrypted = rsa_pad_encrypt(key, data, rand=CountingRandom(3))
    padded = crypto.rsa_pad_decrypt(key, encrypted)
    assert len(padded) == 192 and padded.startswith(data)
    assert crypto.decrypt_inner_data(key, encrypted, _measure) == data


def test_sha1_scheme_of_telethon_is_accepted(key):
    telethon_rsa.add_key(key.public_pem().decode(), old=False)
    try:
        encrypted = telethon_rsa.encrypt(key.fingerprint, PAYLOAD)
    finally:
        telethon_rsa._server_keys.pop(key.fingerprint, None)
    assert crypto.decrypt_inner_data(key, encrypted, _measure) == PAYLOAD


def test_sha1_scheme_of_kurigram_is_accepted(key, monkeypatch):
    from pyrogram.crypto import rsa as pyrogram_rsa

    keys = dict(pyrogram_rsa.server_public_keys)
    keys[key.fingerprint] = pyrogram_rsa.PublicKey(key.n, key.e)
    monkeypatch.setattr(pyrogram_rsa, "server_public_keys", keys)
    # Kurigram 2.2.26's session/auth.py: SHA1(data) + data + padding to 255 bytes
    with_hash = hashlib.sha1(PAYLOAD).digest() + PAYLOAD
    with_hash += bytes(range(-len(with_hash) % 255))
    encrypted = pyrogram_rsa.encrypt(with_hash, key.fingerprint)
    assert crypto.decrypt_inner_data(key, encrypted, _measure) == PAYLOAD


def test_sha1_scheme_with_wrong_hash_is_refused(key):
    forged = key.encrypt_raw(b"\0" + hashlib.sha1(b"other").digest() + PAYLOAD + bytes(235 - len(PAYLOAD)))
    with pytest.raises(RsaDecryptError):
        crypto.decrypt_inner_data(key, forged, _measure)


def test_rsa_pad_tampering_is_refused(key):
    encrypted = rsa_pad_encrypt(key, PAYLOAD, rand=CountingRandom(4))
    # decrypt, flip one bit inside the AES part, re-encrypt: hash check must catch it
    m = bytearray(key.decrypt_raw(encrypted))
    m[100] ^= 1
    with pytest.raises(RsaDecryptError):
        crypto.rsa_pad_decrypt(key, key.encrypt_raw(bytes(m)))
    with pytest.raises(RsaDecryptError):
        crypto.decrypt_inner_data(key, key.encrypt_raw(bytes(m)), _measure)


def test_rsa_block_of_wrong_size_or_above_modulus(key):
    with pytest.raises(RsaDecryptError):
        key.decrypt_raw(b"\x01" * 255)
    with pytest.raises(RsaDecryptError):
        key.decrypt_raw(b"\xff" * 256)


def test_other_key_cannot_decrypt(key):
    encrypted = sha1_scheme_encrypt(key, PAYLOAD)
    other = RsaKey.generate()
    # the value may even exceed the other modulus; either way it is refused
    with pytest.raises(RsaDecryptError):
        crypto.decrypt_inner_data(other, encrypted[:256], _measure)


def test_dh_prime_is_a_safe_prime_and_g_is_valid():
    from pyrogram.crypto.prime import CURRENT_DH_PRIME

    p = crypto.DH_PRIME
    assert p == CURRENT_DH_PRIME and p.bit_length() == 2048
    # Miller-Rabin with fixed bases on p and (p-1)/2
    for candidate in (p, (p - 1) // 2):
        d, r = candidate - 1, 0
        while d % 2 == 0:
            d, r = d // 2, r + 1
        for a in (2, 3, 5, 7, 11, 13, 17, 19, 23, 29):
            x = pow(a, d, candidate)
            if x in (1, candidate - 1):
                continue
            for _ in range(r - 1):
                x = pow(x, 2, candidate)
                if x == candidate - 1:
                    break
            else:
                pytest.fail("not prime")
    assert crypto.g_generates_subgroup(crypto.DH_G)
    assert pow(crypto.DH_G, (p - 1) // 2, p) == 1  # quadratic residue: order (p-1)/2
    assert not crypto.g_generates_subgroup(2) and not crypto.g_generates_subgroup(5)


@pytest.mark.parametrize(
    "value",
    [0, 1, crypto.DH_PRIME - 1, crypto.DH_PRIME, 2**1984 - 1, crypto.DH_PRIME - 2**1984 + 1, 2],
)
def test_dh_values_outside_the_safe_range_are_refused(value):
    with pytest.raises(DhRangeError):
        crypto.check_dh_value(value)


def test_dh_values_at_the_edges_of_the_safe_range_pass():
    crypto.check_dh_value(2**1984)
    crypto.check_dh_value(crypto.DH_PRIME - 2**1984)
    crypto.check_dh_value(pow(3, 12345678901234567890, crypto.DH_PRIME))


def test_nonce_derivations_match_the_clients():
    new_nonce = bytes(range(32))
    server_nonce = bytes(range(200, 216))
    key, iv = crypto.tmp_aes_key_iv(new_nonce, server_nonce)
    # Pyrogram's formula, independently written
    sha1 = lambda b: hashlib.sha1(b).digest()  # noqa: E731
    assert key == sha1(new_nonce + server_nonce) + sha1(server_nonce + new_nonce)[:12]
    assert iv == sha1(server_nonce + new_nonce)[12:] + sha1(new_nonce + new_nonce) + new_nonce[:4]
    auth_key = bytes(range(256))
    aux = sha1(auth_key)[:8]
    for n in (1, 2, 3):
        assert crypto.new_nonce_hash(new_nonce, auth_key, n) == sha1(new_nonce + bytes([n]) + aux)[4:]
    salt = crypto.initial_server_salt(new_nonce, server_nonce)
    expected = bytes(a ^ b for a, b in zip(new_nonce[:8], server_nonce[:8], strict=True))
    assert salt.to_bytes(8, "little", signed=True) == expected
