"""A throw-away PostgreSQL cluster for fault tests: its own data directory, port and
socket directory, started and stopped (or killed) by the test.

As root the server runs as the ``postgres`` user (PostgreSQL refuses to run as root);
:func:`unavailable` names what is missing when the binaries or that user are absent.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path


def _bindir() -> Path | None:
    found = shutil.which("pg_ctl")
    if found:
        return Path(found).resolve().parent  # Debian links it from its versioned bin/
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), reverse=True)
    return Path(candidates[0]).parent if candidates else None


def unavailable() -> str | None:
    """Why no cluster can be made here, or None."""
    bindir = _bindir()
    if bindir is None or not (bindir / "initdb").exists():
        return "PostgreSQL server binaries (initdb, pg_ctl) are not installed"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root and there is no 'postgres' user to run a cluster as"
        if not shutil.which("runuser"):
            return "running as root without runuser(1)"
    return None


class Cluster:
    def __init__(self, port: int) -> None:
        self.port = port
        self.bindir = _bindir()
        self.dir = Path(tempfile.mkdtemp(prefix="telesrv-pg-"))
        self.data = self.dir / "data"
        self.log = self.dir / "server.log"
        if os.geteuid() == 0:
            pw = pwd.getpwnam("postgres")
            os.chown(self.dir, pw.pw_uid, pw.pw_gid)
            self._as = ["runuser", "-u", "postgres", "--"]
        else:
            self._as = []

    def _run(self, *args: str, timeout: float = 120) -> None:
        subprocess.run(
            [*self._as, *args], check=True, timeout=timeout, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )

    def init(self) -> None:
        self._run(
            str(self.bindir / "initdb"), "-D", str(self.data), "-A", "trust", "-U", "postgres", "--no-sync",
            "-E", "UTF8",
        )  # fmt: skip

    def start(self, extra: str = "") -> None:
        """``extra``: more ``-c name=value`` options (later ones win)."""
        options = (
            f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off"
            " -c synchronous_commit=off -c full_page_writes=off -c max_connections=100"
            f" {extra}"
        )
        self._run(
            str(self.bindir / "pg_ctl"),
            "-D",
            str(self.data),
            "-l",
            str(self.log),
            "-o",
            options,
            "-w",
            "start",
        )

    def stop(self, mode: str = "fast") -> None:
        """``fast`` (what a restart does: sessions are terminated) or ``immediate`` (a
        crash: no shutdown checkpoint)."""
        self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop")

    def promote(self) -> None:
        """A standby becomes a primary (what a failover manager does)."""
        self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-w", "promote")

    @classmethod
    def standby_of(cls, primary: Cluster, port: int) -> Cluster:
        """A streaming standby of the running ``primary`` (``pg_basebackup -R`` writes
        its ``standby.signal`` and ``primary_conninfo``); start it with :meth:`start`."""
        standby = cls(port)
        standby._run(
            str(standby.bindir / "pg_basebackup"), "-h", "127.0.0.1", "-p", str(primary.port),
            "-U", "postgres", "-D", str(standby.data), "-R", "-X", "stream", "-c", "fast", "--no-sync",
        )  # fmt: skip
        return standby

    def create_database_like(self, name: str, source: dict) -> None:
        """A database ``name`` with the schema of the Django database ``source`` (its
        settings dict): copied with pg_dump, much faster than running the migrations."""
        dump = subprocess.run(
            [
                str(self.bindir / "pg_dump"), "--schema-only", "--no-owner", "--no-privileges",
                "-h", source["HOST"] or "127.0.0.1", "-p", str(source["PORT"] or 5432),
                "-U", source["USER"] or "postgres", "-d", source["NAME"],
            ],
            check=True, capture_output=True, timeout=120,
            env={**os.environ, "PGPASSWORD": source.get("PASSWORD") or ""},
        ).stdout  # fmt: skip
        psql = [str(self.bindir / "psql"), "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "-q"]
        subprocess.run([*psql, "-d", "postgres", "-c", f'CREATE DATABASE "{name}"'], check=True, timeout=60)
        subprocess.run(
            [*psql, "-d", name, "-v", "ON_ERROR_STOP=1"],
            input=dump,
            check=True,
            capture_output=True,
            timeout=120,
        )

    def destroy(self) -> None:
        with contextlib.suppress(Exception):
            self.stop("immediate")
        shutil.rmtree(self.dir, ignore_errors=True)
