"""A throw-away Redis Cluster for tests: 3 masters and 3 replicas of Debian's
redis-server on 127.0.0.1, each with its own data directory, joined with
``redis-cli --cluster create --cluster-replicas 1``. A short ``cluster-node-timeout``
lets a test kill a master (SIGKILL) and see its replica promoted within seconds.

:func:`unavailable` names what is missing when the binaries are absent. Given
``machines`` (``tests.support.netns.Machines`` named ``r1`` .. ``r6``), each node runs
in its own network namespace on its own address, so that a test can cut one node's
network instead of killing it (tests/e2e/test_partitions.py).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

NODE_TIMEOUT_MS = 1000


def unavailable() -> str | None:
    for tool in ("redis-server", "redis-cli"):
        if not shutil.which(tool):
            return f"{tool} is not installed (Debian package redis-server)"
    return None


def _port_free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    # The cluster bus listens on port + 10000.
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port + 10000))
        except OSError:
            return False
    return True


def free_ports(count: int, start: int | None = None) -> list[int]:
    """``count`` consecutive ports (and their bus ports, +10000) free now, from
    ``TELESRV_TEST_REDIS_CLUSTER_PORT`` (7100) on."""
    start = start or int(os.environ.get("TELESRV_TEST_REDIS_CLUSTER_PORT", "7100"))
    for base in range(start, start + 800, count):
        ports = list(range(base, base + count))
        if all(_port_free(p) for p in ports):
            return ports
    raise RuntimeError("no free ports for a Redis Cluster")


class RedisCluster:
    def __init__(self, ports: list[int] | None = None, replicas: int = 1, machines=None) -> None:
        self.ports = ports or free_ports(6)
        self.replicas = replicas
        self.dir = Path(tempfile.mkdtemp(prefix="telesrv-redis-cluster-"))
        self.procs: dict[int, subprocess.Popen] = {}
        self.machines = machines
        # Node (by port) -> its machine's name and address.
        self.machine = {p: f"r{i + 1}" for i, p in enumerate(self.ports)}
        self.host = {p: machines.address(self.machine[p]) if machines else "127.0.0.1" for p in self.ports}

    @property
    def url(self) -> str:
        """The ``TELESRV_REDIS_URL`` that selects this cluster (all nodes as seeds)."""
        return "redis+cluster://" + ",".join(f"{self.host[p]}:{p}" for p in self.ports) + "/"

    def cli(self, port: int, *args: str, check: bool = True) -> str:
        out = subprocess.run(
            ["redis-cli", "-h", self.host[port], "-p", str(port), *args],
            capture_output=True,
            text=True,
            timeout=30,
            check=check,
        )
        return out.stdout

    def _start_node(self, port: int) -> None:
        data = self.dir / str(port)
        data.mkdir(exist_ok=True)
        cmd = [
            "redis-server",
            "--port", str(port),
            "--bind", self.host[port],
            "--dir", str(data),
            "--cluster-enabled", "yes",
            "--cluster-config-file", "nodes.conf",
            "--cluster-node-timeout", str(NODE_TIMEOUT_MS),
            "--appendonly", "no",
            "--repl-diskless-sync-delay", "0",
            "--save", "",
            "--protected-mode", "no",
            "--logfile", str(data / "redis.log"),
        ]  # fmt: skip
        if self.machines is not None:
            cmd = self.machines.wrap(self.machine[port], cmd)
        self.procs[port] = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def start(self) -> RedisCluster:
        for port in self.ports:
            self._start_node(port)
        for port in self.ports:
            self._wait_ping(port)
        subprocess.run(
            [
                "redis-cli", "--cluster", "create",
                *(f"{self.host[p]}:{p}" for p in self.ports),
                "--cluster-replicas", str(self.replicas), "--cluster-yes",
            ],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )  # fmt: skip
        self.wait_ok()
        return self

    def _wait_ping(self, port: int, timeout: float = 20) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.cli(port, "ping", check=False).strip() == "PONG":
                return
            time.sleep(0.05)
        raise RuntimeError(f"redis-server on {port} did not start; see {self.dir / str(port) / 'redis.log'}")

    def alive_ports(self) -> list[int]:
        """Nodes that run and can be reached (not behind a partition)."""
        return [p for p, proc in self.procs.items() if proc.poll() is None and p not in self.cut]

    cut: frozenset[int] = frozenset()

    def partition(self, port: int) -> None:
        """The node's machine drops every packet (no FIN, no reset); it keeps running."""
        self.machines.partition(self.machine[port])
        self.cut = self.cut | {port}

    def heal(self, port: int) -> None:
        self.machines.heal(self.machine[port])
        self.cut = self.cut - {port}

    def wait_ok(self, timeout: float = 30) -> None:
        """Every live node says the cluster is ok (all slots served) and agrees on the
        masters."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            states = [self.cli(p, "cluster", "info", check=False) for p in self.alive_ports()]
            if states and all("cluster_state:ok" in s for s in states):
                views = {tuple(sorted(self.masters(p))) for p in self.alive_ports()}
                if len(views) == 1 and self._replicas_synced():
                    return
            time.sleep(0.1)
        raise RuntimeError("the Redis Cluster did not become ok")

    def _replicas_synced(self) -> bool:
        """A replica that never finished its first sync cannot take over."""
        for port in self.alive_ports():
            info = self.cli(port, "info", "replication", check=False)
            if "role:slave" in info and "master_link_status:up" not in info:
                return False
        return True

    def masters(self, via: int | None = None) -> list[int]:
        """Ports of the masters that serve slots, as node ``via`` sees them."""
        via = via or self.alive_ports()[0]
        out = []
        for line in self.cli(via, "cluster", "nodes").splitlines():
            fields = line.split()
            if "master" in fields[2] and "fail" not in fields[2] and len(fields) > 8:
                out.append(int(fields[1].split("@")[0].rsplit(":", 1)[1]))
        return sorted(out)

    def master_of_key(self, key: str) -> int:
        slot = int(self.cli(self.alive_ports()[0], "cluster", "keyslot", key).strip())
        via = self.alive_ports()[0]
        for line in self.cli(via, "cluster", "nodes").splitlines():
            fields = line.split()
            if "master" not in fields[2] or "fail" in fields[2]:
                continue
            for spec in fields[8:]:
                if spec.startswith("["):
                    continue
                lo, _, hi = spec.partition("-")
                if int(lo) <= slot <= int(hi or lo):
                    return int(fields[1].split("@")[0].rsplit(":", 1)[1])
        raise RuntimeError(f"no master serves slot {slot}")

    def replica_of(self, master: int) -> int:
        """Port of the replica that follows ``master``."""
        nodes = [line.split() for line in self.cli(self.alive_ports()[0], "cluster", "nodes").splitlines()]
        ids = {f[0]: int(f[1].split("@")[0].rsplit(":", 1)[1]) for f in nodes}
        for f in nodes:
            if "slave" in f[2] and ids.get(f[3]) == master:
                return ids[f[0]]
        raise RuntimeError(f"{master} has no replica")

    def kill(self, port: int) -> None:
        """The machine is gone: SIGKILL, no shutdown."""
        proc = self.procs[port]
        with contextlib.suppress(ProcessLookupError):
            os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)

    def wait_promoted(self, dead: int, timeout: float = 30) -> int:
        """Waits until a replica took over the slots of the killed master ``dead``;
        returns the new master's port."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            masters = [m for m in self.masters() if m != dead]
            if len(masters) == 3:
                with contextlib.suppress(RuntimeError):
                    self.wait_ok(timeout=max(1.0, deadline - time.monotonic()))
                    return next(m for m in masters if m not in self._first_masters)
            time.sleep(0.1)
        raise RuntimeError(f"no replica took over from {dead}")

    def remember_masters(self) -> list[int]:
        self._first_masters = self.masters()
        return self._first_masters

    def stop(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.terminate()
        for proc in self.procs.values():
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
        shutil.rmtree(self.dir, ignore_errors=True)


# --- pytest fixtures (import them into a test module) ----------------------------------
import pytest  # noqa: E402


def _started() -> RedisCluster:
    why = unavailable()
    if why:
        pytest.skip(why)
    return RedisCluster().start()


@pytest.fixture(scope="module")
def redis_cluster():
    """A 3-master, 3-replica cluster shared by a module's tests (none kills a node)."""
    cluster = _started()
    yield cluster
    cluster.stop()


@pytest.fixture
def fresh_redis_cluster():
    """A cluster of the test's own: it may kill nodes."""
    cluster = _started()
    yield cluster
    cluster.stop()


def use_cluster(settings, cluster: RedisCluster) -> None:
    """Points this process's Redis users at ``cluster`` (``settings`` is pytest-django's
    fixture, restored after the test)."""
    from edge_app import redis_conn

    redis_conn.reset()
    settings.REDIS_URL = cluster.url
