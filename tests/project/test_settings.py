import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _setting(expr: str, **env: str) -> str:
    code = f"import django; django.setup(); from django.conf import settings; print({expr})"
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "telesrv_project.settings", **env},
        capture_output=True,
        text=True,
        check=True,
    )
    return result.stdout.strip()


def test_database_name_comes_from_environment():
    assert _setting("settings.DATABASES['default']['NAME']", TELESRV_DB_NAME="other_db") == "other_db"


def test_database_defaults_to_local_telesrv():
    env = {k: v for k, v in os.environ.items() if not k.startswith("TELESRV_DB")}
    os.environ.clear()
    try:
        os.environ.update(env)
        assert _setting("settings.DATABASES['default']['NAME']") == "telesrv"
        assert _setting("settings.DATABASES['default']['HOST']") == "127.0.0.1"
    finally:
        os.environ.clear()
        os.environ.update(env)
