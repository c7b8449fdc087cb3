"""The PROXY protocol (HAProxy's, versions 1 and 2): a load balancer in front of the
listener opens each connection with a header naming the client it accepted, so the
listener sees the client's address instead of the balancer's.

Sans-I/O: :func:`parse` takes the bytes received so far and answers "need more", the
header and how many bytes it took, or :class:`BadProxyHeader`. Only peers listed in
:class:`TrustedProxies` may send a header (anyone else could name any address), and those
peers must send one.
"""

from __future__ import annotations

import ipaddress
import struct
from dataclasses import dataclass

from .errors import TransportError

V1_PREFIX = b"PROXY "
V2_SIGNATURE = b"\r\n\r\n\x00\r\nQUIT\n"
# The longest v1 line the specification allows, CRLF included.
V1_MAX = 107
V2_FIXED = 16
# v2 address blocks by family: (source and destination address, ports) sizes.
_V2_INET = 0x1
_V2_INET6 = 0x2
_V2_UNIX = 0x3
_V2_ADDR_SIZE = {_V2_INET: 12, _V2_INET6: 36, _V2_UNIX: 216}
_V2_STREAM = 0x1
_V2_CMD_LOCAL = 0x0
_V2_CMD_PROXY = 0x1


class BadProxyHeader(TransportError):
    """A PROXY header that is malformed, unexpected or missing; the connection is refused
    and counted under :attr:`refusal`."""

    def __init__(self, message: str, refusal: str = "proxy_header_bad") -> None:
        super().__init__(message)
        self.refusal = refusal


@dataclass(frozen=True)
class ProxyHeader:
    """``source``: the client's (address, port), or None when the balancer speaks for
    itself (v2 LOCAL: its health checks; v1 UNKNOWN; families without an address) -
    then the connection's own peer address stands."""

    version: int
    source: tuple[str, int] | None
    length: int  # bytes the header took


def sniff(head: bytes) -> bool | None:
    """Whether ``head`` (a connection's first bytes) starts a PROXY header: True, False,
    or None while the bytes so far are a prefix of both answers."""
    for signature in (V1_PREFIX, V2_SIGNATURE):
        n = min(len(head), len(signature))
        if head[:n] == signature[:n]:
            return True if n == len(signature) else None
    return False


def parse(data: bytes) -> ProxyHeader | None:
    """The header at the start of ``data``; None while it is incomplete. Raises
    :class:`BadProxyHeader` on anything else."""
    kind = sniff(data)
    if kind is None:
        return None
    if kind is False:
        raise BadProxyHeader("no PROXY header", "proxy_header_missing")
    if data.startswith(V2_SIGNATURE):
        return _parse_v2(data)
    return _parse_v1(data)


def _parse_v1(data: bytes) -> ProxyHeader | None:
    end = data.find(b"\r\n", 0, V1_MAX)
    if end < 0:
        if len(data) >= V1_MAX:
            raise BadProxyHeader(f"PROXY v1 line longer than {V1_MAX} bytes")
        if b"\n" in data or b"\0" in data:
            raise BadProxyHeader("PROXY v1 line not ended by CRLF")
        return None
    try:
        line = data[:end].decode("ascii")
    except UnicodeDecodeError:
        raise BadProxyHeader("PROXY v1 line is not ASCII") from None
    parts = line.split(" ")
    if len(parts) >= 2 and parts[1] == "UNKNOWN":
        # The balancer could not tell (or it is its own connection): whatever follows is
        # to be ignored.
        return ProxyHeader(1, None, end + 2)
    if len(parts) != 6 or parts[1] not in ("TCP4", "TCP6"):
        raise BadProxyHeader(f"bad PROXY v1 line {line[:V1_MAX]!r}")
    _, proto, src, dst, sport, dport = parts
    version = 4 if proto == "TCP4" else 6
    for text in (src, dst):
        try:
            address = ipaddress.ip_address(text)
        except ValueError:
            raise BadProxyHeader(f"bad PROXY v1 address {text!r}") from None
        if address.version != version:
            raise BadProxyHeader(f"PROXY v1 {proto} with address {text!r}")
    source_port = _port(sport)
    _port(dport)
    return ProxyHeader(1, (src, source_port), end + 2)


def _port(text: str) -> int:
    if not text.isdigit() or len(text) > 5 or (len(text) > 1 and text[0] == "0") or int(text) > 65535:
        raise BadProxyHeader(f"bad PROXY v1 port {text!r}")
    return int(text)


def _parse_v2(data: bytes) -> ProxyHeader | None:
    if len(data) < V2_FIXED:
        return None
    ver_cmd, fam_proto, length = struct.unpack_from(">BBH", data, 12)
    if ver_cmd >> 4 != 2:
        raise BadProxyHeader(f"PROXY v2 header of version {ver_cmd >> 4}")
    command = ver_cmd & 0xF
    if command not in (_V2_CMD_LOCAL, _V2_CMD_PROXY):
        raise BadProxyHeader(f"PROXY v2 command {command}")
    total = V2_FIXED + length
    if len(data) < total:
        return None
    if command == _V2_CMD_LOCAL:
        # The balancer's own connection (a health check): addresses, if any, are ignored.
        return ProxyHeader(2, None, total)
    family, proto = fam_proto >> 4, fam_proto & 0xF
    if family == 0:  # AF_UNSPEC: the balancer forwards something it cannot name
        return ProxyHeader(2, None, total)
    if family not in _V2_ADDR_SIZE or proto != _V2_STREAM:
        raise BadProxyHeader(f"PROXY v2 family/protocol {fam_proto:#04x} on a TCP listener")
    if length < _V2_ADDR_SIZE[family]:
        raise BadProxyHeader(f"PROXY v2 address block of {length} bytes for family {family}")
    # What follows the addresses (TLVs: ALPN, TLS details, unique ids) is not needed.
    if family == _V2_INET:
        source = (str(ipaddress.IPv4Address(data[16:20])), struct.unpack_from(">H", data, 24)[0])
    elif family == _V2_INET6:
        source = (str(ipaddress.IPv6Address(data[16:32])), struct.unpack_from(">H", data, 48)[0])
    else:
        source = None  # a Unix socket has no address the limits could use
    return ProxyHeader(2, source, total)


class TrustedProxies:
    """The balancers allowed to send a PROXY header: from a comma-separated list of
    addresses and networks (``TELESRV_MTPROTO_TRUSTED_PROXIES``, e.g.
    ``10.0.0.5, 10.1.0.0/24, fd00::/64``). Raises ValueError on an entry that is neither."""

    def __init__(self, spec: str | list[str] | tuple[str, ...] = "") -> None:
        entries = spec.split(",") if isinstance(spec, str) else list(spec)
        self.networks = []
        for entry in entries:
            entry = entry.strip()
            if not entry:
                continue
            try:
                self.networks.append(ipaddress.ip_network(entry, strict=False))
            except ValueError:
                raise ValueError(f"not an address or network: {entry!r}") from None

    def __bool__(self) -> bool:
        return bool(self.networks)

    def __contains__(self, address: str) -> bool:
        try:
            ip = ipaddress.ip_address(address.split("%", 1)[0])
        except ValueError:
            return False
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped  # a dual-stack socket names IPv4 peers this way
        return any(ip in network for network in self.networks)
