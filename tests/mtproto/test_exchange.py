"""The server side of auth key creation, driven by a simulated client with fixed
randomness, by Telethon's real authenticator, and by broken clients."""

import struct
from hashlib import sha1

import cryptg
import pytest
from telethon.crypto import rsa as telethon_rsa
from telethon.extensions import BinaryReader

from mtproto import crypto
from mtproto.crypto.rsa import RsaKey, rsa_pad_encrypt, sha1_scheme_encrypt
from mtproto.exchange import (
    BadDhValue,
    BadInnerData,
    BindError,
    KeyExchange,
    NonceMismatch,
    PQMismatch,
    ServerNonceMismatch,
    UnexpectedMessage,
    UnknownFingerprint,
    encrypt_bind_message,
    is_prime,
    make_pq,
    verify_bind_message,
)
from mtproto.keys import AuthKey, MemoryAuthKeyStore
from tl import mt
from tl.runtime import Reader

from .test_crypto import CountingRandom
from .test_exchange_tcp import telethon_authenticate

NOW = 1_800_000_000


@pytest.fixture(scope="module")
def rsa_key() -> RsaKey:
    return RsaKey.generate()


def parse(data: bytes):
    return Reader(data).read_object()


class SimulatedClient:
    """The client half of the handshake, written from the protocol description."""

    def __init__(self, rsa_key: RsaKey, rand, *, temp_expires_in: int | None = None, old_rsa: bool = False):
        self.rsa_key = rsa_key
        self.rand = rand
        self.temp_expires_in = temp_expires_in
        self.old_rsa = old_rsa

    def req_pq(self) -> bytes:
        self.nonce = self.rand(16)
        return mt.ReqPqMulti(nonce=self.nonce).to_bytes()

    def req_dh_params(self, res_pq_bytes: bytes, **overrides) -> bytes:
        res_pq = parse(res_pq_bytes)
        assert isinstance(res_pq, mt.ResPQ) and res_pq.nonce == self.nonce
        assert self.rsa_key.fingerprint in res_pq.server_public_key_fingerprints
        self.server_nonce = res_pq.server_nonce
        pq = int.from_bytes(res_pq.pq, "big")
        p, q = sorted(cryptg.factorize_pq_pair(pq))  # an independent factorizer
        assert p * q == pq and p < 2**31 and q < 2**31 and is_prime(p) and is_prime(q)
        self.new_nonce = self.rand(32)
        fields = dict(
            pq=res_pq.pq,
            p=p.to_bytes(4, "big"),
            q=q.to_bytes(4, "big"),
            nonce=self.nonce,
            server_nonce=self.server_nonce,
            new_nonce=self.new_nonce,
            dc=2,
        )
        if self.temp_expires_in is not None:
            inner = mt.PQInnerDataTempDc(**fields, expires_in=self.temp_expires_in)
        else:
            inner = mt.PQInnerDataDc(**fields)
        for k, v in overrides.items():
            setattr(inner, k, v)
        data = inner.to_bytes()
        if self.old_rsa:
            encrypted = sha1_scheme_encrypt(self.rsa_key, data, self.rand)
        else:
            encrypted = rsa_pad_encrypt(self.rsa_key, data, self.rand)
        return mt.ReqDHParams(
            nonce=self.nonce,
            server_nonce=self.server_nonce,
            p=p.to_bytes(4, "big"),
            q=q.to_bytes(4, "big"),
            public_key_fingerprint=self.rsa_key.fingerprint,
            encrypted_data=encrypted,
        ).to_bytes()

    def set_client_dh_params(
        self, answer_bytes: bytes, *, g_b: int | None = None, retry_id: int = 0
    ) -> bytes:
        answer = parse(answer_bytes)
        assert isinstance(answer, mt.ServerDHParamsOk)
        key, iv = crypto.tmp_aes_key_iv(self.new_nonce, self.server_nonce)
        plain = crypto.ige_decrypt(answer.encrypted_answer, key, iv)
        inner = Reader(plain[20:]).read_object()
        assert isinstance(inner, mt.ServerDHInnerData)
        assert sha1(inner.to_bytes()).digest() == plain[:20]
        dh_prime = int.from_bytes(inner.dh_prime, "big")
        assert dh_prime == crypto.DH_PRIME and crypto.g_generates_subgroup(inner.g, dh_prime)
        self.g_a = int.from_bytes(inner.g_a, "big")
        crypto.check_dh_value(self.g_a)
        self.server_time = inner.server_time
        self.tmp = (key, iv)
        return self._client_dh(g_b, retry_id, inner.g)

    def _client_dh(self, g_b, retry_id, g=3) -> bytes:
        b = int.from_bytes(self.rand(256), "big")
        if g_b is None:
            g_b = pow(g, b, crypto.DH_PRIME)
        self.auth_key = pow(self.g_a, b, crypto.DH_PRIME).to_bytes(256, "big")
        data = mt.ClientDHInnerData(
            nonce=self.nonce, server_nonce=self.server_nonce, retry_id=retry_id, g_b=g_b.to_bytes(256, "big")
        ).to_bytes()
        with_hash = sha1(data).digest() + data
        with_hash += self.rand(-len(with_hash) % 16)
        return mt.SetClientDHParams(
            nonce=self.nonce,
            server_nonce=self.server_nonce,
            encrypted_data=crypto.ige_encrypt(with_hash, *self.tmp),
        ).to_bytes()

    def check_dh_gen_ok(self, answer_bytes: bytes) -> None:
        answer = parse(answer_bytes)
        assert isinstance(answer, mt.DhGenOk), answer
        assert answer.new_nonce_hash1 == crypto.new_nonce_hash(self.new_nonce, self.auth_key, 1)


