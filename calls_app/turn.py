"""The relays a call may use: TURN servers with short-lived credentials, STUN servers.

Credentials follow the TURN REST API that coturn implements (``use-auth-secret`` with
``static-auth-secret``): the username is ``"<expiry unix time>:<user id>"`` and the
password ``base64(HMAC-SHA1(secret, username))``. coturn recomputes the password from
the shared secret and refuses it after the expiry, so telesrv never stores a password
and a leaked one stops working by itself.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import zlib
from dataclasses import dataclass

from django.conf import settings

DEFAULT_TURN_PORT = 3478


@dataclass(frozen=True, slots=True)
class Relay:
    """One ``phoneConnectionWebrtc`` entry."""

    id: int
    host: str
    port: int
    turn: bool
    stun: bool
    username: str = ""
    password: str = ""


def _host_port(entry: str) -> tuple[str, int]:
    host, sep, port = entry.rpartition(":")
    if not sep or host.endswith(":") or not port.isdigit():  # no port, or a bare IPv6
        return entry.strip("[]"), DEFAULT_TURN_PORT
    return host.strip("[]"), int(port)


def credentials(user_id: int, now: int, secret: str | None = None, ttl: int | None = None) -> tuple[str, str]:
    """(username, password) valid until ``now + ttl``."""
    secret = settings.CALL_TURN_SECRET if secret is None else secret
    ttl = settings.CALL_TURN_TTL if ttl is None else ttl
    username = f"{now + ttl}:{user_id}"
    digest = hmac.new(secret.encode(), username.encode(), hashlib.sha1).digest()
    return username, base64.b64encode(digest).decode()


def _id(kind: str, entry: str) -> int:
    # Stable across processes and restarts: a client may compare entries by id.
    return zlib.crc32(f"{kind}:{entry}".encode())


def relays_for(user_id: int, now: int) -> list[Relay]:
    """What ``phoneCall.connections`` lists for ``user_id``: each TURN server (with
    credentials, when a secret is set) also as a STUN server, then the STUN-only ones."""
    out: list[Relay] = []
    turn = settings.CALL_TURN_SERVERS if settings.CALL_TURN_SECRET else []
    if turn:
        username, password = credentials(user_id, now)
        for entry in turn:
            host, port = _host_port(entry)
            out.append(Relay(_id("turn", entry), host, port, True, False, username, password))
    for entry in [*turn, *settings.CALL_STUN_SERVERS]:
        host, port = _host_port(entry)
        out.append(Relay(_id("stun", entry), host, port, False, True))
    return out
