"""Test helpers driven by the schemas alone, independent of the generated code.

- ``TreeGen``: random value trees for any combinator of a layer (``{"_": name, field:
  value}``; bytes as ``bytes``).
- ``ref_encode``: a slow, interpretive encoder of such a tree for a layer, straight
  from the parsed schema: the reference the generated writers are checked against.
- ``build_ours``: the tree as objects of our classes (primary classes; old-only
  constructors as the layer module's classes), with the defaults the decoder uses.
"""

from __future__ import annotations

import random
import struct
from functools import cache

from tl import functions, types
from tl.codegen import SKIP_NAMES, api_class_name, attr_name
from tl.parser import PRIMITIVES, Combinator, TypeRef, api_schema

PRIMARY = 229
TEXTS = ["", "a", "hello world", "привет 👋", "x" * 300, "tab\tnew\nline"]


class Int128(bytes):
    """int128/int256 values (bytes for us, ints for Telethon)."""


@cache
def schema_maps(layer: int):
    s = api_schema(layer)
    by_name = {c.name: c for c in s.all() if c.name not in SKIP_NAMES}
    by_type: dict[str, list[Combinator]] = {}
    for c in s.constructors:
        if c.name not in SKIP_NAMES:
            by_type.setdefault(c.result, []).append(c)
    return by_name, by_type


def _object_fields(c: Combinator) -> int:
    return sum(
        1 for p in c.params if p.flag_field is None and not p.is_flags and p.type.name not in PRIMITIVES
    )


class TreeGen:
    """Random trees for ``layer``. With ``common_only``, nested constructors and fields
    are limited to those the primary layer also has (so our objects can carry them)."""

    def __init__(
        self,
        layer: int,
        seed: int = 0,
        common_only: bool = True,
        max_depth: int = 4,
        avoid: frozenset[str] = frozenset(),
    ) -> None:
        self.layer = layer
        self.avoid = avoid
        self.rng = random.Random(seed)
        self.by_name, self.by_type = schema_maps(layer)
        self.prim, _ = schema_maps(PRIMARY)
        self.common_only = common_only
        self.max_depth = max_depth

    def _prim_fields(self, name: str) -> set[str] | None:
        # Fields the primary class carries: same name, and the same type (a `true`
        # flag standing for an optional Bool).
        c = self.prim.get(name)
        if c is None:
            return None
        mine = {p.name: str(p.type) for p in self.by_name[name].params}
        return {
            p.name
            for p in c.params
            if p.name in mine
            and (mine[p.name] == str(p.type) or {mine[p.name], str(p.type)} == {"true", "Bool"})
        }

    def _prim_required(self, name: str, field: str) -> bool:
        c = self.prim.get(name)
        return c is not None and any(p.name == field and p.flag_field is None for p in c.params)

    def _prim_is_true_flag(self, name: str, field: str) -> bool:
        c = self.prim.get(name)
        return c is not None and any(p.name == field and p.is_true_flag for p in c.params)

    def candidates(self, type_name: str) -> list[Combinator]:
        cands = [c for c in self.by_type.get(type_name, []) if c.name not in self.avoid]
        if self.common_only:
            cands = [c for c in cands if c.name in self.prim]
        return cands

    def tree(self, comb: Combinator, depth: int = 0) -> dict:
        rng = self.rng
        out: dict = {"_": comb.name}
        prim_fields = self._prim_fields(comb.name)
        groups: dict[tuple[str, int], bool] = {}
        for p in comb.params:
            if p.is_flags:
                continue
            in_prim = prim_fields is None or p.name in prim_fields
            if p.flag_field is not None:
                key = (p.flag_field, p.flag_bit)
                if key not in groups:
                    # A field the primary layer requires is always there in our objects.
                    groups[key] = (depth < self.max_depth and rng.random() < 0.6) or (
                        in_prim and self._prim_required(comb.name, p.name)
                    )
                if not groups[key] or not in_prim:
                    if p.is_true_flag:
                        out[p.name] = False
                    continue
                if p.is_true_flag or self._prim_is_true_flag(comb.name, p.name):
                    # (A primary `true` flag can only say True to an old optional Bool.)
                    out[p.name] = True
                else:
                    out[p.name] = self.value(p.type, depth + 1, p.name, comb)
                continue
            if not in_prim:
                out[p.name] = zero(p.type)
                continue
            out[p.name] = self.value(p.type, depth + 1, p.name, comb)
        return out

    def value(self, t: TypeRef, depth: int, field: str, parent: Combinator):
        rng = self.rng
        if t.item is not None:
            n = 0 if depth > self.max_depth else rng.randint(0, 2)
            return [self.value(t.item, depth + 1, field, parent) for _ in range(n)]
        n = t.name
        if n == "int":
            if parent.name == "invokeWithLayer" and field == "layer":
                return self.layer
            # Not 0: Telethon reads a 0 date as None and would drop an optional one.
            return rng.randint(1, 2**31 - 1)
        if n == "long":
            if field.endswith("id"):
                # Telethon's patched Message rewrites negative (marked) peer ids.
                return rng.randint(1, 2**52)
            return rng.randint(-(2**63), 2**63 - 1)
        if n == "double":
            return rng.choice([0.0, 0.5, -2.25, 1e10, 3.125])
        if n == "string":
            return rng.choice(TEXTS)
        if n == "bytes":
            return rng.randbytes(rng.choice([0, 1, 3, 253, 254, 300]))
        if n == "int128":
            return Int128(rng.randbytes(16))
        if n == "int256":
            return Int128(rng.randbytes(32))
        if n == "Bool":
            return rng.random() < 0.5
        if t.generic:
            return self.tree(self.by_name["help.getConfig"], depth)
        cands = self.candidates(n)
        if not cands:
            raise LookupError(f"no constructor of {n} in layer {self.layer}")
        if depth >= self.max_depth:
            least = min(_object_fields(c) for c in cands)
            cands = [c for c in cands if _object_fields(c) == least]
        return self.tree(rng.choice(cands), depth)


