"""Transport framing: exact bytes for every codec, obfuscated2 in both directions
(against Telethon's implementation), detection, quick acks and the size cap."""

import asyncio
import contextlib
import struct
import zlib

import pytest
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from telethon.network.connection import tcpobfuscated
from telethon.network.connection.tcpabridged import AbridgedPacketCodec
from telethon.network.connection.tcpintermediate import IntermediatePacketCodec

from mtproto.transport import (
    AbridgedCodec,
    BadFrame,
    ClientStream,
    FrameTooLarge,
    FullCodec,
    IntermediateCodec,
    Packet,
    PaddedIntermediateCodec,
    ServerStream,
    Transport,
    TransportClosed,
    UnsupportedProtocol,
    make_init,
    parse_init,
    transport_error_code,
)

from .test_crypto import CountingRandom

PAYLOAD = bytes(range(40))  # a typical unencrypted req_pq_multi is 40 bytes


def test_abridged_short_and_long_frames():
    codec = AbridgedCodec()
    assert codec.encode(PAYLOAD) == b"\x0a" + PAYLOAD
    big = b"\x11" * (127 * 4)
    assert codec.encode(big)[:4] == b"\x7f\x7f\x00\x00"
    assert codec.encode(PAYLOAD, quick_ack=True)[0] == 0x8A
    server = AbridgedCodec()
    frames = server.feed(b"\x8a" + PAYLOAD + b"\x7f\x7f\x00\x00" + big)
    assert frames == [Packet(PAYLOAD, True), Packet(big, False)]


def test_abridged_feeds_byte_by_byte():
    server = AbridgedCodec()
    wire = b"\x7f\x80\x00\x00" + b"\x22" * 512
    got = []
    for i in range(len(wire)):
        got += server.feed(wire[i : i + 1])
    assert got == [Packet(b"\x22" * 512, False)]
    assert server.buffered() == 0


def test_abridged_quick_ack_token_is_byte_swapped():
    server = AbridgedCodec()
    assert server.encode_quick_ack(0x81020304) == b"\x81\x02\x03\x04"
    client = AbridgedCodec(server=False)
    assert client.feed(b"\x81\x02\x03\x04") == [Packet(struct.pack("<I", 0x81020304), True)]


def test_intermediate_frames_and_quick_ack():
    codec = IntermediateCodec()
    assert codec.encode(PAYLOAD) == b"\x28\x00\x00\x00" + PAYLOAD
    assert codec.encode(PAYLOAD, quick_ack=True)[:4] == b"\x28\x00\x00\x80"
    assert codec.feed(b"\x28\x00\x00\x80" + PAYLOAD) == [Packet(PAYLOAD, True)]
    assert codec.encode_quick_ack(0x01020304) == struct.pack("<I", 0x81020304)
    client = IntermediateCodec(server=False)
    assert client.feed(struct.pack("<I", 0x81020304)) == [Packet(struct.pack("<I", 0x81020304), True)]


def test_transport_error_is_a_four_byte_packet():
    assert AbridgedCodec().encode_error(-404) == b"\x01" + b"\x6c\xfe\xff\xff"
    assert IntermediateCodec().encode_error(-429) == b"\x04\x00\x00\x00" + struct.pack("<i", -429)
    client = AbridgedCodec(server=False)
    (packet,) = client.feed(AbridgedCodec().encode_error(-404))
    assert transport_error_code(packet.payload) == -404
    assert transport_error_code(PAYLOAD[:4]) is None


def test_padded_intermediate_strips_padding_by_message_structure():
    codec = PaddedIntermediateCodec(rand=CountingRandom(1))
    plain = bytes(8) + struct.pack("<qi", 7 << 32, 20) + b"\x01" * 20  # unencrypted message
    encrypted = b"\x05" * (24 + 32)
    for message in (plain, encrypted):
        wire = codec.encode(message)
        (length,) = struct.unpack_from("<I", wire)
        assert length == len(wire) - 4 and 0 <= length - len(message) <= 15
        assert PaddedIntermediateCodec().feed(wire) == [Packet(message, False)]
    assert PaddedIntermediateCodec().feed(b"\x06\x00\x00\x00" + struct.pack("<i", -404) + b"zz")[
        0
    ].payload == (struct.pack("<i", -404))


def test_padded_plain_message_longer_than_packet_is_refused():
    lying = bytes(8) + struct.pack("<qi", 7 << 32, 400) + b"\x01" * 20
    with pytest.raises(BadFrame):
        PaddedIntermediateCodec().feed(struct.pack("<I", len(lying)) + lying)


