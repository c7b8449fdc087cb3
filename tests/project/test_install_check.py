"""docs/operations.md's first-install sequence, run for real by scripts/install-check.sh
(a production venv from requirements.txt alone, a database role with a password,
migrate, rsakey generate, create_staff_groups, createsuperuser, the two programs as the
systemd units start them, /readyz of both). On a database, role and Redis prefix of its
own; bounded (the venv is reused while requirements.txt is unchanged)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "install-check.sh"
DOCS = ROOT / "docs" / "operations.md"


def first_install_section() -> str:
    text = DOCS.read_text()
    start = text.index("## First install on a production machine")
    return text[start : text.index("\n## ", start + 1)]


def test_the_script_runs_every_command_of_the_documented_sequence():
    script = SCRIPT.read_text()
    documented = set(re.findall(r"manage\.py (\w+)", first_install_section()))
    assert {"migrate", "rsakey", "create_staff_groups", "createsuperuser", "runmtproto"} <= documented
    run = set(re.findall(r"manage (\w+)", script)) | set(re.findall(r"manage\.py (\w+)", script))
    assert documented <= run, documented - run
    assert "pip install -r requirements.txt" in first_install_section()
    assert "pip install -r requirements-dev" not in first_install_section()


@pytest.mark.skipif(
    shutil.which("psql") is None or shutil.which("curl") is None, reason="needs psql and curl"
)
def test_first_install_sequence(settings):
    env = dict(os.environ)
    base = settings.DATABASES["default"]["NAME"].removeprefix("test_")
    env["TELESRV_INSTALL_CHECK_DB"] = f"{base}_install"[:50]
    env["TELESRV_INSTALL_CHECK_REDIS_URL"] = os.environ.get("TELESRV_REDIS_URL", "redis://127.0.0.1:6379/15")
    out = subprocess.run([str(SCRIPT)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, (out.stdout[-3000:], out.stderr[-3000:])
    assert out.stdout.strip().endswith("install check passed")