def zero(t: TypeRef):
    if t.item is not None:
        return []
    return {
        "int": 0,
        "long": 0,
        "double": 0.0,
        "string": "",
        "bytes": b"",
        "Bool": False,
        "int128": bytes(16),
        "int256": bytes(32),
    }.get(t.name)


# --- reference encoder -----------------------------------------------------------------


def _ref_bytes(out: bytearray, data: bytes) -> None:
    n = len(data)
    if n < 254:
        out += bytes([n]) + data + bytes(-(n + 1) % 4)
    else:
        out += bytes([254]) + n.to_bytes(3, "little") + data + bytes(-n % 4)


def ref_encode(tree: dict, layer: int) -> bytes:
    out = bytearray()
    _ref_obj(out, tree, layer, boxed=True)
    return bytes(out)


def _ref_obj(out: bytearray, tree: dict, layer: int, boxed: bool) -> None:
    by_name, _ = schema_maps(layer)
    c = by_name[tree["_"]]
    if boxed:
        out += struct.pack("<I", c.id)
    words: dict[str, int] = {}
    for p in c.params:
        if p.is_flags:
            word = 0
            for q in c.params:
                if q.flag_field == p.name:
                    v = tree.get(q.name)
                    if (v is True) if q.is_true_flag else (v is not None):
                        word |= 1 << q.flag_bit
            words[p.name] = word
            out += struct.pack("<I", word)
            continue
        if p.is_true_flag:
            continue
        v = tree.get(p.name)
        if p.flag_field is not None and v is None:
            # Two fields on one bit: the bit set for one, the other goes as zero.
            if not words[p.flag_field] & (1 << p.flag_bit) or zero(p.type) is None:
                continue
            v = zero(p.type)
        _ref_value(out, p.type, v, layer)


def _ref_value(out: bytearray, t: TypeRef, v, layer: int) -> None:
    if t.item is not None:
        if not t.bare:
            out += struct.pack("<I", 0x1CB5C415)
        out += struct.pack("<i", len(v))
        for x in v:
            _ref_value(out, t.item, x, layer)
        return
    n = t.name
    if n == "int":
        out += struct.pack("<i", v)
    elif n == "long":
        out += struct.pack("<q", v)
    elif n == "double":
        out += struct.pack("<d", v)
    elif n == "string":
        _ref_bytes(out, v.encode())
    elif n == "bytes":
        _ref_bytes(out, v)
    elif n in ("int128", "int256"):
        out += v
    elif n == "Bool":
        out += struct.pack("<I", 0x997275B5 if v else 0xBC799737)
    else:
        _ref_obj(out, v, layer, boxed=True)


