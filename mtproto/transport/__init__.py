"""MTProto TCP transports: abridged, intermediate, padded intermediate, full, and
obfuscated2 over the first three."""

from .codecs import (
    CODECS,
    MAX_PACKET,
    AbridgedCodec,
    Codec,
    FullCodec,
    IntermediateCodec,
    Packet,
    PaddedIntermediateCodec,
    transport_error_code,
)
from .errors import (
    BadFrame,
    FrameTimeout,
    FrameTooLarge,
    TransportClosed,
    TransportError,
    UnsupportedProtocol,
)
from .obfuscated import ObfuscatedInit, make_init, parse_init
from .proxy_protocol import BadProxyHeader, ProxyHeader, TrustedProxies
from .stream import ClientStream, ServerStream
from .tcp import Transport

# Transport error codes a server sends as a 4-byte packet.
ERROR_AUTH_KEY_NOT_FOUND = -404
ERROR_FLOOD = -429
ERROR_BAD_DC = -444

__all__ = [
    "CODECS",
    "ERROR_AUTH_KEY_NOT_FOUND",
    "ERROR_BAD_DC",
    "ERROR_FLOOD",
    "MAX_PACKET",
    "AbridgedCodec",
    "BadFrame",
    "BadProxyHeader",
    "ClientStream",
    "Codec",
    "FrameTimeout",
    "FrameTooLarge",
    "FullCodec",
    "IntermediateCodec",
    "ObfuscatedInit",
    "Packet",
    "PaddedIntermediateCodec",
    "ProxyHeader",
    "ServerStream",
    "Transport",
    "TransportClosed",
    "TransportError",
    "TrustedProxies",
    "UnsupportedProtocol",
    "make_init",
    "parse_init",
    "transport_error_code",
]
