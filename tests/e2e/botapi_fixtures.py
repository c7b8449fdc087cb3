"""The Bot API process for e2e tests: ``manage.py runbotapi`` on a free port beside the
test listener, sharing its database and Redis."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from tests.e2e import harness


@dataclass
class BotApiServer:
    port: int
    proc: subprocess.Popen
    log_path: Path

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def start_botapi(env_overrides: dict, log_path: Path) -> BotApiServer:
    port = harness.free_port()
    env = dict(os.environ)
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    env.update(env_overrides)
    env.setdefault("TELESRV_SECRET_KEY", harness.TEST_SECRET_KEY)
    log_file = open(log_path, "ab")  # noqa: SIM115 - handed to the child
    proc = subprocess.Popen(
        [sys.executable, "manage.py", "runbotapi", "--host", "127.0.0.1", "--port", str(port)],
        cwd=harness.ROOT,
        env=env,
        stdout=log_file,
        stderr=subprocess.STDOUT,
    )
    log_file.close()
    server = BotApiServer(port, proc, log_path)
    try:
        harness.wait_for_port(port, proc)
    except Exception:
        server.stop()
        raise RuntimeError(f"runbotapi did not start:\n{server.log()}") from None
    return server
