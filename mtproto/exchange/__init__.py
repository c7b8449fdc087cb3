"""Server side of auth key creation, and the check of auth.bindTempAuthKey."""

from .bind import encrypt_bind_message, verify_bind_message
from .errors import (
    BadDhValue,
    BadInnerData,
    BindError,
    ExchangeError,
    NonceMismatch,
    PQMismatch,
    RetryIdMismatch,
    ServerNonceMismatch,
    UnexpectedMessage,
    UnknownFingerprint,
)
from .handshake import MAX_TEMP_KEY_LIFETIME, ExchangeResult, KeyExchange
from .primes import is_prime, make_pq

__all__ = [
    "MAX_TEMP_KEY_LIFETIME",
    "BadDhValue",
    "BadInnerData",
    "BindError",
    "ExchangeError",
    "ExchangeResult",
    "KeyExchange",
    "NonceMismatch",
    "PQMismatch",
    "RetryIdMismatch",
    "ServerNonceMismatch",
    "UnexpectedMessage",
    "UnknownFingerprint",
    "encrypt_bind_message",
    "is_prime",
    "make_pq",
    "verify_bind_message",
]
