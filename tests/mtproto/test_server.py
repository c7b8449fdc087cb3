"""The listener over real sockets, with a raw client on a pre-shared auth key: every
transport, the answers to bad input, and that one bad connection harms no other."""

from __future__ import annotations

import asyncio
import os
import struct
from dataclasses import dataclass

import pytest

from mtproto import crypto, transport
from mtproto.server import MTProtoServer
from mtproto.session import wire
from tests.e2e.harness import RawClient, TransportErrorReceived


@dataclass
class Key:
    key: bytes
    auth_key_id: int
    perm_auth_key_id: int | None = None
    expires_at: float | None = None
    created_at: float | None = None
    initial_salt: int | None = None


class Store:
    def __init__(self) -> None:
        self.keys: dict[int, Key] = {}
        self.deleted: list[int] = []

    def add(self, raw: bytes, **kw) -> Key:
        key = Key(raw, crypto.auth_key_id_of(raw), **kw)
        self.keys[key.auth_key_id] = key
        return key

    async def get(self, auth_key_id: int):
        return self.keys.get(auth_key_id)

    async def delete(self, auth_key_id: int) -> None:
        self.deleted.append(auth_key_id)
        self.keys.pop(auth_key_id, None)


class Codec:
    primary = 229

    def decode(self, data, layer):
        return data

    def encode(self, obj, layer):
        return obj

    def resolve_layer(self, layer):
        return layer


class Dispatcher:
    def __init__(self) -> None:
        self.requests: list = []

    async def dispatch(self, ctx, request):
        self.requests.append((ctx, request))
        return b"\x15\xc4\xb5\x1c" + struct.pack("<i", 0)  # an empty vector

    async def connection_initialized(self, ctx, info):
        pass

    async def session_closed(self, session):
        pass


@pytest.fixture
async def server():
    store = Store()
    dispatcher = Dispatcher()
    srv = MTProtoServer(dispatcher, store, crypto.RsaKey.generate(), codec=Codec(), salt_secret=b"k" * 32)
    port = await srv.start("127.0.0.1", 0)
    srv.port = port
    srv.store = store
    srv.dispatcher_ = dispatcher
    yield srv
    await srv.close()


def client(srv, key: Key | None = None, **kw) -> RawClient:
    if key is None:
        key = srv.store.add(os.urandom(256))
    return RawClient("127.0.0.1", srv.port, key.key, **kw)


@pytest.mark.parametrize(
    ("kind", "obfuscated"),
    [
        ("abridged", False),
        ("intermediate", False),
        ("padded", False),
        ("full", False),
        ("abridged", True),
        ("intermediate", True),
        ("padded", True),
    ],
)
async def test_ping_over_every_transport(server, kind, obfuscated):
    c = await client(server, kind=kind, obfuscated=obfuscated).connect()
    await c.handshake()
    await c.ping(12345)
    c.close()


async def test_rpc_result_and_session_announcement(server):
    c = await client(server).connect()
    await c.handshake()
    mid = c.send(b"\x6b\x18\xf9\xc4")  # help.getConfig's id; the fake dispatcher answers anything
    body = await c.expect(wire.RPC_RESULT)
    assert struct.unpack_from("<q", body, 4)[0] == mid
    ctx, request = server.dispatcher_.requests[0]
    assert request == b"\x6b\x18\xf9\xc4" and ctx.session_id == c.session_id
    c.close()


async def test_unknown_auth_key_gets_404_and_others_keep_working(server):
    good = await client(server).connect()
    await good.handshake()
    stranger = await RawClient("127.0.0.1", server.port, os.urandom(256)).connect()
    stranger.send(struct.pack("<Iq", wire.PING, 1))
    with pytest.raises(TransportErrorReceived) as err:
        await stranger.recv()
    assert err.value.code == -404
    with pytest.raises((ConnectionError, asyncio.IncompleteReadError, TimeoutError)):
        await stranger.read_packet(timeout=2)
    await good.ping()


