"""MTProto over WebSocket (``/apiws``, subprotocol ``binary``) on the TCP listener's port:
the sans-I/O stream on its own, then the real listener with a raw client."""

from __future__ import annotations

import asyncio
import os
import struct

import pytest
from websockets.client import ClientProtocol
from websockets.frames import Close, Opcode
from websockets.http11 import Response
from websockets.typing import Subprotocol
from websockets.uri import parse_uri

from mtproto import transport
from mtproto.session import wire
from mtproto.transport.websocket import WebSocketServerStream
from tests.e2e.harness import RawClient, TransportErrorReceived
from tests.mtproto.test_server import client, server  # noqa: F401 - the listener fixture

PAYLOAD = bytes(range(1, 41))  # 24 + 16 bytes, like an encrypted message


def handshake(stream: WebSocketServerStream, path: str = "/apiws", subprotocols=("binary",)):
    offered = [Subprotocol(s) for s in subprotocols] or None
    ws = ClientProtocol(parse_uri(f"ws://127.0.0.1{path}"), subprotocols=offered)
    ws.send_request(ws.connect())
    assert stream.feed(b"".join(ws.data_to_send())) == []
    ws.receive_data(stream.data_to_send())
    (response,) = ws.events_received()
    assert isinstance(response, Response)
    return ws, response


def client_bytes(ws: ClientProtocol) -> bytes:
    return b"".join(ws.data_to_send())


def server_messages(ws: ClientProtocol, data: bytes) -> list:
    ws.receive_data(data)
    return ws.events_received()


@pytest.mark.parametrize(
    ("kind", "obfuscated"),
    [("abridged", True), ("intermediate", True), ("padded", True), ("abridged", False), ("full", False)],
)
def test_packets_split_across_binary_messages(kind, obfuscated):
    stream = WebSocketServerStream()
    ws, response = handshake(stream)
    assert response.status_code == 101 and response.headers["Sec-WebSocket-Protocol"] == "binary"
    c = transport.ClientStream(kind, obfuscated=obfuscated)
    data = c.encode(PAYLOAD) + c.encode(PAYLOAD[::-1])
    # Message boundaries mean nothing: 1, 7 and the rest bytes.
    got = []
    for part in (data[:1], data[1:8], data[8:]):
        ws.send_binary(part)
        got += stream.feed(client_bytes(ws))
    assert [p.payload for p in got] == [PAYLOAD, PAYLOAD[::-1]]
    assert (stream.kind, stream.obfuscated) == (kind, obfuscated)
    # Each packet the server sends is one binary message.
    (frame,) = server_messages(ws, stream.encode(PAYLOAD))
    assert frame.opcode is Opcode.BINARY
    assert [p.payload for p in c.feed(frame.data)] == [PAYLOAD]


def test_ping_is_answered_and_text_is_refused():
    stream = WebSocketServerStream()
    ws, _ = handshake(stream)
    ws.send_ping(b"still there?")
    assert stream.feed(client_bytes(ws)) == []
    (pong,) = server_messages(ws, stream.data_to_send())
    assert (pong.opcode, pong.data) == (Opcode.PONG, b"still there?")
    ws.send_text(b"hello")
    stream.feed(client_bytes(ws))
    assert stream.closing
    (close,) = server_messages(ws, stream.data_to_send())
    assert Close.parse(close.data).code == 1003


def test_other_paths_are_refused_and_the_subprotocol_is_optional():
    stream = WebSocketServerStream()
    _, response = handshake(stream, path="/api")
    assert response.status_code == 404 and stream.closing
    stream = WebSocketServerStream()
    _, response = handshake(stream, subprotocols=())
    assert response.status_code == 101 and "Sec-WebSocket-Protocol" not in response.headers


def test_client_close_is_answered():
    stream = WebSocketServerStream()
    ws, _ = handshake(stream)
    ws.send_close(1000)
    stream.feed(client_bytes(ws))
    assert stream.closing
    (close,) = server_messages(ws, stream.data_to_send())
    assert close.opcode is Opcode.CLOSE


# --- the listener ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "obfuscated"),
    [
        ("abridged", True),
        ("intermediate", True),
        ("padded", True),
        ("abridged", False),
        ("intermediate", False),
        ("full", False),
    ],
)
async def test_ping_over_websocket_on_the_tcp_port(server, kind, obfuscated):  # noqa: F811
    c = await client(server, kind=kind, obfuscated=obfuscated, websocket=True).connect()
    assert c._ws.subprotocol == "binary"
    await c.handshake()
    await c.ping(4242)
    c.close()


async def test_a_session_moves_between_tcp_and_websocket(server):  # noqa: F811
    tcp = await client(server).connect()
    await tcp.handshake()
    mid = tcp.send(b"\x6b\x18\xf9\xc4")
    await tcp.expect(wire.RPC_RESULT)
    tcp.close()
    ws = RawClient(
        "127.0.0.1", server.port, tcp.auth_key, session_id=tcp.session_id, websocket=True, obfuscated=True
    )
    await ws.connect()
    ws.salt, ws._last_id, ws._seq = tcp.salt, tcp._last_id, tcp._seq
    await ws.ping(77)
    (session,) = server.sessions.sessions_of_key(tcp.auth_key_id)
    assert session.session_id == tcp.session_id and session._answer_of.get(mid)
    ws.close()


async def test_websocket_limits_are_the_tcp_ones(server):  # noqa: F811
    # An oversized packet is refused as on TCP, and the connection closed.
    c = await client(server, kind="intermediate", websocket=True).connect()
    c.send_bytes(b"\xee\xee\xee\xee" + struct.pack("<I", transport.MAX_PACKET + 4))
    with pytest.raises((ConnectionError, TimeoutError)):
        await c.read_packet(timeout=3)
    # Over the connection limit, the first packet gets -429.
    server.max_connections = len(server._connections)
    over = await client(server, websocket=True, obfuscated=True).connect()
    over.send(struct.pack("<Iq", wire.PING, 1))
    with pytest.raises(TransportErrorReceived) as refused:
        await over.recv()
    assert refused.value.code == -429


async def test_unknown_key_gets_404_over_websocket(server):  # noqa: F811
    c = RawClient("127.0.0.1", server.port, os.urandom(256), websocket=True)
    await c.connect()
    c.send(struct.pack("<Iq", wire.PING, 1))
    with pytest.raises(TransportErrorReceived) as err:
        await c.recv()
    assert err.value.code == -404


async def test_plain_http_is_refused(server):  # noqa: F811
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    writer.write(b"GET /apiws HTTP/1.1\r\nHost: x\r\n\r\n")
    answer = await asyncio.wait_for(reader.read(), 5)
    assert answer.startswith(b"HTTP/1.1 426") or answer.startswith(b"HTTP/1.1 400")
    writer.close()


async def test_upgrade_request_arriving_byte_by_byte(server):  # noqa: F811
    # The listener tells WebSocket from TCP by "GET ": it must wait for all four bytes.
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    ws = ClientProtocol(parse_uri("ws://127.0.0.1/apiws"), subprotocols=[Subprotocol("binary")])
    ws.send_request(ws.connect())
    request = client_bytes(ws)
    for i in range(5):
        writer.write(request[i : i + 1])
        await writer.drain()
        await asyncio.sleep(0.02)
    writer.write(request[5:])
    ws.receive_data(await asyncio.wait_for(reader.read(4096), 5))
    (response,) = ws.events_received()
    assert response.status_code == 101
    writer.close()
