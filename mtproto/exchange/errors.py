"""Why the server abandons an auth key exchange or refuses a bind message."""


class ExchangeError(ValueError):
    """Base class: the client's handshake message fails a check."""


class UnexpectedMessage(ExchangeError):
    """A handshake message out of order, or something that is no handshake message."""


class NonceMismatch(ExchangeError):
    """``nonce`` differs from the one of req_pq."""


class ServerNonceMismatch(ExchangeError):
    """``server_nonce`` differs from the one the server chose."""


class UnknownFingerprint(ExchangeError):
    """``public_key_fingerprint`` names no key of this server."""


class PQMismatch(ExchangeError):
    """The client's p, q (or the pq it echoes) are not the server's factorization."""


class BadInnerData(ExchangeError):
    """An encrypted inner object that does not decrypt, parse or hash-check."""


class BadDhValue(ExchangeError):
    """g_b outside the range the protocol requires."""


class RetryIdMismatch(ExchangeError):
    """``retry_id`` of client_DH_inner_data is not what the last dh_gen_retry implies."""


class BindError(ValueError):
    """The ``encrypted_message`` of auth.bindTempAuthKey does not check out."""
