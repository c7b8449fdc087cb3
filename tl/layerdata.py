"""What every older layer's schema differs in from the primary one, as compact data.

``python -m tl.codegen`` parses every ``tl/schema/api-<N>.tl`` once and writes
``tl/gen/layers_data.py``; at run time nothing parses a whole schema file again
(parsing all 53 takes seconds, loading the data module milliseconds).

The data module holds:

- ``PRIMARY_LINES``: where the primary layer's declarations are in
  ``tl/schema/api-229.tl`` (line numbers, schema order; each is one line there, checked
  here); an index into it is how the rest refers to a primary combinator;
- ``PRIMARY_FUNCTIONS_FROM``: the index of the first function in ``PRIMARY_LINES``
  (constructors come first); ``OLD_FUNCTIONS``: the ``OLD_DECLS`` indices of functions;
- ``OLD_DECLS``: every declaration an older layer has that the primary one has not in
  the same form (a changed id or field list, or a constructor dropped since), each
  once however many layers share it;
- ``LAYERS``: per layer ``(missing, affected, changed, old_only)``:
  ``missing`` and ``affected`` are bit sets over ``PRIMARY_LINES`` (absent in that
  layer; written differently there, itself or something it can hold), ``changed`` pairs
  ``(primary index, OLD_DECLS index)``, ``old_only`` lists ``OLD_DECLS`` indices.

Everything else (names, result types, field lists, flag bits) is read back from the
declaration text by ``tl.parser.parse_line`` when a translation needs it.
"""

from __future__ import annotations

from collections import defaultdict

from tl.emit import HEADER, SKIP_NAMES
from tl.parser import SCHEMA_DIR, Combinator, TypeRef, api_schema, parse_line, shipped_layers

PRIMARY_LAYER = 229


def decl_text(c: Combinator) -> str:
    """The declaration of ``c`` in canonical TL (one space apart, explicit id)."""
    parts = [f"{c.name}#{c.id:08x}"]
    if c.generic:
        parts.append(f"{{{c.generic}:Type}}")
    for p in c.params:
        t = str(p.type)
        parts.append(f"{p.name}:{p.flag_field}.{p.flag_bit}?{t}" if p.flag_field else f"{p.name}:{t}")
    return " ".join(parts) + " = " + c.result


def signature(c: Combinator) -> tuple:
    return (c.id, c.result, tuple((p.name, str(p.type), p.flag_field, p.flag_bit) for p in c.params))


def object_types(t: TypeRef) -> list[str]:
    """Boxed types a field of type ``t`` can hold ("*" for a generic ``!X``)."""
    while t.item is not None:
        t = t.item
    if t.generic:
        return ["*"]
    if t.name in ("int", "long", "double", "string", "bytes", "int128", "int256", "Bool", "true", "#"):
        return []
    return [t.name]


def affected_names(prim: dict[str, Combinator], missing: set[str], changed: set[str]) -> set[str]:
    """Primary combinators whose writing differs in a layer: they are missing or changed
    there, or can contain (at any depth) a value of a type that has such a constructor."""
    by_type: dict[str, list[str]] = defaultdict(list)
    for n, c in prim.items():
        if not c.is_function:
            by_type[c.result].append(n)
    holds = {n: {x for p in c.params for x in object_types(p.type)} for n, c in prim.items()}
    affected = set(missing) | set(changed)
    while True:
        bad_types = {t for t, ns in by_type.items() if any(n in affected for n in ns)}
        grown = {n for n, hs in holds.items() if n not in affected and ("*" in hs or hs & bad_types)}
        if not grown:
            return affected
        affected |= grown


def primary_line(text: str) -> str:
    """A declaration line of the primary schema as ``parse_line`` takes it."""
    return text.split("//", 1)[0].strip().removesuffix(";").strip()


def _check_one_line_each(prim_list: list[Combinator]) -> None:
    lines = (SCHEMA_DIR / f"api-{PRIMARY_LAYER}.tl").read_text(encoding="utf-8").splitlines()
    for c in prim_list:
        again = parse_line(primary_line(lines[c.line - 1]), c.is_function, c.file, c.line)
        if (
            again is None
            or not c.explicit_id
            or signature(again) != signature(c)
            or again.generic != c.generic
        ):
            raise ValueError(f"{c.file}:{c.line}: {c.name} is not one declaration on one line")


def _combinators(layer: int) -> list[Combinator]:
    schema = api_schema(layer)
    return [c for c in schema.constructors + schema.functions if c.name not in SKIP_NAMES]


def build() -> dict:
    prim_list = _combinators(PRIMARY_LAYER)
    _check_one_line_each(prim_list)
    prim = {c.name: c for c in prim_list}
    index = {c.name: i for i, c in enumerate(prim_list)}
    old_decls: dict[str, int] = {}
    old_functions: set[int] = set()
    layers = {}
    for layer in shipped_layers():
        if layer == PRIMARY_LAYER:
            continue
        old = {c.name: c for c in _combinators(layer)}
        missing = {n for n in prim if n not in old}
        changed = {n for n in prim if n in old and signature(prim[n]) != signature(old[n])}
        old_only = [n for n in old if n not in prim]

        def ref(c: Combinator) -> int:
            j = old_decls.setdefault(decl_text(c), len(old_decls))
            if c.is_function:
                old_functions.add(j)
            return j

        layers[layer] = (
            sum(1 << index[n] for n in missing),
            sum(1 << index[n] for n in affected_names(prim, missing, changed)),
            tuple((index[n], ref(old[n])) for n in prim if n in changed),
            tuple(ref(old[n]) for n in old_only),
        )
    return {
        "primary": tuple(c.line for c in prim_list),
        "functions_from": next(i for i, c in enumerate(prim_list) if c.is_function),
        "old": tuple(old_decls),
        "old_functions": tuple(sorted(old_functions)),
        "layers": layers,
    }


def render() -> str:
    data = build()
    out = [
        HEADER + '"""What older layers differ in from the primary one; see tl/layerdata.py."""',
        "",
        "# ruff: noqa",
        f"PRIMARY = {PRIMARY_LAYER}",
        "",
        f"PRIMARY_LINES = {data['primary']!r}",
        "",
        f"PRIMARY_FUNCTIONS_FROM = {data['functions_from']}",
        "",
        "OLD_DECLS = (",
        *(f"    {d!r}," for d in data["old"]),
        ")",
        "",
        f"OLD_FUNCTIONS = frozenset({data['old_functions']!r})",
        "",
        "LAYERS = {",
    ]
    for layer, (missing, affected, changed, old_only) in data["layers"].items():
        out.append(f"    {layer}: (")
        out.append(f"        {missing:#x},")
        out.append(f"        {affected:#x},")
        out.append(f"        {changed!r},")
        out.append(f"        {old_only!r},")
        out.append("    ),")
    out.append("}")
    return "\n".join(out) + "\n"
