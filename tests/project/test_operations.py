"""Production settings, the admin's probes and metrics, and the logs an operator reads."""

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from telesrv_project.dotenv import parse

ROOT = Path(__file__).resolve().parents[2]

# What docs/operations.md tells a production install to set.
PRODUCTION_ENV = {
    "TELESRV_DEBUG": "0",
    "TELESRV_SECRET_KEY": "k7#Yq2!vT9@pL4$wZ8^nR1&cX6*hJ3(mB5)fD0_sG2+eA9-uK4=iO7~",
    "TELESRV_ALLOWED_HOSTS": "console.example.org",
    "TELESRV_ADMIN_HTTPS": "1",
    "TELESRV_CSRF_TRUSTED_ORIGINS": "https://console.example.org",
}


def manage(
    *args: str, env: dict[str, str] | None = None, drop: tuple[str, ...] = ()
) -> subprocess.CompletedProcess:
    # The e2e conftest relaxes Django's async checks for the test process; a server must not.
    full = {k: v for k, v in os.environ.items() if k not in (*drop, "DJANGO_ALLOW_ASYNC_UNSAFE")}
    full.update(env or {})
    full["TELESRV_ENV_FILE"] = full.get("TELESRV_ENV_FILE", "/nonexistent/.env")
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=full, capture_output=True, text=True, timeout=120
    )


def test_debug_is_off_unless_asked():
    code = "from django.conf import settings; print(settings.DEBUG)"
    out = manage("shell", "--no-imports", "-c", code, drop=("TELESRV_DEBUG",))
    assert out.stdout.strip() == "False", out.stderr
    assert manage("shell", "--no-imports", "-c", code, env={"TELESRV_DEBUG": "1"}).stdout.strip() == "True"


@pytest.mark.parametrize("command", [("runmtproto", "--port", "0", "--health-port", "-1"), ("serve",)])
def test_servers_refuse_the_development_secret_key_without_debug(command):
    out = manage(*command, env={"TELESRV_DEBUG": "0"}, drop=("TELESRV_SECRET_KEY",))
    assert out.returncode != 0
    assert "refusing to start with the development secret key" in out.stderr


