"""A copy of a Telegram Desktop binary pointed at this deployment
(``manage.py clientconfig tdesktop --patch BINARY -o OUT``; docs/clients.md).

Telegram Desktop compiles its DC list and RSA keys in
(``Telegram/SourceFiles/mtproto/mtproto_dc_options.cpp``): ``kBuiltInDcs`` /
``kBuiltInDcsTest`` (IPv4), ``kBuiltInDcsIPv6`` / ``kBuiltInDcsIPv6Test``, each entry
``{int id; const char *ip; int port}``, and ``kPublicRSAKeys`` / ``kTestPublicRSAKeys``
(PKCS#1 PEM strings). Every address is its own NUL-terminated string in the read-only
data, and a 2048-bit PEM with exponent 65537 has one length, so each literal is
overwritten in place with the deployment's value, padded with NULs: nothing moves, no
offset changes. The ports are plain ints beside the string pointers in the arrays; they
are rewritten where those arrays are found (x86-64 builds write the pointer's value
into the file as well as its relocation), otherwise the listener must listen on 443.

Nothing is written unless every literal is found exactly once: a build that differs
is refused rather than half pointed (a copy that still dials one of Telegram's DCs).
"""

from __future__ import annotations

import ipaddress
import struct
from dataclasses import dataclass, field

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa as _rsa

from mtproto.crypto.rsa import fingerprint_of

# Telegram's built-in DC addresses (tdesktop 2.x to 6.x; Debian 4.6.5 included).
PROD_IPV4 = (
    "149.154.175.50",
    "149.154.167.51",
    "95.161.76.100",
    "149.154.175.100",
    "149.154.167.91",
    "149.154.171.5",
)
TEST_IPV4 = ("149.154.175.10", "149.154.167.40", "149.154.175.117")
PROD_IPV6 = (
    "2001:0b28:f23d:f001:0000:0000:0000:000a",
    "2001:067c:04e8:f002:0000:0000:0000:000a",
    "2001:0b28:f23d:f003:0000:0000:0000:000a",
    "2001:067c:04e8:f004:0000:0000:0000:000a",
    "2001:0b28:f23f:f005:0000:0000:0000:000a",
)
TEST_IPV6 = (
    "2001:0b28:f23d:f001:0000:0000:0000:000e",
    "2001:067c:04e8:f002:0000:0000:0000:000e",
    "2001:0b28:f23d:f003:0000:0000:0000:000e",
)
ADDRESS_LITERALS = PROD_IPV4 + TEST_IPV4 + PROD_IPV6 + TEST_IPV6
# Known by fingerprint, not by text: kPublicRSAKeys and kTestPublicRSAKeys. The binary
# holds other RSA keys too (the signed "simple config" one) that stay as they are.
PROD_KEY_FINGERPRINT = 0xD09D1D85DE64FD85
TEST_KEY_FINGERPRINT = 0xB25898DF208D2603
TELEGRAM_PORT = 443

_PEM_BEGIN = b"-----BEGIN RSA PUBLIC KEY-----\n"
_PEM_END = b"-----END RSA PUBLIC KEY-----"
_PEM_MAX = 1024


class PatchRefused(ValueError):
    """The binary is not one this knows how to point (nothing was written)."""


@dataclass
class PatchReport:
    addresses: dict[str, str] = field(default_factory=dict)  # literal -> what replaced it
    keys: list[str] = field(default_factory=list)  # "production"/"test" at their offsets
    ports_rewritten: int = 0  # DC array entries whose 443 became the listener's port


def _unsigned_fingerprint(pem: bytes) -> int | None:
    try:
        key = serialization.load_pem_public_key(pem)
    except ValueError:
        return None
    if not isinstance(key, _rsa.RSAPublicKey):
        return None
    numbers = key.public_numbers()
    return fingerprint_of(numbers.n, numbers.e) & (2**64 - 1)


def _find_all(data: bytes, needle: bytes):
    # bytes.find, not re: a binary is ~75 MB and is searched about forty times.
    at = data.find(needle)
    while at >= 0:
        yield at
        at = data.find(needle, at + 1)


def _pems(data: bytes):
    """(offset, PEM text) of every NUL-terminated PKCS#1 public key PEM string."""
    for at in _find_all(data, _PEM_BEGIN):
        end = data.find(_PEM_END, at, at + _PEM_MAX)
        if end >= 0 and data[end + len(_PEM_END) : end + len(_PEM_END) + 1] == b"\0":
            yield at, data[at : end + len(_PEM_END)]


