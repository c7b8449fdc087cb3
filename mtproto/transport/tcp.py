"""The asyncio face of a server connection: a :class:`ServerStream` over a
StreamReader/StreamWriter pair."""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections import deque
from collections.abc import Callable

from .codecs import MAX_PACKET, Packet
from .errors import TransportClosed, TransportError
from .stream import ServerStream

READ_SIZE = 64 * 1024


class Transport:
    """One accepted connection, framing auto-detected from the client's first bytes.

    Writes are synchronous (buffered in the StreamWriter) so that concurrent tasks can
    never interleave halves of two frames or reorder the obfuscation keystream;
    ``await drain()`` applies backpressure.
    """

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        *,
        max_packet: int = MAX_PACKET,
        rand: Callable[[int], bytes] = os.urandom,
        secret: bytes | None = None,
    ):
        self._reader = reader
        self._writer = writer
        self._stream = ServerStream(max_packet=max_packet, rand=rand, secret=secret)
        self._ready: deque[Packet] = deque()
        self.closed = False

    @property
    def kind(self) -> str | None:
        return self._stream.kind

    @property
    def obfuscated(self) -> bool:
        return self._stream.obfuscated

    @property
    def dc_id(self) -> int | None:
        return self._stream.dc_id

    @property
    def peer(self):
        return self._writer.get_extra_info("peername")

    async def read_packet(self) -> Packet:
        """The next packet. Raises :class:`TransportClosed` at EOF and a
        :class:`TransportError` subclass (after closing) on bad framing."""
        while not self._ready:
            if self.closed:
                raise TransportClosed("transport closed")
            data = await self._reader.read(READ_SIZE)
            if not data:
                self.close()
                raise TransportClosed("peer closed the connection")
            try:
                self._ready.extend(self._stream.feed(data))
            except TransportError:
                self.close()
                raise
        return self._ready.popleft()

    def _write(self, data: bytes) -> None:
        if data and not self.closed:
            self._writer.write(data)

    def write_packet(self, data: bytes) -> None:
        self._write(self._stream.encode(data))

    def write_quick_ack(self, token: int) -> None:
        """No-op on the full transport, which has no quick acks."""
        self._write(self._stream.encode_quick_ack(token))

    def write_transport_error(self, code: int) -> None:
        """Send e.g. -404 (unknown auth key) or -429 (too many connections)."""
        self._write(self._stream.encode_error(code))

    async def drain(self) -> None:
        if not self.closed:
            try:
                await self._writer.drain()
            except ConnectionError as exc:
                self.close()
                raise TransportClosed(str(exc)) from exc

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._writer.close()

    async def wait_closed(self) -> None:
        with contextlib.suppress(ConnectionError):
            await self._writer.wait_closed()
