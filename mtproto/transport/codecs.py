"""Pure framing codecs for the four MTProto TCP transports.

A codec is fed raw (already de-obfuscated) bytes and returns whole packets; ``encode``
frames one payload. The same classes serve both ends: ``server=True`` reads quick-ack
*requests* from length headers, ``server=False`` reads quick-ack *tokens*.
"""

from __future__ import annotations

import os
import struct
import zlib
from collections.abc import Callable
from typing import NamedTuple

from .errors import BadFrame, FrameTooLarge

MAX_PACKET = 4 * 1024 * 1024  # upload parts are 512 KB; anything near this is abuse

_U32 = struct.Struct("<I")
_I32 = struct.Struct("<i")
_FULL_HEAD = struct.Struct("<Ii")


class Packet(NamedTuple):
    """One transport packet.

    Server side: ``quick_ack`` is true when the client asked for a quick ack.
    Client side: a quick-ack token from the server arrives as ``quick_ack=True`` with the
    token as 4 little-endian bytes in ``payload``.
    """

    payload: bytes
    quick_ack: bool = False


def transport_error_code(payload: bytes) -> int | None:
    """The negative code if ``payload`` is a transport error (e.g. -404), else None."""
    if len(payload) == 4:
        (code,) = _I32.unpack(payload)
        if code < 0:
            return code
    return None


class Codec:
    """Shared state of the framing codecs."""

    name = ""
    tag = b""  # what the client sends before its first packet (obfuscated2 puts it inside)

    def __init__(self, *, server: bool = True, max_packet: int = MAX_PACKET):
        self.server = server
        self.max_packet = max_packet
        self._buf = bytearray()

    def feed(self, data: bytes) -> list[Packet]:
        self._buf += data
        out: list[Packet] = []
        while True:
            packet = self._next()
            if packet is None:
                return out
            out.append(packet)

    def buffered(self) -> int:
        return len(self._buf)

    def _check_size(self, n: int) -> None:
        if n > self.max_packet:
            raise FrameTooLarge(f"{self.name} packet of {n} bytes (cap {self.max_packet})")

    def _next(self) -> Packet | None:  # pragma: no cover - abstract
        raise NotImplementedError

    def encode(self, payload: bytes, quick_ack: bool = False) -> bytes:  # pragma: no cover
        raise NotImplementedError

    def encode_quick_ack(self, token: int) -> bytes:  # pragma: no cover
        raise NotImplementedError

    def encode_error(self, code: int) -> bytes:
        """A transport error: a 4-byte packet holding the negative code."""
        return self.encode(_I32.pack(code))


class AbridgedCodec(Codec):
    """0xef; length/4 in one byte, or 0x7f and three bytes."""

    name = "abridged"
    tag = b"\xef"

    def _next(self) -> Packet | None:
        buf = self._buf
        if not buf:
            return None
        first = buf[0]
        if not self.server and first & 0x80:
            # server -> client quick ack: the token byte-swapped, its top bit first
            if len(buf) < 4:
                return None
            token = int.from_bytes(buf[:4], "big")
            del buf[:4]
            return Packet(_U32.pack(token), True)
        quick_ack = self.server and bool(first & 0x80)
        n = first & 0x7F
        head = 1
        if n == 0x7F:
            if len(buf) < 4:
                return None
            n = int.from_bytes(buf[1:4], "little")
            head = 4
        length = n * 4
        self._check_size(length)
        if length == 0:
            raise BadFrame("empty abridged packet")
        if len(buf) < head + length:
            return None
        payload = bytes(buf[head : head + length])
        del buf[: head + length]
        return Packet(payload, quick_ack)

    def encode(self, payload: bytes, quick_ack: bool = False) -> bytes:
        if len(payload) % 4:
            raise ValueError("abridged payloads are whole 32-bit words")
        n = len(payload) // 4
        flag = 0x80 if quick_ack else 0
        if n < 0x7F:
            return bytes([n | flag]) + payload
        return bytes([0x7F | flag]) + n.to_bytes(3, "little") + payload

    def encode_quick_ack(self, token: int) -> bytes:
        return (token | 0x80000000).to_bytes(4, "big")


