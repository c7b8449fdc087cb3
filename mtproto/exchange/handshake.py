"""The server side of auth key creation, one :class:`KeyExchange` per connection.

    req_pq_multi / req_pq       -> resPQ                 (pq, our RSA fingerprints)
    req_DH_params               -> server_DH_params_ok   (g, dh_prime, g_a under tmp key)
    set_client_DH_params        -> dh_gen_ok | dh_gen_retry

The finished key goes into the :class:`~mtproto.keys.AuthKeyStore`: permanent, or
temporary with ``expires_at`` when the client sent ``p_q_inner_data_temp[_dc]``.
All randomness comes from ``rand`` and the time from ``clock``, so a test can replay a
whole exchange byte for byte.
"""

from __future__ import annotations

import hmac
import logging
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from hashlib import sha1

from tl import mt
from tl.runtime import DecodeError, Reader, TLObject

from ..crypto import aes, dh
from ..crypto.errors import BadEncryptedLength, DhRangeError, RsaDecryptError
from ..crypto.kdf import auth_key_aux_hash
from ..crypto.rsa import RsaKey, decrypt_inner_data
from ..keys import AuthKey, AuthKeyStore
from .errors import (
    BadDhValue,
    BadInnerData,
    ExchangeError,
    NonceMismatch,
    PQMismatch,
    RetryIdMismatch,
    ServerNonceMismatch,
    UnexpectedMessage,
    UnknownFingerprint,
)
from .primes import int_to_bytes, make_pq

log = logging.getLogger("telesrv.mtproto.exchange")

# Temporary keys: Telegram Desktop asks for a day; a longer life than this is cut down.
MAX_TEMP_KEY_LIFETIME = 7 * 24 * 3600
# A client that keeps hitting id collisions is broken or hostile.
MAX_RETRIES = 5
# Size of the server's secret DH exponent. NIST SP 800-56A allows 2*s bits for a
# safe-prime group of strength s (112 for 2048 bits); 384 keeps a wide margin and makes
# the two modular exponentiations of each handshake ~5x cheaper than 2048-bit ones,
# which matters because they run on the event loop. Clients cannot tell the difference.
SECRET_EXPONENT_BYTES = 48

_INNER_CLASSES = {
    cls.CONSTRUCTOR_ID: cls
    for cls in (mt.PQInnerData, mt.PQInnerDataDc, mt.PQInnerDataTemp, mt.PQInnerDataTempDc)
}
_REQUESTS = (mt.ReqPqMulti, mt.ReqPq, mt.ReqDHParams, mt.SetClientDHParams)
_REQUEST_IDS = {cls.CONSTRUCTOR_ID: cls for cls in _REQUESTS}


@dataclass(slots=True)
class ExchangeResult:
    auth_key: AuthKey
    server_salt: int  # the first salt the protocol derives from the nonces


@dataclass(slots=True)
class _State:
    nonce: bytes
    server_nonce: bytes
    p: int
    q: int
    pq: int
    # after req_DH_params
    rsa_key: RsaKey | None = None
    new_nonce: bytes = b""
    a: int = 0
    expires_in: int | None = None
    dc: int | None = None
    tmp_key: bytes = b""
    tmp_iv: bytes = b""
    retry_id: int = 0
    retries: int = 0


def _parse_object(data: bytes, allowed: dict[int, type]) -> tuple[TLObject, int]:
    """Read one boxed object of the ``allowed`` constructors; return it and its length."""
    reader = Reader(data)
    try:
        cid = reader.read_uint()
        cls = allowed.get(cid)
        if cls is None:
            raise BadInnerData(f"unexpected constructor {cid:#010x}")
        return cls.read(reader), reader.pos
    except DecodeError as exc:
        raise BadInnerData(str(exc)) from exc


