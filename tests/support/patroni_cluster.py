"""A throw-away high-availability PostgreSQL cluster: one etcd and two PostgreSQL 15
nodes managed by Patroni (Debian's ``patroni``, ``etcd-server`` and ``python3-etcd``;
``make test`` installs them), each node with its own data directory, port and Patroni
REST port, as on two machines.

Synchronous mode is on (Patroni keeps ``synchronous_standby_names`` naming the standby,
``synchronous_commit = on``), the old primary rejoins with ``pg_rewind``
(``wal_log_hints``), and the timings are short: a leader lock that is not renewed
expires after ``TTL`` seconds, so a lost primary is replaced within about
``TTL + LOOP_WAIT`` seconds. docs/operations.md ("High availability with Patroni")
holds the production form of the same configuration.

Run by hand (``scripts/ha-cluster``) it stays up until Ctrl-C. As root, Patroni and
PostgreSQL run as the ``postgres`` user (initdb refuses root), else as the caller.

Everything listens on 127.0.0.1, unless the cluster is given ``machines``
(``tests.support.netns.Machines`` named ``pg1`` and ``pg2``): then each node runs in its
own network namespace on its own address and etcd on the bridge's, so that a test can cut
one node's network (tests/e2e/test_partitions.py).
"""

from __future__ import annotations

import contextlib
import json
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

from tests.support import pg_cluster

PATRONI = "/usr/bin/patroni"
ETCD = "/usr/bin/etcd"
# The leader lock's lifetime, Patroni's loop and its DCS/PostgreSQL retry deadline:
# Patroni needs loop_wait + 2 * retry_timeout <= ttl. Production keeps the defaults
# (30/10/10) or lowers them with a reliable network (docs/operations.md).
TTL, LOOP_WAIT, RETRY_TIMEOUT = 8, 1, 3
SCOPE = "telesrv"


def unavailable() -> str | None:
    """Why no Patroni cluster can be made here, or None."""
    reason = pg_cluster.unavailable()
    if reason:
        return reason
    for path, package in ((PATRONI, "patroni"), (ETCD, "etcd-server")):
        if not os.access(path, os.X_OK):
            return f"{path} is missing (Debian package {package})"
    probe = subprocess.run(["/usr/bin/python3", "-c", "import etcd, psycopg2"], capture_output=True)
    if probe.returncode:
        return "Patroni's etcd or psycopg2 module is missing (python3-etcd, python3-psycopg2)"
    return None