def test_full_transport_fixed_frame_and_sequence():
    sender = FullCodec(server=False)
    first = sender.encode(PAYLOAD)
    head = struct.pack("<ii", 52, 0) + PAYLOAD
    assert first == head + struct.pack("<I", zlib.crc32(head))
    second = sender.encode(PAYLOAD)
    assert struct.unpack_from("<i", second, 4)[0] == 1
    receiver = FullCodec()
    assert receiver.feed(first + second) == [Packet(PAYLOAD), Packet(PAYLOAD)]


def test_full_transport_refuses_bad_crc_and_replayed_seq():
    sender = FullCodec(server=False)
    frame = bytearray(sender.encode(PAYLOAD))
    frame[10] ^= 1
    with pytest.raises(BadFrame):
        FullCodec().feed(bytes(frame))
    frame[10] ^= 1
    receiver = FullCodec()
    receiver.feed(bytes(frame))
    with pytest.raises(BadFrame):
        receiver.feed(bytes(frame))  # seq_no 0 again
    with pytest.raises(BadFrame):
        FullCodec().feed(struct.pack("<ii", 10, 0) + b"\0" * 6)


def test_size_cap_is_enforced_from_the_header_alone():
    with pytest.raises(FrameTooLarge):
        AbridgedCodec(max_packet=1024).feed(b"\x7f\x01\x01\x00")
    with pytest.raises(FrameTooLarge):
        IntermediateCodec(max_packet=1024).feed(struct.pack("<I", 1 << 30))
    with pytest.raises(FrameTooLarge):
        FullCodec(max_packet=1024).feed(struct.pack("<ii", 1 << 20, 0))


# --- obfuscated2 --------------------------------------------------------------------

FIXED_HEADER_RANDOM = bytes((i * 7 + 3) % 256 for i in range(64))


def _ctr(key, iv):
    return Cipher(algorithms.AES(key), modes.CTR(iv)).encryptor()


def test_obfuscated_fixed_header_both_directions():
    header, client_init = make_init("intermediate", dc_id=2, rand=lambda n: FIXED_HEADER_RANDOM[:n])
    # the key material goes out in clear, the tail encrypted
    assert header[:56] == FIXED_HEADER_RANDOM[:56]
    c2s = _ctr(FIXED_HEADER_RANDOM[8:40], FIXED_HEADER_RANDOM[40:56])
    clear_tail = c2s.update(header)[56:64]
    assert clear_tail[:4] == b"\xee\xee\xee\xee" and clear_tail[4:6] == b"\x02\x00"

    server = parse_init(header)
    assert (server.codec, server.dc_id) == ("intermediate", 2)
    # client -> server keystream continues after the 64 header bytes
    assert server.decrypt.update(client_init.encrypt.update(b"hello, server!!!")) == b"hello, server!!!"
    # server -> client uses the reversed 48 bytes of the header
    rev = FIXED_HEADER_RANDOM[8:56][::-1]
    s2c = _ctr(rev[:32], rev[32:48])
    out = server.encrypt.update(b"hello, client")
    assert out == s2c.update(b"hello, client")
    assert client_init.decrypt.update(out) == b"hello, client"


@pytest.mark.parametrize(
    "start",
    [
        b"\xef" + bytes(63),
        b"HEAD" + bytes(60),
        b"POST" + bytes(60),
        b"GET " + bytes(60),
        b"OPTI" + bytes(60),
        b"\xdd\xdd\xdd\xdd" + bytes(60),
        b"\xee\xee\xee\xee" + bytes(60),
        b"\x16\x03\x01\x02" + bytes(60),
        b"abcd\x00\x00\x00\x00" + bytes(56),
    ],
)
def test_obfuscated_reserved_starts_are_refused(start):
    with pytest.raises(UnsupportedProtocol):
        parse_init(start)


def test_obfuscated_unknown_inner_tag_is_refused():
    with pytest.raises(UnsupportedProtocol):
        parse_init(FIXED_HEADER_RANDOM)  # random tail decrypts to no known tag


@pytest.mark.parametrize(
    ("codec_cls", "name"), [(AbridgedPacketCodec, "abridged"), (IntermediatePacketCodec, "intermediate")]
)
def test_obfuscated_interoperates_with_telethon(monkeypatch, codec_cls, name):
    monkeypatch.setattr(tcpobfuscated.os, "urandom", lambda n: FIXED_HEADER_RANDOM[:n])
    header, t_encrypt, t_decrypt = tcpobfuscated.ObfuscatedIO.init_header(codec_cls)
    stream = ServerStream()
    wire = bytes(header) + t_encrypt.encrypt(codec_cls(None).encode_packet(PAYLOAD))
    assert stream.feed(wire) == [Packet(PAYLOAD, False)]
    assert (stream.kind, stream.obfuscated) == (name, True)
    reply = t_decrypt.encrypt(stream.encode(PAYLOAD[::-1]))
    assert codec_cls(None).encode_packet(PAYLOAD[::-1]) == reply


