"""The proof-of-work of req_pq: a product of two random primes below 2^31."""

from __future__ import annotations

import os
from collections.abc import Callable

# Deterministic Miller-Rabin: these bases decide primality for every n < 3.4e14.
_BASES = (2, 3, 5, 7, 11, 13, 17)


def is_prime(n: int) -> bool:
    if n < 2:
        return False
    for p in _BASES:
        if n % p == 0:
            return n == p
    d, r = n - 1, 0
    while d % 2 == 0:
        d, r = d // 2, r + 1
    for a in _BASES:
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(r - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def random_prime(rand: Callable[[int], bytes] = os.urandom) -> int:
    """A prime in [2^30, 2^31): 4 bytes on the wire, as clients expect."""
    while True:
        n = int.from_bytes(rand(4), "big") & 0x7FFFFFFF | 0x40000001
        while n < 0x80000000:
            if is_prime(n):
                return n
            n += 2


def make_pq(rand: Callable[[int], bytes] = os.urandom) -> tuple[int, int]:
    """Two distinct primes p < q."""
    while True:
        p, q = random_prime(rand), random_prime(rand)
        if p != q:
            return min(p, q), max(p, q)


def int_to_bytes(n: int) -> bytes:
    """Big-endian, minimal length: how pq, p and q travel as TL ``bytes``."""
    return n.to_bytes((n.bit_length() + 7) // 8 or 1, "big")