async def test_wrong_msg_key_closes_that_connection_only(server):
    good = await client(server).connect()
    await good.handshake()
    key = server.store.add(os.urandom(256))
    bad = await client(server, key).connect()
    packet = bytearray(bad.encrypt(struct.pack("<Iq", wire.PING, 1), bad.new_msg_id(), 1))
    packet[10] ^= 0xFF  # inside msg_key
    bad.send_packet(bytes(packet))
    with pytest.raises((ConnectionError, TimeoutError)):
        await bad.read_packet(timeout=2)
    await good.ping()


async def test_random_bytes_and_truncated_frames(server):
    good = await client(server).connect()
    await good.handshake()
    for junk in (os.urandom(300), b"\xef" + os.urandom(64), b"\xee\xee\xee\xee\x00\x01"):
        _r, w = await asyncio.open_connection("127.0.0.1", server.port)
        w.write(junk)
        await w.drain()
        w.close()
    # An intermediate frame announcing 4096 bytes that never come, then EOF.
    _r, w = await asyncio.open_connection("127.0.0.1", server.port)
    w.write(b"\xee\xee\xee\xee" + struct.pack("<I", 4096) + b"x" * 100)
    await w.drain()
    w.close()
    await asyncio.sleep(0.1)
    await good.ping()
    assert all(conn.closed is False for conn in server._connections if conn.auth_key)


async def test_garbage_inside_a_valid_frame_closes_the_connection(server):
    r, w = await asyncio.open_connection("127.0.0.1", server.port)
    stream = transport.ClientStream("intermediate")
    w.write(stream.encode(b"\x00" * 8 + b"\xff" * 40))  # "unencrypted" but nonsense
    await w.drain()
    assert await asyncio.wait_for(r.read(100), 3) == b""


async def test_quick_ack(server):
    c = await client(server).connect()
    await c.handshake()
    plain_mid = c.new_msg_id()
    body = struct.pack("<Iq", wire.PING, 5)
    c.send_packet(c.encrypt(body, plain_mid, c.seqno(True)), quick_ack=True)
    packet = await c.read_packet()
    assert packet.quick_ack and len(packet.payload) == 4
    assert struct.unpack("<I", packet.payload)[0] & 0x80000000
    await c.expect(wire.PONG)


async def test_replayed_msg_id_is_processed_once(server):
    c = await client(server).connect()
    await c.handshake()
    mid, seq = c.new_msg_id(), c.seqno(True)
    c.send(b"\x6b\x18\xf9\xc4", msg_id=mid, seqno=seq)
    await c.expect(wire.RPC_RESULT)
    c.send(b"\x6b\x18\xf9\xc4", msg_id=mid, seqno=seq)
    await c.expect(wire.RPC_RESULT)  # the kept answer again, not a second execution
    assert len(server.dispatcher_.requests) == 1


async def test_unacked_result_is_resent_on_the_next_connection(server):
    key = server.store.add(os.urandom(256))
    first = await client(server, key).connect()
    await first.handshake()
    mid = first.send(b"\x6b\x18\xf9\xc4")
    await first.expect(wire.RPC_RESULT)
    first.close()
    await asyncio.sleep(0.1)
    second = client(server, key, session_id=first.session_id)
    second.salt, second._seq, second._last_id = first.salt, first._seq, first._last_id
    await second.connect()
    second.send(struct.pack("<Iq", wire.PING, 9))
    body = await second.expect(wire.RPC_RESULT)
    assert struct.unpack_from("<q", body, 4)[0] == mid


async def test_destroy_auth_key(server):
    key = server.store.add(os.urandom(256))
    c = await client(server, key).connect()
    await c.handshake()
    c.send(struct.pack("<I", wire.DESTROY_AUTH_KEY))
    await c.expect(wire.DESTROY_AUTH_KEY_OK)
    assert server.store.deleted == [key.auth_key_id]
    again = await client(server, key).connect()
    again.send(struct.pack("<Iq", wire.PING, 1))
    with pytest.raises(TransportErrorReceived):
        await again.recv()


