"""One Janus SFU node for the e2e test session (calls_app/sfu/janus/, ``make sfu``).

Its HTTP API binds a free port on 127.0.0.1. Its media use an address on an interface
the session makes (``tsfu0``, one end of a veth pair left in this namespace, 10.153.0.1/32;
this kernel may lack the dummy driver): Janus never gathers ICE
candidates on loopback (ice.c skips IFF_LOOPBACK interfaces) and neither do Telegram's
call stacks (WebRTC's network manager ignores loopback adapters), so 127.0.0.1 cannot
carry group-call media; an address of the session's own, routed nowhere, keeps them off
the machine's real network. The RTP ports come from TELESRV_TEST_SFU_RTP_PORTS."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
import urllib.request
from pathlib import Path

from tests.e2e import harness

MEDIA_LINK, MEDIA_ADDRESS = "tsfu0", "10.153.0.1"


def make_media_address() -> bool:
    """The interface carrying the session's media; True when this call made it."""
    if subprocess.run(["ip", "link", "show", MEDIA_LINK], capture_output=True).returncode == 0:
        return False
    for cmd in (
        ["ip", "link", "add", MEDIA_LINK, "type", "veth", "peer", "name", f"{MEDIA_LINK}p"],
        ["ip", "addr", "add", f"{MEDIA_ADDRESS}/32", "dev", MEDIA_LINK],
        ["ip", "link", "set", MEDIA_LINK, "up"],
        ["ip", "link", "set", f"{MEDIA_LINK}p", "up"],
    ):
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)}: {done.stderr.strip()} (needs root)")
    return True


def remove_media_address() -> None:
    subprocess.run(["ip", "link", "del", MEDIA_LINK], capture_output=True)


class SfuNode:
    def __init__(self, proc: subprocess.Popen, url: str, log: Path, address: str, made_link: bool):
        self.proc, self.url, self.log_path, self.address = proc, url, log, address
        self.made_link = made_link

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
        if self.made_link:
            remove_media_address()


def start(workdir: Path) -> SfuNode | None:
    """Janus on a free port, or None when Janus is not installed (make sfu)."""
    binary = shutil.which("janus") or "/usr/bin/janus"
    if not os.path.exists(binary):
        return None
    from calls_app.sfu import janus_config

    port = harness.free_port()
    made_link = make_media_address()
    address = MEDIA_ADDRESS
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
                    return SfuNode(proc, url, log, address, made_link)
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            if made_link:
                remove_media_address()
            raise RuntimeError(
                f"Janus did not start: {log.read_text(errors='replace') if log.exists() else ''}"
            )
        time.sleep(0.2)
