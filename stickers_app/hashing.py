"""Telegram's list hash: what a client sends back as ``hash`` to learn whether a list
changed (core.telegram.org/api/offsets#hash-generation), over 64-bit values, the
result as a signed 64-bit integer."""

from __future__ import annotations

from collections.abc import Iterable

MASK = (1 << 64) - 1


def list_hash(values: Iterable[int]) -> int:
    acc = 0
    for v in values:
        acc ^= acc >> 21
        acc ^= (acc << 35) & MASK
        acc ^= acc >> 4
        acc = (acc + (v & MASK)) & MASK
    return acc - (1 << 64) if acc >= 1 << 63 else acc


def unchanged(client_hash: int, server_hash: int) -> bool:
    """A client holding nothing sends 0: it always gets the list."""
    return client_hash != 0 and client_hash == server_hash
