"""coturn's configuration for telesrv's calls, made from the settings.

telesrv and coturn share one secret (TURN REST API, ``calls_app.turn``); coturn relays
media on the port range given (open it in the firewall) and listens for TURN/STUN on
one UDP+TCP port, and on a TLS port when a certificate is configured.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class CoturnConfig:
    listen_ip: str
    port: int
    secret: str
    relay_min: int
    relay_max: int
    realm: str = "telesrv"
    external_ip: str = ""  # the public address behind a NAT ("public/private")
    tls_port: int = 0
    cert: str = ""
    pkey: str = ""
    log_file: str = "stdout"
    allow_loopback: bool = False  # development and tests on one machine only
    verbose: bool = False

    def text(self) -> str:
        lines = [
            f"listening-ip={self.listen_ip}",
            f"relay-ip={self.listen_ip}",
            f"listening-port={self.port}",
            f"min-port={self.relay_min}",
            f"max-port={self.relay_max}",
            "use-auth-secret",
            f"static-auth-secret={self.secret}",
            f"realm={self.realm}",
            "fingerprint",
            "no-cli",
            "no-multicast-peers",
            "simple-log",
            f"log-file={self.log_file}",
        ]
        if self.external_ip:
            lines.append(f"external-ip={self.external_ip}")
        if self.cert and self.pkey:
            lines += [f"tls-listening-port={self.tls_port or 5349}", f"cert={self.cert}", f"pkey={self.pkey}"]
        else:
            lines += ["no-tls", "no-dtls"]
        if self.allow_loopback:
            lines.append("allow-loopback-peers")
        if self.verbose:
            lines.append("verbose")
        return "\n".join(lines) + "\n"


def parse_range(spec: str) -> tuple[int, int]:
    lo, _, hi = spec.partition("-")
    lo_i, hi_i = int(lo), int(hi or lo)
    if not 1024 <= lo_i <= hi_i <= 65535:
        raise ValueError(f"relay port range {spec!r} is not within 1024-65535")
    return lo_i, hi_i
