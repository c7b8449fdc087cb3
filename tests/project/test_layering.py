"""The dependency direction of docs/layers.md, checked on every import statement
(module level and inside functions alike; migrations are history and exempt, and so
are imports a type checker alone follows)."""

import ast
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Bottom to top; a package imports only packages of a lower rank (same rank: none).
LAYERS = (
    ("tl",),
    ("mtproto",),
    ("edge_app",),
    ("accounts_app",),
    ("reports_app", "langpacks_app"),
    ("message_core",),
    ("media_app",),
    ("stickers_app", "polls_app"),
    ("channels_app", "private_app"),
    ("bots_app", "scheduling_app", "webpages_app", "calls_app"),
    ("messages_app",),
    ("chatlists_app",),
    ("botapi_app",),
    ("console_app", "webclient_app"),
    ("telesrv_project",),
)
RANK = {package: rank for rank, packages in enumerate(LAYERS) for package in packages}
NO_DJANGO = ("tl", "mtproto")
# Domain actions hold the rules; they never reach up into the handlers' permission-checked
# lookups, the answer context or TL conversion.
DOMAIN = {
    "channels_app": ("channels_app/actions",),
    "private_app": ("private_app/actions.py", "private_app/dialogs.py"),
    "scheduling_app": ("scheduling_app/actions.py",),
    "webpages_app": ("webpages_app/actions.py",),
    "messages_app": ("messages_app/pins.py", "messages_app/drafts.py"),
    "chatlists_app": ("chatlists_app/actions.py",),
    "stickers_app": tuple(
        f"stickers_app/{m}.py"
        for m in ("sets", "library", "discovery", "groups", "attached", "operator", "catalog")
    ),
}
NOT_FROM_DOMAIN = ("access", "chat_context", "context", "rpc", "tl_convert", "push")


def source_files(package: str):
    for path in sorted((ROOT / package).rglob("*.py")):
        if "migrations" not in path.parts:
            yield path


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def is_module(name: str) -> bool:
    base = ROOT.joinpath(*name.split("."))
    return base.with_suffix(".py").exists() or (base / "__init__.py").exists()


@cache
def imports_of(path: Path) -> tuple[tuple[int, str], ...]:
    """(line, imported module) for every import in the file: ``from pkg import sub``
    names the submodule when ``sub`` is one, so package re-exports do not hide edges."""
    tree = ast.parse(path.read_text(), filename=str(path))
    # Imports only a type checker follows (``if TYPE_CHECKING:``) are no dependency at run time.
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            node.body = []
    here = module_name(path).split(".")
    package = here if path.name == "__init__.py" else here[:-1]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module
            subs = [f"{module}.{a.name}" for a in node.names if is_module(f"{module}.{a.name}")]
            out.extend((node.lineno, sub) for sub in subs)
            if len(subs) < len(node.names):
                out.append((node.lineno, module))
    return tuple(out)


@pytest.mark.parametrize("package", sorted(RANK))
def test_package_imports_only_layers_below(package):
    offenders = []
    for path in source_files(package):
        for lineno, module in imports_of(path):
            top = module.split(".")[0]
            if top == package:
                continue
            if (top == "django" and package in NO_DJANGO) or (top in RANK and RANK[top] >= RANK[package]):
                offenders.append(f"{path.relative_to(ROOT)}:{lineno} imports {module}")
    assert not offenders, "\n".join(offenders)


@pytest.mark.parametrize("package", sorted(DOMAIN))
def test_domain_actions_do_not_import_handlers_or_tl(package):
    offenders = []
    for prefix in DOMAIN[package]:
        target = ROOT / prefix
        for path in sorted(target.rglob("*.py")) if target.is_dir() else [target]:
            for lineno, module in imports_of(path):
                parts = module.split(".")
                if parts[0] == package and any(p.startswith(NOT_FROM_DOMAIN) for p in parts[1:]):
                    offenders.append(f"{path.relative_to(ROOT)}:{lineno} imports {module}")
    assert not offenders, "\n".join(offenders)


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


@pytest.mark.parametrize("package", sorted(RANK))
def test_no_import_cycle_inside_a_package(package):
    graph = {}
    for path in source_files(package):
        name = module_name(path)
        graph[name] = {m for _, m in imports_of(path) if m.split(".")[0] == package and m != name}
    assert not _cycles(graph)
