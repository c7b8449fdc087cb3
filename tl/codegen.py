"""Code generator: ``python -m tl.codegen`` (``make regen``) writes ``tl/gen/`` from
``tl/schema/``.

- ``types``/``functions``: one class per constructor and function of the primary layer;
- ``mt.py``: the MTProto schema's classes;
- ``layers_data.py``: what every older layer's schema differs in from the primary one
  (``tl.layerdata``), the compact data ``tl.translate`` builds its writers and readers
  from.

The Python for a combinator comes from ``tl.emit``.
"""

from __future__ import annotations

import subprocess
import sys
from collections import defaultdict
from pathlib import Path

from tl import layerdata
from tl.emit import (
    HEADER,
    PRELUDE,
    SKIP_NAMES,
    Module,
    api_class_name,
    attr_name,
    emit_class,
    mt_class_name,
)
from tl.parser import Combinator, Param, TypeRef, api_schema, mtproto_schema

PRIMARY_LAYER = layerdata.PRIMARY_LAYER
GEN_DIR = Path(__file__).resolve().parent / "gen"

# Re-exported for the tests and tools that name them from here.
__all__ = ["GEN_DIR", "HEADER", "SKIP_NAMES", "api_class_name", "attr_name", "generate_all", "mt_class_name"]


def render_module(mod: Module, doc: str, classes: list[str], register: bool = True) -> str:
    head = [HEADER + f'"""{doc}"""', "", "# ruff: noqa", PRELUDE]
    for fmt, name in mod.structs.items():
        head.append(f"{name} = Struct({fmt!r})")
    body = mod.lines
    tail = []
    if register and classes:
        tail.append("")
        tail.append("")
        tail.append("for _c in (" + ", ".join(classes) + ",):")
        tail.append("    REGISTRY[_c.CONSTRUCTOR_ID] = _c.read")
    tail.append("")
    tail.append("__all__ = [" + ", ".join(repr(c) for c in classes) + "]")
    return "\n".join(head + body + tail) + "\n"


def generate_api(layer: int) -> dict[str, str]:
    """Module path (relative to tl/gen) -> source, for types and functions."""
    schema = api_schema(layer)
    out: dict[str, str] = {}
    for kind, combs in (("types", schema.constructors), ("functions", schema.functions)):
        by_ns: dict[str | None, list[Combinator]] = defaultdict(list)
        for c in combs:
            if c.name in SKIP_NAMES:
                continue
            by_ns[c.namespace].append(c)
        for ns in sorted(by_ns, key=lambda n: n or ""):
            mod = Module()
            names = []
            for c in by_ns[ns]:
                cls = api_class_name(c)
                emit_class(mod, c, cls, {}, with_bare=False)
                names.append(cls)
            path = f"{kind}/__init__.py" if ns is None else f"{kind}/{ns}.py"
            doc = f"Layer {layer} {kind}" + (f" of namespace {ns}" if ns else "") + "."
            src = render_module(mod, doc, names)
            if ns is None:
                subs = sorted(n for n in by_ns if n)
                src += "\n" + "".join(f"from . import {n}\n" for n in subs)
                src = src.replace("__all__ = [", "__all__ = [" + "".join(f"{n!r}, " for n in subs), 1)
            out[path] = src
    return out


# mtproto.tl says `string` for what is binary (pq, g_a, encrypted_data, ...); only
# these are text.
MT_TEXT_FIELDS = frozenset({("rpc_error", "error_message"), ("accessPointRule", "phone_prefix_rules")})


def mt_combinators() -> list[Combinator]:
    combs = mtproto_schema().all()
    for c in combs:
        c.params = [
            Param(p.name, TypeRef("bytes"), p.flag_field, p.flag_bit)
            if p.type.name == "string" and p.type.item is None and (c.name, p.name) not in MT_TEXT_FIELDS
            else p
            for p in c.params
        ]
    return combs


def generate_mt() -> str:
    mod = Module()
    combs = mt_combinators()
    bare = {c.name: mt_class_name(c) for c in combs}
    names = []
    for c in combs:
        cls = mt_class_name(c)
        emit_class(mod, c, cls, bare, with_bare=True)
        names.append(cls)
    src = render_module(mod, "MTProto service constructors and functions (mtproto.tl).", names)
    return src


def generate_all() -> dict[str, str]:
    files = {"__init__.py": HEADER + '"""Generated TL classes; see tl/codegen.py."""\n'}
    files.update(generate_api(PRIMARY_LAYER))
    files["mt.py"] = generate_mt()
    files["layers_data.py"] = layerdata.render()
    return files


def write_all(target: Path = GEN_DIR) -> list[Path]:
    files = generate_all()
    written = []
    for rel, src in files.items():
        p = target / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if not p.exists() or p.read_text(encoding="utf-8") != src:
            p.write_text(src, encoding="utf-8")
        written.append(p)
    # Drop modules of namespaces that no longer exist.
    keep = {p.resolve() for p in written}
    for p in target.rglob("*.py"):
        if p.resolve() not in keep:
            p.unlink()
    return written


def main(argv: list[str]) -> int:
    written = write_all()
    print(f"wrote {len(written)} modules under {GEN_DIR}")
    # tl/LAYERS.md is built from the data just written, in a fresh interpreter (this one
    # has the old data module imported).
    subprocess.run([sys.executable, "-m", "tl.layerdoc", "--write"], check=True)
    print("wrote tl/LAYERS.md")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