# --- our objects -----------------------------------------------------------------------


@cache
def class_of(name: str, layer: int):
    prim, _ = schema_maps(PRIMARY)
    c = prim.get(name)
    if c is None:
        from tl import layers

        old, _ = schema_maps(layer)
        return layers.old_class(layer, name), old[name]
    root = functions if c.is_function else types
    if c.namespace:
        root = getattr(root, c.namespace)
    return getattr(root, api_class_name(c)), c


def build_ours(tree: dict, layer: int):
    from types import SimpleNamespace

    from tl import translate

    theirs = {p.name: str(p.type) for p in schema_maps(layer)[0][tree["_"]].params}
    folded = translate.fold_target(tree["_"])
    if folded and translate.FOLDED[folded[0]][0] not in theirs:
        # A per-kind constructor of a layer before the fold (keyboardButtonUrl) is the
        # folded pair (keyboardInlineButton with an inlineButtonTypeUrl).
        fields = {attr_name(k): _build_value(v, layer) for k, v in tree.items() if k != "_"}
        return translate.unfold(SimpleNamespace(**fields), tree["_"])
    cls, comb = class_of(tree["_"], layer)
    kwargs = {}
    for p in comb.params:
        if p.is_flags:
            continue
        a = attr_name(p.name)
        t = theirs.get(p.name)
        if p.name in tree and (t == str(p.type) or {t, str(p.type)} == {"true", "Bool"}):
            kwargs[a] = _build_value(tree[p.name], layer)
        elif p.name in tree and t == "string" and str(p.type) == "TextWithEntities" and p.flag_field is None:
            # A plain string where the primary layer has a TextWithEntities (a poll's
            # question and answers before layer 179): the text, no entities.
            kwargs[a] = types.TextWithEntities(text=tree[p.name], entities=[])
        elif p.name in tree and t is not None and translate._renamed(t) == translate._renamed(str(p.type)):
            # Inline keyboards' rows before layer 229 (RENAMED_TYPES).
            item = p.type.item if p.type.item is not None else p.type
            kwargs[a] = translate.as_renamed(
                _build_value(tree[p.name], layer), translate.tables(layer)._renamed_target(item.name)
            )
        elif (
            p.name == "correct_answers"
            and p.name in tree
            and {t, str(p.type)} == {"Vector<bytes>", "Vector<int>"}
        ):
            kwargs[a] = _build_value(tree[p.name], layer)  # a quiz's answer by its option bytes
        elif p.is_true_flag:
            kwargs[a] = False
        elif p.flag_field is not None:
            kwargs[a] = None
        else:
            kwargs[a] = zero(p.type)
    if (
        theirs.get("reply_to_msg_id") == "int"
        and "reply_to" not in theirs
        and str(next((p.type for p in comb.params if p.name == "reply_to"), "")) == "InputReplyTo"
        and tree.get("reply_to_msg_id") is not None
    ):
        # Before layer 160 a request's reply_to_msg_id is read as inputReplyToMessage.
        kwargs["reply_to"] = types.InputReplyToMessage(reply_to_msg_id=tree["reply_to_msg_id"])
    return cls(**kwargs)


def _build_value(v, layer: int):
    if isinstance(v, dict):
        return build_ours(v, layer)
    if isinstance(v, list):
        return [_build_value(x, layer) for x in v]
    return v


def to_json(v, layer: int):
    """A tree in the JSON form tests/tl/telethon_xcheck.py reads."""
    if isinstance(v, Int128):
        return {"$i": v.hex()}
    if isinstance(v, bytes):
        return {"$b": v.hex()}
    if isinstance(v, list):
        return [to_json(x, layer) for x in v]
    if isinstance(v, dict):
        out = {k: to_json(x, layer) for k, x in v.items()}
        if schema_maps(layer)[0][v["_"]].is_function:
            out["$fn"] = True
        return out
    return v
