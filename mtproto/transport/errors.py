"""Why a connection's byte stream was refused. Every one of these ends the connection:
after a framing error there is no way to find the next packet boundary."""


class TransportError(ValueError):
    """Base class for malformed transport framing."""


class UnsupportedProtocol(TransportError):
    """The first bytes name no MTProto transport we speak (HTTP, fake-TLS, bad tag)."""


class FrameTooLarge(TransportError):
    """A packet header announced more than the configured cap."""


class FrameTimeout(TransportError):
    """A packet was started but not completed within the connection's frame deadline."""


class BadFrame(TransportError):
    """A length, sequence number or CRC32 that breaks the transport's rules."""


class TransportClosed(ConnectionError):
    """The peer closed the connection (possibly in the middle of a packet)."""
