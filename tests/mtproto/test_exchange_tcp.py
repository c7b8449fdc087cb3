"""Telethon's real connection classes create an auth key over TCP against a minimal
listener made of this package's Transport and KeyExchange (each transport it has)."""

import asyncio
import collections
import logging
import struct
import time

import pytest
from telethon.crypto import rsa as telethon_rsa
from telethon.errors import SecurityError
from telethon.network import authenticator
from telethon.network.connection import (
    ConnectionTcpAbridged,
    ConnectionTcpFull,
    ConnectionTcpIntermediate,
    ConnectionTcpObfuscated,
)
from telethon.network.mtprotoplainsender import MTProtoPlainSender

from mtproto.crypto.rsa import RsaKey
from mtproto.exchange import KeyExchange
from mtproto.keys import MemoryAuthKeyStore
from mtproto.transport import Transport, TransportClosed

LOGGERS = collections.defaultdict(lambda: logging.getLogger("telethon-test"))


async def telethon_authenticate(sender, attempts: int = 4):
    """Telethon's handshake, retried as its MTProtoSender does: Telethon trims a leading
    zero byte off the shared secret, so 1 exchange in 256 fails on its side."""
    for attempt in range(attempts):
        try:
            return await authenticator.do_authentication(sender)
        except SecurityError:
            if attempt == attempts - 1:
                raise
    raise AssertionError("unreachable")


@pytest.fixture(scope="module")
def rsa_key():
    key = RsaKey.generate()
    telethon_rsa.add_key(key.public_pem().decode(), old=False)
    yield key
    telethon_rsa._server_keys.pop(key.fingerprint, None)


async def serve_plain(rsa_key, store, seen):
    """Just enough of a listener: unencrypted messages in, exchange answers out."""

    async def on_connect(reader, writer):
        transport = Transport(reader, writer)
        exchange = KeyExchange(rsa_key, store)
        try:
            while True:
                packet = await transport.read_packet()
                (length,) = struct.unpack_from("<i", packet.payload, 16)
                answer = await exchange.handle(packet.payload[20 : 20 + length])
                assert answer is not None, exchange.error
                msg_id = (int(time.time()) << 32) | 1
                transport.write_packet(struct.pack("<qqi", 0, msg_id, len(answer)) + answer)
                await transport.drain()
        except TransportClosed:
            seen.append((transport.kind, transport.obfuscated, exchange.result))

    return await asyncio.start_server(on_connect, "127.0.0.1", 0)


@pytest.mark.parametrize(
    ("connection_cls", "kind", "obfuscated"),
    [
        (ConnectionTcpFull, "full", False),
        (ConnectionTcpAbridged, "abridged", False),
        (ConnectionTcpIntermediate, "intermediate", False),
        (ConnectionTcpObfuscated, "abridged", True),
    ],
)
async def test_telethon_creates_a_key_over_each_transport(rsa_key, connection_cls, kind, obfuscated):
    store, seen = MemoryAuthKeyStore(), []
    server = await serve_plain(rsa_key, store, seen)
    port = server.sockets[0].getsockname()[1]
    async with server:
        connection = connection_cls("127.0.0.1", port, 2, loggers=LOGGERS)
        await connection.connect(timeout=5)
        try:
            auth_key, _ = await asyncio.wait_for(
                telethon_authenticate(MTProtoPlainSender(connection, loggers=LOGGERS)), 30
            )
        finally:
            await connection.disconnect()
        for _ in range(100):
            if seen:
                break
            await asyncio.sleep(0.02)
    ((got_kind, got_obfuscated, result),) = seen
    assert (got_kind, got_obfuscated) == (kind, obfuscated)
    assert result.auth_key.key == auth_key.key
    assert await store.get(result.auth_key.auth_key_id) is result.auth_key


def _kurigram_transports():
    from pyrogram.connection.transport import tcp

    names = ["TCPAbridged", "TCPAbridgedO", "TCPIntermediate", "TCPIntermediateO", "TCPFull"]
    expected = {
        "TCPAbridged": ("abridged", False),
        "TCPAbridgedO": ("abridged", True),
        "TCPIntermediate": ("intermediate", False),
        "TCPIntermediateO": ("intermediate", True),
        "TCPFull": ("full", False),
    }
    return [(getattr(tcp, n), *expected[n]) for n in names if hasattr(tcp, n)]


@pytest.mark.parametrize(("protocol", "kind", "obfuscated"), _kurigram_transports())
async def test_kurigram_creates_a_key_over_each_transport(rsa_key, monkeypatch, protocol, kind, obfuscated):
    from types import SimpleNamespace

    from pyrogram.connection import Connection
    from pyrogram.crypto import rsa as pyrogram_rsa
    from pyrogram.session.auth import Auth

    keys = dict(pyrogram_rsa.server_public_keys)
    keys[rsa_key.fingerprint] = pyrogram_rsa.PublicKey(rsa_key.n, rsa_key.e)
    monkeypatch.setattr(pyrogram_rsa, "server_public_keys", keys)
    store, seen = MemoryAuthKeyStore(), []
    server = await serve_plain(rsa_key, store, seen)
    port = server.sockets[0].getsockname()[1]
    client = SimpleNamespace(
        ipv6=False,
        proxy=None,
        connection_factory=Connection,
        protocol_factory=protocol,
        loop=asyncio.get_running_loop(),
        server_time=time.time(),
    )
    async with server:
        auth_key = await asyncio.wait_for(Auth(client, 2, "127.0.0.1", port, False).create(), 30)
        for _ in range(100):
            if seen:
                break
            await asyncio.sleep(0.02)
    ((got_kind, got_obfuscated, result),) = seen
    assert (got_kind, got_obfuscated) == (kind, obfuscated)
    assert result.auth_key.key == auth_key
