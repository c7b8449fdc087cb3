"""Generates the translation modules between the primary layer and older ones.

For a layer L, ``tl/gen/layer<L>.py`` holds:

- ``WRITERS``: primary class -> ``fn(obj, buf)`` writing the object as a client of L
  expects it (L's constructor id, only the fields L has, flags recomputed from L's bit
  positions). Only classes that differ in L, or that can contain something differing,
  get a function; any other class is written by its own ``_write``.
- ``READERS``: L's constructor id -> ``fn(reader)`` returning a primary-layer object,
  for the constructors whose id or fields differ; the rest are read by the primary
  classes (nested objects go through the reader's registry, so they translate too).
- Classes for the constructors L has and the primary layer dropped.

Mapping is by constructor name and field name. What has no equivalent:
- a primary constructor missing in L, inside a vector: the item is dropped;
- in an optional field: the field is omitted;
- in a required field: L's ``...Unsupported``/``...Empty`` constructor of that type
  (fields copied by name), else ``EncodeError``;
- a field L requires but the primary object lacks: zero / empty value, or the stand-in
  constructor above for boxed types.
"""

from __future__ import annotations

import struct
from collections import defaultdict

from tl.codegen import (
    HEADER,
    PRIMARY_LAYER,
    SKIP_NAMES,
    Emitter,
    Module,
    api_class_name,
    attr_name,
    emit_class,
)
from tl.parser import Combinator, TypeRef, api_schema, shipped_layers

LAYER_OBJ_WRITE = "_W[{v}.__class__]({v}, _b)"
LAYER_VEC_WRITE = "_wvo(_b, {v}, {bare})"
LAYER_OBJ_FN = "_wobj"


def _sig(c: Combinator) -> tuple:
    return (c.id, tuple((p.name, str(p.type), p.flag_field, p.flag_bit) for p in c.params))


def _object_types(t: TypeRef) -> list[str]:
    while t.item is not None:
        t = t.item
    if t.generic:
        return ["*"]
    if t.name in ("int", "long", "double", "string", "bytes", "int128", "int256", "Bool", "true", "#"):
        return []
    return [t.name]


def primary_ref(c: Combinator) -> str:
    """Python expression of the primary class for a combinator (in a layer module)."""
    root = "_fn" if c.is_function else "_t"
    ns = f".{c.namespace}" if c.namespace else ""
    return f"{root}{ns}.{api_class_name(c)}"


class LayerPlan:
    def __init__(self, layer: int) -> None:
        self.layer = layer
        prim = api_schema(PRIMARY_LAYER)
        old = api_schema(layer)
        self.prim = {c.name: c for c in prim.all() if c.name not in SKIP_NAMES}
        self.old = {c.name: c for c in old.all() if c.name not in SKIP_NAMES}
        self.old_by_type: dict[str, list[Combinator]] = defaultdict(list)
        for c in old.constructors:
            if c.name not in SKIP_NAMES:
                self.old_by_type[c.result].append(c)
        prim_by_type: dict[str, list[Combinator]] = defaultdict(list)
        for c in prim.constructors:
            if c.name not in SKIP_NAMES:
                prim_by_type[c.result].append(c)
        self.missing = [n for n in self.prim if n not in self.old]
        self.changed = [n for n in self.prim if n in self.old and _sig(self.prim[n]) != _sig(self.old[n])]
        self.old_only = [n for n in self.old if n not in self.prim]
        # Classes whose writing differs in L: they differ themselves or can hold a
        # value that does.
        affected = set(self.missing) | set(self.changed)
        while True:
            bad_types = {t for t, cs in prim_by_type.items() if any(c.name in affected for c in cs)}
            grown = {
                n
                for n, c in self.prim.items()
                if n not in affected
                and any(x == "*" or x in bad_types for p in c.params for x in _object_types(p.type))
            }
            if not grown:
                break
            affected |= grown
        self.affected = [n for n in self.prim if n in affected]

    def stand_in_for_type(self, type_name: str) -> Combinator | None:
        cands = [
            c
            for c in self.old_by_type.get(type_name, [])
            if (c.name.endswith("Unsupported") or c.name.endswith("Empty"))
            and all(p.flag_field is not None or p.is_flags or not _object_types(p.type) for p in c.params)
        ]
        cands.sort(key=lambda c: (not c.name.endswith("Unsupported"), len(c.params)))
        return cands[0] if cands else None


