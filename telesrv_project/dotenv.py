"""The optional ``.env`` file: ``TELESRV_*=value`` lines read once at start.

``KEY=value`` per line, ``#`` comments, blank lines, an optional ``export`` prefix and
optional single or double quotes around the value. Variables already set in the
environment win (a systemd unit's ``Environment=`` overrides the file).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

_LINE = re.compile(r"^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$")


def parse(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for raw in text.splitlines():
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        m = _LINE.match(raw)
        if m is None:
            continue
        key, value = m.groups()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        elif " #" in value:
            value = value.split(" #", 1)[0].rstrip()
        out[key] = value
    return out


def load_env_file(path: Path) -> Path | None:
    """Set the file's variables that the environment does not have; the path if read."""
    try:
        text = path.read_text()
    except (FileNotFoundError, IsADirectoryError, PermissionError):
        return None
    for key, value in parse(text).items():
        os.environ.setdefault(key, value)
    return path