def _find_string(data: bytes, literal: bytes) -> int:
    """The offset of ``literal`` as a whole NUL-terminated string (149.154.175.10 is also
    the start of 149.154.175.100), refusing when it is missing or ambiguous."""
    hits = [at + 1 for at in _find_all(data, b"\0" + literal + b"\0")]
    if len(hits) != 1:
        state = "not found" if not hits else f"found {len(hits)} times"
        raise PatchRefused(
            f"DC address literal {literal.decode()} {state}: not a Telegram Desktop build this knows"
        )
    return hits[0]


def _overwrite(out: bytearray, offset: int, old_len: int, new: bytes, what: str) -> None:
    if len(new) > old_len:
        raise PatchRefused(f"{what}: {new.decode()!r} ({len(new)} bytes) does not fit in {old_len} bytes")
    out[offset : offset + old_len] = new + b"\0" * (old_len - len(new))


def _port_slots(data: bytes, offset: int) -> list[int]:
    """Where the port of the DC array entry pointing at the string at ``offset`` lies:
    ``{int id; <pad>; const char *ip; int port}`` with the pointer's value stored in the
    file (the string's virtual address equals its file offset in the read-only segment
    of the builds seen; a relocation entry holds it as its addend, followed by no port)."""
    needle = struct.pack("<Q", offset)
    slots = []
    for at in _find_all(data, needle):
        if at < 8 or at + 16 > len(data):
            continue
        dc_id, pad = struct.unpack_from("<iI", data, at - 8)
        port, pad2 = struct.unpack_from("<iI", data, at + 8)
        if 1 <= dc_id <= 5 and pad == 0 and port == TELEGRAM_PORT and pad2 == 0:
            slots.append(at + 8)
    return slots


def ipv6_stand_in(host: str) -> str:
    """What replaces Telegram's IPv6 addresses: the deployment's own IPv6 address, or,
    for an IPv4 deployment, its IPv4-mapped form (the app's IPv6 socket reaches the same
    listener; nothing outside the deployment)."""
    addr = ipaddress.ip_address(host)
    return str(addr) if addr.version == 6 else f"::ffff:{addr}"


def patch(
    data: bytes,
    host: str,
    port: int,
    pem: bytes,
    telegram_keys: tuple[int, int] = (PROD_KEY_FINGERPRINT, TEST_KEY_FINGERPRINT),
) -> tuple[bytes, PatchReport]:
    """``data`` pointed at ``host:port`` with the server key ``pem`` (PKCS#1), or
    PatchRefused with nothing changed. ``telegram_keys``: the (production, test) key
    fingerprints to replace."""
    try:
        addr = ipaddress.ip_address(host)
    except ValueError:
        raise PatchRefused(
            f"{host!r} is not an IP address: Telegram Desktop's built-in DCs are addresses"
        ) from None
    if addr.version != 4:
        raise PatchRefused(
            "the built-in IPv4 DC list needs an IPv4 address (set TELESRV_MTPROTO_PUBLIC_HOST)"
        )
    if not 0 < port < 65536:
        raise PatchRefused(f"port {port} is not a TCP port")
    pem = pem.strip()
    if _unsigned_fingerprint(pem) is None:
        raise PatchRefused("the server key is not a PKCS#1 RSA public key PEM")
    v4 = str(addr).encode()
    v6 = ipv6_stand_in(host).encode()

    out = bytearray(data)
    report = PatchReport()
    offsets: dict[str, int] = {lit: _find_string(data, lit.encode()) for lit in ADDRESS_LITERALS}
    slots = {lit: _port_slots(data, off) for lit, off in offsets.items()}
    keys = {}
    for at, text in _pems(data):
        fp = _unsigned_fingerprint(text)
        if fp in telegram_keys:
            keys.setdefault(fp, []).append((at, text))
    named = tuple(zip(telegram_keys, ("production", "test"), strict=True))
    for fp, name in named:
        if len(keys.get(fp, ())) != 1:
            raise PatchRefused(f"Telegram's {name} RSA key ({fp:016x}) not found exactly once")

    for lit, off in offsets.items():
        new = v6 if ":" in lit else v4
        _overwrite(out, off, len(lit), new, f"DC address {lit}")
        report.addresses[lit] = new.decode()
    for fp, name in named:
        at, text = keys[fp][0]
        _overwrite(out, at, len(text), pem, f"the {name} RSA key")
        report.keys.append(f"{name} at {at:#x}")

    # Ports: all of the arrays' entries or none (a half-rewritten list would dial 443
    # for some DCs).
    if port != TELEGRAM_PORT:
        if not all(len(s) == 1 for s in slots.values()):
            raise PatchRefused(
                f"the listener's public port is {port}, and this build's DC arrays (port {TELEGRAM_PORT}) were not "
                f"found to rewrite: listen on {TELEGRAM_PORT} (TELESRV_MTPROTO_PUBLIC_PORT) or build from source"
            )
        for s in slots.values():
            struct.pack_into("<i", out, s[0], port)
            report.ports_rewritten += 1
    return bytes(out), report