# --- detection ----------------------------------------------------------------------


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
def test_server_stream_detects_every_transport(kind, obfuscated):
    client = ClientStream(kind, obfuscated=obfuscated, rand=CountingRandom(9))
    message = bytes(8) + struct.pack("<qi", 5 << 32, 20) + b"\x07" * 20
    server = ServerStream(rand=CountingRandom(10))
    wire = client.encode(message) + client.encode(message, quick_ack=kind != "full")
    got = []
    for i in range(0, len(wire), 5):  # the header arrives in pieces
        got += server.feed(wire[i : i + 5])
    assert [p.payload for p in got] == [message, message]
    assert got[1].quick_ack is (kind != "full")
    assert (server.kind, server.obfuscated) == (kind, obfuscated)
    assert client.feed(server.encode(b"\x09" * 24 + b"\x08" * 16)) == [Packet(b"\x09" * 24 + b"\x08" * 16)]
    if kind != "full":
        (ack,) = client.feed(server.encode_quick_ack(0x80ABCDEF))
        assert ack == Packet(struct.pack("<I", 0x80ABCDEF), True)
    (err,) = client.feed(server.encode_error(-404))
    assert transport_error_code(err.payload) == -404


@pytest.mark.parametrize("start", [b"GET / HTTP/1.1\r\n", b"POST /api HTTP/1.1", b"\x16\x03\x01\x02\x00"])
def test_server_stream_refuses_http_and_tls(start):
    with pytest.raises(UnsupportedProtocol):
        ServerStream().feed(start)


def test_server_stream_cannot_send_before_detection():
    with pytest.raises(RuntimeError):
        ServerStream().encode(PAYLOAD)


# --- asyncio Transport over a real socket --------------------------------------------


async def _serve(handler):
    server = await asyncio.start_server(handler, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    return server, port


async def test_async_transport_roundtrip_with_quick_ack():
    results = []

    async def handler(reader, writer):
        transport = Transport(reader, writer)
        packet = await transport.read_packet()
        results.append((transport.kind, packet))
        transport.write_quick_ack(0x8000BEEF)
        transport.write_packet(packet.payload[::-1])
        await transport.drain()
        with pytest.raises(TransportClosed):
            await transport.read_packet()

    server, port = await _serve(handler)
    async with server:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        client = ClientStream("abridged", obfuscated=True)
        writer.write(client.encode(PAYLOAD, quick_ack=True))
        got = []
        while len(got) < 2:
            got += client.feed(await reader.read(4096))
        writer.close()
        await writer.wait_closed()
        await asyncio.sleep(0.05)
    assert results == [("abridged", Packet(PAYLOAD, True))]
    assert got == [Packet(struct.pack("<I", 0x8000BEEF), True), Packet(PAYLOAD[::-1])]


async def test_async_transport_closes_on_oversized_frame():
    errors = []

    async def handler(reader, writer):
        transport = Transport(reader, writer, max_packet=1024)
        try:
            await transport.read_packet()
        except FrameTooLarge as exc:
            errors.append(exc)
        assert transport.closed

    server, port = await _serve(handler)
    async with server:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"\xee\xee\xee\xee" + struct.pack("<I", 4096))
        await writer.drain()
        assert await asyncio.wait_for(reader.read(), 5) == b""  # the server hung up
        writer.close()
    assert len(errors) == 1


async def test_async_transport_reports_eof_mid_packet():
    outcome = []

    async def handler(reader, writer):
        transport = Transport(reader, writer)
        try:
            await transport.read_packet()
        except TransportClosed:
            outcome.append("closed")

    server, port = await _serve(handler)
    async with server:
        _, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"\xef\x0a" + PAYLOAD[:10])  # a truncated frame
        await writer.drain()
        writer.close()
        await writer.wait_closed()
        for _ in range(50):
            if outcome:
                break
            await asyncio.sleep(0.02)
    assert outcome == ["closed"]


async def test_a_peer_gone_while_an_answer_is_written_closes_quietly():
    """The client hung up (its socket closed under the writer, as uvloop reports with a
    RuntimeError): the write is dropped, the connection closes and says why; no error."""
    results = []

    async def handler(reader, writer):
        transport = Transport(reader, writer)
        await transport.read_packet()
        writer.transport.abort()  # what a reset under a pending answer leaves behind
        transport.write_packet(b"\0" * 64)
        with contextlib.suppress(TransportClosed):
            await transport.drain()
        results.append((transport.closed, transport.gone_while_writing))

    server, port = await _serve(handler)
    async with server:
        _reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(ClientStream("abridged").encode(PAYLOAD))
        await writer.drain()
        await asyncio.sleep(0.3)
        writer.close()
    assert results == [(True, True)]
