"""The server's RSA key: loading, generating, fingerprint, and decrypting what
clients encrypt for it in req_DH_params."""

from __future__ import annotations

import os
from collections.abc import Callable
from hashlib import sha1, sha256
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa as _rsa

from .aes import ige_decrypt, ige_encrypt
from .errors import RsaDecryptError

KEY_BITS = 2048
KEY_BYTES = KEY_BITS // 8


def tl_bytes(data: bytes) -> bytes:
    """TL ``bytes`` serialization (length prefix, padding to 4)."""
    n = len(data)
    head = bytes([n]) if n <= 253 else b"\xfe" + n.to_bytes(3, "little")
    body = head + data
    return body + b"\0" * (-len(body) % 4)


def _int_bytes(value: int) -> bytes:
    return value.to_bytes((value.bit_length() + 7) // 8, "big")


def fingerprint_of(n: int, e: int) -> int:
    """Lower 64 bits of SHA1(TL bytes n + TL bytes e), as a signed TL long."""
    digest = sha1(tl_bytes(_int_bytes(n)) + tl_bytes(_int_bytes(e))).digest()
    return int.from_bytes(digest[12:20], "little", signed=True)


class RsaKey:
    """A 2048-bit RSA private key as the handshake needs it (raw, unpadded RSA)."""

    __slots__ = ("_crt", "_private", "d", "e", "fingerprint", "n")

    def __init__(self, private_key: _rsa.RSAPrivateKey):
        if private_key.key_size != KEY_BITS:
            raise ValueError(f"MTProto needs a {KEY_BITS}-bit RSA key, not {private_key.key_size}")
        self._private = private_key
        numbers = private_key.private_numbers()
        self.n = numbers.public_numbers.n
        self.e = numbers.public_numbers.e
        self.d = numbers.d
        self._crt = (numbers.p, numbers.q, numbers.dmp1, numbers.dmq1, numbers.iqmp)
        self.fingerprint = fingerprint_of(self.n, self.e)

    @classmethod
    def generate(cls) -> RsaKey:
        return cls(_rsa.generate_private_key(public_exponent=65537, key_size=KEY_BITS))

    @classmethod
    def from_pem(cls, pem: bytes) -> RsaKey:
        key = serialization.load_pem_private_key(pem, password=None)
        if not isinstance(key, _rsa.RSAPrivateKey):
            raise ValueError("not an RSA private key")
        return cls(key)

    @classmethod
    def load(cls, path: str | os.PathLike) -> RsaKey:
        return cls.from_pem(Path(path).read_bytes())

    def private_pem(self) -> bytes:
        return self._private.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.TraditionalOpenSSL,
            serialization.NoEncryption(),
        )

    def public_pem(self) -> bytes:
        """PKCS#1 ``-----BEGIN RSA PUBLIC KEY-----``: the form clients embed."""
        return self._private.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.PKCS1
        )

    def decrypt_raw(self, block: bytes) -> bytes:
        """Textbook RSA decryption of one 256-byte block (CRT for speed)."""
        c = int.from_bytes(block, "big")
        if len(block) != KEY_BYTES or c >= self.n:
            raise RsaDecryptError("RSA block is not 256 bytes below the modulus")
        p, q, dp, dq, qinv = self._crt
        m1, m2 = pow(c, dp, p), pow(c, dq, q)
        m = m2 + q * ((qinv * (m1 - m2)) % p)
        return m.to_bytes(KEY_BYTES, "big")

    def encrypt_raw(self, block: bytes) -> bytes:
        """Textbook RSA encryption (what a client does; for tests and tools)."""
        m = int.from_bytes(block, "big")
        if m >= self.n:
            raise ValueError("value not below the modulus")
        return pow(m, self.e, self.n).to_bytes(KEY_BYTES, "big")


# The inner data of req_DH_params is a TL object followed by random padding; only the
# TL codec knows where it ends. ``measure(data) -> length of the object at data[0:]``.
Measure = Callable[[bytes], int]


def rsa_pad_decrypt(key: RsaKey, encrypted: bytes) -> bytes:
    """Undo MTProto 2.0's RSA_PAD; returns the 192-byte ``data_with_padding``.

    Raises :class:`RsaDecryptError` when the hash inside does not match.
    """
    return _rsa_pad_unwrap(key.decrypt_raw(encrypted))


def _rsa_pad_unwrap(m: bytes) -> bytes:
    temp_key_xor, aes_encrypted = m[:32], m[32:]
    h = sha256(aes_encrypted).digest()
    temp_key = bytes(a ^ b for a, b in zip(temp_key_xor, h, strict=True))
    data_with_hash = ige_decrypt(aes_encrypted, temp_key, b"\0" * 32)
    data_pad_reversed, digest = data_with_hash[:192], data_with_hash[192:]
    data_with_padding = data_pad_reversed[::-1]
    if sha256(temp_key + data_with_padding).digest() != digest:
        raise RsaDecryptError("RSA_PAD hash mismatch")
    return data_with_padding


def rsa_pad_encrypt(key: RsaKey, data: bytes, rand: Callable[[int], bytes] = os.urandom) -> bytes:
    """The client side of RSA_PAD (for tests and simulated clients)."""
    if len(data) > 144:
        raise ValueError("RSA_PAD carries at most 144 bytes")
    data_with_padding = data + rand(192 - len(data))
    while True:
        temp_key = rand(32)
        data_with_hash = data_with_padding[::-1] + sha256(temp_key + data_with_padding).digest()
        aes_encrypted = ige_encrypt(data_with_hash, temp_key, b"\0" * 32)
        h = sha256(aes_encrypted).digest()
        block = bytes(a ^ b for a, b in zip(temp_key, h, strict=True)) + aes_encrypted
        if int.from_bytes(block, "big") < key.n:
            return key.encrypt_raw(block)


def sha1_scheme_encrypt(key: RsaKey, data: bytes, rand: Callable[[int], bytes] = os.urandom) -> bytes:
    """The pre-2.0 scheme ``RSA(SHA1(data) + data + padding to 255)`` (tests)."""
    if len(data) > 235:
        raise ValueError("the SHA1 scheme carries at most 235 bytes")
    return key.encrypt_raw(b"\0" + sha1(data).digest() + data + rand(235 - len(data)))


def decrypt_inner_data(key: RsaKey, encrypted: bytes, measure: Measure) -> bytes:
    """Decrypt req_DH_params' ``encrypted_data`` and return the serialized inner object.

    RSA_PAD (MTProto 2.0, what Telegram Desktop sends) is tried first, its SHA256 check
    being self-contained; then the SHA1 scheme that Telethon 1.45 and Kurigram 2.2.26
    still send (``SHA1(data) + data + padding``). ``measure`` tells where the object ends.
    """
    m = key.decrypt_raw(encrypted)
    try:
        padded = _rsa_pad_unwrap(m)
    except RsaDecryptError:
        padded = None
    if padded is not None:
        try:
            return padded[: measure(padded)]
        except ValueError as exc:
            raise RsaDecryptError("RSA_PAD payload is not a TL object") from exc
    if m[0] != 0:
        raise RsaDecryptError("neither RSA_PAD nor the SHA1 scheme")
    digest, rest = m[1:21], m[21:]
    try:
        length = measure(rest)
    except ValueError as exc:
        raise RsaDecryptError("RSA payload is not a TL object") from exc
    data = rest[:length]
    if sha1(data).digest() != digest:
        raise RsaDecryptError("SHA1 scheme hash mismatch")
    return data
