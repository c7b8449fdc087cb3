"""Why a piece of ciphertext, a handshake payload or a signature was refused.

All are ``ValueError`` subclasses so callers that only care about "bad input from the
network" can catch one thing; the session layer maps each to what goes on the wire.
"""


class CryptoError(ValueError):
    """Base class: the bytes did not pass a cryptographic check."""


class AuthKeyMismatch(CryptoError):
    """The auth_key_id in front of an encrypted message is not the key we hold."""


class MsgKeyMismatch(CryptoError):
    """The msg_key does not match the decrypted plaintext (tampered or wrong key)."""


class BadEncryptedLength(CryptoError):
    """Ciphertext too short or not a whole number of AES blocks."""


class BadPlaintext(CryptoError):
    """Decrypted fine, but the inner length or padding breaks the protocol's rules."""


class RsaDecryptError(CryptoError):
    """req_DH_params' encrypted_data decrypted under neither RSA_PAD nor the SHA1 scheme."""


class DhRangeError(CryptoError):
    """A Diffie-Hellman value (g, g_a, g_b) is outside the range the protocol allows."""
