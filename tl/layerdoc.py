"""The table of what older layers lack and what the translation does instead:
``tl/LAYERS.md``, written by ``python -m tl.layerdoc --write`` (``make regen`` runs it
after ``tl.codegen``; a test keeps it in sync). Built from ``tl/gen/layers_data.py``, no
schema file is parsed."""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

from tl.gen import layers_data as data
from tl.translate import FOLDED, RENAMED_TYPES, _renamed, fold_target, old_decl, primary_decl, tables

OLDER = tuple(sorted(data.LAYERS))


def ranges(layers: set[int] | list[int]) -> str:
    """Shipped layers as runs of consecutive shipped layers: ``150-198, 201``."""
    got = set(layers)
    runs: list[list[int]] = []
    for n in OLDER:
        if n in got:
            if runs and runs[-1][-1] == OLDER[OLDER.index(n) - 1]:
                runs[-1].append(n)
            else:
                runs.append([n])
    return ", ".join(str(r[0]) if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs)


def _field_rows() -> list[str]:
    lacks: dict[str, dict[str, set[int]]] = defaultdict(lambda: defaultdict(set))
    extra: dict[str, dict[str, set[int]]] = defaultdict(lambda: defaultdict(set))
    retyped: dict[str, dict[str, set[int]]] = defaultdict(lambda: defaultdict(set))
    optionality: dict[str, dict[str, set[int]]] = defaultdict(lambda: defaultdict(set))
    renamed: dict[str, dict[str, set[int]]] = defaultdict(lambda: defaultdict(set))
    ids: dict[str, set[int]] = defaultdict(set)
    for layer in OLDER:
        for i, j in data.LAYERS[layer][2]:
            pc, oc = primary_decl(i), old_decl(j)
            pf = {p.name: p for p in pc.params if not p.is_flags}
            of = {p.name: p for p in oc.params if not p.is_flags}
            if pc.id != oc.id:
                ids[pc.name].add(layer)
            for n, p in pf.items():
                if n not in of and n == FOLDED.get(pc.name, ("",))[0]:
                    continue  # the kind object: written as the per-kind constructor
                if n not in of:
                    lacks[pc.name][n].add(layer)
                elif str(p.type) != str(of[n].type) and _renamed(str(p.type)) == _renamed(str(of[n].type)):
                    renamed[pc.name][n].add(layer)
                elif str(p.type) != str(of[n].type) and {str(p.type), str(of[n].type)} != {"true", "Bool"}:
                    retyped[pc.name][n].add(layer)
                elif (p.flag_field is None) != (of[n].flag_field is None):
                    optionality[pc.name][n].add(layer)
            for n in of:
                if n not in pf:
                    extra[pc.name][n].add(layer)
    rows = []
    for name in sorted(set(lacks) | set(extra) | set(retyped) | set(optionality) | set(renamed) | set(ids)):
        parts = []
        if name in FOLDED:
            parts.append(
                f"folded: written as the layer's per-kind constructor named by the `{FOLDED[name][0]}` "
                "object's kind, read back into the pair"
            )
        if lacks[name]:
            parts.append(
                "not sent, None/False when read: "
                + "; ".join(f"`{f}` ({ranges(ls)})" for f, ls in lacks[name].items())
            )
        if retyped[name]:
            parts.append(
                "other type, not carried (not sent; None/zero when read): "
                + "; ".join(f"`{f}` ({ranges(ls)})" for f, ls in retyped[name].items())
            )
        if renamed[name]:
            parts.append(
                "carried as the older type of the same fields (`RENAMED_TYPES`): "
                + "; ".join(f"`{f}` ({ranges(ls)})" for f, ls in renamed[name].items())
            )
        if optionality[name]:
            parts.append(
                "optional in one, required in the other (sent as zero/empty when None): "
                + "; ".join(f"`{f}` ({ranges(ls)})" for f, ls in optionality[name].items())
            )
        if extra[name]:
            parts.append(
                "old-only, dropped when read, zero/empty (or stand-in) when sent: "
                + "; ".join(f"`{f}` ({ranges(ls)})" for f, ls in extra[name].items())
            )
        if not parts:
            parts.append("other constructor id only")
        rows.append(f"| `{name}` | {ranges(ids[name]) or '—'} | {'. '.join(parts)} |")
    return rows


def _kind_types() -> set[str]:
    from tl.translate import primary_index

    return {
        str(p.type)
        for name, (field, _, _) in FOLDED.items()
        for p in primary_decl(primary_index()[name]).params
        if p.name == field
    }


def _missing_rows() -> list[str]:
    by_type: dict[str, dict[str, set[int]]] = defaultdict(lambda: defaultdict(set))
    functions: set[int] = set()
    for layer in OLDER:
        missing = data.LAYERS[layer][0]
        for i in range(len(data.PRIMARY_LINES)):
            if missing >> i & 1:
                if i >= data.PRIMARY_FUNCTIONS_FROM:
                    functions.add(layer)
                    continue
                c = primary_decl(i)
                sc = tables(layer).stand_in(c.result)
                if c.name in FOLDED:
                    action = (
                        f"`{c.name}` is written as the layer's per-kind `{FOLDED[c.name][1]}...` constructor"
                    )
                elif c.result in RENAMED_TYPES and tables(layer)._renamed_decl(c) is not None:
                    action = f"written as the layer's `{RENAMED_TYPES[c.result]}` of the same fields"
                elif c.result in _kind_types():
                    action = "carried as the fields of the folded button's per-kind constructor"
                else:
                    action = (
                        f"dropped from vectors; elsewhere sent as `{sc.name}`"
                        if sc
                        else "dropped from vectors, omitted from optional fields; elsewhere `EncodeError`"
                    )
                by_type[c.result][action].add(layer)
    rows = []
    for tname in sorted(by_type):
        for action, ls in by_type[tname].items():
            rows.append(f"| newer `{tname}` constructors | {ranges(ls)} | {action} |")
    rows.append(
        f"| newer functions | {ranges(functions)} | not in the layer's id table: its clients cannot send them |"
    )
    return rows


def _old_only_rows() -> list[str]:
    where: dict[str, set[int]] = defaultdict(set)
    for layer in OLDER:
        for j in data.LAYERS[layer][3]:
            where[old_decl(j).name].add(layer)
    return [
        f"| `{n}` (dropped since) | {ranges(ls)} | read into `{fold_target(n)[0]}` with a `{fold_target(n)[1]}` "
        "(folded) |"
        if fold_target(n)
        else f"| `{n}` (dropped since) | {ranges(ls)} | read into `layers.old_class(layer, name)` classes; "
        "handlers see no primary class |"
        for n, ls in sorted(where.items())
    ]


def equivalence_table() -> str:
    lines = [
        f"| constructor / case | layers (of {ranges(OLDER)}) | what the translation does |",
        "|---|---|---|",
        *_field_rows(),
        *_missing_rows(),
        *_old_only_rows(),
    ]
    return "\n".join(lines) + "\n"


DOC = Path(__file__).resolve().parent / "LAYERS.md"
HEAD = """\
# What older layers lack, and what the translation does instead

Generated by `python -m tl.layerdoc --write` (`make regen`) from `tl/gen/layers_data.py`,
do not edit; the rules are in `README.md` ("Layers"). Layers are given as runs of the
shipped ones (`150-198` = every shipped layer from 150 to 198).

"""


def render() -> str:
    return HEAD + equivalence_table()


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        DOC.write_text(render(), encoding="utf-8")
    else:
        print(render(), end="")
