"""Connection hygiene of the listener: a frame deadline, a frame cap, a per-address
connection limit, a fresh salt secret per process - each refusal counted."""

from __future__ import annotations

import asyncio
import os
import struct

import pytest

from mtproto import crypto
from mtproto.server import MTProtoServer
from mtproto.session import wire
from tests.e2e.harness import RawClient, TransportErrorReceived
from tests.mtproto.test_server import Codec, Dispatcher, Store


@pytest.fixture
async def make_server():
    made = []

    async def make(**kw):
        store = Store()
        srv = MTProtoServer(Dispatcher(), store, crypto.RsaKey.generate(), codec=Codec(), **kw)
        srv.port = await srv.start("127.0.0.1", 0)
        srv.store = store
        made.append(srv)
        return srv

    yield make
    for srv in made:
        await srv.close()


def client(srv) -> RawClient:
    key = srv.store.add(os.urandom(256))
    return RawClient("127.0.0.1", srv.port, key.key)


async def test_a_frame_that_never_completes_is_cut_at_its_deadline(make_server):
    srv = await make_server(frame_deadline=0.5)
    reader, writer = await asyncio.open_connection("127.0.0.1", srv.port)
    # intermediate: a 64 KiB packet announced, all but the last byte sent, then nothing
    writer.write(b"\xee\xee\xee\xee" + struct.pack("<i", 65536) + b"\0" * 65535)
    await writer.drain()
    assert await asyncio.wait_for(reader.read(), 5) == b""
    assert srv.refusals["frame_deadline"] == 1
    writer.close()
    # a connection that trickles whole packets is not affected
    c = await client(srv).connect()
    await c.handshake()
    for _ in range(3):
        await asyncio.sleep(0.3)
        await c.ping()


async def test_a_frame_over_the_cap_is_refused(make_server):
    srv = await make_server(max_frame_bytes=1024)
    reader, writer = await asyncio.open_connection("127.0.0.1", srv.port)
    writer.write(b"\xee\xee\xee\xee" + struct.pack("<i", 4096))
    await writer.drain()
    assert await asyncio.wait_for(reader.read(), 5) == b""
    assert srv.refusals["frame_too_large"] == 1
    writer.close()


async def test_connections_per_address_are_limited(make_server):
    srv = await make_server(max_connections_per_ip=2)
    first, second = await client(srv).connect(), await client(srv).connect()
    await first.handshake()
    await second.handshake()
    third = await client(srv).connect()
    third.send(struct.pack("<Iq", wire.PING, 1))
    with pytest.raises(TransportErrorReceived) as err:
        await third.recv()
    assert err.value.code == -429 and srv.refusals["connections_per_ip"] == 1
    first.close()
    await asyncio.sleep(0.2)  # its slot is free again
    fourth = await client(srv).connect()
    await fourth.handshake()
    await second.ping()


async def test_each_process_has_salts_of_its_own(make_server):
    """Replay protection across restarts: a packet salted for an earlier process is
    answered bad_server_salt by the next one, not executed."""
    key = os.urandom(256)
    before = await make_server()
    before.store.add(key)
    c = RawClient("127.0.0.1", before.port, key)
    await c.connect()
    await c.handshake()
    old_salt = c.salt
    after = await make_server()
    after.store.add(key)
    assert after.sessions.salts.current(c.auth_key_id) != old_salt
    replay = RawClient("127.0.0.1", after.port, key, session_id=c.session_id)
    await replay.connect()
    replay.salt = old_salt
    replay.send(struct.pack("<Iq", wire.PING, 5))
    await replay.expect(wire.BAD_SERVER_SALT)


async def test_a_key_exchange_step_slower_than_clients_wait_closes_the_connection(make_server):
    """mtcute gives a key-exchange step 5 s, then starts over on the same connection; an
    answer later than that is read as the answer to its next step, and each retry left a
    permanent key behind. A step past the deadline closes the connection instead (the
    client starts over on a fresh one), and is counted."""
    srv = await make_server(exchange_step_deadline=0.3)

    class Stuck:
        results: list = []

        async def handle(self, body):
            await asyncio.Event().wait()

    srv.new_exchange = Stuck
    reader, writer = await asyncio.open_connection("127.0.0.1", srv.port)
    body = struct.pack("<I", 0xBE7E8EF1) + os.urandom(16)  # req_pq_multi
    plain = struct.pack("<qqi", 0, 1 << 32, len(body)) + body
    writer.write(b"\xee\xee\xee\xee" + struct.pack("<i", len(plain)) + plain)
    await writer.drain()
    assert await asyncio.wait_for(reader.read(), 5) == b""
    assert srv.refusals["exchange_timeout"] == 1
    writer.close()


async def test_a_refused_connection_is_logged_with_its_address_once_per_interval(make_server, caplog):
    srv = await make_server(max_connections_per_ip=1)
    first = await client(srv).connect()
    await first.handshake()
    with caplog.at_level("INFO", logger="telesrv.mtproto.server"):
        for _ in range(3):
            extra = await client(srv).connect()
            extra.send(struct.pack("<Iq", wire.PING, 1))
            with pytest.raises(TransportErrorReceived):
                await extra.recv()
    assert srv.refusals["connections_per_ip"] == 3
    lines = [r.getMessage() for r in caplog.records if "connection refused" in r.getMessage()]
    assert len(lines) == 1 and "127.0.0.1" in lines[0] and "(connections_per_ip)" in lines[0], lines
    first.close()
