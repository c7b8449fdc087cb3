"""Separate virtualenvs for client libraries whose version clashes with the project's.

    from tests.support.client_venvs import client_python
    py = client_python("Telethon==1.43.2")   # Path to .../bin/python, created once
    subprocess.run([py, "script.py"], ...)

Each venv lives in ``var/client-venvs/<name>/`` (``name`` defaults to the requirement,
e.g. ``telethon-1.43.2``) and is reused by later runs; creation is guarded by a file
lock so parallel test processes do not race, and pip's cache is shared with the main
venv. Prebuild from a shell: ``.venv/bin/python -m tests.support.client_venvs Telethon==1.43.2``.
"""

from __future__ import annotations

import fcntl
import re
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VENVS_DIR = ROOT / "var" / "client-venvs"


def venv_name(requirements: tuple[str, ...]) -> str:
    return "+".join(re.sub(r"[^a-z0-9.]+", "-", r.lower()).strip("-") for r in requirements)


def client_python(*requirements: str, name: str | None = None, timeout: float = 600) -> Path:
    """The python of a venv with exactly ``requirements`` installed (pip specifiers)."""
    if not requirements:
        raise ValueError("client_python needs at least one requirement")
    name = name or venv_name(requirements)
    target = VENVS_DIR / name
    python = target / "bin" / "python"
    marker = target / ".installed"
    wanted = "\n".join(requirements) + "\n"
    if marker.exists() and marker.read_text() == wanted and python.exists():
        return python
    VENVS_DIR.mkdir(parents=True, exist_ok=True)
    with open(VENVS_DIR / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if marker.exists() and marker.read_text() == wanted and python.exists():
            return python
        if marker.exists():
            marker.unlink()
        venv.EnvBuilder(with_pip=True, clear=True).create(target)
        subprocess.run(
            [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *requirements],
            check=True,
            timeout=timeout,
        )
        marker.write_text(wanted)
    return python


if __name__ == "__main__":
    print(client_python(*sys.argv[1:]))
