"""The listener behind a load balancer speaking the PROXY protocol: the client a trusted
balancer names is the one the requests, the per-address limit and the logs see; a header
from anyone else, a trusted balancer's connection without one, a late or a malformed one
are refused and counted."""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import struct

import pytest

from mtproto import crypto
from mtproto.server import MTProtoServer
from mtproto.session import wire
from mtproto.transport.proxy_protocol import V2_SIGNATURE
from tests.e2e.harness import RawClient, TransportErrorReceived
from tests.mtproto.test_server import Codec, Dispatcher, Store

GET_CONFIG = b"\x6b\x18\xf9\xc4"  # any request: the fake dispatcher answers everything


def v2_header(client: str, port: int = 40000, *, command: int = 1) -> bytes:
    addresses = (
        bytes(int(x) for x in client.split(".")) + bytes([127, 0, 0, 1]) + struct.pack(">HH", port, 443)
    )
    return V2_SIGNATURE + bytes([0x20 | command, 0x11]) + struct.pack(">H", 12) + addresses


def v1_header(client: str, port: int = 40000) -> bytes:
    return f"PROXY TCP4 {client} 127.0.0.1 {port} 443\r\n".encode()


@pytest.fixture
async def make_server():
    made = []

    async def make(**kw):
        store, dispatcher = Store(), Dispatcher()
        srv = MTProtoServer(dispatcher, store, crypto.RsaKey.generate(), codec=Codec(), **kw)
        srv.port = await srv.start("127.0.0.1", 0)
        srv.store, srv.dispatcher_ = store, dispatcher
        made.append(srv)
        return srv

    yield make
    for srv in made:
        await srv.close()


def client(srv, **kw) -> RawClient:
    key = srv.store.add(os.urandom(256))
    return RawClient("127.0.0.1", srv.port, key.key, **kw)


async def ip_of_request(srv, c: RawClient) -> str:
    await c.handshake()
    c.send(GET_CONFIG)
    await c.expect(wire.RPC_RESULT)
    ctx, _ = srv.dispatcher_.requests[-1]
    return ctx.ip


async def closed_by_server(reader: asyncio.StreamReader) -> bool:
    return await asyncio.wait_for(reader.read(), 5) == b""


@pytest.mark.parametrize("header", [v1_header, v2_header])
@pytest.mark.parametrize(("kind", "obfuscated", "websocket"), [("abridged", False, False), ("intermediate", True, False), ("intermediate", True, True)])  # fmt: skip
async def test_requests_see_the_client_the_balancer_names(make_server, header, kind, obfuscated, websocket):
    srv = await make_server(trusted_proxies="127.0.0.0/30")
    c = await client(
        srv, preamble=header("192.0.2.7"), kind=kind, obfuscated=obfuscated, websocket=websocket
    ).connect()
    assert await ip_of_request(srv, c) == "192.0.2.7"
    c.close()


async def test_a_health_check_speaks_for_the_balancer_itself(make_server):
    srv = await make_server(trusted_proxies="127.0.0.1")
    c = await client(srv, preamble=v2_header("192.0.2.7", command=0)).connect()  # LOCAL
    assert await ip_of_request(srv, c) == "127.0.0.1"
    c.close()


async def test_the_per_address_limit_counts_clients_not_the_balancer(make_server):
    srv = await make_server(trusted_proxies="127.0.0.1", max_connections_per_ip=1)
    first = await client(srv, preamble=v2_header("192.0.2.7")).connect()
    second = await client(srv, preamble=v2_header("192.0.2.8")).connect()  # same balancer
    await first.handshake()
    await second.handshake()
    third = await client(srv, preamble=v2_header("192.0.2.7", 40001)).connect()
    third.send(struct.pack("<Iq", wire.PING, 1))
    with pytest.raises(TransportErrorReceived) as err:
        await third.recv()
    assert err.value.code == -429 and srv.refusals["connections_per_ip"] == 1
    first.close()
    second.close()


