"""Where this server says it is: the data center clients talk to and its limits."""

from __future__ import annotations

import functools
import ipaddress
import socket
from dataclasses import dataclass

from django.conf import settings

# Clients ask for DCs 1..5 (files, migrations, CDN probing); all of them are this server.
DC_IDS = (1, 2, 3, 4, 5)
CONFIG_TTL = 3600


@dataclass(frozen=True, slots=True)
class Endpoint:
    dc_id: int
    host: str
    port: int
    media_only: bool = False

    @property
    def ipv6(self) -> bool:
        return ":" in self.host


@dataclass(frozen=True, slots=True)
class Limits:
    chat_size_max: int = 200
    megagroup_size_max: int = 200_000
    forwarded_count_max: int = 100
    online_update_period_ms: int = 210_000
    offline_blur_timeout_ms: int = 5_000
    offline_idle_timeout_ms: int = 30_000
    online_cloud_timeout_ms: int = 300_000
    notify_cloud_delay_ms: int = 30_000
    notify_default_delay_ms: int = 1_500
    push_chat_period_ms: int = 60_000
    push_chat_limit: int = 2
    edit_time_limit: int = 172_800
    revoke_time_limit: int = 2_147_483_647
    revoke_pm_time_limit: int = 2_147_483_647
    rating_e_decay: int = 2_419_200
    stickers_recent_limit: int = 200
    channels_read_media_period: int = 604_800
    call_receive_timeout_ms: int = 20_000
    call_ring_timeout_ms: int = 90_000
    call_connect_timeout_ms: int = 30_000
    call_packet_timeout_ms: int = 10_000
    caption_length_max: int = 1024
    message_length_max: int = 4096


def this_dc() -> int:
    return settings.MTPROTO_DC_ID


@functools.lru_cache(maxsize=16)
def address_of(host: str) -> str:
    """dcOption carries an IP address, not a name (Telegram Desktop does not resolve it):
    a configured host name is resolved once."""
    try:
        return str(ipaddress.ip_address(host))
    except ValueError:
        pass
    try:
        return socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)[0][4][0]
    except OSError:
        return host


def endpoints() -> list[Endpoint]:
    host, port = address_of(settings.MTPROTO_PUBLIC_HOST), settings.MTPROTO_PUBLIC_PORT
    out = [Endpoint(dc_id, host, port) for dc_id in DC_IDS]
    if this_dc() not in DC_IDS:
        out.append(Endpoint(this_dc(), host, port))
    # Downloads and uploads go to a media-only option of the DC when there is one.
    out.append(Endpoint(this_dc(), host, port, media_only=True))
    return out


LIMITS = Limits()
