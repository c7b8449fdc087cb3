"""No handler answers NOT_IMPLEMENTED: a method is real, the design's explicit
compatibility answer (bounded, checked, parsable), or unregistered. Checked on the
source, so a branch that only a particular input reaches is caught as well."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
APPS = (
    "edge_app",
    "accounts_app",
    "message_core",
    "channels_app",
    "private_app",
    "messages_app",
    "console_app",
)


def test_no_app_code_raises_not_implemented():
    offenders = []
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            for lineno, line in enumerate(path.read_text().splitlines(), 1):
                if "NotImplementedRpcError" in line or '"NOT_IMPLEMENTED"' in line:
                    offenders.append(f"{path.relative_to(ROOT)}:{lineno}: {line.strip()}")
    assert not offenders, "\n".join(offenders)
