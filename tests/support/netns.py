"""Machines for partition tests: one Linux network namespace per "machine", joined by a
bridge in the root namespace, and a partition that drops every packet of one machine in
both directions (nftables, else iptables, inside its namespace), so its peers see no
FIN and no reset: the machine has vanished, as a host whose network died.

Names start with ``TELESRV_PARTITION_PREFIX`` (``tsp``): the bridge ``<prefix>-br``,
machine ``name``'s namespace ``<prefix>-<name>``. Addresses come from
``TELESRV_PARTITION_SUBNET`` (``10.150``): the bridge is ``<subnet>.0.1``, machine i
``<subnet>.0.<11 + i>``. Needs root and ``ip``; :func:`unavailable` says why not.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess

PREFIX = os.environ.get("TELESRV_PARTITION_PREFIX", "tsp")
SUBNET = os.environ.get("TELESRV_PARTITION_SUBNET", "10.150")
TABLE = "telesrv_partition"


def _run(*cmd: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, check=check, timeout=30)


def firewall() -> str | None:
    """``nft`` or ``iptables``, whichever is installed (nftables preferred)."""
    for tool in ("nft", "iptables"):
        if shutil.which(tool):
            return tool
    return None


def unavailable() -> str | None:
    if os.geteuid() != 0:
        return "network namespaces need root"
    if shutil.which("ip") is None:
        return "ip is missing (Debian package iproute2)"
    if firewall() is None:
        return "neither nft nor iptables is installed (Debian package nftables: `make testbed`)"
    probe = f"{PREFIX}-probe{os.getpid() % 10000}"
    if _run("ip", "netns", "add", probe, check=False).returncode != 0:
        return "this machine refuses to make network namespaces"
    _run("ip", "netns", "del", probe, check=False)
    return None


class Machines:
    """``with Machines(["pg1", "pg2"]) as m:`` makes the namespaces; ``m.address("pg1")``,
    ``m.wrap("pg1", cmd)``, ``m.partition("pg1")`` / ``m.heal("pg1")``."""

    def __init__(self, names: list[str]) -> None:
        self.names = list(names)
        self.bridge = f"{PREFIX}-br"
        self.gateway = f"{SUBNET}.0.1"
        self.cut: set[str] = set()

    def netns(self, name: str) -> str:
        return f"{PREFIX}-{name}"

    def address(self, name: str) -> str:
        return f"{SUBNET}.0.{11 + self.names.index(name)}"

    def wrap(self, name: str, cmd: list[str]) -> list[str]:
        return ["ip", "netns", "exec", self.netns(name), *cmd]

    def __enter__(self) -> Machines:
        try:
            self.up()
        except BaseException:
            self.down()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.down()

    def up(self) -> None:
        self.down()  # what a killed run left
        _run("ip", "link", "add", self.bridge, "type", "bridge")
        _run("ip", "addr", "add", f"{self.gateway}/24", "dev", self.bridge)
        _run("ip", "link", "set", self.bridge, "up")
        for name in self.names:
            ns = self.netns(name)
            host, peer = f"{ns}h", f"{ns}n"
            _run("ip", "netns", "add", ns)
            _run("ip", "link", "add", host, "type", "veth", "peer", "name", peer)
            _run("ip", "link", "set", host, "master", self.bridge)
            _run("ip", "link", "set", host, "up")
            _run("ip", "link", "set", peer, "netns", ns)
            _run("ip", "-n", ns, "link", "set", "lo", "up")
            _run("ip", "-n", ns, "addr", "add", f"{self.address(name)}/24", "dev", peer)
            _run("ip", "-n", ns, "link", "set", peer, "up")
            _run("ip", "-n", ns, "route", "add", "default", "via", self.gateway)

    def down(self) -> None:
        for name in self.names:
            # The pair goes with its namespace, but the kernel frees a namespace later:
            # a bed made right after would find the names taken.
            _run("ip", "link", "del", f"{self.netns(name)}h", check=False)
        for line in _run("ip", "netns", "list", check=False).stdout.splitlines():
            found = line.split()[0] if line.split() else ""
            if found in {self.netns(n) for n in self.names} or re.fullmatch(
                rf"{re.escape(PREFIX)}-probe\d+", found
            ):
                _run("ip", "netns", "del", found, check=False)  # takes its veth pair along
        _run("ip", "link", "del", self.bridge, check=False)

    def partition(self, name: str) -> None:
        """Every packet into or out of ``name`` dropped from now on (loopback inside the
        machine still works, as on a host whose network died)."""
        ns, tool = self.netns(name), firewall()
        if tool == "nft":
            rules = (
                f"table inet {TABLE} {{\n"
                "  chain in { type filter hook input priority -300; policy accept; iif != lo drop; }\n"
                "  chain out { type filter hook output priority -300; policy accept; oif != lo drop; }\n"
                "}\n"
            )
            subprocess.run(
                ["ip", "netns", "exec", ns, "nft", "-f", "-"], input=rules, text=True, check=True, timeout=30
            )
        else:
            for chain, side in (("INPUT", "-i"), ("OUTPUT", "-o")):
                _run("ip", "netns", "exec", ns, "iptables", "-I", chain, "!", side, "lo", "-j", "DROP")
        self.cut.add(name)

    def heal(self, name: str) -> None:
        ns, tool = self.netns(name), firewall()
        if tool == "nft":
            _run("ip", "netns", "exec", ns, "nft", "delete", "table", "inet", TABLE, check=False)
        else:
            for chain, side in (("INPUT", "-i"), ("OUTPUT", "-o")):
                _run(
                    "ip",
                    "netns",
                    "exec",
                    ns,
                    "iptables",
                    "-D",
                    chain,
                    "!",
                    side,
                    "lo",
                    "-j",
                    "DROP",
                    check=False,
                )
        self.cut.discard(name)
