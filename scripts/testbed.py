#!/usr/bin/env python3
"""A multi-machine telesrv deployment on one machine (docs/scaling.md, "The test bed").

Started, in this order, and torn down in reverse:

- a network: one Linux network namespace per listener (``ip netns`` + a veth pair each,
  joined by a bridge in the root namespace), so each listener has an address and a
  network stack of its own as on its own machine; where namespaces cannot be made (not
  root, no ``ip``, a container without the capability) each listener gets its own
  loopback address (127.x.y.z) instead;
- Redis: a Redis Cluster of 3 masters with 1 replica each (Debian's ``redis-server`` in
  cluster mode, created by ``redis-cli --cluster create``), or one plain Redis
  (``--redis single``);
- PostgreSQL: the local server, a database of the bed's own (reached through its Unix
  socket, which every namespace shares);
- listeners: ``manage.py runmtproto``, one per namespace, trusting the balancer's
  address for PROXY headers;
- HAProxy: round robin over the listeners with ``send-proxy-v2``, checking each
  listener's ``/readyz``.

    sudo .venv/bin/python scripts/testbed.py up        # start, print the addresses, wait
    sudo .venv/bin/python scripts/testbed.py down      # remove what a killed run left

``up`` runs until interrupted (Ctrl-C), then tears everything down. The end-to-end test
``tests/e2e/test_testbed.py`` uses :class:`Testbed` directly. Names, addresses and
ports come from ``TELESRV_TESTBED_*`` variables (see :class:`Layout`) so that several
beds can share a machine.

Only the standard library is imported here: the listeners are child processes.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PG_SOCKET_DIR = "/var/run/postgresql"


def _env(name: str, default: str) -> str:
    return os.environ.get(f"TELESRV_TESTBED_{name}", default)


@dataclass(frozen=True)
class Layout:
    """Names and numbers of one bed.

    ``PREFIX``: namespace and interface names (``<prefix>-l1``, ``<prefix>-br``; at most
    6 characters, interface names are limited to 15). ``SUBNET``: the first two octets of
    the namespaces' /24 (``<subnet>.0.0/24``: the bridge is .1, listener i is .1i).
    ``LOOPBACK``: the first three octets of the loopback addresses (the balancer and Redis
    on .1, listener i on .1i; also the clients' addresses in the test). ``PORT``: the
    balancer's port; the listeners use PORT+1 (and PORT+101 for health and metrics).
    ``REDIS_PORT``: the first Redis node's port (cluster bus ports are 50 above).
    ``NETNS=0`` (read by :class:`Testbed`): loopback addresses even where namespaces work.
    """

    prefix: str = field(default_factory=lambda: _env("PREFIX", "tb5"))
    subnet: str = field(default_factory=lambda: _env("SUBNET", "10.55"))
    loopback: str = field(default_factory=lambda: _env("LOOPBACK", "127.0.5"))
    port: int = field(default_factory=lambda: int(_env("PORT", "15000")))
    redis_port: int = field(default_factory=lambda: int(_env("REDIS_PORT", "7200")))

    @property
    def bridge(self) -> str:
        return f"{self.prefix}-br"

    @property
    def gateway(self) -> str:
        return f"{self.subnet}.0.1"

    @property
    def front(self) -> str:
        """The balancer's address (clients connect here)."""
        return f"{self.loopback}.1"

    def netns(self, i: int) -> str:
        return f"{self.prefix}-l{i + 1}"

    def netns_address(self, i: int) -> str:
        return f"{self.subnet}.0.{11 + i}"

    def loopback_address(self, i: int) -> str:
        return f"{self.loopback}.{11 + i}"


def run(*cmd: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, check=check)


def namespaces_available() -> bool:
    """Whether this process may create network namespaces (tried, not guessed)."""
    if os.geteuid() != 0 or shutil.which("ip") is None:
        return False
    probe = f"tbprobe{os.getpid()}"
    made = run("ip", "netns", "add", probe, check=False)
    if made.returncode != 0:
        return False
    run("ip", "netns", "del", probe, check=False)
    return True


def wait_for_port(host: str, port: int, proc: subprocess.Popen | None = None, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"{proc.args!r} exited with {proc.returncode}")
        with contextlib.suppress(OSError), socket.create_connection((host, port), timeout=0.5):
            return
        time.sleep(0.1)
    raise TimeoutError(f"nothing listens on {host}:{port}")


def require_free(host: str, port: int) -> None:
    """A process left by a killed run would answer in place of the one about to start."""
    with contextlib.suppress(OSError), socket.create_connection((host, port), timeout=0.5):
        raise RuntimeError(
            f"{host}:{port} is taken (a bed left running? `testbed.py down`, then stop what listens there)"
        )


def stop_process(proc: subprocess.Popen | None, sig: int = signal.SIGTERM, timeout: float = 10) -> None:
    if proc is None or proc.poll() is not None:
        return
    proc.send_signal(sig)
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def raise_fd_limit(want: int = 131072) -> None:
    """Room for HAProxy's two descriptors per connection and for the listeners' sessions
    (children inherit the limit); as far as this process may raise it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, want), max(hard, want)))
        return
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


class Network:
    """Where each listener lives: its namespace (or none) and its address."""

    def __init__(self, layout: Layout, listeners: int, use_netns: bool) -> None:
        self.layout = layout
        self.count = listeners
        self.use_netns = use_netns

    @property
    def redis_host(self) -> str:
        # The bridge's address is in the root namespace, so Redis bound there is reachable
        # from every listener's namespace and from the root one.
        return self.layout.gateway if self.use_netns else self.layout.front

    @property
    def balancer_source(self) -> str:
        """The address HAProxy's connections to the listeners come from: the only one the
        listeners trust for PROXY headers."""
        return self.layout.gateway if self.use_netns else self.layout.front

    def address(self, i: int) -> str:
        return self.layout.netns_address(i) if self.use_netns else self.layout.loopback_address(i)

    def wrap(self, i: int, cmd: list[str]) -> list[str]:
        """``cmd`` run inside listener i's namespace."""
        return ["ip", "netns", "exec", self.layout.netns(i), *cmd] if self.use_netns else cmd

    def up(self) -> None:
        if not self.use_netns:
            return
        self.down()  # leftovers of a killed run
        lay = self.layout
        run("ip", "link", "add", lay.bridge, "type", "bridge")
        run("ip", "addr", "add", f"{lay.gateway}/24", "dev", lay.bridge)
        run("ip", "link", "set", lay.bridge, "up")
        for i in range(self.count):
            ns, host, peer = lay.netns(i), f"{lay.netns(i)}h", f"{lay.netns(i)}n"
            run("ip", "netns", "add", ns)
            run("ip", "link", "add", host, "type", "veth", "peer", "name", peer)
            run("ip", "link", "set", host, "master", lay.bridge)
            run("ip", "link", "set", host, "up")
            run("ip", "link", "set", peer, "netns", ns)
            run("ip", "-n", ns, "link", "set", "lo", "up")
            run("ip", "-n", ns, "addr", "add", f"{self.address(i)}/24", "dev", peer)
            run("ip", "-n", ns, "link", "set", peer, "up")
            run("ip", "-n", ns, "route", "add", "default", "via", lay.gateway)

    def down(self) -> None:
        if not self.use_netns:
            return
        lay = self.layout
        for line in run("ip", "netns", "list", check=False).stdout.splitlines():
            name = line.split()[0] if line.split() else ""
            if re.fullmatch(rf"{re.escape(lay.prefix)}-l\d+", name):
                run("ip", "netns", "del", name, check=False)  # takes its veth pair with it
        run("ip", "link", "del", lay.bridge, check=False)


def redis_cli(host: str, port: int, *args: str, timeout: float = 10) -> str:
    done = subprocess.run(
        ["redis-cli", "-h", host, "-p", str(port), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    return done.stdout.strip()


@dataclass
class RedisNode:
    host: str
    port: int
    proc: subprocess.Popen

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def cli(self, *args: str) -> str:
        return redis_cli(self.host, self.port, *args)


class Redis:
    """One plain Redis, or a cluster of ``masters`` masters with one replica each."""

    def __init__(self, host: str, first_port: int, workdir: Path, cluster: bool, masters: int = 3) -> None:
        self.host = host
        self.first_port = first_port
        self.workdir = workdir
        self.cluster = cluster
        self.masters = masters
        self.nodes: list[RedisNode] = []

    @property
    def url(self) -> str:
        """``TELESRV_REDIS_URL`` for the listeners."""
        if not self.cluster:
            return f"redis://{self.host}:{self.first_port}/0"
        seeds = ",".join(f"{n.host}:{n.port}" for n in self.nodes[: self.masters])
        return f"redis+cluster://{seeds}/"

    def _start_node(self, port: int) -> RedisNode:
        data = self.workdir / f"redis-{port}"
        data.mkdir(parents=True, exist_ok=True)
        conf = [
            f"port {port}",
            f"bind {self.host}",
            "protected-mode no",
            f"dir {data}",
            'save ""',
            "appendonly no",
            f"logfile {data / 'redis.log'}",
        ]
        if self.cluster:
            conf += [
                "cluster-enabled yes",
                # Outgoing bus connections would come from 127.0.0.1 (or the namespace
                # side of the bridge) and the peer would note that address for the node.
                f"bind-source-addr {self.host}",
                f"cluster-announce-ip {self.host}",
                f"cluster-port {port + 50}",
                f"cluster-config-file {data / 'nodes.conf'}",
                # A master is failed over this long after it stops answering.
                "cluster-node-timeout 1500",
                # A replica always stands in, however long it was cut off.
                "cluster-replica-validity-factor 0",
                # Slots of the other masters stay served while one master is down.
                "cluster-require-full-coverage no",
            ]
        (data / "redis.conf").write_text("\n".join(conf) + "\n")
        require_free(self.host, port)
        proc = subprocess.Popen(
            ["redis-server", str(data / "redis.conf")], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT
        )
        node = RedisNode(self.host, port, proc)
        wait_for_port(self.host, port, proc, timeout=20)
        return node

    def up(self) -> None:
        count = self.masters * 2 if self.cluster else 1
        for i in range(count):
            self.nodes.append(self._start_node(self.first_port + i))
        if not self.cluster:
            return
        self.join()
        self.wait_healthy(timeout=30)

    def join(self, timeout: float = 30) -> None:
        """What ``redis-cli --cluster create --cluster-replicas 1`` does, done by hand
        because its MEET assumes the default bus port (port + 10000), outside the bed's
        port range: every node meets the first, the first ``masters`` nodes share the
        16384 slots, each of the others replicates one of them."""
        first = self.nodes[0]
        for node in self.nodes[1:]:
            first.cli("cluster", "meet", node.host, str(node.port), str(node.port + 50))
        deadline = time.monotonic() + timeout
        while any(len(n.cli("cluster", "nodes").splitlines()) < len(self.nodes) for n in self.nodes):
            if time.monotonic() > deadline:
                raise TimeoutError("the Redis nodes did not all meet")
            time.sleep(0.1)
        span = 16384 // self.masters
        for i, node in enumerate(self.nodes[: self.masters]):
            hi = 16383 if i == self.masters - 1 else (i + 1) * span - 1
            node.cli("cluster", "addslotsrange", str(i * span), str(hi))
        for i, node in enumerate(self.nodes[self.masters :]):
            master_id = self.nodes[i].cli("cluster", "myid")
            while "OK" not in node.cli("cluster", "replicate", master_id):
                if time.monotonic() > deadline:
                    raise TimeoutError(f"Redis {node.port} cannot replicate {self.nodes[i].port}")
                time.sleep(0.1)  # it has not heard of that master's id yet

    def down(self) -> None:
        for node in self.nodes:
            stop_process(node.proc)
        self.nodes.clear()

    def cluster_nodes(self) -> list[dict]:
        """``CLUSTER NODES`` as seen by a live node: id, address, flags, master id, slots."""
        for node in self.nodes:
            if not node.alive:
                continue
            text = node.cli("cluster", "nodes")
            if not text:
                continue
            out = []
            for line in text.splitlines():
                parts = line.split()
                addr = parts[1].split("@")[0]
                out.append(
                    {
                        "id": parts[0],
                        "port": int(addr.rsplit(":", 1)[1]),
                        "flags": set(parts[2].split(",")),
                        "master": parts[3],
                        "slots": parts[8:],
                    }
                )
            return out
        raise RuntimeError("no Redis node answers")

    def wait_healthy(self, timeout: float = 30) -> None:
        """Until every live node reports cluster_state:ok and every slot has a live master."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            states = [n.cli("cluster", "info") for n in self.nodes if n.alive]
            if states and all("cluster_state:ok" in s for s in states):
                masters = [
                    n for n in self.cluster_nodes() if "master" in n["flags"] and "fail" not in n["flags"]
                ]
                if sum(len(n["slots"]) for n in masters) >= self.masters:
                    return
            time.sleep(0.2)
        raise TimeoutError("the Redis Cluster did not become healthy")

    def master_of(self, key: str) -> RedisNode:
        """The node serving ``key``'s slot now."""
        live = next(n for n in self.nodes if n.alive)
        slot = int(live.cli("cluster", "keyslot", key))
        for entry in self.cluster_nodes():
            if "master" not in entry["flags"] or "fail" in entry["flags"]:
                continue
            for span in entry["slots"]:
                if span.startswith("["):
                    continue  # a slot being migrated
                lo, _, hi = span.partition("-")
                if int(lo) <= slot <= int(hi or lo):
                    return next(n for n in self.nodes if n.port == entry["port"])
        raise RuntimeError(f"no master serves slot {slot}")

    def kill_master_of(self, key: str, timeout: float = 30) -> tuple[RedisNode, RedisNode, float]:
        """SIGKILL the master serving ``key`` and wait until its replica has taken over:
        (killed, promoted, seconds from the kill to the promotion)."""
        victim = self.master_of(key)
        victim.proc.kill()
        victim.proc.wait()
        start = time.monotonic()
        deadline = start + timeout
        while time.monotonic() < deadline:
            with contextlib.suppress(RuntimeError, StopIteration, ValueError):
                promoted = self.master_of(key)
                if promoted is not victim and "cluster_state:ok" in promoted.cli("cluster", "info"):
                    return victim, promoted, time.monotonic() - start
            time.sleep(0.1)
        raise TimeoutError(f"no replica took over from Redis {victim.port}")


@dataclass
class Listener:
    index: int
    address: str
    port: int
    health_port: int
    proc: subprocess.Popen
    log_path: Path

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    @property
    def metrics_url(self) -> str:
        return f"http://{self.address}:{self.health_port}/metrics"


HAPROXY_CONFIG = """\
global
    maxconn 4000
    nbthread 1
    stats socket {workdir}/haproxy.sock mode 600 level admin

defaults
    mode tcp
    timeout connect 2s
    timeout client 10m
    timeout server 10m
    timeout check 2s
    retries 2
    option redispatch

frontend mtproto
    bind {front}:{port}
    default_backend listeners

backend listeners
    balance roundrobin
    option httpchk GET /readyz
    default-server send-proxy-v2 source {source} check inter 1s fall 2 rise 2
{servers}
"""


class Testbed:
    """The whole bed; ``with Testbed(...) as bed:`` starts it and always tears it down."""

    def __init__(
        self,
        workdir: Path,
        *,
        db_name: str,
        rsa_key: Path,
        listeners: int = 3,
        redis_cluster: bool = True,
        use_netns: bool | None = None,
        env: dict[str, str] | None = None,
        layout: Layout | None = None,
    ) -> None:
        self.workdir = Path(workdir)
        self.layout = layout or Layout()
        self.db_name = db_name
        self.rsa_key = rsa_key
        if use_netns is None:
            # TELESRV_TESTBED_NETNS=0: loopback addresses even where namespaces work.
            use_netns = _env("NETNS", "auto") != "0" and namespaces_available()
        self.network = Network(self.layout, listeners, use_netns)
        self.redis = Redis(self.network.redis_host, self.layout.redis_port, self.workdir, redis_cluster)
        self.extra_env = env or {}
        self.listeners: list[Listener] = []
        self.haproxy: subprocess.Popen | None = None

    # --- addresses ---------------------------------------------------------------------

    @property
    def front(self) -> tuple[str, int]:
        """The balancer: where clients connect."""
        return self.layout.front, self.layout.port

    @property
    def listener_port(self) -> int:
        return self.layout.port + 1

    @property
    def health_port(self) -> int:
        return self.layout.port + 101

    def describe(self) -> str:
        where = "network namespaces" if self.network.use_netns else "loopback addresses"
        lines = [
            f"balancer (HAProxy, send-proxy-v2): {self.front[0]}:{self.front[1]}",
            f"redis: {self.redis.url}",
            f"postgresql: database {self.db_name} via {PG_SOCKET_DIR}",
            f"listeners ({where}):",
        ]
        for lst in self.listeners:
            ns = f" in netns {self.layout.netns(lst.index)}" if self.network.use_netns else ""
            lines.append(f"  l{lst.index + 1}: {lst.address}:{lst.port}{ns}, metrics {lst.metrics_url}")
        return "\n".join(lines)

    # --- lifecycle ---------------------------------------------------------------------

    def __enter__(self) -> Testbed:
        try:
            self.up()
        except BaseException:
            self.down()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.down()

    def up(self) -> None:
        self.workdir.mkdir(parents=True, exist_ok=True)
        raise_fd_limit()
        self.network.up()
        self.redis.up()
        for i in range(self.network.count):
            self.listeners.append(self.start_listener(i))
        self.start_haproxy()
        self.wait_balanced()

    def down(self) -> None:
        stop_process(self.haproxy)
        for lst in self.listeners:
            stop_process(lst.proc)
        self.redis.down()
        self.network.down()

    def listener_env(self, i: int) -> dict[str, str]:
        env = dict(os.environ)
        env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        address = self.network.address(i)
        env.update(
            {
                "TELESRV_DB_NAME": self.db_name,
                # The Unix socket: the same from every network namespace.
                "TELESRV_DB_HOST": PG_SOCKET_DIR,
                "TELESRV_DB_HOSTS": "",
                "TELESRV_REDIS_URL": self.redis.url,
                "TELESRV_RSA_KEY": str(self.rsa_key),
                "TELESRV_MTPROTO_HOST": address,
                "TELESRV_MTPROTO_PORT": str(self.listener_port),
                # Clients are told about the balancer, never about a listener.
                "TELESRV_MTPROTO_PUBLIC_HOST": self.front[0],
                "TELESRV_MTPROTO_PUBLIC_PORT": str(self.front[1]),
                "TELESRV_MTPROTO_HEALTH_HOST": address,
                "TELESRV_MTPROTO_HEALTH_PORT": str(self.health_port),
                "TELESRV_MTPROTO_TRUSTED_PROXIES": self.network.balancer_source,
            }
        )
        env.setdefault("TELESRV_SECRET_KEY", "telesrv-testbed-key-not-a-secret-0123456789abcdef")
        env.update(self.extra_env)
        return env

    def start_listener(self, i: int) -> Listener:
        address = self.network.address(i)
        log_path = self.workdir / f"listener-l{i + 1}.log"
        require_free(address, self.listener_port)
        log = open(log_path, "ab")  # noqa: SIM115 - handed to the child (appended: restarts)
        cmd = [
            sys.executable,
            "manage.py",
            "runmtproto",
            "--host",
            address,
            "--port",
            str(self.listener_port),
        ]
        proc = subprocess.Popen(
            self.network.wrap(i, cmd),
            cwd=ROOT,
            env=self.listener_env(i),
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        log.close()
        listener = Listener(i, address, self.listener_port, self.health_port, proc, log_path)
        try:
            wait_for_port(address, self.listener_port, proc, timeout=90)
            wait_for_port(address, self.health_port, proc, timeout=30)
        except Exception:
            stop_process(proc)
            raise RuntimeError(f"listener l{i + 1} did not start:\n{listener.log()[-3000:]}") from None
        return listener

    def haproxy_config(self) -> str:
        servers = "\n".join(
            f"    server l{lst.index + 1} {lst.address}:{lst.port} check port {lst.health_port}"
            for lst in self.listeners
        )
        return HAPROXY_CONFIG.format(
            workdir=self.workdir,
            front=self.front[0],
            port=self.front[1],
            source=self.network.balancer_source,
            servers=servers,
        )

    def start_haproxy(self) -> None:
        binary = shutil.which("haproxy") or "/usr/sbin/haproxy"
        config = self.workdir / "haproxy.cfg"
        config.write_text(self.haproxy_config())
        require_free(*self.front)
        check = run(binary, "-c", "-f", str(config), check=False)
        if check.returncode != 0:
            raise RuntimeError(f"haproxy rejects its configuration:\n{check.stdout}{check.stderr}")
        log = open(self.workdir / "haproxy.log", "ab")  # noqa: SIM115 - handed to the child
        # -db: foreground, so the bed owns the process and its exit.
        self.haproxy = subprocess.Popen(
            [binary, "-db", "-f", str(config)], stdout=log, stderr=subprocess.STDOUT
        )
        log.close()
        wait_for_port(*self.front, self.haproxy, timeout=20)

    # --- the balancer's view -------------------------------------------------------------

    def haproxy_command(self, command: str) -> str:
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(5)
            s.connect(str(self.workdir / "haproxy.sock"))
            s.sendall(command.encode() + b"\n")
            chunks = []
            while chunk := s.recv(65536):
                chunks.append(chunk)
        return b"".join(chunks).decode()

    def server_states(self) -> dict[str, str]:
        """Each listener's state as HAProxy sees it: ``UP``, ``DOWN``, ...."""
        text = self.haproxy_command("show stat")
        header, *rows = [line for line in text.splitlines() if line]
        cols = header.lstrip("# ").split(",")
        out = {}
        for row in rows:
            values = dict(zip(cols, row.split(","), strict=False))
            if values.get("pxname") == "listeners" and values.get("svname", "").startswith("l"):
                out[values["svname"]] = values.get("status", "")
        return out

    def wait_balanced(self, timeout: float = 60) -> None:
        """Until HAProxy sees exactly the live listeners as up."""
        deadline = time.monotonic() + timeout
        want: dict[str, str] = {}
        while time.monotonic() < deadline:
            want = {f"l{lst.index + 1}": "UP" if lst.alive else "DOWN" for lst in self.listeners}
            states = {k: v.split()[0] for k, v in self.server_states().items()}
            if states == want:
                return
            time.sleep(0.2)
        raise TimeoutError(f"HAProxy does not see {want}: {self.server_states()}")

    def kill_listener(self, i: int) -> None:
        """SIGKILL listener i (a crashed machine: no goodbye to its clients or leases)
        and wait until the balancer has taken it out."""
        lst = self.listeners[i]
        lst.proc.kill()
        lst.proc.wait()
        self.wait_balanced()


def cli() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("command", choices=["up", "down"])
    ap.add_argument("--workdir", type=Path, default=None, help="logs, configs, Redis data (a temporary dir)")
    ap.add_argument("--listeners", type=int, default=3)
    ap.add_argument("--redis", choices=["cluster", "single"], default="cluster")
    ap.add_argument("--loopback", action="store_true", help="loopback addresses even where namespaces work")
    ap.add_argument("--db", default=os.environ.get("TELESRV_DB_NAME", "telesrv_testbed"))
    args = ap.parse_args()
    layout = Layout()
    if args.command == "down":
        Network(layout, 0, namespaces_available()).down()
        return
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="telesrv-testbed-"))
    env = {**os.environ, "TELESRV_DB_NAME": args.db}
    subprocess.run([sys.executable, "-m", "telesrv_project.database"], cwd=ROOT, env=env, check=True)
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True
    )
    key = workdir / "server_rsa.pem"
    if not key.exists():
        subprocess.run(
            [sys.executable, "manage.py", "rsakey", "generate"],
            cwd=ROOT,
            env={**env, "TELESRV_RSA_KEY": str(key)},
            check=True,
        )
    bed = Testbed(
        workdir,
        db_name=args.db,
        rsa_key=key,
        listeners=args.listeners,
        redis_cluster=args.redis == "cluster",
        use_netns=False if args.loopback else None,
    )
    with bed:
        print(bed.describe(), flush=True)
        print(f"logs in {workdir}; Ctrl-C tears the bed down", flush=True)
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
        signal.sigwait({signal.SIGINT, signal.SIGTERM})


if __name__ == "__main__":
    cli()