class IntermediateCodec(Codec):
    """0xeeeeeeee; 4-byte little-endian length, top bit = quick ack."""

    name = "intermediate"
    tag = b"\xee\xee\xee\xee"

    def _next(self) -> Packet | None:
        buf = self._buf
        if len(buf) < 4:
            return None
        (word,) = _U32.unpack_from(buf)
        if word & 0x80000000:
            if not self.server:
                del buf[:4]
                return Packet(_U32.pack(word), True)
            quick_ack = True
            length = word & 0x7FFFFFFF
        else:
            quick_ack = False
            length = word
        self._check_size(length)
        if length == 0:
            raise BadFrame("empty intermediate packet")
        if len(buf) < 4 + length:
            return None
        payload = self._unpad(bytes(buf[4 : 4 + length]))
        del buf[: 4 + length]
        return Packet(payload, quick_ack)

    def _unpad(self, payload: bytes) -> bytes:
        return payload

    def encode(self, payload: bytes, quick_ack: bool = False) -> bytes:
        word = len(payload) | (0x80000000 if quick_ack else 0)
        return _U32.pack(word) + payload

    def encode_quick_ack(self, token: int) -> bytes:
        return _U32.pack(token | 0x80000000)


class PaddedIntermediateCodec(IntermediateCodec):
    """0xdddddddd; intermediate framing with 0..15 random bytes after each payload."""

    name = "padded"
    tag = b"\xdd\xdd\xdd\xdd"

    def __init__(
        self, *, server: bool = True, max_packet: int = MAX_PACKET, rand: Callable[[int], bytes] = os.urandom
    ):
        super().__init__(server=server, max_packet=max_packet)
        self._rand = rand

    def _unpad(self, payload: bytes) -> bytes:
        # The length covers the padding, so the real end comes from the MTProto message
        # itself: plain messages carry their length, encrypted ones are 24 + 16k bytes,
        # transport errors are 4 bytes.
        n = len(payload)
        if n < 20:
            return payload[:4]
        if payload[:8] == b"\0" * 8:
            (body_len,) = _U32.unpack_from(payload, 16)
            if 20 + body_len <= n:
                return payload[: 20 + body_len]
            raise BadFrame("plain message longer than its padded packet")
        if n < 24:
            raise BadFrame("encrypted message shorter than its header")
        return payload[: n - (n - 24) % 16]

    def encode(self, payload: bytes, quick_ack: bool = False) -> bytes:
        pad = self._rand(1)[0] % 16
        return super().encode(payload + self._rand(pad), quick_ack)


class FullCodec(Codec):
    """No tag; ``length seq_no payload crc32`` with per-direction sequence numbers.
    The transport has no quick acks."""

    name = "full"
    tag = b""

    def __init__(self, *, server: bool = True, max_packet: int = MAX_PACKET):
        super().__init__(server=server, max_packet=max_packet)
        self._recv_seq = 0
        self._send_seq = 0

    def _next(self) -> Packet | None:
        buf = self._buf
        if len(buf) < 8:
            return None
        total, seq = _FULL_HEAD.unpack_from(buf)
        if total < 12 or total % 4:
            raise BadFrame(f"full transport length {total}")
        self._check_size(total - 12)
        if len(buf) < total:
            return None
        (crc,) = _U32.unpack_from(buf, total - 4)
        if zlib.crc32(buf[: total - 4]) != crc:
            raise BadFrame("full transport CRC32 mismatch")
        if seq != self._recv_seq:
            raise BadFrame(f"full transport seq_no {seq}, expected {self._recv_seq}")
        self._recv_seq += 1
        payload = bytes(buf[8 : total - 4])
        del buf[:total]
        return Packet(payload, False)

    def encode(self, payload: bytes, quick_ack: bool = False) -> bytes:
        head = _FULL_HEAD.pack(len(payload) + 12, self._send_seq)
        self._send_seq += 1
        body = head + payload
        return body + _U32.pack(zlib.crc32(body))

    def encode_quick_ack(self, token: int) -> bytes:
        return b""


CODECS: dict[str, type[Codec]] = {
    c.name: c for c in (AbridgedCodec, IntermediateCodec, PaddedIntermediateCodec, FullCodec)
}