def http_json(url: str, timeout: float = 2.0) -> tuple[int, dict]:
    """GET ``url``: (status, JSON body); Patroni answers 503 with a body too."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as exc:
        body = exc.read()
        try:
            return exc.code, json.loads(body or b"{}")
        except ValueError:
            return exc.code, {}


def http_text(url: str, timeout: float = 2.0) -> str:
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return response.read().decode()


def _owned_dir(prefix: str) -> Path:
    """A directory for a node, owned by the user its processes run as."""
    path = Path(tempfile.mkdtemp(prefix=prefix))
    if os.geteuid() == 0:
        pw = pwd.getpwnam("postgres")
        os.chown(path, pw.pw_uid, pw.pw_gid)
    return path


class Etcd:
    """One etcd member (a production cluster has three; see docs/operations.md)."""

    def __init__(self, client_port: int, peer_port: int, host: str = "127.0.0.1") -> None:
        self.client_port, self.peer_port, self.host = client_port, peer_port, host
        self.dir = Path(tempfile.mkdtemp(prefix="telesrv-etcd-"))
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.client_port}"

    def start(self) -> None:
        peer = f"http://{self.host}:{self.peer_port}"
        with open(self.dir / "etcd.log", "ab") as log:
            self.proc = subprocess.Popen(
                [
                    ETCD, "--name", "etcd1", "--data-dir", str(self.dir / "data"),
                    "--listen-client-urls", self.url, "--advertise-client-urls", self.url,
                    "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
                    "--initial-cluster", f"etcd1={peer}", "--initial-cluster-state", "new",
                    "--unsafe-no-fsync",  # a throw-away cluster: its disk writes cost seconds here
                ],
                stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            )  # fmt: skip
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"etcd exited:\n{(self.dir / 'etcd.log').read_text()[-3000:]}")
            with contextlib.suppress(OSError, ValueError):
                if http_json(f"{self.url}/health")[1].get("health") == "true":
                    return
            time.sleep(0.2)
        raise RuntimeError("etcd did not become healthy")

    def destroy(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        shutil.rmtree(self.dir, ignore_errors=True)


class PatroniNode:
    """One "machine": a Patroni daemon and the PostgreSQL it runs."""

    def __init__(
        self, name: str, pg_port: int, rest_port: int, etcd: Etcd, host: str = "127.0.0.1", wrap=None
    ) -> None:
        """``wrap(cmd)``: the command that runs ``cmd`` on this node's machine (its network
        namespace), as root; None: here."""
        self.name, self.pg_port, self.rest_port, self.host = name, pg_port, rest_port, host
        self.wrap = wrap
        self.dir = _owned_dir(f"telesrv-patroni-{name}-")
        self.data = self.dir / "data"
        self.config = self.dir / "patroni.yml"
        self.log = self.dir / "patroni.log"
        self.proc: subprocess.Popen | None = None
        self.config.write_text(json.dumps(self._config(etcd), indent=1))  # JSON is YAML

    @property
    def rest(self) -> str:
        return f"http://{self.host}:{self.rest_port}"

    @property
    def address(self) -> str:
        return f"{self.host}:{self.pg_port}"

    def _config(self, etcd: Etcd) -> dict:
        bindir = str(pg_cluster._bindir())
        return {
            "scope": SCOPE,
            "name": self.name,
            "log": {"level": "INFO"},
            "restapi": {
                "listen": f"{self.host}:{self.rest_port}",
                "connect_address": f"{self.host}:{self.rest_port}",
            },
            "etcd3": {"hosts": f"{etcd.host}:{etcd.client_port}"},
            "bootstrap": {
                # Written to etcd by the first node: the cluster-wide settings.
                "dcs": {
                    "ttl": TTL,
                    "loop_wait": LOOP_WAIT,
                    "retry_timeout": RETRY_TIMEOUT,
                    "maximum_lag_on_failover": 1024 * 1024,
                    "synchronous_mode": True,
                    "postgresql": {
                        "use_pg_rewind": True,
                        "use_slots": True,
                        "parameters": {
                            "wal_level": "replica",
                            "hot_standby": "on",
                            "wal_log_hints": "on",
                            "synchronous_commit": "on",
                            "max_wal_senders": 5,
                            "max_replication_slots": 5,
                            "wal_keep_size": "128MB",
                            "max_connections": 100,
                        },
                    },
                },
                "initdb": [{"encoding": "UTF8"}, {"locale": "C.UTF-8"}, {"auth": "trust"}],
            },
            "postgresql": {
                "listen": self.address,
                "connect_address": self.address,
                "data_dir": str(self.data),
                "bin_dir": bindir,
                "pgpass": str(self.dir / "pgpass"),
                "authentication": {
                    "superuser": {"username": "postgres"},
                    "replication": {"username": "postgres"},
                    "rewind": {"username": "postgres"},
                },
                "pg_hba": [
                    "local all all trust",
                    "host all all 127.0.0.1/32 trust",
                    "host replication all 127.0.0.1/32 trust",
                    # The other machines' subnet (network namespaces on one bridge).
                    "host all all samenet trust",
                    "host replication all samenet trust",
                ],
                "parameters": {
                    "unix_socket_directories": str(self.dir),
                    # A throw-away cluster on a shared test machine: a SIGKILL loses no
                    # page cache, so what the kernel holds survives; an acknowledged
                    # commit is still on both nodes (synchronous replication).
                    "fsync": "off",
                },
            },
            "watchdog": {"mode": "off"},
            "tags": {"nofailover": False, "noloadbalance": False, "clonefrom": False, "nosync": False},
        }

    def start(self) -> None:
        env = {"PATH": "/usr/bin:/bin", "HOME": str(self.dir), "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}
        as_user = {}
        cmd = [PATRONI, str(self.config)]
        if self.wrap is not None:
            # Entering the namespace needs root: the switch to postgres comes after it.
            cmd = self.wrap(["setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", *cmd])
            env["PATH"] = "/usr/sbin:/usr/bin:/sbin:/bin"
        elif os.geteuid() == 0:
            pw = pwd.getpwnam("postgres")
            as_user = {"user": pw.pw_uid, "group": pw.pw_gid, "extra_groups": []}
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(
                cmd, env=env, cwd=self.dir, stdout=log, stderr=subprocess.STDOUT,
                start_new_session=True, **as_user,
            )  # fmt: skip

    def state(self) -> dict:
        """Patroni's view of this node (GET /patroni): role, state, timeline..."""
        return http_json(f"{self.rest}/patroni")[1]

    def is_primary(self) -> bool:
        with contextlib.suppress(OSError):
            return http_json(f"{self.rest}/primary")[0] == 200
        return False

    def postmaster_pid(self) -> int | None:
        with contextlib.suppress(OSError, ValueError, IndexError):
            return int((self.data / "postmaster.pid").read_text().split()[0])
        return None

    def lose_machine(self) -> None:
        """The node's machine is gone: SIGKILL to Patroni (so nothing restarts the server
        or releases the leader lock) and to the postmaster with every backend (the
        postmaster runs in a session of its own, set up by Patroni: one process group
        with its backends)."""
        postmaster = self.postmaster_pid()
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        if postmaster is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(os.getpgid(postmaster), signal.SIGKILL)

    def stop(self) -> None:
        """A clean stop: Patroni shuts PostgreSQL down and releases its lock."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.lose_machine()

    def destroy(self) -> None:
        self.lose_machine()
        shutil.rmtree(self.dir, ignore_errors=True)

    def log_tail(self, chars: int = 4000) -> str:
        with contextlib.suppress(OSError):
            return self.log.read_text(errors="replace")[-chars:]
        return ""


class HaCluster:
    """etcd plus two Patroni nodes; :meth:`start` returns once the first node is the
    primary and the second one its synchronous standby."""

    def __init__(self, ports: list[int], machines=None) -> None:
        """``ports``: six free TCP ports (etcd client and peer, then each node's
        PostgreSQL and REST ports); ``machines``: a ``tests.support.netns.Machines``
        with ``pg1`` and ``pg2``, or None (everything on 127.0.0.1)."""
        if machines is None:
            self.etcd = Etcd(ports[0], ports[1])
            self.nodes = [
                PatroniNode("pg1", ports[2], ports[3], self.etcd),
                PatroniNode("pg2", ports[4], ports[5], self.etcd),
            ]
            return
        self.etcd = Etcd(ports[0], ports[1], machines.gateway)
        self.nodes = [
            PatroniNode(
                name, ports[2 + 2 * i], ports[3 + 2 * i], self.etcd, machines.address(name),
                lambda cmd, name=name: machines.wrap(name, cmd),
            )
            for i, name in enumerate(("pg1", "pg2"))
        ]  # fmt: skip

    @property
    def hosts(self) -> str:
        """The value of TELESRV_DB_HOSTS."""
        return ",".join(n.address for n in self.nodes)

    def start(self, timeout: float = 180) -> None:
        self.etcd.start()
        first, second = self.nodes
        first.start()
        self.wait(lambda: first.is_primary(), timeout, f"{first.name} to bootstrap as the primary", first)
        second.start()
        self.wait_synchronous(second, timeout)

    def members(self) -> list[dict]:
        """Patroni's GET /cluster from any node that answers: name, role ("leader",
        "sync_standby", "replica"), state, timeline, lag."""
        for node in self.nodes:
            with contextlib.suppress(OSError):
                status, body = http_json(f"{node.rest}/cluster")
                if status == 200:
                    return body.get("members", [])
        return []

    def role_of(self, node: PatroniNode) -> str | None:
        for m in self.members():
            if m.get("name") == node.name:
                return m.get("role")
        return None

    def wait_synchronous(self, node: PatroniNode, timeout: float = 120) -> None:
        """Until ``node`` streams from the primary as its synchronous standby."""
        self.wait(
            lambda: self.role_of(node) == "sync_standby", timeout, f"{node.name} to be the sync standby", node
        )

    def primary(self) -> PatroniNode | None:
        for node in self.nodes:
            if node.is_primary():
                return node
        return None

    def wait(self, predicate, timeout: float, what: str, node: PatroniNode | None = None):
        deadline = time.monotonic() + timeout
        while True:
            value = predicate()
            if value:
                return value
            if time.monotonic() > deadline:
                tail = f"\n{node.name}'s Patroni log:\n{node.log_tail()}" if node else ""
                raise AssertionError(f"timed out after {timeout:g} s waiting for {what}{tail}")
            time.sleep(0.25)

    def destroy(self) -> None:
        for node in self.nodes:
            node.destroy()
        self.etcd.destroy()


def main() -> None:
    """``scripts/ha-cluster [FIRST_PORT]``: a cluster on six ports from FIRST_PORT
    (etcd client, etcd peer, pg1, pg1 REST, pg2, pg2 REST) until Ctrl-C."""
    import sys

    reason = unavailable()
    if reason:
        raise SystemExit(reason)
    first = int(sys.argv[1]) if len(sys.argv) > 1 else 15432
    cluster = HaCluster([first + i for i in range(6)])
    try:
        cluster.start()
        print(f"TELESRV_DB_HOSTS={cluster.hosts}")
        for node in cluster.nodes:
            print(
                f"{node.name}: PostgreSQL {node.address}, Patroni {node.rest} (/cluster, /metrics), log {node.log}"
            )
        print("Ctrl-C stops and removes the cluster", flush=True)
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
        with contextlib.suppress(KeyboardInterrupt):
            while True:
                time.sleep(3600)
    finally:
        cluster.destroy()


if __name__ == "__main__":
    main()
