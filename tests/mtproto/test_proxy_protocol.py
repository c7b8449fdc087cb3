"""The PROXY protocol parser: v1 and v2 headers byte for byte (as HAProxy sends them),
incomplete ones, garbage, and the trusted-balancer list."""

from __future__ import annotations

import struct

import pytest

from mtproto.transport.proxy_protocol import (
    V1_MAX,
    V2_SIGNATURE,
    BadProxyHeader,
    ProxyHeader,
    TrustedProxies,
    parse,
    sniff,
)

# After each header: the first bytes of an abridged MTProto connection, which stay unread.
REST = b"\xef\x0a" + b"\0" * 40


def v2(command: int, fam_proto: int, addresses: bytes, tlvs: bytes = b"") -> bytes:
    body = addresses + tlvs
    return V2_SIGNATURE + bytes([0x20 | command, fam_proto]) + struct.pack(">H", len(body)) + body


# HAProxy's send-proxy-v2 for a client 192.0.2.7:51000 connecting to 198.51.100.1:443.
V2_TCP4 = bytes.fromhex("0d0a0d0a000d0a515549540a2111000cc0000207c6336401c73801bb")
V2_TCP6 = v2(
    1,
    0x21,
    bytes.fromhex("20010db8000000000000000000000007")
    + bytes.fromhex("20010db8000000000000000000000001")
    + struct.pack(">HH", 51000, 443),
)


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"PROXY TCP4 192.0.2.7 198.51.100.1 51000 443\r\n", ProxyHeader(1, ("192.0.2.7", 51000), 45)),
        (b"PROXY TCP6 2001:db8::7 2001:db8::1 51000 443\r\n", ProxyHeader(1, ("2001:db8::7", 51000), 46)),
        (b"PROXY UNKNOWN\r\n", ProxyHeader(1, None, 15)),
        (b"PROXY UNKNOWN ffff:f::1 ffff:f::2 1 2\r\n", ProxyHeader(1, None, 39)),
        (V2_TCP4, ProxyHeader(2, ("192.0.2.7", 51000), 28)),
        (V2_TCP6, ProxyHeader(2, ("2001:db8::7", 51000), 52)),
        # LOCAL: the balancer's own health check, addresses ignored
        (v2(0, 0x00, b""), ProxyHeader(2, None, 16)),
        (v2(0, 0x11, bytes(12)), ProxyHeader(2, None, 28)),
        # AF_UNSPEC under PROXY, and a Unix socket: nothing the limits could use
        (v2(1, 0x00, b""), ProxyHeader(2, None, 16)),
        (v2(1, 0x31, bytes(216)), ProxyHeader(2, None, 232)),
        # TLVs (here PP2_TYPE_UNIQUE_ID and PP2_TYPE_NOOP) are skipped
        (
            v2(1, 0x11, V2_TCP4[16:], b"\x05\x00\x04abcd" + b"\x04\x00\x02\0\0"),
            ProxyHeader(2, ("192.0.2.7", 51000), 28 + 12),
        ),
    ],
)
def test_headers_are_read_and_what_follows_is_left(data, expected):
    assert parse(data + REST) == expected
    assert (data + REST)[expected.length :] == REST


@pytest.mark.parametrize(
    "data",
    [
        b"PROXY TCP4 192.0.2.7 198.51.100.1 51000 443\r\n",
        V2_TCP4,
        V2_TCP6,
        v2(1, 0x11, V2_TCP4[16:], b"\x04\x00\x10" + bytes(16)),
    ],
)
def test_every_incomplete_prefix_asks_for_more(data):
    for n in range(len(data)):
        assert parse(data[:n]) is None, n
    assert parse(data) is not None


