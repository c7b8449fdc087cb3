"""Real, unmodified clients against the real listener: key creation, help.getConfig,
older layers, key reuse across reconnects and restarts, and bad input."""

from __future__ import annotations

import asyncio
import json
import os
import struct
import subprocess
import time

import pytest

from edge_app.models import AuthKeyClient, AuthKeyRecord
from mtproto.session import wire
from tests.e2e import harness

HELP_GET_CONFIG = struct.pack("<I", 0xC4F9186B)


def key_id_of(client) -> int:
    return struct.unpack("<q", client.session.auth_key.key_id.to_bytes(8, "little", signed=False))[0]


def assert_points_here(config, server):
    from telethon.tl import types

    assert isinstance(config, types.Config)
    assert config.this_dc == 2
    mine = [o for o in config.dc_options if o.id == 2 and not o.media_only]
    assert mine and all((o.ip_address, o.port) == (server.host, server.port) for o in config.dc_options)
    assert any(o.media_only for o in config.dc_options if o.id == 2)
    assert config.expires > config.date


@pytest.mark.parametrize("transport", ["full", "abridged", "intermediate", "obfuscated"])
async def test_telethon_creates_a_key_and_gets_config(telethon_client, edge_server, edge_db, transport):
    from telethon import functions

    client = await telethon_client(transport)
    config = await client(functions.help.GetConfigRequest())
    assert_points_here(config, edge_server)
    nearest = await client(functions.help.GetNearestDcRequest())
    assert (nearest.this_dc, nearest.nearest_dc) == (2, 2)
    record = await AuthKeyRecord.objects.aget(auth_key_id=key_id_of(client))
    assert record.expires_at is None and bytes(record.key) == client.session.auth_key.key
    info = await AuthKeyClient.objects.aget(auth_key_id=record.auth_key_id)
    assert info.layer == 229 and info.api_id == harness.API_ID and info.device_model
    assert info.ip == "127.0.0.1"


@pytest.mark.parametrize("transport", ["abridged", "obfuscated"])
async def test_kurigram_creates_a_key_and_gets_config(kurigram_client, edge_server, edge_db, transport):
    from pyrogram import raw

    client = await kurigram_client(transport)
    config = await client.invoke(raw.functions.help.GetConfig())
    assert config.this_dc == 2
    assert {(o.ip_address, o.port) for o in config.dc_options} == {(edge_server.host, edge_server.port)}
    key = await client.storage.auth_key()
    from mtproto.crypto import auth_key_id_of

    assert await AuthKeyRecord.objects.filter(auth_key_id=auth_key_id_of(key)).aexists()


OLD_CLIENT = r"""
import asyncio, json, sys
from telethon import TelegramClient, functions
from telethon.crypto import rsa
from telethon.sessions import MemorySession
from telethon.tl.alltlobjects import LAYER

host, port, pem = sys.argv[1], int(sys.argv[2]), open(sys.argv[3]).read()
rsa.add_key(pem, old=False)

async def main():
    session = MemorySession()
    session.set_dc(2, host, port)
    client = TelegramClient(session, 611335, "d524b414d21f4d37f08684c1df41ac9c",
                            receive_updates=False, connection_retries=1, auto_reconnect=False)
    await client.connect()
    config = await client(functions.help.GetConfigRequest())
    print(json.dumps({
        "layer": LAYER,
        "this_dc": config.this_dc,
        "options": [[o.id, o.ip_address, o.port] for o in config.dc_options],
        "key_id": int.from_bytes(client.session.auth_key.key_id.to_bytes(8, "little"), "little", signed=True),
    }))
    await client.disconnect()

asyncio.run(main())
"""


