"""One Janus SFU node for the e2e test session (calls_app/sfu/janus/, ``make sfu``).

Its HTTP API binds a free port on 127.0.0.1. Its media use this machine's own first
global IPv4 address: Janus never gathers ICE candidates on loopback (ice.c skips
IFF_LOOPBACK interfaces) and neither do Telegram's call stacks (WebRTC's network manager
ignores loopback adapters), so 127.0.0.1 cannot carry group-call media; packets between
two sockets on this machine's own address stay inside the kernel (routed over lo) and
never leave the machine. The RTP ports come from TELESRV_TEST_SFU_RTP_PORTS."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
import urllib.request
from pathlib import Path

from tests.e2e import harness


def own_ipv4() -> str:
    out = subprocess.run(
        ["ip", "-4", "-j", "addr", "show", "scope", "global"], capture_output=True, text=True
    )
    for link in json.loads(out.stdout or "[]"):
        for addr in link.get("addr_info", []):
            if addr.get("local"):
                return addr["local"]
    raise RuntimeError("no global IPv4 address for the SFU's media")


class SfuNode:
    def __init__(self, proc: subprocess.Popen, url: str, log: Path, address: str):
        self.proc, self.url, self.log_path, self.address = proc, url, log, address

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)


def start(workdir: Path) -> SfuNode | None:
    """Janus on a free port, or None when Janus is not installed (make sfu)."""
    binary = shutil.which("janus") or "/usr/bin/janus"
    if not os.path.exists(binary):
        return None
    from calls_app.sfu import janus_config

    port = harness.free_port()
    address = own_ipv4()
    config = janus_config.write(
        workdir / "janus", http_ip="127.0.0.1", http_port=port,
        rtp_ports=os.environ.get("TELESRV_TEST_SFU_RTP_PORTS", "22500-22999"), interface=address,
    )  # fmt: skip
    log = workdir / "janus.log"
    proc = subprocess.Popen(
        [binary, "-F", str(config), "-C", str(config / "janus.jcfg"), "-L", str(log), "-N"],
        stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}/janus"
    deadline = time.monotonic() + 30
    while True:
        try:
            with urllib.request.urlopen(f"{url}/info", timeout=2) as r:
                if json.load(r).get("janus") == "server_info":
                    return SfuNode(proc, url, log, address)
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise RuntimeError(
                f"Janus did not start: {log.read_text(errors='replace') if log.exists() else ''}"
            )
        time.sleep(0.2)