async def test_the_header_and_the_first_packet_may_come_in_one_segment(make_server):
    srv = await make_server(trusted_proxies="127.0.0.1", max_frame_bytes=1024)
    reader, writer = await asyncio.open_connection("127.0.0.1", srv.port)
    # The bytes after the header are read as MTProto: here an intermediate frame over the cap.
    writer.write(v2_header("192.0.2.7") + b"\xee\xee\xee\xee" + struct.pack("<i", 4096))
    assert await closed_by_server(reader)
    assert srv.refusals["frame_too_large"] == 1 and not srv.refusals["proxy_header_bad"]
    writer.close()


async def test_log_lines_name_the_client(make_server, caplog):
    srv = await make_server(trusted_proxies="127.0.0.1")
    c = await RawClient(
        "127.0.0.1", srv.port, os.urandom(256), preamble=v2_header("192.0.2.9", 41234)
    ).connect()
    with caplog.at_level(logging.INFO, logger="telesrv.mtproto.server"):
        c.send(struct.pack("<Iq", wire.PING, 1))
        with pytest.raises(TransportErrorReceived):
            await c.recv()  # -404: a key the server does not know
    assert "('192.0.2.9', 41234): unknown auth key" in caplog.text
    c.close()


@pytest.mark.parametrize(
    ("sent", "refusal"),
    [
        (b"\xef" + bytes(40), "proxy_header_missing"),  # a client straight to the listener
        (b"GET /apiws HTTP/1.1\r\nHost: x\r\n\r\n", "proxy_header_missing"),
        (b"PROXY TCP4 192.0.2.7 127.0.0.1 40000\r\n", "proxy_header_bad"),
        (V2_SIGNATURE + b"\x21\x12\x00\x0c" + bytes(12), "proxy_header_bad"),  # UDP
    ],
)
async def test_a_trusted_peer_must_send_a_good_header(make_server, sent, refusal):
    srv = await make_server(trusted_proxies="127.0.0.1")
    reader, writer = await asyncio.open_connection("127.0.0.1", srv.port)
    writer.write(sent)
    assert await closed_by_server(reader)
    assert srv.refusals == {refusal: 1} and not srv._connections
    writer.close()


async def test_a_trusted_peer_that_sends_no_header_in_time_is_cut(make_server):
    srv = await make_server(trusted_proxies="127.0.0.1", proxy_header_timeout=0.3)
    reader, writer = await asyncio.open_connection("127.0.0.1", srv.port)
    writer.write(b"PROXY TCP4 192.0.2.7")  # and then nothing
    assert await closed_by_server(reader)
    assert srv.refusals == {"proxy_header_timeout": 1}
    writer.close()


async def test_a_balancer_that_resets_before_its_header_costs_nothing(make_server, caplog):
    srv = await make_server(trusted_proxies="127.0.0.1")
    sock = socket.create_connection(("127.0.0.1", srv.port))
    sock.sendall(V2_SIGNATURE[:6])
    await asyncio.sleep(0.1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()  # RST
    with caplog.at_level(logging.ERROR):
        await asyncio.sleep(0.3)
        c = await client(srv).connect()  # a header-less client from the trusted address...
        c.send(struct.pack("<Iq", wire.PING, 1))
        with pytest.raises(ConnectionResetError):
            await c.recv()  # ...is cut
    assert not caplog.records and not srv._connections
    assert srv.refusals == {"proxy_header_missing": 1}


@pytest.mark.parametrize("trusted", ["", "127.0.0.1"])
@pytest.mark.parametrize("header", [v1_header, v2_header])
async def test_a_header_from_anyone_else_is_refused(make_server, trusted, header):
    srv = await make_server(trusted_proxies=trusted)
    reader, writer = await asyncio.open_connection("127.0.0.1", srv.port, local_addr=("127.0.0.5", 0))
    writer.write(header("192.0.2.7"))
    assert await closed_by_server(reader)
    assert srv.refusals == {"proxy_untrusted": 1}
    writer.close()
    # without a header the same peer is an ordinary client, seen as itself
    c = await client(srv, local_host="127.0.0.5").connect()
    assert await ip_of_request(srv, c) == "127.0.0.5"
    c.close()


def test_a_bad_trusted_list_is_refused_at_start():
    with pytest.raises(ValueError, match=r"lb\.example"):
        MTProtoServer(
            Dispatcher(), Store(), None, codec=Codec(), trusted_proxies="lb.example", salt_secret=b"k"
        )