def _zero_bytes(c: Combinator) -> bytes:
    out = bytearray(struct.pack("<I", c.id))
    for p in c.params:
        if p.is_flags:
            out += bytes(4)
        elif p.flag_field is not None:
            continue
        elif p.type.item is not None:
            out += struct.pack("<Ii", 0x1CB5C415, 0) if not p.type.bare else bytes(4)
        elif p.type.name in ("int",):
            out += bytes(4)
        elif p.type.name in ("long", "double"):
            out += bytes(8)
        elif p.type.name in ("string", "bytes"):
            out += bytes(4)
        elif p.type.name == "int128":
            out += bytes(16)
        elif p.type.name == "int256":
            out += bytes(32)
        elif p.type.name == "Bool":
            out += struct.pack("<I", 0xBC799737)
        else:  # pragma: no cover - excluded by stand_in_for_type
            raise ValueError(c.name)
    return bytes(out)


def generate_layer(layer: int) -> str:
    plan = LayerPlan(layer)
    mod = Module()
    e = mod.emit
    fallback: dict[str, str | None] = {}
    for tname in sorted(
        {t for c in plan.old.values() for p in c.params for t in _object_types(p.type)} - {"*"}
    ):
        sc = plan.stand_in_for_type(tname)
        fallback[tname] = None if sc is None else f"_b += {_zero_bytes(sc)!r}"
    missing_types = frozenset(plan.prim[n].result for n in plan.missing if not plan.prim[n].is_function)
    opts = {
        "missing_types": missing_types,
        "obj_write": LAYER_OBJ_WRITE,
        "vec_obj_write": LAYER_VEC_WRITE,
        "obj_fn": LAYER_OBJ_FN,
        "fallback": fallback,
    }
    writers: list[tuple[str, str]] = []
    readers: list[tuple[int, str]] = []
    for i, name in enumerate(plan.affected):
        pc = plan.prim[name]
        fields = [p for p in pc.params if not p.is_flags]
        optional = frozenset(attr_name(p.name) for p in fields if p.flag_field is not None)
        fn = f"_w{i}"
        e()
        e()
        e(f"def {fn}(_o, _b):")
        oc = plan.old.get(name)
        if oc is None:
            sc = plan.stand_in_for_type(pc.result) if not pc.is_function else None
            if sc is None:
                e(f"    raise EncodeError({f'{name} has no equivalent in layer {layer}'!r})")
            else:
                names = {p.name for p in fields}
                attrs = {p.name: attr_name(p.name) for p in sc.params if p.name in names and not p.is_flags}
                em = Emitter(mod, sc, sc.params, attrs, {}, optional_attrs=optional, **opts)
                for s in em.write_body(sc.id) or ["pass"]:
                    e("    " + s)
        else:
            names = {p.name for p in fields}
            attrs = {p.name: attr_name(p.name) for p in oc.params if p.name in names and not p.is_flags}
            em = Emitter(mod, oc, oc.params, attrs, {}, optional_attrs=optional, **opts)
            for s in em.write_body(oc.id) or ["pass"]:
                e("    " + s)
        writers.append((primary_ref(pc), fn))
    for i, name in enumerate(plan.changed):
        pc, oc = plan.prim[name], plan.old[name]
        fields = [p for p in pc.params if not p.is_flags]
        names = {p.name for p in fields}
        attrs = {p.name: attr_name(p.name) for p in oc.params if p.name in names and not p.is_flags}
        defaults = {}
        for p in fields:
            a = attr_name(p.name)
            if p.is_true_flag:
                defaults[a] = "False"
            elif p.flag_field is not None:
                defaults[a] = "None"
            else:
                z = Emitter(mod, pc, [], {}, {}).zero_value(p.type)
                defaults[a] = z
        em = Emitter(mod, oc, oc.params, attrs, {}, **opts)
        fn = f"_r{i}"
        cref = f"_C{i}"
        e()
        e()
        e(f"def {fn}(_r):")
        e(f"    _o = _new({cref})")
        for s in em.read_body(defaults):
            e("    " + s)
        e("    return _o")
        e(f"{cref} = {primary_ref(pc)}")
        readers.append((oc.id, fn))
    old_only_classes = []
    for name in plan.old_only:
        oc = plan.old[name]
        cls = (
            "Layer" + api_class_name(oc)
            if not oc.namespace
            else "Layer" + oc.namespace.capitalize() + api_class_name(oc)
        )
        emit_class(mod, oc, cls, {}, with_bare=False, **opts)
        old_only_classes.append(cls)
        readers.append((oc.id, f"{cls}.read"))
    return render_layer_module(mod, layer, plan, writers, readers, old_only_classes)


LAYER_PRELUDE = """\
from tl.gen import functions as _fn
from tl.gen import types as _t
"""

LAYER_TAIL = """

class _Writers(dict):
    # Classes not listed write themselves: nothing in them differs in this layer.
    def __missing__(self, cls):
        if issubclass(cls, (bytes, bytearray, memoryview)):
            fn = _write_raw
        else:
            fn = cls._write
        self[cls] = fn
        return fn


def _write_raw(_o, _b):
    _b += _o


def _wobj(_b, _x):
    _W[_x.__class__](_x, _b)


def _wvo(_b, _v, _bare):
    # Items this layer has no constructor for are left out of the vector.
    _v = [_x for _x in _v if _x.__class__ not in _MISSING]
    if not _bare:
        _b += VECTOR_BYTES
    _b += pack_i(len(_v))
    _w = _W
    for _x in _v:
        _w[_x.__class__](_x, _b)


_W = _Writers()
"""


