"""Several listener processes on one port (``manage.py runmtproto --workers N``).

One Python process serves one core at most; a listener that should use the machine runs
one worker per core. Every worker binds the same port with SO_REUSEPORT, so the kernel
spreads new connections over them, and each worker is a whole edge: its own sessions,
its own Redis push subscriber (a channel's events reach every worker, each delivers to
the sessions it holds), its own health port. Nothing else is shared in memory; all
state is in PostgreSQL and Redis, as between edges on different machines.

The supervisor here only starts the workers, forwards SIGINT/SIGTERM to them, and
restarts one that dies (a crash must not take a quarter of the clients' connections
with it for good). A worker that keeps dying right after its start stops the whole
listener instead of looping.
"""

from __future__ import annotations

import logging
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Sequence

log = logging.getLogger("telesrv.mtproto.workers")

# A worker that dies within this many seconds of its start counts as failing to start.
EARLY_DEATH_SECONDS = 5.0
# That many early deaths in a row and the listener gives up.
EARLY_DEATHS_MAX = 3


def reserve_port(host: str, port: int) -> tuple[socket.socket, int]:
    """A bound, not listening SO_REUSEPORT socket holding ``port`` (a free one for 0), so
    every worker binds the same port. It receives no connections: only listening
    sockets are in the kernel's reuseport group."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind((host, port))
    return sock, sock.getsockname()[1]


def supervise(
    count: int,
    argv_of: Callable[[int], Sequence[str]],
    *,
    poll: float = 0.5,
    write: Callable[[str], None] = print,
) -> int:
    """Run ``count`` workers (worker ``i`` is ``argv_of(i)``) until SIGINT/SIGTERM, then
    stop them; returns the exit status for the listener."""
    stopping = False

    def stop(signum, frame):
        nonlocal stopping
        stopping = True

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    procs: list[subprocess.Popen] = []
    started: list[float] = []
    early_deaths = 0
    status = 0
    try:
        for i in range(count):
            procs.append(subprocess.Popen(list(argv_of(i))))
            started.append(time.monotonic())
        while not stopping:
            time.sleep(poll)
            for i, proc in enumerate(procs):
                code = proc.poll()
                if code is None or stopping:
                    continue
                lived = time.monotonic() - started[i]
                early_deaths = early_deaths + 1 if lived < EARLY_DEATH_SECONDS else 0
                if early_deaths >= EARLY_DEATHS_MAX:
                    write(
                        f"listener worker {i} exited with status {code} right after starting, again; stopping"
                    )
                    status = 1
                    stopping = True
                    break
                log.warning(
                    "listener worker %d exited with status %s after %.0f s; restarting", i, code, lived
                )
                procs[i] = subprocess.Popen(list(argv_of(i)))
                started[i] = time.monotonic()
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + 15
        for proc in procs:
            try:
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return status
