"""``manage.py webclient build``: a Web K source tree built into a static app that talks
to this deployment (webclient_app.pointing), cached by what went into it.

The operator's tree is read, never written: it is copied (without node_modules, .git
and build output) into a work directory, pointed there, installed with pnpm (the
version the tree's package.json names, from the npm registry) and built with vite.
Each build lives in ``<cache>/builds/<digest>/`` - ``app/`` (the files served),
``source.tar.gz`` (the exact tree it was built from, offered beside the app as GPL-3
asks) and ``build.json`` - and ``<cache>/current`` names the one served. The digest
covers every source file and the build recipe, so the same tree is built once.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import tarfile
import time
from pathlib import Path

from django.conf import settings

from webclient_app import pointing

# Bump when the recipe (patches, environment, commands) changes: old builds are not reused.
RECIPE = 1
DEFAULT_PNPM = "10.34.3"
SKIP = {"node_modules", ".git", "dist", ".vite", ".pnpm-store"}
CURRENT = "current"


def cache_dir() -> Path:
    """TELESRV_WEBCLIENT_DIR, by default under the state directory (outside the tree)."""
    configured = getattr(settings, "WEBCLIENT_DIR", "")
    return Path(configured or Path(settings.TELESRV_STATE_DIR) / "webclient").expanduser()


def _files(src: Path):
    for root, dirs, names in os.walk(src):
        dirs[:] = sorted(d for d in dirs if d not in SKIP)
        for name in sorted(names):
            path = Path(root) / name
            if path.is_file() and not path.is_symlink():
                yield path


def digest(src: Path) -> str:
    h = hashlib.sha256(json.dumps({"recipe": RECIPE, "env": pointing.BUILD_ENV}).encode())
    for path in _files(src):
        h.update(str(path.relative_to(src)).encode() + b"\0")
        with path.open("rb") as f:
            h.update(hashlib.sha256(f.read()).digest())
    return h.hexdigest()[:24]


def _pnpm_version(src: Path) -> str:
    manager = json.loads((src / "package.json").read_text()).get("packageManager", "")
    found = re.match(r"pnpm@(\d+\.\d+\.\d+)", manager)
    return found.group(1) if found else DEFAULT_PNPM


def _pnpm(cache: Path, version: str) -> Path:
    """pnpm itself, installed from the npm registry into the cache (once per version)."""
    prefix = cache / "tools" / f"pnpm-{version}"
    binary = prefix / "node_modules" / ".bin" / "pnpm"
    if not binary.exists():
        prefix.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["npm", "install", "--prefix", str(prefix), "--no-audit", "--no-fund", f"pnpm@{version}"],
            check=True,
        )
    return binary


def _archive(src: Path, out: Path) -> None:
    tmp = out.with_suffix(".tmp")
    with tarfile.open(tmp, "w:gz") as tar:
        for path in _files(src):
            tar.add(path, arcname=str(Path(src.name) / path.relative_to(src)), recursive=False)
    tmp.replace(out)


def current() -> Path | None:
    """The served build's directory, if one was built."""
    pointer = cache_dir() / CURRENT
    try:
        name = pointer.read_text().strip()
    except FileNotFoundError:
        return None
    found = cache_dir() / "builds" / name
    return found if (found / "app" / "index.html").exists() else None


def _set_current(cache: Path, name: str) -> None:
    tmp = cache / f".{CURRENT}.{os.getpid()}"
    tmp.write_text(name + "\n")
    tmp.replace(cache / CURRENT)


def build(src: Path, *, log=print, force: bool = False) -> Path:
    """Build ``src`` (or reuse its cached build) and make it the one served."""
    src = src.resolve()
    if not (src / "package.json").exists() or not (src / pointing.PATCHES[0][0]).exists():
        raise pointing.UnknownTree(f"{src} is not a Web K source tree")
    cache = cache_dir()
    name = digest(src)
    out = cache / "builds" / name
    if (out / "app" / "index.html").exists() and not force:
        log(f"cached build {name} of {src}")
        _set_current(cache, name)
        return out
    work = cache / "work" / name
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(src, work, ignore=shutil.ignore_patterns(*SKIP), symlinks=True)
    pointing.point(work)
    pnpm = _pnpm(cache, _pnpm_version(src))
    env = {
        **os.environ,
        **pointing.BUILD_ENV,
        "PATH": f"{pnpm.parent}{os.pathsep}{os.environ.get('PATH', '')}",
        # Web K's config runs a type checker and eslint inside the build unless told it
        # is a preview build: minutes more, and the operator's tree is not ours to lint.
        "TWEB_PREVIEW": "1",
        "CI": "1",
    }
    store = cache / "pnpm-store"
    started = time.monotonic()
    log(f"installing {src.name}'s dependencies with pnpm")
    subprocess.run(
        [str(pnpm), "install", "--frozen-lockfile", "--store-dir", str(store)], cwd=work, env=env, check=True
    )
    log("building with vite (several minutes)")
    staged = cache / "builds" / f".{name}.{os.getpid()}"
    shutil.rmtree(staged, ignore_errors=True)
    staged.mkdir(parents=True)
    subprocess.run(
        [str(pnpm), "exec", "vite", "build", "--sourcemap", "false", "--outDir", str(staged / "app")],
        cwd=work,
        env=env,
        check=True,
    )
    _archive(src, staged / "source.tar.gz")
    (staged / "build.json").write_text(
        json.dumps(
            {"digest": name, "src": str(src), "recipe": RECIPE, "built": int(time.time()),
             "seconds": round(time.monotonic() - started)},
            indent=1,
        )
    )  # fmt: skip
    shutil.rmtree(out, ignore_errors=True)
    staged.replace(out)
    shutil.rmtree(work, ignore_errors=True)
    _set_current(cache, name)
    log(f"built {name} in {round(time.monotonic() - started)} s: {out}")
    return out
