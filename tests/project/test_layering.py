"""The dependency direction of ARCHITECTURE.md: apps -> edge_app -> mtproto -> tl."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
APPS = ("accounts_app", "channels_app", "edge_app", "telesrv_project")

FORBIDDEN = {
    "tl": ("django", "mtproto", *APPS),
    "mtproto": ("django", *APPS),
    "edge_app": ("accounts_app", "channels_app"),
}


def imported_modules(path: Path):
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.lineno, node.module


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_package_does_not_import_upwards(package):
    offenders = []
    files = sorted((ROOT / package).rglob("*.py"))
    assert files, f"{package} has no modules"
    for path in files:
        if "migrations" in path.parts:
            continue
        for lineno, module in imported_modules(path):
            if module.split(".")[0] in FORBIDDEN[package]:
                offenders.append(f"{path.relative_to(ROOT)}:{lineno} imports {module}")
    assert not offenders, "\n".join(offenders)