async def test_telethon_1_43_gets_a_layer_224_config(old_telethon_python, edge_server, edge_db, tmp_path):
    pem = tmp_path / "server.pub"
    pem.write_bytes(edge_server.public_pem)
    script = tmp_path / "old_client.py"
    script.write_text(OLD_CLIENT)
    proc = await asyncio.create_subprocess_exec(
        str(old_telethon_python),
        str(script),
        edge_server.host,
        str(edge_server.port),
        str(pem),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 0, err.decode()[-2000:]
    answer = json.loads(out.decode().strip().splitlines()[-1])
    assert answer["layer"] == 224
    assert answer["this_dc"] == 2
    assert {tuple(o[1:]) for o in answer["options"]} == {(edge_server.host, edge_server.port)}
    info = await AuthKeyClient.objects.aget(auth_key_id=answer["key_id"])
    assert info.layer == 224


async def test_reconnect_and_restart_reuse_the_stored_key(telethon_client, start_edge_server, edge_db):
    from telethon import functions
    from telethon.sessions import MemorySession

    session = MemorySession()
    first = await telethon_client("abridged", session=session)
    await first(functions.help.GetConfigRequest())
    key = first.session.auth_key.key
    await first.disconnect()
    keys_before = await AuthKeyRecord.objects.acount()

    again = await telethon_client("intermediate", session=session)
    await again(functions.help.GetConfigRequest())
    assert again.session.auth_key.key == key
    await again.disconnect()

    # A second server process (a restart, or another edge) knows the key from PostgreSQL.
    other = start_edge_server()
    session.set_dc(2, other.host, other.port)
    after_restart = await telethon_client("full", session=session, server=other)
    config = await after_restart(functions.help.GetConfigRequest())
    assert after_restart.session.auth_key.key == key
    assert config.dc_options[0].port == other.port
    assert await AuthKeyRecord.objects.acount() == keys_before


# --- bad input -------------------------------------------------------------------------


async def assert_server_serves(telethon_client, edge_server):
    from telethon import functions

    assert edge_server.alive()
    client = await telethon_client("abridged")
    await client(functions.help.GetNearestDcRequest())


async def read_until_closed(reader: asyncio.StreamReader, timeout: float = 5.0) -> bytes:
    data = b""
    while True:
        chunk = await asyncio.wait_for(reader.read(4096), timeout)
        if not chunk:
            return data
        data += chunk


async def test_random_bytes_close_the_connection(edge_server, telethon_client):
    for junk in (os.urandom(1), os.urandom(64), os.urandom(5000), b"\xef" + os.urandom(100)):
        reader, writer = await asyncio.open_connection(edge_server.host, edge_server.port)
        writer.write(junk)
        await writer.drain()
        writer.write_eof()
        await read_until_closed(reader)
        writer.close()
    await assert_server_serves(telethon_client, edge_server)


async def test_truncated_frame_then_hangup(edge_server, telethon_client):
    _reader, writer = await asyncio.open_connection(edge_server.host, edge_server.port)
    # intermediate: announces 1000 bytes, sends 10, hangs up
    writer.write(b"\xee\xee\xee\xee" + struct.pack("<I", 1000) + os.urandom(10))
    await writer.drain()
    writer.close()
    # abridged: an unencrypted req_pq_multi cut in half
    _reader, writer = await asyncio.open_connection(edge_server.host, edge_server.port)
    writer.write(b"\xef" + bytes([10]) + struct.pack("<qqi", 0, 0, 20)[:12])
    await writer.drain()
    writer.close()
    await assert_server_serves(telethon_client, edge_server)


async def test_unknown_auth_key_gets_404(edge_server, telethon_client):
    stranger = await harness.RawClient(edge_server.host, edge_server.port, os.urandom(256)).connect()
    stranger.send(struct.pack("<Iq", wire.PING, 1))
    with pytest.raises(harness.TransportErrorReceived) as err:
        await stranger.recv()
    assert err.value.code == -404
    with pytest.raises(ConnectionError):
        await stranger.read_packet()
    await assert_server_serves(telethon_client, edge_server)


async def test_wrong_msg_key_closes_the_connection(raw_client, edge_server, telethon_client):
    raw = await raw_client()
    packet = bytearray(raw.encrypt(struct.pack("<Iq", wire.PING, 2), raw.new_msg_id(), raw.seqno(True)))
    packet[12] ^= 0x01
    raw.send_packet(bytes(packet))
    with pytest.raises(ConnectionError):
        await raw.read_packet()
    await assert_server_serves(telethon_client, edge_server)


async def test_replayed_msg_id_is_ignored(raw_client, edge_server, telethon_client):
    raw = await raw_client("abridged")
    mid, seq = raw.new_msg_id(), raw.seqno(True)
    packet = raw.encrypt(struct.pack("<Iq", wire.PING, 77), mid, seq)
    raw.send_packet(packet)
    await raw.expect(wire.PONG)
    raw.send_packet(packet)  # the same bytes again
    with pytest.raises(TimeoutError):
        await raw.expect(wire.PONG, timeout=1.0)
    await raw.ping(78)  # the connection is still in good standing
    # A stale msg_id (older than 300 s) is refused with bad_msg_notification 16.
    old = int((time.time() - 400) * 2**32) & ~3
    raw.send(struct.pack("<Iq", wire.PING, 80), msg_id=old)
    body = await raw.expect(wire.BAD_MSG_NOTIFICATION)
    assert struct.unpack_from("<qii", body, 4) == (old, raw._seq * 2 - 1, 16)
    await assert_server_serves(telethon_client, edge_server)


async def test_encrypted_rpc_from_raw_client(raw_client):
    raw = await raw_client()
    mid = raw.send(HELP_GET_CONFIG)
    body = await raw.expect(wire.RPC_RESULT)
    assert struct.unpack_from("<q", body, 4)[0] == mid
    result = body[12:]
    if wire.constructor_of(result) == wire.GZIP_PACKED:
        result = wire.gunzip(result)
    from tl import types
    from tl.runtime import Reader

    config = Reader(result).read_object()
    assert isinstance(config, types.Config) and config.this_dc == 2


async def test_destroy_auth_key_reaches_every_edge(raw_client, start_edge_server, edge_db):
    raw = await raw_client()
    other = start_edge_server()
    there = await harness.RawClient(other.host, other.port, raw.auth_key).connect()
    await there.handshake()
    raw.send(struct.pack("<I", wire.DESTROY_AUTH_KEY))
    await raw.expect(wire.DESTROY_AUTH_KEY_OK)
    assert not await AuthKeyRecord.objects.filter(auth_key_id=raw.auth_key_id).aexists()
    # The other edge had the key cached; it hangs up, and the key is unknown there now.
    with pytest.raises(ConnectionError):
        while True:
            await there.read_packet(timeout=5)
    again = await harness.RawClient(other.host, other.port, raw.auth_key).connect()
    again.send(struct.pack("<Iq", wire.PING, 1))
    with pytest.raises(harness.TransportErrorReceived) as err:
        await again.recv()
    assert err.value.code == -404


async def test_service_calls_from_telethon(telethon_client):
    """Answers that do not come in rpc_result, parsed by a real client."""
    from telethon.tl import functions as tfn
    from telethon.tl import types as ttypes

    client = await telethon_client("intermediate")
    salts = await asyncio.wait_for(client(tfn.GetFutureSaltsRequest(num=3)), 10)
    assert isinstance(salts, ttypes.FutureSalts) and len(salts.salts) == 3
    first = salts.salts[0]
    assert first.valid_since.timestamp() <= salts.now < first.valid_until.timestamp()
    pong = await asyncio.wait_for(client(tfn.PingRequest(ping_id=31337)), 10)
    assert isinstance(pong, ttypes.Pong) and pong.ping_id == 31337
    # Telethon matches destroy_session answers only when the call is not wrapped.
    plain = await telethon_client("abridged", receive_updates=True)
    gone = await asyncio.wait_for(plain(tfn.DestroySessionRequest(session_id=12345)), 10)
    assert isinstance(gone, ttypes.DestroySessionNone) and gone.session_id == 12345


async def test_a_key_keeps_its_layer_on_a_listener_that_did_not_see_it(
    raw_client, start_edge_server, edge_db
):
    """Telegram Desktop announces its layer (invokeWithLayer) once per auth key, not on
    every connection: after a listener restart, or on another listener process, its
    requests are still read and answered in that layer (here 152's `config`)."""
    from tl import functions

    raw = await raw_client()
    init = functions.InvokeWithLayer(
        layer=152,
        query=functions.InitConnection(
            api_id=harness.API_ID, device_model="pc", system_version="linux", app_version="4.6.5",
            system_lang_code="en", lang_pack="tdesktop", lang_code="en", query=functions.help.GetConfig(),
        ),
    )  # fmt: skip
    raw.send(init.to_bytes())
    await raw.expect(wire.RPC_RESULT)
    assert (await AuthKeyClient.objects.aget(auth_key_id=raw.auth_key_id)).layer == 152

    other = start_edge_server()
    there = await harness.RawClient(other.host, other.port, raw.auth_key).connect()
    await there.handshake()
    there.send(HELP_GET_CONFIG)
    body = await there.expect(wire.RPC_RESULT)
    result = body[12:]
    if wire.constructor_of(result) == wire.GZIP_PACKED:
        result = wire.gunzip(result)
    assert wire.constructor_of(result) == 0x232566AC  # layer 152's config, not 229's