async def run_exchange(rsa_key, server_seed=100, client_seed=200, **client_options):
    store = MemoryAuthKeyStore()
    exchange = KeyExchange(rsa_key, store, dc_id=2, rand=CountingRandom(server_seed), clock=lambda: NOW)
    client = SimulatedClient(rsa_key, CountingRandom(client_seed), **client_options)
    transcript = [await exchange.handle(client.req_pq())]
    transcript.append(await exchange.handle(client.req_dh_params(transcript[-1])))
    transcript.append(await exchange.handle(client.set_client_dh_params(transcript[-1])))
    client.check_dh_gen_ok(transcript[-1])
    return exchange, store, client, transcript


async def test_full_exchange_both_sides_hold_the_same_key(rsa_key):
    exchange, store, client, _ = await run_exchange(rsa_key)
    result = exchange.result
    assert result.auth_key.key == client.auth_key
    assert result.auth_key.auth_key_id == crypto.auth_key_id_of(client.auth_key)
    assert not result.auth_key.is_temporary and result.auth_key.dc_id == 2
    assert await store.get(result.auth_key.auth_key_id) == result.auth_key
    assert client.server_time == NOW
    salt = bytes(a ^ b for a, b in zip(client.new_nonce[:8], client.server_nonce[:8], strict=True))
    assert result.server_salt == struct.unpack("<q", salt)[0]


async def test_exchange_is_reproducible_with_fixed_randomness(rsa_key):
    first = await run_exchange(rsa_key)
    second = await run_exchange(rsa_key)
    assert first[3] == second[3]
    assert first[0].result.auth_key.key == second[0].result.auth_key.key
    other = await run_exchange(rsa_key, server_seed=101)
    assert other[0].result.auth_key.key != first[0].result.auth_key.key


async def test_temporary_key_gets_an_expiry(rsa_key):
    exchange, store, _client, _ = await run_exchange(rsa_key, temp_expires_in=86400)
    key = exchange.result.auth_key
    assert key.is_temporary and key.expires_at == NOW + 86400 and key.perm_auth_key_id is None
    assert await store.get(key.auth_key_id) is key


async def test_old_sha1_rsa_scheme_is_accepted(rsa_key):
    exchange, _, client, _ = await run_exchange(rsa_key, old_rsa=True)
    assert exchange.result.auth_key.key == client.auth_key


async def test_telethon_authenticator_creates_a_key(rsa_key):
    """Telethon 1.45's own handshake code against the server's state machine."""
    store = MemoryAuthKeyStore()
    exchange = KeyExchange(rsa_key, store)

    class Sender:
        async def send(self, request):
            answer = await exchange.handle(bytes(request))
            assert answer is not None, exchange.error
            return BinaryReader(answer).tgread_object()

    telethon_rsa.add_key(rsa_key.public_pem().decode(), old=False)
    try:
        auth_key, _offset = await telethon_authenticate(Sender())
    finally:
        telethon_rsa._server_keys.pop(rsa_key.fingerprint, None)
    assert exchange.result.auth_key.key == auth_key.key
    assert await store.get(auth_key.key_id - 2**64 if auth_key.key_id >= 2**63 else auth_key.key_id)


async def test_colliding_key_id_gets_dh_gen_retry(rsa_key, monkeypatch):
    store = MemoryAuthKeyStore()
    exchange = KeyExchange(rsa_key, store, rand=CountingRandom(1), clock=lambda: NOW)
    client = SimulatedClient(rsa_key, CountingRandom(2))
    answer = await exchange.handle(client.req_dh_params(await exchange.handle(client.req_pq())))
    first_try = client.set_client_dh_params(answer)
    # pretend the key the client is about to get already exists
    await store.put(AuthKey.create(client.auth_key, created=NOW))
    retry = parse(await exchange.handle(first_try))
    assert isinstance(retry, mt.DhGenRetry)
    assert retry.new_nonce_hash2 == crypto.new_nonce_hash(client.new_nonce, client.auth_key, 2)
    retry_id = struct.unpack("<q", crypto.auth_key_aux_hash(client.auth_key))[0]
    # a second attempt must name the failed key in retry_id
    assert await exchange.handle(client._client_dh(None, 0)) is None
    client2 = client
    ok = await exchange.handle(client2._client_dh(None, retry_id))
    client2.check_dh_gen_ok(ok)
    assert exchange.result.auth_key.key == client2.auth_key