async def test_expired_temp_key_is_unknown(server):
    import time

    key = server.store.add(os.urandom(256), expires_at=time.time() - 1)
    c = await client(server, key).connect()
    c.send(struct.pack("<Iq", wire.PING, 1))
    with pytest.raises(TransportErrorReceived) as err:
        await c.recv()
    assert err.value.code == -404


async def test_sessions_of_user_and_push(server):
    c = await client(server).connect()
    await c.handshake()
    (session,) = [s for conn in server._connections for s in conn.sessions]
    session.user_id = 42
    assert server.sessions_of_user(42) == [session]
    await session.push(b"\xae\x64\xd6\xe4")  # updatesTooLong... any bytes: the fake codec passes them
    body = await c.expect(0xE4D664AE)
    assert body == b"\xae\x64\xd6\xe4"


async def test_connections_over_the_limit_get_429(server):
    first = await client(server).connect()
    await first.handshake()
    server.max_connections = 1
    second = await client(server).connect()
    second.send(struct.pack("<Iq", wire.PING, 1))
    with pytest.raises(TransportErrorReceived) as err:
        await second.recv()
    assert err.value.code == -429
    await first.ping()


async def test_drop_auth_key_hangs_up_its_connections(server):
    key = server.store.add(os.urandom(256))
    c = await client(server, key).connect()
    await c.handshake()
    other = await client(server).connect()
    await other.handshake()
    server.drop_auth_key(key.auth_key_id)
    with pytest.raises((ConnectionError, TimeoutError)):
        await c.read_packet(timeout=2)
    assert server.sessions.sessions_of_key(key.auth_key_id) == []
    await other.ping()


async def test_idle_connection_is_closed(server, monkeypatch):
    import mtproto.server as server_mod

    monkeypatch.setattr(server_mod, "IDLE_TIMEOUT", 0.3)
    c = await client(server).connect()
    await c.handshake()
    await asyncio.sleep(0.1)
    await c.ping()  # activity keeps it open
    with pytest.raises((ConnectionError, TimeoutError)):
        await c.read_packet(timeout=2)


async def test_ping_delay_disconnect_closes_after_the_delay(server, monkeypatch):
    import mtproto.server as server_mod

    monkeypatch.setattr(server_mod, "PING_DISCONNECT_FLOOR", 0.5)
    c = await client(server).connect()
    await c.handshake()
    c.send(struct.pack("<Iqi", wire.PING_DELAY_DISCONNECT, 5, 1))
    await c.expect(wire.PONG)
    with pytest.raises((ConnectionError, TimeoutError)):
        await c.read_packet(timeout=3)


async def test_ping_delay_disconnect_counts_any_client_traffic(server, monkeypatch):
    import mtproto.server as server_mod

    monkeypatch.setattr(server_mod, "PING_DISCONNECT_FLOOR", 0.1)
    c = await client(server).connect()
    await c.handshake()
    c.send(struct.pack("<Iqi", wire.PING_DELAY_DISCONNECT, 5, 1))
    await c.expect(wire.PONG)
    for _ in range(5):  # 1.5 s of acks only: never 1 s of silence
        await asyncio.sleep(0.3)
        c.send(wire.msgs_ack([1]), content=False)
    await c.ping()
    with pytest.raises((ConnectionError, TimeoutError)):
        await c.read_packet(timeout=3)


async def test_ping_delay_disconnect_has_a_floor(server, monkeypatch):
    import mtproto.server as server_mod

    monkeypatch.setattr(server_mod, "PING_DISCONNECT_FLOOR", 2.0)
    c = await client(server).connect()
    await c.handshake()
    c.send(struct.pack("<Iqi", wire.PING_DELAY_DISCONNECT, 5, 0))
    await c.expect(wire.PONG)
    await asyncio.sleep(1.0)  # past the 0 s asked for, within the floor
    await c.ping()
