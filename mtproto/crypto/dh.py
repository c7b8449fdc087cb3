"""Diffie-Hellman parameters and the nonce arithmetic of auth key creation."""

from __future__ import annotations

from hashlib import sha1

from .errors import DhRangeError
from .kdf import auth_key_aux_hash

# The 2048-bit safe prime Telegram's servers send; clients such as Kurigram refuse any
# other, so a server has no real choice here.
DH_PRIME = int(
    "C71CAEB9C6B1C9048E6C522F70F13F73980D40238E3E21C14934D037563D930F"
    "48198A0AA7C14058229493D22530F4DBFA336F6E0AC925139543AED44CCE7C37"
    "20FD51F69458705AC68CD4FE6B6B13ABDC9746512969328454F18FAF8C595F64"
    "2477FE96BB2A941D5BCD1D4AC8CC49880708FA9B378E3C4F3A9060BEE67CF9A4"
    "A4A695811051907E162753B56B0F6B410DBA74D8A84B2A14B3144E0EF1284754"
    "FD17ED950D5965B4B9DD46582DB1178D169C6BC465B0D6FF9CA3928FEF5B9AE4"
    "E418FC15E83EBEA0F87FA9FF5EED70050DED2849F47BF959D956850CE929851F"
    "0D8115F635B105EE2E4E15D04B2454BF6F4FADF034B10403119CD8E3B92FCC5B",
    16,
)
# 3 generates the subgroup of order (p-1)/2 exactly when p mod 3 == 2, which holds.
DH_G = 3
SAFETY_MARGIN = 2 ** (2048 - 64)


def g_generates_subgroup(g: int, p: int = DH_PRIME) -> bool:
    """The client-side checks of the protocol's security guidelines for (g, p)."""
    rules = {
        2: lambda: p % 8 == 7,
        3: lambda: p % 3 == 2,
        4: lambda: True,
        5: lambda: p % 5 in (1, 4),
        6: lambda: p % 24 in (19, 23),
        7: lambda: p % 7 in (3, 5, 6),
    }
    return g in rules and rules[g]()


def check_dh_value(value: int, p: int = DH_PRIME) -> None:
    """Raise :class:`DhRangeError` unless ``1 < value < p-1`` and it keeps 2^1984 away
    from both ends (the guidelines' range for g_a and g_b)."""
    if not 1 < value < p - 1:
        raise DhRangeError("DH value not in (1, p-1)")
    if not SAFETY_MARGIN <= value <= p - SAFETY_MARGIN:
        raise DhRangeError("DH value not in [2^1984, p - 2^1984]")


def tmp_aes_key_iv(new_nonce: bytes, server_nonce: bytes) -> tuple[bytes, bytes]:
    """Key and IV that protect server_DH_inner_data and client_DH_inner_data."""
    ns = sha1(new_nonce + server_nonce).digest()
    sn = sha1(server_nonce + new_nonce).digest()
    nn = sha1(new_nonce + new_nonce).digest()
    return ns + sn[:12], sn[12:20] + nn + new_nonce[:4]


def new_nonce_hash(new_nonce: bytes, auth_key: bytes, number: int) -> bytes:
    """new_nonce_hash1/2/3 of dh_gen_ok/retry/fail: lower 128 bits of
    SHA1(new_nonce + number + auth_key_aux_hash)."""
    return sha1(new_nonce + bytes([number]) + auth_key_aux_hash(auth_key)).digest()[4:20]


def initial_server_salt(new_nonce: bytes, server_nonce: bytes) -> int:
    """substr(new_nonce, 0, 8) XOR substr(server_nonce, 0, 8), as a signed long."""
    a = int.from_bytes(new_nonce[:8], "little")
    b = int.from_bytes(server_nonce[:8], "little")
    return int.from_bytes((a ^ b).to_bytes(8, "little"), "little", signed=True)