# --- broken clients -----------------------------------------------------------------


async def _at_step2(rsa_key):
    exchange = KeyExchange(rsa_key, MemoryAuthKeyStore(), rand=CountingRandom(7), clock=lambda: NOW)
    client = SimulatedClient(rsa_key, CountingRandom(8))
    res_pq = await exchange.handle(client.req_pq())
    return exchange, client, res_pq


async def test_bad_outer_nonce(rsa_key):
    exchange, client, res_pq = await _at_step2(rsa_key)
    req = parse(client.req_dh_params(res_pq))
    req.nonce = bytes(16)
    with pytest.raises(NonceMismatch):
        await exchange.handle_object(req)
    req.nonce, req.server_nonce = client.nonce, bytes(16)
    with pytest.raises(ServerNonceMismatch):
        await exchange.handle_object(req)


async def test_bad_nonce_inside_encrypted_data(rsa_key):
    exchange, client, res_pq = await _at_step2(rsa_key)
    with pytest.raises(NonceMismatch):
        await exchange.handle_object(parse(client.req_dh_params(res_pq, nonce=b"\x01" * 16)))


async def test_bad_fingerprint(rsa_key):
    exchange, client, res_pq = await _at_step2(rsa_key)
    req = parse(client.req_dh_params(res_pq))
    req.public_key_fingerprint ^= 1
    with pytest.raises(UnknownFingerprint):
        await exchange.handle_object(req)
    assert await exchange.handle(req.to_bytes()) is None
    assert isinstance(exchange.error, UnknownFingerprint)


async def test_wrong_factors(rsa_key):
    exchange, client, res_pq = await _at_step2(rsa_key)
    req = parse(client.req_dh_params(res_pq))
    req.p, req.q = b"\x00\x00\x00\x03", req.q
    with pytest.raises(PQMismatch):
        await exchange.handle_object(req)


async def test_data_encrypted_for_another_key(rsa_key):
    exchange, client, res_pq = await _at_step2(rsa_key)
    req = parse(client.req_dh_params(res_pq))
    other = RsaKey.generate()
    req.encrypted_data = rsa_pad_encrypt(other, b"\x00" * 100)
    req.encrypted_data = (int.from_bytes(req.encrypted_data, "big") % rsa_key.n).to_bytes(256, "big")
    with pytest.raises(BadInnerData):
        await exchange.handle_object(req)


async def test_truncated_encrypted_data(rsa_key):
    exchange, client, res_pq = await _at_step2(rsa_key)
    req = parse(client.req_dh_params(res_pq))
    req.encrypted_data = req.encrypted_data[:200]
    with pytest.raises(BadInnerData):
        await exchange.handle_object(req)


async def test_truncated_handshake_message_is_refused(rsa_key):
    exchange, client, res_pq = await _at_step2(rsa_key)
    wire = client.req_dh_params(res_pq)
    assert await exchange.handle(wire[:50]) is None
    assert isinstance(exchange.error, UnexpectedMessage)
    assert await exchange.handle(mt.Ping(ping_id=1).to_bytes()) is None


@pytest.mark.parametrize("g_b", [1, 2**1984 - 1, crypto.DH_PRIME - 1, crypto.DH_PRIME - 2**1983])
async def test_g_b_out_of_range(rsa_key, g_b):
    exchange, client, res_pq = await _at_step2(rsa_key)
    answer = await exchange.handle(client.req_dh_params(res_pq))
    with pytest.raises(BadDhValue):
        await exchange.handle_object(parse(client.set_client_dh_params(answer, g_b=g_b)))
    assert exchange.result is None


async def test_tampered_client_dh_inner_data(rsa_key):
    exchange, client, res_pq = await _at_step2(rsa_key)
    answer = await exchange.handle(client.req_dh_params(res_pq))
    req = parse(client.set_client_dh_params(answer))
    data = bytearray(req.encrypted_data)
    data[-20] ^= 0xFF
    req.encrypted_data = bytes(data)
    with pytest.raises(BadInnerData):
        await exchange.handle_object(req)
    req.encrypted_data = req.encrypted_data[:-1]
    with pytest.raises(BadInnerData):
        await exchange.handle_object(req)