def test_admin_refuses_the_development_secret_key_without_debug():
    env = {k: v for k, v in os.environ.items() if k != "TELESRV_SECRET_KEY"}
    env.update(TELESRV_DEBUG="0", TELESRV_ENV_FILE="/nonexistent/.env")
    out = subprocess.run(
        [sys.executable, "-c", "import telesrv_project.asgi"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert out.returncode != 0 and "development secret key" in out.stderr


def test_check_deploy_is_clean_for_the_documented_production_settings():
    out = manage("check", "--deploy", "--fail-level", "WARNING", env=PRODUCTION_ENV)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "no issues" in out.stdout


def test_env_file_is_read_and_the_environment_wins(tmp_path):
    env_file = tmp_path / ".env"
    env_file.write_text(
        "# production\nexport TELESRV_DB_PORT=6543\nTELESRV_ALLOWED_HOSTS='a.example,b.example'\n"
        'TELESRV_ADMIN_PORT="8100"  \nTELESRV_LOG_LEVEL=warning # quiet\n'
    )
    code = (
        "from django.conf import settings; print(settings.DATABASES['default']['PORT'],"
        " settings.ALLOWED_HOSTS, settings.ADMIN_PORT, settings.LOG_LEVEL)"
    )
    out = manage(
        "shell",
        "--no-imports",
        "-c",
        code,
        env={"TELESRV_ENV_FILE": str(env_file), "TELESRV_ADMIN_PORT": "8200"},
        drop=("TELESRV_LOG_LEVEL",),
    )
    assert out.stdout.strip() == "6543 ['a.example', 'b.example'] 8200 WARNING", out.stderr


def test_env_file_parser():
    assert parse("A=1\n\n# c\nexport B = two words \nC='x # y'\nD=v # note\nnot a line\n") == {
        "A": "1",
        "B": "two words",
        "C": "x # y",
        "D": "v",
    }


# --- the admin process's probes -----------------------------------------------------


@pytest.mark.django_db
def test_admin_health_readiness_and_metrics(client, settings):
    assert client.get("/healthz").content == b"ok\n"
    ready = client.get("/readyz")
    assert ready.status_code == 200
    assert json.loads(ready.content) == {
        "ready": True,
        "checks": {"migrations": "ok", "postgresql": "ok", "redis": "ok"},
    }
    metrics = client.get("/metrics").content.decode()
    assert "telesrv_redis_latency_seconds_count" in metrics
    # Only what this process measures: no listener counters frozen at 0.
    for listener_only in ("telesrv_rpc_calls", "telesrv_connections", "telesrv_refusals", "telesrv_sessions"):
        assert listener_only not in metrics
    assert 'telesrv_build_info{commit="",python="' in metrics
    assert f'version="{settings.TELESRV_VERSION}"}} 1.0' in metrics
    # The database node it reaches (here the one test server, a primary without standbys).
    assert 'telesrv_db_up{alias="default"} 1.0' in metrics
    assert re.search(r'telesrv_db_node_info\{alias="default",node="[^"]+:\d+",role="primary"\} 1.0', metrics)
    assert 'telesrv_db_standbys{sync_state="sync"} 0.0' in metrics


@pytest.mark.django_db
def test_favicon_and_the_login_code_page_are_served_to_anyone(client):
    """No "Not Found: /favicon.ico" warning on every console page; the page a client
    names for a code held by the operator is public and says what to do."""
    icon = client.get("/favicon.ico")
    assert icon.status_code == 200 and icon["Content-Type"] == "image/svg+xml"
    page = client.get("/login-code")
    assert page.status_code == 200 and b"Ask" in page.content and b"SMS" in page.content


@pytest.mark.django_db
def test_probes_answer_a_balancer_asking_by_ip_over_plain_http(client, settings):
    settings.ALLOWED_HOSTS = ["console.example.org"]
    settings.SECURE_SSL_REDIRECT = True
    assert client.get("/readyz", HTTP_HOST="10.0.1.11:8000").status_code == 200
    assert client.get("/healthz", HTTP_HOST="10.0.1.11:8000").status_code == 200
    assert client.get("/admin/", HTTP_HOST="10.0.1.11:8000").status_code == 400


@pytest.mark.django_db
def test_readiness_reports_unapplied_migrations(client, monkeypatch):
    from edge_app import health

    monkeypatch.setattr(health, "pending_migrations", lambda: ["accounts_app.0099_future"])
    ready = client.get("/readyz")
    assert ready.status_code == 503
    assert "accounts_app.0099_future" in json.loads(ready.content)["checks"]["migrations"]


@pytest.mark.django_db
def test_readiness_reports_redis_down(client, settings):
    settings.REDIS_URL = "redis://127.0.0.1:1/0"
    ready = client.get("/readyz")
    assert ready.status_code == 503
    assert json.loads(ready.content)["checks"]["redis"].startswith("unreachable")


# --- logs ---------------------------------------------------------------------------


@pytest.mark.parametrize("debug", ["0", "1"])
def test_routine_403_is_one_line_without_traceback(debug):
    out = manage(
        "shell",
        "--no-imports",
        "-c",
        "from django.core.exceptions import PermissionDenied;"
        "from django.test import RequestFactory; from django.core.handlers.exception import response_for_exception;"
        "r = RequestFactory().get('/admin/accounts_app/authorization/');"
        "response_for_exception(r, PermissionDenied())",
        env={"TELESRV_DEBUG": debug},
    )
    lines = [line for line in out.stderr.splitlines() if line.strip()]
    # exactly one line: not twice (Django's own handler and the root's), no traceback
    assert len(lines) == 1, out.stderr
    assert "Forbidden (Permission denied): /admin/accounts_app/authorization/" in lines[0]
    assert len([line for line in lines if "django.request" in line]) == 1
    assert "Traceback" not in out.stderr


def test_json_log_format():
    out = manage(
        "shell",
        "--no-imports",
        "-c",
        "import logging; logging.getLogger('telesrv.x').warning('hello %s', 'there')",
        env={"TELESRV_LOG_FORMAT": "json"},
    )
    record = json.loads(out.stderr.strip().splitlines()[-1])
    assert (
        record["message"] == "hello there"
        and record["level"] == "WARNING"
        and record["logger"] == "telesrv.x"
    )


# --- commands -----------------------------------------------------------------------


def test_runmtproto_options_have_help_texts():
    out = manage("runmtproto", "--help")
    for option in ("--host", "--port", "--health-host", "--health-port"):
        block = out.stdout.split(option, 1)[1].split("\n  -", 1)[0]
        assert len(block.strip()) > 20, option


def test_serve_says_which_child_crashed_and_why(tmp_path, monkeypatch):
    from django.test import override_settings

    class Crashing:
        def __init__(self, argv, **kwargs):
            self.argv, self.pid = argv, 4242
            self.returncode = None

        def poll(self):
            if "runmtproto" in self.argv:
                self.returncode = 1
            return self.returncode

        def terminate(self):
            self.returncode = -15

        def wait(self, timeout=None):
            return self.returncode

    monkeypatch.setattr("subprocess.Popen", Crashing)
    with override_settings(MTPROTO_RSA_KEY_PATH=tmp_path / "k.pem"), pytest.raises(CommandError) as err:
        call_command("serve", stdout=io.StringIO())
    assert "MTProto listener (manage.py runmtproto) exited with status 1 (pid 4242)" in str(err.value)


def test_serve_banner_says_what_to_do_next():
    from edge_app.management.commands.serve import next_steps

    steps = next_steps()
    for command in ("manage.py createsuperuser", "manage.py create_staff_groups", "manage.py rsakey show"):
        assert command in steps
    # Calls need TURN behind NATs: the banner says how to run coturn.
    assert "make coturn" in steps and "TELESRV_CALL_TURN_RUN=1" in steps
