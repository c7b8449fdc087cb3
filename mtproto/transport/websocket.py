"""MTProto over WebSocket, the transport of web clients (Telegram Web, GramJS in a browser).

The client opens ``ws(s)://host:port/apiws`` with the subprotocol ``binary`` and then
sends the bytes of an ordinary MTProto TCP transport in binary messages: in practice an
obfuscated2 header and abridged or intermediate frames, but any framing the TCP listener
detects is accepted. Message boundaries mean nothing: the payloads of all binary messages
form one byte stream, read by a :class:`ServerStream` exactly as on TCP, and every packet
the server sends goes out as one binary message.

Sans-I/O, on top of the ``websockets`` package's protocol object (RFC 6455 framing,
masking, ping/pong and the closing handshake). TLS (``wss://``) is terminated by a
reverse proxy in front of the listener (docs/websocket.md).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable

from websockets.exceptions import InvalidState
from websockets.frames import Opcode
from websockets.http11 import Request
from websockets.protocol import State
from websockets.server import ServerProtocol
from websockets.typing import Subprotocol

from .codecs import MAX_PACKET, Packet
from .errors import TransportClosed
from .stream import ServerStream

PATHS = frozenset({"/apiws", "/apiws_test"})
# The protocol object logs every opened and closed connection at INFO: too much for a
# listener of thousands; its warnings still show.
_protocol_log = logging.getLogger("telesrv.mtproto.websocket")
_protocol_log.setLevel(logging.WARNING)
SUBPROTOCOL = Subprotocol("binary")
# A binary message may carry the 64-byte obfuscated2 header and a whole packet.
MESSAGE_OVERHEAD = 1024


def _select_subprotocol(protocol: ServerProtocol, offered: list[Subprotocol]) -> Subprotocol | None:
    # Telegram's clients all offer "binary"; one that offers nothing is served too.
    return SUBPROTOCOL if SUBPROTOCOL in offered else None


class WebSocketServerStream:
    """Server end of one WebSocket connection: the same face as :class:`ServerStream`
    (``feed`` / ``encode`` / ``encode_quick_ack`` / ``encode_error``) plus
    :meth:`data_to_send` for what the WebSocket layer itself has to write (the handshake
    answer, pongs, the closing frame)."""

    def __init__(
        self,
        *,
        max_packet: int = MAX_PACKET,
        rand: Callable[[int], bytes] = os.urandom,
        secret: bytes | None = None,
    ) -> None:
        self._ws = ServerProtocol(
            subprotocols=[SUBPROTOCOL],
            select_subprotocol=_select_subprotocol,
            max_size=max_packet + MESSAGE_OVERHEAD,
            logger=_protocol_log,
        )
        self._inner = ServerStream(max_packet=max_packet, rand=rand, secret=secret)
        self.request: Request | None = None
        self.open = False
        self.closing = False  # the WebSocket is closed or closing: hang up once written

    # --- what ServerStream offers ----------------------------------------------------

    @property
    def kind(self) -> str | None:
        return self._inner.kind

    @property
    def obfuscated(self) -> bool:
        return self._inner.obfuscated

    @property
    def dc_id(self) -> int | None:
        return self._inner.dc_id

    def header(self, name: str) -> str | None:
        """A header of the upgrade request (None before it or without one)."""
        if self.request is None:
            return None
        return self.request.headers.get(name)

    def feed(self, data: bytes) -> list[Packet]:
        self._ws.receive_data(data)
        packets: list[Packet] = []
        for event in self._ws.events_received():
            if isinstance(event, Request):
                self._upgrade(event)
            elif event.opcode in (Opcode.BINARY, Opcode.CONT):
                packets.extend(self._inner.feed(event.data))
            elif event.opcode is Opcode.TEXT:
                self._ws.fail(1003, "MTProto is sent in binary messages")
            elif event.opcode is Opcode.CLOSE:
                self.closing = True
        if self._ws.state in (State.CLOSING, State.CLOSED):
            self.closing = True
        return packets

    def _upgrade(self, request: Request) -> None:
        self.request = request
        if request.path.split("?", 1)[0] not in PATHS:
            response = self._ws.reject(404, "MTProto over WebSocket is served at /apiws\n")
        else:
            response = self._ws.accept(request)
        self._ws.send_response(response)
        if response.status_code == 101:
            self.open = True
        else:
            self.closing = True

    def data_to_send(self) -> bytes:
        """Bytes the WebSocket layer wants written (may be empty)."""
        return b"".join(self._ws.data_to_send())

    def _frame(self, data: bytes) -> bytes:
        if not data:
            return b""
        if not self.open:
            raise RuntimeError("nothing can be sent before the WebSocket handshake")
        try:
            self._ws.send_binary(data)
        except InvalidState as exc:
            raise TransportClosed("WebSocket closed") from exc
        return self.data_to_send()

    def encode(self, payload: bytes) -> bytes:
        return self._frame(self._inner.encode(payload))

    def encode_quick_ack(self, token: int) -> bytes:
        return self._frame(self._inner.encode_quick_ack(token))

    def encode_error(self, code: int) -> bytes:
        return self._frame(self._inner.encode_error(code))

    def encode_close(self) -> bytes:
        """The closing frame (going away), if the WebSocket is still open."""
        if self._ws.state is State.OPEN:
            self._ws.send_close(1001)
        return self.data_to_send()


def is_http_request_start(data: bytes) -> bool:
    """Whether the first bytes of a connection are an HTTP GET (a WebSocket upgrade);
    an obfuscated2 header never starts like this (see obfuscated.RESERVED_FIRST_WORDS)."""
    return data[:4] == b"GET "
