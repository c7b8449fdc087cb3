"""Throughput of the edge's crypto: ``.venv/bin/python bench/bench_crypto.py``.

Prints AES-256-IGE MB/s, encrypt+decrypt round trips of a 1 KB MTProto message per
second, obfuscated2 AES-CTR MB/s, RSA decryptions per second and whole key exchanges
per second (server and simulated client in one process).
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from hashlib import sha1
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import cryptg

from mtproto import crypto
from mtproto.crypto.aes import _py_ige
from mtproto.crypto.rsa import RsaKey, rsa_pad_encrypt
from mtproto.exchange import KeyExchange
from mtproto.keys import MemoryAuthKeyStore
from tl import mt
from tl.runtime import Reader


def rate(fn, min_seconds: float = 1.0) -> float:
    """Calls per second of ``fn``, measured over at least ``min_seconds``."""
    n, start = 0, time.perf_counter()
    while True:
        fn()
        n += 1
        elapsed = time.perf_counter() - start
        if elapsed >= min_seconds:
            return n / elapsed


def bench_ige() -> None:
    key, iv = os.urandom(32), os.urandom(32)
    for size in (1024, 64 * 1024, 1024 * 1024):
        data = os.urandom(size)
        enc = rate(lambda d=data: crypto.ige_encrypt(d, key, iv))
        dec = rate(lambda d=data: crypto.ige_decrypt(d, key, iv))
        print(
            f"AES-256-IGE {'cryptg' if crypto.using_cryptg() else 'fallback'} {size:>8} B: "
            f"encrypt {enc * size / 1e6:8.1f} MB/s, decrypt {dec * size / 1e6:8.1f} MB/s"
        )
    data = os.urandom(64 * 1024)
    print(
        f"AES-256-IGE pure-Python fallback   64 KiB: "
        f"{rate(lambda: _py_ige(data, key, iv, True)) * len(data) / 1e6:8.1f} MB/s"
    )


def bench_messages() -> None:
    auth_key = os.urandom(256)
    key_id = crypto.auth_key_id_of(auth_key)
    plain = crypto.pack_plaintext(1, 2, 3 << 32, 1, os.urandom(1024 - 32))

    def roundtrip():
        wire = crypto.encrypt_message(auth_key, plain, crypto.Direction.CLIENT_TO_SERVER, auth_key_id=key_id)
        crypto.decrypt_message(auth_key, wire, crypto.Direction.CLIENT_TO_SERVER, auth_key_id=key_id)

    print(f"1 KB message encrypt+decrypt: {rate(roundtrip):10.0f} /s")


def bench_ctr() -> None:
    cipher = crypto.CtrCipher(os.urandom(32), os.urandom(16))
    data = os.urandom(64 * 1024)
    print(
        f"AES-256-CTR (obfuscated2) 64 KiB: {rate(lambda: cipher.update(data)) * len(data) / 1e6:8.1f} MB/s"
    )


def bench_handshake() -> None:
    key = RsaKey.generate()
    block = rsa_pad_encrypt(key, b"x" * 100)
    print(f"RSA-2048 raw decrypt (CRT): {rate(lambda: key.decrypt_raw(block)):10.0f} /s")

    server_seconds = [0.0, 0]

    class TimedExchange(KeyExchange):
        async def handle(self, body):
            start = time.perf_counter()
            try:
                return await super().handle(body)
            finally:
                server_seconds[0] += time.perf_counter() - start

    async def one_exchange():
        exchange = TimedExchange(key, MemoryAuthKeyStore())
        server_seconds[1] += 1
        nonce = os.urandom(16)
        res_pq = Reader(await exchange.handle(mt.ReqPqMulti(nonce=nonce).to_bytes())).read_object()
        p, q = sorted(cryptg.factorize_pq_pair(int.from_bytes(res_pq.pq, "big")))
        new_nonce = os.urandom(32)
        inner = mt.PQInnerDataDc(
            pq=res_pq.pq,
            p=p.to_bytes(4, "big"),
            q=q.to_bytes(4, "big"),
            nonce=nonce,
            server_nonce=res_pq.server_nonce,
            new_nonce=new_nonce,
            dc=2,
        ).to_bytes()
        ok = Reader(
            await exchange.handle(
                mt.ReqDHParams(
                    nonce=nonce,
                    server_nonce=res_pq.server_nonce,
                    p=p.to_bytes(4, "big"),
                    q=q.to_bytes(4, "big"),
                    public_key_fingerprint=key.fingerprint,
                    encrypted_data=rsa_pad_encrypt(key, inner),
                ).to_bytes()
            )
        ).read_object()
        tmp_key, tmp_iv = crypto.tmp_aes_key_iv(new_nonce, res_pq.server_nonce)
        plain = crypto.ige_decrypt(ok.encrypted_answer, tmp_key, tmp_iv)
        dh_inner = Reader(plain[20:]).read_object()
        b = int.from_bytes(os.urandom(256), "big")
        data = mt.ClientDHInnerData(
            nonce=nonce,
            server_nonce=res_pq.server_nonce,
            retry_id=0,
            g_b=pow(dh_inner.g, b, crypto.DH_PRIME).to_bytes(256, "big"),
        ).to_bytes()
        with_hash = sha1(data).digest() + data
        with_hash += os.urandom(-len(with_hash) % 16)
        await exchange.handle(
            mt.SetClientDHParams(
                nonce=nonce,
                server_nonce=res_pq.server_nonce,
                encrypted_data=crypto.ige_encrypt(with_hash, tmp_key, tmp_iv),
            ).to_bytes()
        )
        assert exchange.result is not None

    loop = asyncio.new_event_loop()
    try:
        per_s = rate(lambda: loop.run_until_complete(one_exchange()), 2.0)
    finally:
        loop.close()
    print(f"full key exchange (server + simulated client, one core): {per_s:6.1f} /s")
    per_exchange_ms = server_seconds[0] / server_seconds[1] * 1000
    print(
        f"server CPU per key exchange: {per_exchange_ms:6.1f} ms (= {1000 / per_exchange_ms:.0f} exchanges/s/core)"
    )


if __name__ == "__main__":
    bench_ige()
    bench_ctr()
    bench_messages()
    bench_handshake()