class KeyExchange:
    """Per-connection state machine; several exchanges may run one after another."""

    def __init__(
        self,
        rsa_keys: RsaKey | Sequence[RsaKey],
        store: AuthKeyStore,
        *,
        dc_id: int = 2,
        rand: Callable[[int], bytes] = os.urandom,
        clock: Callable[[], float] = time.time,
    ):
        keys = [rsa_keys] if isinstance(rsa_keys, RsaKey) else list(rsa_keys)
        if not keys:
            raise ValueError("a key exchange needs at least one RSA key")
        self._rsa = {k.fingerprint: k for k in keys}
        self._store = store
        self._rand = rand
        self._clock = clock
        self.dc_id = dc_id
        self._state: _State | None = None
        self.results: list[ExchangeResult] = []  # every key made on this connection
        self.error: ExchangeError | None = None  # why handle() last returned None

    @property
    def result(self) -> ExchangeResult | None:
        return self.results[-1] if self.results else None

    async def handle(self, body: bytes) -> bytes | None:
        """Answer one unencrypted message body; None means: give up on this client
        (the reason is in :attr:`error`, already logged)."""
        try:
            request, _ = _parse_object(body, _REQUEST_IDS)
        except BadInnerData as exc:
            self.error = UnexpectedMessage(f"not a handshake message: {exc}")
            log.info("key exchange: %s", self.error)
            return None
        try:
            return (await self.handle_object(request)).to_bytes()
        except ExchangeError as exc:
            self.error = exc
            log.info("key exchange abandoned: %s: %s", type(exc).__name__, exc)
            return None

    async def handle_object(self, request: TLObject) -> TLObject:
        """Answer one handshake request object; raises an :class:`ExchangeError` subclass."""
        if isinstance(request, mt.ReqPqMulti | mt.ReqPq):
            return self._req_pq(request)
        if isinstance(request, mt.ReqDHParams):
            return self._req_dh_params(request)
        if isinstance(request, mt.SetClientDHParams):
            return await self._set_client_dh_params(request)
        raise UnexpectedMessage(f"{type(request).__name__} is not a handshake message")

    # --- step 1 ---------------------------------------------------------------------

    def _req_pq(self, req) -> TLObject:
        p, q = make_pq(self._rand)
        # a new req_pq restarts the exchange: clients retry from scratch on any failure
        self._state = _State(nonce=req.nonce, server_nonce=self._rand(16), p=p, q=q, pq=p * q)
        return mt.ResPQ(
            nonce=req.nonce,
            server_nonce=self._state.server_nonce,
            pq=int_to_bytes(p * q),
            server_public_key_fingerprints=list(self._rsa),
        )

    def _check_nonces(self, req, state: _State | None) -> _State:
        if state is None:
            raise UnexpectedMessage(f"{type(req).__name__} before req_pq")
        if not hmac.compare_digest(req.nonce, state.nonce):
            raise NonceMismatch("nonce differs from req_pq's")
        if not hmac.compare_digest(req.server_nonce, state.server_nonce):
            raise ServerNonceMismatch("server_nonce is not ours")
        return state

    # --- step 2 ---------------------------------------------------------------------

    def _req_dh_params(self, req) -> TLObject:
        state = self._check_nonces(req, self._state)
        if state.rsa_key is not None:
            raise UnexpectedMessage("req_DH_params twice")
        if (int.from_bytes(req.p, "big"), int.from_bytes(req.q, "big")) != (state.p, state.q):
            raise PQMismatch("p, q are not the factors of pq")
        rsa_key = self._rsa.get(req.public_key_fingerprint)
        if rsa_key is None:
            raise UnknownFingerprint(f"no key with fingerprint {req.public_key_fingerprint:#x}")

        parsed: list[TLObject] = []

        def measure(data: bytes) -> int:
            obj, length = _parse_object(data, _INNER_CLASSES)
            parsed.append(obj)
            return length

        try:
            raw = decrypt_inner_data(rsa_key, req.encrypted_data, measure)
        except (RsaDecryptError, BadInnerData) as exc:
            raise BadInnerData(f"encrypted_data: {exc}") from exc
        inner = parsed[-1]
        log.debug("p_q_inner_data of %d bytes", len(raw))
        if not hmac.compare_digest(inner.nonce, state.nonce):
            raise NonceMismatch("nonce inside p_q_inner_data")
        if not hmac.compare_digest(inner.server_nonce, state.server_nonce):
            raise ServerNonceMismatch("server_nonce inside p_q_inner_data")
        got = (
            int.from_bytes(inner.pq, "big"),
            int.from_bytes(inner.p, "big"),
            int.from_bytes(inner.q, "big"),
        )
        if got != (state.pq, state.p, state.q):
            raise PQMismatch("pq, p, q inside p_q_inner_data")
        expires_in = getattr(inner, "expires_in", None)
        if expires_in is not None:
            if expires_in <= 0:
                raise BadInnerData(f"temporary key lifetime {expires_in}")
            expires_in = min(expires_in, MAX_TEMP_KEY_LIFETIME)

        state.rsa_key = rsa_key
        state.new_nonce = inner.new_nonce
        state.expires_in = expires_in
        state.dc = getattr(inner, "dc", None)
        state.tmp_key, state.tmp_iv = dh.tmp_aes_key_iv(state.new_nonce, state.server_nonce)
        while True:
            state.a = int.from_bytes(self._rand(SECRET_EXPONENT_BYTES), "big") | (
                1 << (8 * SECRET_EXPONENT_BYTES - 1)
            )
            g_a = pow(dh.DH_G, state.a, dh.DH_PRIME)
            try:
                dh.check_dh_value(g_a)
                break
            except DhRangeError:  # pragma: no cover - probability ~2^-63
                continue
        answer = mt.ServerDHInnerData(
            nonce=state.nonce,
            server_nonce=state.server_nonce,
            g=dh.DH_G,
            dh_prime=dh.DH_PRIME.to_bytes(256, "big"),
            g_a=g_a.to_bytes(256, "big"),
            server_time=int(self._clock()),
        ).to_bytes()
        with_hash = sha1(answer).digest() + answer
        with_hash += self._rand(-len(with_hash) % 16)
        return mt.ServerDHParamsOk(
            nonce=state.nonce,
            server_nonce=state.server_nonce,
            encrypted_answer=aes.ige_encrypt(with_hash, state.tmp_key, state.tmp_iv),
        )

    # --- step 3 ---------------------------------------------------------------------

    async def _set_client_dh_params(self, req) -> TLObject:
        state = self._check_nonces(req, self._state)
        if state.rsa_key is None:
            raise UnexpectedMessage("set_client_DH_params before req_DH_params")
        try:
            plain = aes.ige_decrypt(req.encrypted_data, state.tmp_key, state.tmp_iv)
        except BadEncryptedLength as exc:
            raise BadInnerData(str(exc)) from exc
        if len(plain) < 20 + 4:
            raise BadInnerData("client_DH_inner_data too short")
        inner, length = _parse_object(plain[20:], {mt.ClientDHInnerData.CONSTRUCTOR_ID: mt.ClientDHInnerData})
        if len(plain) - 20 - length >= 16:
            raise BadInnerData("more than 15 bytes of padding")
        if not hmac.compare_digest(sha1(plain[20 : 20 + length]).digest(), plain[:20]):
            raise BadInnerData("client_DH_inner_data SHA1 mismatch")
        if not hmac.compare_digest(inner.nonce, state.nonce):
            raise NonceMismatch("nonce inside client_DH_inner_data")
        if not hmac.compare_digest(inner.server_nonce, state.server_nonce):
            raise ServerNonceMismatch("server_nonce inside client_DH_inner_data")
        if inner.retry_id != state.retry_id:
            raise RetryIdMismatch(f"retry_id {inner.retry_id}, expected {state.retry_id}")
        g_b = int.from_bytes(inner.g_b, "big")
        try:
            dh.check_dh_value(g_b)
        except DhRangeError as exc:
            raise BadDhValue(str(exc)) from exc

        auth_key = pow(g_b, state.a, dh.DH_PRIME).to_bytes(256, "big")
        now = int(self._clock())
        key = AuthKey.create(
            auth_key,
            created=now,
            expires_at=None if state.expires_in is None else now + state.expires_in,
            dc_id=self.dc_id if state.dc is None else state.dc,
        )
        if await self._store.get(key.auth_key_id) is not None:
            # an id collision: the client must pick another b (same a, same nonces)
            state.retries += 1
            if state.retries > MAX_RETRIES:
                raise ExchangeError("too many dh_gen_retry rounds")
            state.retry_id = int.from_bytes(auth_key_aux_hash(auth_key), "little", signed=True)
            return mt.DhGenRetry(
                nonce=state.nonce,
                server_nonce=state.server_nonce,
                new_nonce_hash2=dh.new_nonce_hash(state.new_nonce, auth_key, 2),
            )
        await self._store.put(key)
        self.results.append(ExchangeResult(key, dh.initial_server_salt(state.new_nonce, state.server_nonce)))
        self._state = None
        log.info(
            "created %s auth key %#x",
            "temporary" if key.is_temporary else "permanent",
            key.auth_key_id & (2**64 - 1),
        )
        return mt.DhGenOk(
            nonce=state.nonce,
            server_nonce=state.server_nonce,
            new_nonce_hash1=dh.new_nonce_hash(state.new_nonce, auth_key, 1),
        )