def render_layer_module(mod, layer, plan, writers, readers, old_only_classes) -> str:
    from tl.codegen import PRELUDE

    head = [
        HEADER
        + f'"""Translation between layer {PRIMARY_LAYER} (primary) and layer {layer}; see tl/layergen.py."""',
        "",
        "# ruff: noqa",
        PRELUDE.replace("    EncodeError,", "    EncodeError,\n    VECTOR_BYTES,"),
        LAYER_PRELUDE,
    ]
    for fmt, name in mod.structs.items():
        head.append(f"{name} = Struct({fmt!r})")
    head.append(LAYER_TAIL)
    tail = ["", "", "LAYER = " + str(layer)]
    tail.append("WRITERS = _W")
    for ref, fn in writers:
        tail.append(f"_W[{ref}] = {fn}")
    missing_refs = ", ".join(primary_ref(plan.prim[n]) for n in plan.missing)
    tail.append(f"_MISSING = frozenset(({missing_refs}{',' if plan.missing else ''}))")
    tail.append("READERS = {")
    for cid, fn in readers:
        tail.append(f"    0x{cid:08x}: {fn},")
    tail.append("}")
    tail.append("__all__ = [" + ", ".join(repr(c) for c in old_only_classes) + "]")
    return "\n".join(head + mod.lines + tail) + "\n"


def generate_layers() -> dict[str, str]:
    return {f"layer{n}.py": generate_layer(n) for n in shipped_layers() if n != PRIMARY_LAYER}


def equivalence_table() -> str:
    """The README table of what an older layer lacks and what the translation does."""
    rows: dict[tuple[str, str], list[int]] = defaultdict(list)
    for layer in sorted(n for n in shipped_layers() if n != PRIMARY_LAYER):
        plan = LayerPlan(layer)
        for name in plan.changed:
            pc, oc = plan.prim[name], plan.old[name]
            pf = {p.name: p for p in pc.params if not p.is_flags}
            of = {p.name: p for p in oc.params if not p.is_flags}
            new = [n for n in pf if n not in of]
            gone = [n for n in of if n not in pf]
            retyped = [n for n in pf if n in of and str(pf[n].type) != str(of[n].type)]
            made_optional = [
                n for n in pf if n in of and pf[n].flag_field is not None and of[n].flag_field is None
            ]
            parts = []
            if new:
                parts.append(
                    "229-only fields " + ", ".join(f"`{n}`" for n in new) + ": not sent; None/False when read"
                )
            if gone:
                parts.append(
                    "old-only fields "
                    + ", ".join(f"`{n}`" for n in gone)
                    + ": dropped when read; zero/empty (or the type's stand-in) when sent"
                )
            if retyped:
                parts.append(
                    "retyped "
                    + ", ".join(f"`{n}` ({of[n].type} -> {pf[n].type})" for n in retyped)
                    + ": items the old layer lacks are dropped"
                )
            if made_optional:
                parts.append(
                    "optional in 229, required in the old layer: "
                    + ", ".join(f"`{n}`" for n in made_optional)
                    + " (zero value when None)"
                )
            if not parts:
                parts.append("new constructor id only")
            rows[(f"`{name}`", "; ".join(parts))].append(layer)
        by_type: dict[str, list[str]] = defaultdict(list)
        for name in plan.missing:
            c = plan.prim[name]
            if c.is_function:
                continue
            by_type[c.result].append(name)
        for tname, names in sorted(by_type.items()):
            sc = plan.stand_in_for_type(tname)
            action = (
                f"dropped from vectors; elsewhere sent as `{sc.name}`"
                if sc
                else "dropped from vectors, omitted from optional fields; elsewhere `EncodeError`"
            )
            rows[(f"new `{tname}` constructors ({len(names)})", action)].append(layer)
        for name in plan.old_only:
            rows[
                (
                    f"`{name}` (dropped in 229)",
                    "read into `tl.gen.layer<N>.Layer...` classes; handlers see no 229 class",
                )
            ].append(layer)
        fn_missing = [n for n in plan.missing if plan.prim[n].is_function]
        if fn_missing:
            rows[
                (
                    "229-only functions",
                    "not in the old layer's id table: a client of that layer cannot send them",
                )
            ].append(layer)
    lines = ["| constructor / case | layers | what the translation does |", "|---|---|---|"]
    for (what, action), ls in rows.items():
        lines.append(f"| {what} | {', '.join(map(str, ls))} | {action} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(equivalence_table(), end="")