@pytest.mark.parametrize(
    ("data", "refusal"),
    [
        (b"\xef\x0a\0\0", "proxy_header_missing"),  # an MTProto client (abridged)
        (b"\xee\xee\xee\xee", "proxy_header_missing"),  # intermediate
        (b"GET /apiws HTTP/1.1\r\n", "proxy_header_missing"),  # WebSocket without a header
        (b"PROXZ", "proxy_header_missing"),
        (b"PROXY TCP4 192.0.2.7 198.51.100.1 51000\r\n", "proxy_header_bad"),  # a field short
        (b"PROXY TCP4 192.0.2.7 198.51.100.1 51000 443 x\r\n", "proxy_header_bad"),
        (b"PROXY TCP4 2001:db8::7 198.51.100.1 51000 443\r\n", "proxy_header_bad"),  # family
        (b"PROXY TCP6 192.0.2.7 2001:db8::1 51000 443\r\n", "proxy_header_bad"),
        (b"PROXY TCP4 192.0.2.300 198.51.100.1 51000 443\r\n", "proxy_header_bad"),
        (b"PROXY TCP4 192.0.2.7 198.51.100.1 65536 443\r\n", "proxy_header_bad"),
        (b"PROXY TCP4 192.0.2.7 198.51.100.1 051000 443\r\n", "proxy_header_bad"),
        (b"PROXY TCP4 192.0.2.7 198.51.100.1 -1 443\r\n", "proxy_header_bad"),
        (b"PROXY UDP4 192.0.2.7 198.51.100.1 51000 443\r\n", "proxy_header_bad"),
        (b"PROXY TCP4 192.0.2.7 198.51.100.1 51000 443\n", "proxy_header_bad"),  # LF alone
        (b"PROXY TCP4 \xff\xfe 198.51.100.1 51000 443\r\n", "proxy_header_bad"),
        (b"PROXY " + b"A" * (V1_MAX - 6), "proxy_header_bad"),  # no CRLF within 107 bytes
        (V2_SIGNATURE + b"\x11\x11\x00\x0c" + bytes(12), "proxy_header_bad"),  # version 1
        (V2_SIGNATURE + b"\x22\x11\x00\x0c" + bytes(12), "proxy_header_bad"),  # command 2
        (v2(1, 0x12, bytes(12)), "proxy_header_bad"),  # UDP over IPv4
        (v2(1, 0x41, bytes(12)), "proxy_header_bad"),  # no such family
        (v2(1, 0x11, bytes(8)), "proxy_header_bad"),  # address block too short
        (v2(1, 0x21, bytes(12)), "proxy_header_bad"),
    ],
)
def test_garbage_is_refused(data, refusal):
    with pytest.raises(BadProxyHeader) as err:
        parse(data + REST)
    assert err.value.refusal == refusal


def test_a_v1_line_of_the_longest_allowed_length_is_read():
    # The specification's worst case: TCP6 with the longest addresses and ports.
    address = "ffff:" * 7 + "ffff"
    line = f"PROXY TCP6 {address} {address} 65535 65535\r\n".encode()
    assert len(line) == 104 <= V1_MAX
    assert parse(line) == ProxyHeader(1, ("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", 65535), 104)


def test_sniff_tells_headers_from_mtproto_and_http_as_early_as_it_can():
    assert sniff(b"") is None
    assert sniff(b"PRO") is None and sniff(b"\r\n\r\n") is None
    assert sniff(b"PROXY ") is True and sniff(V2_SIGNATURE) is True
    assert sniff(b"\xef") is False and sniff(b"GET ") is False and sniff(b"PROXI") is False
    # a full-transport packet of 80 bytes starts with "P" and is told apart at byte two
    assert sniff(b"P\x00\x00\x00") is False


def test_trusted_proxies():
    trusted = TrustedProxies(" 10.0.0.5, 10.1.0.0/24,fd00::/64 ,")
    assert trusted
    assert "10.0.0.5" in trusted and "10.1.0.200" in trusted and "fd00::9" in trusted
    assert "10.0.0.6" not in trusted and "10.1.1.1" not in trusted and "fd01::1" not in trusted
    assert "::ffff:10.0.0.5" in trusted  # an IPv4 peer on a dual-stack socket
    assert "" not in trusted and "not an address" not in trusted
    assert not TrustedProxies("") and "127.0.0.1" not in TrustedProxies("")
    assert "10.1.0.9" in TrustedProxies("10.1.0.1/24")  # host bits are forgiven
    with pytest.raises(ValueError, match=r"balancer\.example"):
        TrustedProxies("10.0.0.5,balancer.example")
