"""AES-256 in the two modes MTProto uses: IGE for messages, CTR for obfuscated2."""

from __future__ import annotations

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from .errors import BadEncryptedLength

try:
    import cryptg as _cryptg
except ImportError:  # pragma: no cover - cryptg is pinned; the fallback is for odd platforms
    _cryptg = None

BLOCK = 16


def _check(data: bytes, key: bytes, iv: bytes) -> None:
    if len(key) != 32 or len(iv) != 32:
        raise ValueError("AES-256-IGE needs a 32-byte key and a 32-byte iv")
    if len(data) % BLOCK:
        raise BadEncryptedLength(f"IGE data length {len(data)} is not a multiple of 16")


def _xor16(a: bytes, b: bytes) -> bytes:
    return (int.from_bytes(a, "big") ^ int.from_bytes(b, "big")).to_bytes(BLOCK, "big")


def _py_ige(data: bytes, key: bytes, iv: bytes, encrypt: bool) -> bytes:
    # ECB gives the raw block cipher; IGE chaining is done here block by block.
    ecb = Cipher(algorithms.AES(key), modes.ECB())
    op = ecb.encryptor() if encrypt else ecb.decryptor()
    if encrypt:
        prev_c, prev_p = iv[:BLOCK], iv[BLOCK:]
    else:
        prev_p, prev_c = iv[BLOCK:], iv[:BLOCK]
        # decryption chains the other way round: c_prev is iv[:16], p_prev is iv[16:]
    out = bytearray()
    for i in range(0, len(data), BLOCK):
        block = data[i : i + BLOCK]
        if encrypt:
            c = _xor16(op.update(_xor16(block, prev_c)), prev_p)
            out += c
            prev_c, prev_p = c, block
        else:
            p = _xor16(op.update(_xor16(block, prev_p)), prev_c)
            out += p
            prev_c, prev_p = block, p
    return bytes(out)


def ige_encrypt(data: bytes, key: bytes, iv: bytes) -> bytes:
    """AES-256-IGE encrypt; ``data`` must already be padded to 16 bytes."""
    _check(data, key, iv)
    if _cryptg is not None:
        return _cryptg.encrypt_ige(bytes(data), key, iv)
    return _py_ige(data, key, iv, True)


def ige_decrypt(data: bytes, key: bytes, iv: bytes) -> bytes:
    """AES-256-IGE decrypt."""
    _check(data, key, iv)
    if _cryptg is not None:
        return _cryptg.decrypt_ige(bytes(data), key, iv)
    return _py_ige(data, key, iv, False)


class CtrCipher:
    """A continuous AES-256-CTR keystream (one per direction of an obfuscated2 link).

    Encryption and decryption are the same operation; the keystream position carries
    over between calls, so calls must happen in stream order.
    """

    __slots__ = ("_ctx",)

    def __init__(self, key: bytes, iv: bytes):
        if len(key) != 32 or len(iv) != 16:
            raise ValueError("AES-256-CTR needs a 32-byte key and a 16-byte iv")
        self._ctx = Cipher(algorithms.AES(key), modes.CTR(iv)).encryptor()

    def update(self, data: bytes) -> bytes:
        return self._ctx.update(data)


def using_cryptg() -> bool:
    return _cryptg is not None
