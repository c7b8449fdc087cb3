"""JavaScript client families (GramJS, mtcute) as subprocesses, for tests/e2e/test_js_clients.py.

Each ``tests/e2e/js/*_client.mjs`` script holds one real client library and answers JSON
commands on stdin (``login``, ``create_megagroup``, ``send``, ``edit``, ``delete``,
``history``, ``dialogs``, ``disconnect``, ``reconnect``, ``wait``...) with one JSON line
each on stdout; what it logs goes to a file. The libraries come from the repository's
package.json / package-lock.json (``make test`` runs ``npm ci``); the server's RSA key
and address reach them through the environment, never by editing node_modules.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import subprocess
from pathlib import Path

from tests.e2e import harness

JS_DIR = Path(__file__).resolve().parent / "js"
NODE_MODULES = harness.ROOT / "node_modules"
STAMP = NODE_MODULES / ".telesrv-installed"
NPM_TIMEOUT = 300


class JsError(Exception):
    pass


def ensure_node_modules() -> None:
    """``npm ci`` unless node_modules already matches package-lock.json (``make test`` has
    normally done it; this covers a bare ``pytest`` run). Install scripts are skipped: the
    only native parts (better-sqlite3, ws accelerators) are optional for these tests."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        raise RuntimeError("node and npm are needed for the JavaScript client tests")
    lock = harness.ROOT / "package-lock.json"
    if STAMP.exists() and STAMP.read_text() == lock.read_text():
        return
    subprocess.run(
        ["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund"],
        cwd=harness.ROOT,
        check=True,
        timeout=NPM_TIMEOUT,
        stdout=subprocess.DEVNULL,
    )
    STAMP.write_text(lock.read_text())


class JsClient:
    """One running driver script; ``await js.call("send", chat=..., text=...)``."""

    def __init__(self, proc: asyncio.subprocess.Process, log_path: Path, name: str) -> None:
        self.proc = proc
        self.log_path = log_path
        self.name = name

    @classmethod
    async def start(cls, script: str, server: harness.EdgeServer, log_path: Path, **env: str) -> JsClient:
        from mtproto import crypto

        key = crypto.RsaKey.load(server.rsa_key_path)
        fp = key.fingerprint - 2**64 if key.fingerprint >= 2**63 else key.fingerprint
        full_env = dict(os.environ)
        full_env.update(
            TELESRV_HOST=server.host,
            TELESRV_PORT=str(server.port),
            TELESRV_PEM=server.public_pem.decode(),
            TELESRV_KEY_N=str(key.n),
            TELESRV_KEY_E=str(key.e),
            TELESRV_KEY_FINGERPRINT=str(fp),
            TELESRV_API_ID=str(harness.API_ID),
            TELESRV_API_HASH=harness.API_HASH,
        )
        full_env.update(env)
        log = open(log_path, "wb")  # noqa: SIM115 - handed to the child
        proc = await asyncio.create_subprocess_exec(
            "node",
            str(JS_DIR / script),
            cwd=harness.ROOT,
            env=full_env,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=log,
            limit=16 * 1024 * 1024,
        )
        log.close()
        return cls(proc, log_path, script)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    async def call(self, op: str, timeout: float = 20.0, **args):
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write((json.dumps({"op": op, **args}) + "\n").encode())
        await self.proc.stdin.drain()
        try:
            line = await asyncio.wait_for(self.proc.stdout.readline(), timeout)
        except TimeoutError:
            raise JsError(f"{self.name}: {op} took over {timeout} s\n{self.log()[-4000:]}") from None
        if not line:
            raise JsError(f"{self.name} exited during {op}\n{self.log()[-4000:]}")
        answer = json.loads(line)
        if not answer["ok"]:
            raise JsError(f"{self.name}: {op} failed: {answer['error']}\n{self.log()[-3000:]}")
        return answer["result"]

    async def wait(self, kind: str, timeout: float = 10.0, **want):
        return await self.call("wait", timeout=timeout + 5, kind=kind, timeout_s=timeout, **want)

    async def close(self) -> None:
        if self.proc.returncode is None:
            with contextlib.suppress(Exception):
                await self.call("quit", timeout=10)
            try:
                await asyncio.wait_for(self.proc.wait(), 5)
            except TimeoutError:
                self.proc.kill()
                await self.proc.wait()