async def test_messages_out_of_order(rsa_key):
    exchange = KeyExchange(rsa_key, MemoryAuthKeyStore())
    client = SimulatedClient(rsa_key, CountingRandom(3))
    client.nonce, client.server_nonce, client.tmp = bytes(16), bytes(16), (bytes(32), bytes(32))
    client.g_a = 3
    with pytest.raises(UnexpectedMessage):
        await exchange.handle_object(parse(client._client_dh(None, 0)))


def test_pq_is_two_31_bit_primes():
    rand = CountingRandom(5)
    for _ in range(20):
        p, q = make_pq(rand)
        assert p < q < 2**31 and p >= 2**30 and is_prime(p) and is_prime(q)
    assert not is_prime(2**31 - 3) and is_prime(2**31 - 1) and not is_prime(1) and is_prime(2)
    assert not is_prime(3215031751)  # strong pseudoprime to bases 2, 3, 5 and 7


# --- auth.bindTempAuthKey -----------------------------------------------------------

PERM = bytes(range(256))
TEMP_ID, TEMP_SESSION, MSG_ID = 0x1234, 0x5678, (NOW << 32) | 4


def _bind(**overrides):
    fields = dict(
        nonce=99,
        temp_auth_key_id=TEMP_ID,
        perm_auth_key_id=crypto.auth_key_id_of(PERM),
        temp_session_id=TEMP_SESSION,
        expires_at=NOW + 3600,
    )
    fields.update(overrides)
    return mt.BindAuthKeyInner(**fields)


def _verify(message, **overrides):
    args = dict(
        perm_auth_key=PERM,
        encrypted_message=message,
        temp_auth_key_id=TEMP_ID,
        temp_session_id=TEMP_SESSION,
        msg_id=MSG_ID,
        perm_auth_key_id=crypto.auth_key_id_of(PERM),
        nonce=99,
        expires_at=NOW + 3600,
    )
    args.update(overrides)
    return verify_bind_message(**args)


def test_bind_message_roundtrip():
    message = encrypt_bind_message(PERM, _bind(), MSG_ID, rand=CountingRandom(1))
    assert _verify(message) == _bind()
    # v1 layout: msg_key = SHA1 of the unpadded plaintext
    assert message[:8] == struct.pack("<q", crypto.auth_key_id_of(PERM))


def test_bind_message_in_the_2_0_scheme_is_accepted_too():
    body = _bind().to_bytes()
    plain = crypto.pack_plaintext(1, 2, MSG_ID, 0, body)
    message = crypto.encrypt_message(PERM, plain, crypto.Direction.CLIENT_TO_SERVER)
    assert _verify(message) == _bind()


@pytest.mark.parametrize(
    "overrides",
    [
        dict(temp_auth_key_id=1),
        dict(temp_session_id=1),
        dict(msg_id=MSG_ID + 4),
        dict(nonce=98),
        dict(expires_at=NOW),
    ],
)
def test_bind_message_mismatch(overrides):
    message = encrypt_bind_message(PERM, _bind(), MSG_ID)
    with pytest.raises(BindError):
        _verify(message, **overrides)


def test_bind_message_under_the_wrong_key_or_tampered():
    other = bytes(reversed(PERM))
    with pytest.raises(BindError):
        _verify(encrypt_bind_message(other, _bind(), MSG_ID))
    message = bytearray(encrypt_bind_message(PERM, _bind(), MSG_ID))
    message[40] ^= 1
    with pytest.raises(BindError):
        _verify(bytes(message))
    with pytest.raises(BindError):
        _verify(bytes(message[:60]))
    with pytest.raises(BindError):
        _verify(encrypt_bind_message(PERM, _bind(perm_auth_key_id=5), MSG_ID))


# --- key store ------------------------------------------------------------------------


async def test_memory_store_binds_expires_and_deletes():
    store = MemoryAuthKeyStore()
    perm = AuthKey.create(PERM, created=NOW)
    temp = AuthKey.create(bytes(reversed(PERM)), created=NOW, expires_at=NOW + 100)
    await store.put(perm)
    await store.put(temp)
    with pytest.raises(KeyError):  # a temporary key cannot be the permanent side
        await store.bind(temp.auth_key_id, temp.auth_key_id, NOW + 50)
    await store.bind(temp.auth_key_id, perm.auth_key_id, NOW + 50)
    assert temp.perm_auth_key_id == perm.auth_key_id and temp.expires_at == NOW + 50
    assert temp.effective_perm_id == perm.auth_key_id and perm.effective_perm_id == perm.auth_key_id
    assert await store.expire(now=NOW + 10) == 0
    assert await store.expire(now=NOW + 50) == 1
    assert temp.auth_key_id not in store.keys
    await store.put(temp)
    temp.expires_at = 2**40
    await store.delete(perm.auth_key_id)
    assert store.keys == {}
    with pytest.raises(KeyError):
        await store.bind(temp.auth_key_id, perm.auth_key_id, NOW)
