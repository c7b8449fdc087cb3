"""Janus' configuration for one SFU node, made from the repository's directory
``calls_app/sfu/janus/`` and the settings (HTTP API address, RTP ports, interface)."""

from __future__ import annotations

from pathlib import Path

TEMPLATES = Path(__file__).with_name("janus")


def write(target: Path, *, http_ip: str, http_port: int, rtp_ports: str, interface: str) -> Path:
    """Copy the configuration into ``target`` with the values filled in; return it."""
    target.mkdir(parents=True, exist_ok=True)
    values = {
        "@CONFIGS@": str(target), "@HTTP_IP@": http_ip, "@HTTP_PORT@": str(int(http_port)),
        "@RTP_PORTS@": rtp_ports, "@ICE_ENFORCE@": interface,
    }  # fmt: skip
    for src in TEMPLATES.glob("*.jcfg"):
        text = src.read_text()
        if not interface:  # every interface but loopback (Janus never gathers on lo)
            text = "\n".join(line for line in text.split("\n") if "@ICE_ENFORCE@" not in line)
        for key, value in values.items():
            text = text.replace(key, value)
        (target / src.name).write_text(text)
    return target
