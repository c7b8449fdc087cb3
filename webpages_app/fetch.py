"""Fetching a link's page safely: which targets the server may reach, and the HTTP
client (aiohttp) that reaches only those.

By default only http/https on ports 80 and 443 of public addresses are fetched;
private, loopback, link-local and other non-global addresses are refused unless the
operator allows them (``TELESRV_LINK_PREVIEW_ALLOW``: host, host:port or CIDR entries; a
bare host or CIDR allows any port). Every hop is checked before any connection: the
host is resolved here, each address checked, and the connection may use only the
addresses checked (a pinned resolver: a name cannot resolve to something else between
the check and the connect). Redirects are followed by hand and checked the same way;
sizes and time are capped.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from dataclasses import dataclass, field
from urllib.parse import urljoin, urlsplit

import aiohttp
from aiohttp.abc import AbstractResolver

DEFAULT_PORTS = {"http": 80, "https": 443}
REDIRECTS_MAX = 5
USER_AGENT = "telesrv-link-preview/1.0 (+TelegramBot like)"


class Refused(Exception):
    """The URL (or a hop of it) is not one the server fetches; no connection was made."""


class FetchFailed(Exception):
    """The page could not be fetched (network error, status, size or time cap)."""


@dataclass(slots=True)
class AllowList:
    """The operator's exceptions to the default rules."""

    hosts: set[str] = field(default_factory=set)
    host_ports: set[tuple[str, int]] = field(default_factory=set)
    nets: list = field(default_factory=list)

    @classmethod
    def parse(cls, entries) -> AllowList:
        out = cls()
        for raw in entries:
            e = raw.strip().lower()
            if not e:
                continue
            try:
                out.nets.append(ipaddress.ip_network(e, strict=False))
                continue
            except ValueError:
                pass
            host, sep, port = e.rpartition(":")
            if sep and port.isdigit() and host and not host.endswith(":"):
                out.host_ports.add((host.strip("[]"), int(port)))
            else:
                out.hosts.add(e.strip("[]"))
        return out

    def allows(self, host: str, port: int, ip=None) -> bool:
        names = {host.lower()} | ({str(ip)} if ip is not None else set())
        if names & self.hosts or any((n, port) in self.host_ports for n in names):
            return True
        return ip is not None and any(ip.version == n.version and ip in n for n in self.nets)


@dataclass(frozen=True, slots=True)
class Target:
    url: str
    scheme: str
    host: str
    port: int


def check_url(url: str, allow: AllowList) -> Target:
    """The URL's scheme, host and port as the rules allow them (Refused otherwise)."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise Refused("malformed url") from None
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS:
        raise Refused(f"scheme {scheme!r}")
    host = (parts.hostname or "").lower()
    if not host or parts.username or parts.password:
        raise Refused("no host, or credentials in the url")
    port = port or DEFAULT_PORTS[scheme]
    target = Target(url, scheme, host, port)
    try:
        literal = ipaddress.ip_address(host)
    except ValueError:
        literal = None
    if literal is not None:
        check_address(target, literal, allow)  # an address needs no lookup: refused at once
    elif port not in (80, 443) and not allow.allows(host, port):
        raise Refused(f"port {port}")
    return target


def check_address(target: Target, ip, allow: AllowList) -> None:
    """One resolved address of the target, checked (Refused when not allowed)."""
    if allow.allows(target.host, target.port, ip):
        return
    if target.port not in (80, 443):
        raise Refused(f"port {target.port}")
    if not ip.is_global or ip.is_multicast:
        raise Refused(f"address {ip} is not public")


Lookup = "callable(host, port) -> awaitable list of ip address strings"


async def system_lookup(host: str, port: int) -> list[str]:
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [info[4][0] for info in infos]


async def resolve_checked(target: Target, allow: AllowList, lookup=system_lookup) -> list[str]:
    """The target's addresses, every one checked: one refused address refuses the hop
    (a name that also points inside is not fetched)."""
    try:
        literal = ipaddress.ip_address(target.host)
    except ValueError:
        literal = None
    if literal is not None:
        addresses = [str(literal)]
    else:
        try:
            addresses = await lookup(target.host, target.port)
        except OSError as exc:
            raise FetchFailed(f"cannot resolve {target.host}: {exc}") from None
    if not addresses:
        raise FetchFailed(f"no address for {target.host}")
    for a in addresses:
        check_address(target, ipaddress.ip_address(a.split("%", 1)[0]), allow)
    return addresses


class PinnedResolver(AbstractResolver):
    """aiohttp's resolver for one fetch: only the addresses already checked."""

    def __init__(self) -> None:
        self.pins: dict[str, list[str]] = {}

    async def resolve(self, host: str, port: int = 0, family: int = socket.AF_INET):
        addresses = self.pins.get(host.lower())
        if not addresses:
            raise OSError(f"{host} was not checked")
        out = []
        for a in addresses:
            ip = ipaddress.ip_address(a)
            out.append({
                "hostname": host, "host": a, "port": port, "proto": 0, "flags": socket.AI_NUMERICHOST,
                "family": socket.AF_INET6 if ip.version == 6 else socket.AF_INET,
            })  # fmt: skip
        return out

    async def close(self) -> None:
        return None


@dataclass(slots=True)
class Fetched:
    url: str  # after redirects
    content_type: str
    body: bytes


async def fetch(url: str, allow: AllowList, *, max_bytes: int, timeout: float, accept: str = "text/html",
                lookup=system_lookup) -> Fetched:  # fmt: skip
    """GET ``url`` within the rules (Refused before any connection otherwise), following
    redirects by hand, reading at most ``max_bytes`` (more: FetchFailed)."""
    resolver = PinnedResolver()
    connector = aiohttp.TCPConnector(resolver=resolver, use_dns_cache=False, limit=2, force_close=True)
    client_timeout = aiohttp.ClientTimeout(total=timeout)
    headers = {"User-Agent": USER_AGENT, "Accept": accept}
    async with aiohttp.ClientSession(connector=connector, timeout=client_timeout, headers=headers) as session:
        try:
            async with asyncio.timeout(timeout):
                for _ in range(REDIRECTS_MAX + 1):
                    target = check_url(url, allow)
                    resolver.pins[target.host] = await resolve_checked(target, allow, lookup)
                    async with session.get(url, allow_redirects=False, auto_decompress=True) as resp:
                        if resp.status in (301, 302, 303, 307, 308) and resp.headers.get("Location"):
                            url = urljoin(url, resp.headers["Location"])
                            continue
                        if resp.status != 200:
                            raise FetchFailed(f"status {resp.status}")
                        if resp.content_length is not None and resp.content_length > max_bytes:
                            raise FetchFailed("too large")
                        body = bytearray()
                        async for chunk in resp.content.iter_chunked(64 * 1024):
                            body += chunk
                            if len(body) > max_bytes:
                                raise FetchFailed("too large")
                        return Fetched(str(resp.url), resp.headers.get("Content-Type", ""), bytes(body))
                raise FetchFailed("too many redirects")
        except TimeoutError:
            raise FetchFailed("timed out") from None
        except aiohttp.ClientError as exc:
            raise FetchFailed(str(exc) or type(exc).__name__) from None
