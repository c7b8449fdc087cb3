"""Sans-IO byte streams: transport detection + optional obfuscation + framing.

:class:`ServerStream` is what a listener runs per accepted connection; it works out the
transport from the first bytes. :class:`ClientStream` is the other end, for tests,
benchmarks and the e2e harness.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from .codecs import CODECS, MAX_PACKET, Codec, Packet, PaddedIntermediateCodec
from .errors import UnsupportedProtocol
from .obfuscated import INIT_SIZE, make_init, parse_init

_HTTP = (b"HEAD", b"POST", b"GET ", b"OPTI")
_FAKE_TLS = b"\x16\x03\x01\x02"


def _make_codec(name: str, server: bool, max_packet: int, rand: Callable[[int], bytes]) -> Codec:
    cls = CODECS[name]
    if cls is PaddedIntermediateCodec:
        return cls(server=server, max_packet=max_packet, rand=rand)
    return cls(server=server, max_packet=max_packet)


class ServerStream:
    """Server end of one connection. Feed it received bytes; encode what to send."""

    def __init__(
        self,
        *,
        max_packet: int = MAX_PACKET,
        rand: Callable[[int], bytes] = os.urandom,
        secret: bytes | None = None,
    ):
        self.max_packet = max_packet
        self._rand = rand
        self._secret = secret
        self._pending = bytearray()
        self.codec: Codec | None = None
        self.obfuscated = False
        self.dc_id: int | None = None  # only obfuscated2 headers carry one
        self._decrypt = None
        self._encrypt = None

    @property
    def kind(self) -> str | None:
        """'abridged', 'intermediate', 'padded' or 'full'; None until detected."""
        return self.codec.name if self.codec else None

    def feed(self, data: bytes) -> list[Packet]:
        if self.codec is None:
            self._pending += data
            if not self._detect():
                return []
            data, self._pending = bytes(self._pending), bytearray()
        if self._decrypt is not None:
            data = self._decrypt.update(data)
        return self.codec.feed(data)

    def buffered(self) -> int:
        """Bytes received and not yet part of a complete packet."""
        return len(self._pending) + (self.codec.buffered() if self.codec is not None else 0)

    def _detect(self) -> bool:
        buf = self._pending
        if not buf:
            return False
        if buf[0] == 0xEF:
            return self._plain("abridged", 1)
        if len(buf) < 4:
            return False
        head = bytes(buf[:4])
        if head == b"\xee\xee\xee\xee":
            return self._plain("intermediate", 4)
        if head == b"\xdd\xdd\xdd\xdd":
            return self._plain("padded", 4)
        if head in _HTTP:
            raise UnsupportedProtocol("HTTP transport is not served here")
        if head == _FAKE_TLS:
            raise UnsupportedProtocol("fake-TLS transport is not served here")
        if len(buf) < 8:
            return False
        # The full transport has no tag; its first packet has seq_no 0, which an
        # obfuscated2 header is forbidden to have in the same place.
        if buf[4:8] == b"\0\0\0\0":
            return self._plain("full", 0)
        if len(buf) < INIT_SIZE:
            return False
        init = parse_init(bytes(buf[:INIT_SIZE]), self._secret)
        del buf[:INIT_SIZE]
        self.codec = _make_codec(init.codec, True, self.max_packet, self._rand)
        self.obfuscated = True
        self.dc_id = init.dc_id
        self._decrypt, self._encrypt = init.decrypt, init.encrypt
        return True

    def _plain(self, name: str, skip: int) -> bool:
        del self._pending[:skip]
        self.codec = _make_codec(name, True, self.max_packet, self._rand)
        return True

    def _out(self, data: bytes) -> bytes:
        return self._encrypt.update(data) if self._encrypt is not None and data else data

    def _codec(self) -> Codec:
        if self.codec is None:
            raise RuntimeError("nothing can be sent before the client's transport is known")
        return self.codec

    def encode(self, payload: bytes) -> bytes:
        return self._out(self._codec().encode(payload))

    def encode_quick_ack(self, token: int) -> bytes:
        """Empty for the full transport, which has no quick acks."""
        return self._out(self._codec().encode_quick_ack(token))

    def encode_error(self, code: int) -> bytes:
        return self._out(self._codec().encode_error(code))


class ClientStream:
    """Client end: the first ``encode`` also emits the transport tag or init header."""

    def __init__(
        self,
        kind: str,
        *,
        obfuscated: bool = False,
        dc_id: int = 2,
        max_packet: int = MAX_PACKET,
        rand: Callable[[int], bytes] = os.urandom,
        secret: bytes | None = None,
    ):
        if obfuscated and kind == "full":
            raise ValueError("obfuscated2 does not carry the full transport")
        self.codec = _make_codec(kind, False, max_packet, rand)
        self._decrypt = self._encrypt = None
        if obfuscated:
            header, init = make_init(kind, dc_id, rand=rand, secret=secret)
            self._start = header
            self._decrypt, self._encrypt = init.decrypt, init.encrypt
        else:
            self._start = self.codec.tag

    def encode(self, payload: bytes, quick_ack: bool = False) -> bytes:
        data = self.codec.encode(payload, quick_ack)
        if self._encrypt is not None:
            data = self._encrypt.update(data)
        start, self._start = self._start, b""
        return start + data

    def feed(self, data: bytes) -> list[Packet]:
        if self._decrypt is not None:
            data = self._decrypt.update(data)
        return self.codec.feed(data)
