"""obfuscated2: a 64-byte random init header, then AES-256-CTR over another transport.

The client's header carries, in clear, the key and IV of its own direction
(bytes 8..56); the server's direction uses the same 48 bytes reversed. Bytes 56..64
are readable only after decryption: the inner protocol tag and the DC id.
"""

from __future__ import annotations

import os
import struct
from collections.abc import Callable
from dataclasses import dataclass
from hashlib import sha256

from ..crypto.aes import CtrCipher
from .errors import UnsupportedProtocol

INIT_SIZE = 64

TAG_TO_CODEC = {
    b"\xef\xef\xef\xef": "abridged",
    b"\xee\xee\xee\xee": "intermediate",
    b"\xdd\xdd\xdd\xdd": "padded",
}
CODEC_TO_TAG = {v: k for k, v in TAG_TO_CODEC.items()}

# First words a client must not start an obfuscated2 header with, because the server
# reads them as another protocol: HTTP verbs, fake-TLS, and the plain transport tags.
RESERVED_FIRST_WORDS = frozenset(
    {b"HEAD", b"POST", b"GET ", b"OPTI", b"\x16\x03\x01\x02", b"\xdd\xdd\xdd\xdd", b"\xee\xee\xee\xee"}
)


def is_reserved_start(header: bytes) -> bool:
    return header[0] == 0xEF or bytes(header[:4]) in RESERVED_FIRST_WORDS or header[4:8] == b"\0\0\0\0"


def _ciphers(header: bytes, secret: bytes | None) -> tuple[CtrCipher, CtrCipher]:
    """(client->server cipher, server->client cipher) for an init header."""
    fwd = bytes(header[8:56])
    rev = fwd[::-1]
    fwd_key, fwd_iv = fwd[:32], fwd[32:48]
    rev_key, rev_iv = rev[:32], rev[32:48]
    if secret:
        # MTProxy-style secrets mix into both keys; plain servers use none
        fwd_key = sha256(fwd_key + secret).digest()
        rev_key = sha256(rev_key + secret).digest()
    return CtrCipher(fwd_key, fwd_iv), CtrCipher(rev_key, rev_iv)


@dataclass(slots=True)
class ObfuscatedInit:
    codec: str  # "abridged" | "intermediate" | "padded"
    dc_id: int
    decrypt: CtrCipher  # for what the peer sends
    encrypt: CtrCipher  # for what we send


def parse_init(header: bytes, secret: bytes | None = None) -> ObfuscatedInit:
    """Server side: read a client's 64-byte header.

    Raises :class:`UnsupportedProtocol` for a reserved start or an unknown inner tag.
    """
    if len(header) != INIT_SIZE:
        raise ValueError("obfuscated2 init header is 64 bytes")
    if is_reserved_start(header):
        raise UnsupportedProtocol("reserved bytes at the start of an obfuscated2 header")
    decrypt, encrypt = _ciphers(header, secret)
    clear = decrypt.update(bytes(header))
    codec = TAG_TO_CODEC.get(clear[56:60])
    if codec is None:
        raise UnsupportedProtocol(f"obfuscated2 inner tag {clear[56:60].hex()}")
    (dc_id,) = struct.unpack_from("<h", clear, 60)
    return ObfuscatedInit(codec, dc_id, decrypt, encrypt)


def make_init(
    codec: str,
    dc_id: int = 0,
    *,
    rand: Callable[[int], bytes] = os.urandom,
    secret: bytes | None = None,
) -> tuple[bytes, ObfuscatedInit]:
    """Client side: a fresh header for ``codec`` and the ciphers to use after it.

    In the returned :class:`ObfuscatedInit`, ``encrypt`` is for client->server bytes.
    """
    tag = CODEC_TO_TAG[codec]
    while True:
        header = bytearray(rand(INIT_SIZE))
        if not is_reserved_start(header):
            break
    header[56:60] = tag
    header[60:62] = struct.pack("<h", dc_id)
    c2s, s2c = _ciphers(header, secret)
    encrypted = c2s.update(bytes(header))
    # only the tail goes out encrypted; the key material stays readable for the server
    header[56:64] = encrypted[56:64]
    return bytes(header), ObfuscatedInit(codec, dc_id, decrypt=s2c, encrypt=c2s)
