"""The asyncio face of a server connection: a :class:`ServerStream` over a
StreamReader/StreamWriter pair."""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections import deque
from collections.abc import Callable

from .codecs import MAX_PACKET, Packet
from .errors import FrameTimeout, TransportClosed, TransportError
from .proxy_protocol import BadProxyHeader, ProxyHeader, parse, sniff
from .stream import ServerStream
from .websocket import WebSocketServerStream, is_http_request_start

READ_SIZE = 64 * 1024


class Transport:
    """One accepted connection, framing auto-detected from the client's first bytes: an
    HTTP GET is a WebSocket upgrade (web clients, ``/apiws``), anything else one of the
    MTProto TCP transports.

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
        frame_deadline: float = 0.0,
    ):
        self._reader = reader
        # A started packet must be complete within this many seconds (0: no deadline):
        # otherwise a peer trickling a large frame holds its buffer as long as it likes.
        self.frame_deadline = frame_deadline
        self._frame_started: float | None = None
        self._writer = writer
        self._options = {"max_packet": max_packet, "rand": rand, "secret": secret}
        self._stream: ServerStream | WebSocketServerStream | None = None
        self._head = bytearray()  # first bytes, until they tell TCP from WebSocket
        self._early = b""  # read with a PROXY header, not yet taken
        self._source: tuple[str, int] | None = None  # the client a PROXY header named
        self.proxied_by = None  # the balancer's address, on a connection that came through one
        self._ready: deque[Packet] = deque()
        self.closed = False
        # The peer went away while an answer was being written: ordinary (a client that
        # hangs up mid-answer), closed quietly and counted by the listener.
        self.gone_while_writing = False

    @property
    def kind(self) -> str | None:
        return self._stream.kind if self._stream is not None else None

    @property
    def obfuscated(self) -> bool:
        return self._stream is not None and self._stream.obfuscated

    @property
    def dc_id(self) -> int | None:
        return self._stream.dc_id if self._stream is not None else None

    @property
    def websocket(self) -> WebSocketServerStream | None:
        """The WebSocket layer, on a connection that upgraded to one."""
        return self._stream if isinstance(self._stream, WebSocketServerStream) else None

    @property
    def peer(self):
        """The client's address: the one a trusted balancer's PROXY header named, else
        the connection's own."""
        return self._source or self._writer.get_extra_info("peername")

    async def accept_proxy_header(self, timeout: float) -> ProxyHeader:
        """On a connection from a trusted balancer: read its PROXY header, which must come
        first and within ``timeout`` seconds; the client it names becomes :attr:`peer`.
        Raises :class:`BadProxyHeader` (after closing) when the header is malformed,
        missing or late, :class:`TransportClosed` when the balancer hangs up first."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        received = b""
        try:
            while (header := parse(received)) is None:
                left = deadline - loop.time()
                if left <= 0:
                    raise TimeoutError
                data = await asyncio.wait_for(self._reader.read(READ_SIZE), left)
                if not data:
                    self.close()
                    raise TransportClosed("the balancer closed the connection before its PROXY header")
                received += data
        except TimeoutError:
            self.close()
            raise BadProxyHeader(f"no PROXY header within {timeout:g} s", "proxy_header_timeout") from None
        except BadProxyHeader:
            self.close()
            raise
        except ConnectionError as exc:
            self.close()
            raise TransportClosed(str(exc)) from exc
        self.proxied_by = self._writer.get_extra_info("peername")
        self._source = header.source
        self._early = received[header.length :]
        return header

    async def read_packet(self) -> Packet:
        """The next packet. Raises :class:`TransportClosed` at EOF and a
        :class:`TransportError` subclass (after closing) on bad framing."""
        while not self._ready:
            if self.closed:
                raise TransportClosed("transport closed")
            if self._early:
                data, self._early = self._early, b""
            elif self._frame_started is None or not self.frame_deadline:
                data = await self._reader.read(READ_SIZE)
            else:
                data = await self._read_before_deadline()
            if not data:
                self.close()
                raise TransportClosed("peer closed the connection")
            if self._stream is None:
                data = self._choose_stream(data)
                if not data:
                    continue
            try:
                packets = self._stream.feed(data)
            except TransportError:
                self.close()
                raise
            if packets:
                self._ready.extend(packets)
                self._frame_started = None
            if self.buffered():
                if self._frame_started is None:
                    self._frame_started = asyncio.get_running_loop().time()
            else:
                self._frame_started = None
            ws = self.websocket
            if ws is not None:
                # The handshake answer, pongs, the closing frame.
                self._write(ws.data_to_send())
                if ws.closing and not self._ready:
                    self.close()
                    raise TransportClosed("WebSocket closed")
        return self._ready.popleft()

    def _choose_stream(self, data: bytes) -> bytes:
        """Buffer the first bytes until they tell an HTTP GET (WebSocket) from an MTProto
        transport; then pick the stream and return everything buffered."""
        self._head += data
        head = bytes(self._head)
        proxy_header = sniff(head)
        if proxy_header is None or (len(head) < 4 and b"GET ".startswith(head)):
            return b""
        if proxy_header:
            # Only a trusted balancer may name the client (accept_proxy_header), and only
            # once; from anyone else it is an address the limits must not believe.
            self.close()
            raise BadProxyHeader(
                "a PROXY header from a peer that is not a trusted balancer", "proxy_untrusted"
            )
        if is_http_request_start(head):
            self._stream = WebSocketServerStream(**self._options)
        else:
            self._stream = ServerStream(**self._options)
        self._head = bytearray()
        return head

    async def _read_before_deadline(self) -> bytes:
        assert self._frame_started is not None
        left = self._frame_started + self.frame_deadline - asyncio.get_running_loop().time()
        try:
            if left <= 0:
                raise TimeoutError
            return await asyncio.wait_for(self._reader.read(READ_SIZE), left)
        except TimeoutError:
            self.close()
            raise FrameTimeout(
                f"{self.buffered()} bytes of an unfinished packet after {self.frame_deadline:g} s"
            ) from None

    def buffered(self) -> int:
        """Bytes received that are not yet a whole packet."""
        if self._stream is None:
            return len(self._head)
        buffered = getattr(self._stream, "buffered", None)
        return buffered() if buffered is not None else 0

    def _peer_gone(self) -> None:
        self.gone_while_writing = True
        self.close()

    def _write(self, data: bytes) -> None:
        if not data or self.closed:
            return
        if self._writer.transport.is_closing():
            self._peer_gone()
            return
        try:
            self._writer.write(data)
        except (ConnectionError, RuntimeError):
            # uvloop: "unable to perform operation on <TCPTransport closed=True ...>".
            self._peer_gone()

    def _sending(self) -> ServerStream | WebSocketServerStream:
        if self._stream is None:
            raise RuntimeError("nothing can be sent before the client's transport is known")
        return self._stream

    def write_packet(self, data: bytes) -> None:
        if not self.closed:
            self._write(self._sending().encode(data))

    def write_quick_ack(self, token: int) -> None:
        """No-op on the full transport, which has no quick acks."""
        if not self.closed:
            self._write(self._sending().encode_quick_ack(token))

    def write_transport_error(self, code: int) -> None:
        """Send e.g. -404 (unknown auth key) or -429 (too many connections)."""
        if not self.closed:
            self._write(self._sending().encode_error(code))

    async def drain(self) -> None:
        if self.closed:
            return
        try:
            await self._writer.drain()
        except (ConnectionError, RuntimeError) as exc:
            if isinstance(exc, RuntimeError) and not self._writer.transport.is_closing():
                raise
            self._peer_gone()
            raise TransportClosed(str(exc)) from exc

    def close(self) -> None:
        if not self.closed:
            ws = self.websocket
            if ws is not None and ws.open:
                self._write(ws.encode_close())
            self.closed = True
            self._writer.close()

    async def wait_closed(self) -> None:
        with contextlib.suppress(ConnectionError):
            await self._writer.wait_closed()
