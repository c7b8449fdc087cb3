"""Writers and readers between the primary layer and an older one, built from
``tl/gen/layers_data.py`` when first needed.

For a layer L, ``tables(L)`` gives:

- ``writers``: primary class -> ``fn(obj, buf)`` writing the object as a client of L
  expects it (L's constructor id, only the fields L has, flags recomputed from L's bit
  positions). Classes that do not differ in L, and cannot contain anything that does,
  write themselves (their own generated ``_write``);
- ``registry``: constructor id -> reader for ``tl.runtime.Reader``: the primary table,
  with L's ids of changed constructors read into primary classes and the constructors L
  has and the primary layer dropped read into classes of their own (``old_class``).

Nothing is compiled up front: a writer or reader is generated (``tl.emit``, the same
emitter as the primary classes) and compiled the first time a class or id is met in
that layer; identical function source is compiled once for all layers. Rules where L
has no equivalent (tl/README.md, "Layers"):

- a primary constructor missing in L, inside a vector: the item is dropped; in an
  optional field: the field is omitted; in a required field: L's
  ``...Unsupported``/``...Empty`` constructor of that type (fields copied by name),
  else ``EncodeError``;
- a field L requires but the primary object lacks: zero / empty value, or the stand-in
  constructor above for boxed types;
- read from L, a primary field L lacks is ``None`` (``False`` for flags, zero/empty for
  required fields);
- a constructor the primary layer folded into one with a kind object (``FOLDED``) is
  written as L's per-kind constructor (fields taken from both objects by name) and read
  back into the folded pair; a type the primary layer split off under a new name
  (``RENAMED_TYPES``) is written as L's constructor of the old type with the same fields.
"""

from __future__ import annotations

import re
import struct
from functools import cache
from types import FunctionType

from tl import runtime
from tl.emit import PRELUDE, Emitter, Module, api_class_name, attr_name, emit_class
from tl.gen import functions as gen_functions
from tl.gen import layers_data as data
from tl.gen import types as gen_types
from tl.layerdata import primary_line
from tl.parser import SCHEMA_DIR, Combinator, Param, parse_line

PRIMARY = data.PRIMARY
OBJ_WRITE = "_W[{v}.__class__]({v}, _b)"
VEC_OBJ_WRITE = "_wvo(_b, {v}, {bare})"
OBJ_FN = "_wobj"

# Globals of every layer's compiled functions; `_W` (this layer's writers) and
# `_MISSING` (primary classes it lacks) are set per layer.
_LAYER_GLOBALS = (
    PRELUDE.replace("from __future__ import annotations\n", "")
    + """
from tl.runtime import VECTOR_BYTES


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
"""
)

# Layer 229 folded the per-kind constructors of a type into one constructor with an
# object naming the kind: keyboardButtonUrl{style, text, url} became
# keyboardInlineButton{style, text, type: inlineButtonTypeUrl{url}}. Older layers know
# the per-kind constructors only. Primary constructor -> (its kind field, the name
# prefix of the older per-kind constructors, the name prefix of the kind constructors);
# the kind's suffix pairs them (``...Url`` with ``...Url``, ``input...`` with
# ``input...``, ``...Default`` with the bare prefix).
FOLDED = {
    "keyboardButton": ("type", "keyboardButton", "buttonType"),
    "keyboardInlineButton": ("type", "keyboardButton", "inlineButtonType"),
}
# Primary types older layers carried as another type with the same fields (layer 229
# gave inline keyboards rows of their own).
RENAMED_TYPES = {"KeyboardInlineButtonRow": "KeyboardButtonRow", "KeyboardInlineButton": "KeyboardButton"}
_DEFAULT_KIND = "Default"

# Function source -> code object, shared by every layer whose function reads the same.
_CODE: dict[str, object] = {}


@cache
def primary_texts() -> tuple[str, ...]:
    """The primary declarations (``PRIMARY_LINES`` of the primary schema file)."""
    lines = (SCHEMA_DIR / f"api-{PRIMARY}.tl").read_text(encoding="utf-8").splitlines()
    return tuple(primary_line(lines[n - 1]) for n in data.PRIMARY_LINES)


@cache
def primary_decl(i: int) -> Combinator:
    return parse_line(primary_texts()[i], i >= data.PRIMARY_FUNCTIONS_FROM, f"api-{PRIMARY}.tl", 0)


@cache
def old_decl(j: int) -> Combinator:
    return parse_line(data.OLD_DECLS[j], j in data.OLD_FUNCTIONS, "layers_data", 0)


def _decl_name(text: str) -> str:
    return text.split("#", 1)[0]


def _decl_result(text: str) -> str:
    return text.rpartition("=")[2].strip()


@cache
def primary_classes() -> dict[str, type]:
    """TL name -> generated primary class."""
    out: dict[str, type] = {}
    for root in (gen_types, gen_functions):
        mods = [root] + [getattr(root, ns) for ns in root.__all__ if not ns[:1].isupper()]
        for mod in mods:
            for name in mod.__all__:
                cls = getattr(mod, name)
                if isinstance(cls, type):
                    out[cls.TL_NAME] = cls
    return out


@cache
def primary_index() -> dict[str, int]:
    return {_decl_name(t): i for i, t in enumerate(primary_texts())}


def _bits(n: int) -> list[int]:
    out = []
    i = 0
    while n:
        if n & 1:
            out.append(i)
        n >>= 1
        i += 1
    return out


class _SharedModule(Module):
    # Struct names that depend on the format only, so that equal function source
    # means an equal function in every layer.
    def struct(self, fmt: str) -> str:
        name = self.structs.get(fmt)
        if name is None:
            name = self.structs[fmt] = "_S_" + fmt.lstrip("<")
        return name


class _Writers(dict):
    def __init__(self, tables: LayerTables) -> None:
        super().__init__()
        self.tables = tables

    def __missing__(self, cls):
        fn = self.tables.make_writer(cls)
        self[cls] = fn
        return fn


def _zero_bytes(c: Combinator) -> bytes:
    out = bytearray(struct.pack("<I", c.id))
    for p in c.params:
        if p.is_flags:
            out += bytes(4)
        elif p.flag_field is not None:
            continue
        elif p.type.item is not None:
            out += struct.pack("<Ii", runtime.VECTOR_ID, 0) if not p.type.bare else bytes(4)
        elif p.type.name in ("int", "string", "bytes"):
            out += bytes(4)
        elif p.type.name in ("long", "double"):
            out += bytes(8)
        elif p.type.name == "int128":
            out += bytes(16)
        elif p.type.name == "int256":
            out += bytes(32)
        elif p.type.name == "Bool":
            out += runtime.FALSE_BYTES
        else:  # pragma: no cover - excluded by LayerTables.stand_in
            raise ValueError(c.name)
    return bytes(out)


def _has_no_required_objects(c: Combinator) -> bool:
    prims = ("int", "long", "double", "string", "bytes", "int128", "int256", "Bool")
    return all(
        p.is_flags or p.flag_field is not None or p.type.item is not None or p.type.name in prims
        for p in c.params
    )


def _renamed(t: str) -> str:
    for new, old in RENAMED_TYPES.items():
        t = re.sub(rf"\b{new}\b", old, t)
    return t


def _same_kind(a: Param, b: Param) -> bool:
    # A `true` flag and an optional Bool say the same; any other change of type (an
    # int that became a RecentStory, a string that became a vector) is a different
    # field under the old name: not carried across.
    ta, tb = str(a.type), str(b.type)
    if a.name == "correct_answers" and {ta, tb} == {"Vector<int>", "Vector<bytes>"}:
        # inputMediaPoll (client to server only): before layer 204 a quiz named its
        # correct answer by option bytes, since by index; polls_app reads either.
        return True
    return ta == tb or {ta, tb} == {"true", "Bool"} or _renamed(ta) == _renamed(tb)


def _common_attrs(pc: Combinator, oc: Combinator) -> dict[str, str]:
    """``oc``'s fields the primary class carries: TL name -> attribute."""
    prim = {p.name: p for p in pc.params if not p.is_flags}
    return {
        p.name: attr_name(p.name)
        for p in oc.params
        if not p.is_flags and p.name in prim and _same_kind(prim[p.name], p)
    }


class _PlainText:
    """An object as a layer that had plain strings for some of its TextWithEntities
    fields sees it: those read as their text ("" when unset)."""

    __slots__ = ("_names", "_obj")

    def __init__(self, obj, names: frozenset) -> None:
        self._obj, self._names = obj, names

    def __getattr__(self, name: str):
        value = getattr(self._obj, name)
        if name in self._names:
            return value.text if value is not None else ""
        return value


def _plain_texts(pc: Combinator, oc: Combinator) -> list[str]:
    """Required fields that were a plain string in ``oc`` and are a TextWithEntities in
    the primary layer (a poll's question and answers before layer 179): carried as the
    text, without entities."""
    prim = {p.name: p for p in pc.params if not p.is_flags and p.flag_field is None}
    return [
        p.name
        for p in oc.params
        if p.flag_field is None
        and str(p.type) == "string"
        and p.name in prim
        and str(prim[p.name].type) == "TextWithEntities"
    ]


def _replies_by_id(pc: Combinator, oc: Combinator) -> bool:
    prim = {p.name: str(p.type) for p in pc.params}
    old = {p.name: str(p.type) for p in oc.params}
    return (
        old.get("reply_to_msg_id") == "int"
        and "reply_to_msg_id" not in prim
        and "reply_to" not in old
        and prim.get("reply_to") == "InputReplyTo"
    )


class _Folded:
    """A folded object (``FOLDED``) as the per-kind constructor of an older layer sees
    it: its own fields, then its kind object's."""

    __slots__ = ("_kind", "_obj")

    def __init__(self, obj, field: str) -> None:
        self._obj, self._kind = obj, getattr(obj, field)

    def __getattr__(self, name: str):
        if name in self._obj._FIELDS:
            return getattr(self._obj, name)
        return getattr(self._kind, name)


def _kind_suffix(kind_name: str, kind_prefix: str) -> tuple[bool, str] | None:
    """(is an input kind, suffix) of a kind constructor: inputInlineButtonTypeUrlAuth
    -> (True, "UrlAuth") under the prefix inlineButtonType."""
    is_input = kind_name.startswith("input")
    base = kind_name[len("input") :] if is_input else kind_name
    base = base[:1].lower() + base[1:]
    if not base.startswith(kind_prefix) or base == kind_prefix:
        return None
    return is_input, base[len(kind_prefix) :]


def _prefixed(is_input: bool, name: str) -> str:
    return "input" + name[:1].upper() + name[1:] if is_input else name


def _per_kind_name(old_prefix: str, is_input: bool, suffix: str) -> str:
    return _prefixed(is_input, old_prefix + ("" if suffix == _DEFAULT_KIND else suffix))


@cache
def fold_target(old_name: str) -> tuple[str, str] | None:
    """(folded primary constructor, kind constructor) an older per-kind constructor is
    read into; None when it is not one."""
    idx = primary_index()
    for folded, (_field, old_prefix, kind_prefix) in FOLDED.items():
        parsed = _kind_suffix(old_name, old_prefix)
        if parsed is None and old_name == old_prefix:
            parsed = (False, _DEFAULT_KIND)
        if parsed is None:
            continue
        kind = _prefixed(parsed[0], kind_prefix + parsed[1])
        if kind in idx:
            return folded, kind
    return None


_ZERO_VALUES = {
    "[]": [],
    "0": 0,
    "0.0": 0.0,
    "''": "",
    "b''": b"",
    "False": False,
    "bytes(16)": bytes(16),
    "bytes(32)": bytes(32),
}


def _field_defaults(c: Combinator) -> dict[str, object]:
    zero = Emitter(Module(), c, [], {}, {})
    out: dict[str, object] = {}
    for p in c.params:
        if p.is_flags:
            continue
        if p.is_true_flag:
            out[attr_name(p.name)] = False
        elif p.flag_field is not None:
            out[attr_name(p.name)] = None
        else:
            out[attr_name(p.name)] = _ZERO_VALUES.get(zero.zero_value(p.type))
    return out


def _carry(cls: type, c: Combinator, src) -> object:
    """A ``cls`` with ``src``'s fields of the same name (defaults for the others)."""
    obj = cls.__new__(cls)
    for a, default in _field_defaults(c).items():
        setattr(obj, a, getattr(src, a, default))
    return obj


def unfold(obj, old_name: str):
    """An older layer's per-kind object (read into its own class) as the primary
    folded pair: keyboardButtonUrl -> keyboardInlineButton(type=inlineButtonTypeUrl)."""
    folded, kind = fold_target(old_name)
    classes, idx = primary_classes(), primary_index()
    out = _carry(classes[folded], primary_decl(idx[folded]), obj)
    setattr(out, attr_name(FOLDED[folded][0]), _carry(classes[kind], primary_decl(idx[kind]), obj))
    return out


def as_renamed(value, cls: type):
    """``value`` (an object or a list of them, read as an older layer's type) as
    ``cls``, the primary type's constructor with the same fields."""
    if value is None:
        return None
    if isinstance(value, list):
        return [as_renamed(x, cls) for x in value]
    if isinstance(value, cls) or getattr(value, "_FIELDS", None) != cls._FIELDS:
        return value
    obj = cls.__new__(cls)
    for a in cls._FIELDS:
        setattr(obj, a, getattr(value, a))
    return obj


def _true_attrs(pc: Combinator) -> frozenset[str]:
    return frozenset(attr_name(p.name) for p in pc.params if p.is_true_flag)


class LayerTables:
    """The translation tables of one older layer (see the module docstring)."""

    def __init__(self, layer: int) -> None:
        missing, affected, changed, old_only = data.LAYERS[layer]
        self.layer = layer
        classes = primary_classes()
        self._missing_idx = frozenset(_bits(missing))
        self._affected_idx = frozenset(_bits(affected))
        self._changed = dict(changed)
        self._old_only = old_only
        names = [_decl_name(t) for t in primary_texts()]
        self.missing_classes = frozenset(classes[names[i]] for i in self._missing_idx)
        self._affected_classes = {classes[names[i]]: i for i in self._affected_idx}
        self.missing_types = frozenset(
            _decl_result(primary_texts()[i]) for i in self._missing_idx if i < data.PRIMARY_FUNCTIONS_FROM
        )
        self._fallbacks: dict[str, str | None] = {}
        self._old_classes: dict[str, type] = {}
        self.ns: dict = {}
        exec(_LAYER_GLOBALS, self.ns)
        self.writers = _Writers(self)
        self.ns["_W"] = self.writers
        # Folded and renamed classes this layer has an older form of are written in it.
        self.ns["_MISSING"] = frozenset(c for c in self.missing_classes if not self._older_form(c.TL_NAME))
        self.ns["_fn"] = gen_functions
        self.ns["_t"] = gen_types
        self.registry: dict = dict(runtime.REGISTRY)
        for i, j in changed:
            self._lazy_reader(old_decl(j).id, self._changed_reader, i, j)
        for j in old_only:
            self._lazy_reader(old_decl(j).id, self._old_only_reader, j)
        for j in self._fold_readers():
            self._lazy_reader(old_decl(j).id, self._fold_reader, j)

    # -- what this layer has ---------------------------------------------------------

    def decl(self, name: str) -> Combinator | None:
        """This layer's declaration of ``name`` (None: it has none)."""
        i = primary_index().get(name)
        if i is not None:
            if i in self._missing_idx:
                return None
            j = self._changed.get(i)
            return primary_decl(i) if j is None else old_decl(j)
        for j in self._old_only:
            if _decl_name(data.OLD_DECLS[j]) == name:
                return old_decl(j)
        return None

    @cache  # noqa: B019 - one LayerTables per layer, kept for the process's life
    def _by_type(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for i, text in enumerate(primary_texts()[: data.PRIMARY_FUNCTIONS_FROM]):
            if i not in self._missing_idx:
                out.setdefault(_decl_result(text), []).append(_decl_name(text))
        for j in self._old_only:
            if j not in data.OLD_FUNCTIONS:
                text = data.OLD_DECLS[j]
                out.setdefault(_decl_result(text), []).append(_decl_name(text))
        return out

    def stand_in(self, type_name: str) -> Combinator | None:
        """The constructor sent for a value of ``type_name`` this layer cannot hold."""
        cands = [
            c
            for n in self._by_type().get(type_name, ())
            if n.endswith(("Unsupported", "Empty")) and (c := self.decl(n)) and _has_no_required_objects(c)
        ]
        cands.sort(key=lambda c: (not c.name.endswith("Unsupported"), len(c.params)))
        return cands[0] if cands else None

    def _fallback(self, type_name: str) -> str | None:
        if type_name not in self._fallbacks:
            sc = self.stand_in(type_name)
            self._fallbacks[type_name] = None if sc is None else f"_b += {_zero_bytes(sc)!r}"
        return self._fallbacks[type_name]

    def _emitter(self, mod: Module, comb: Combinator, attrs: dict, **kw) -> Emitter:
        return Emitter(
            mod,
            comb,
            comb.params,
            attrs,
            {},
            obj_write=OBJ_WRITE,
            vec_obj_write=VEC_OBJ_WRITE,
            obj_fn=OBJ_FN,
            fallback=self._fallback,
            missing_types=self.missing_types,
            **kw,
        )

    # -- folded and renamed constructors (FOLDED, RENAMED_TYPES) ----------------------

    def _older_form(self, name: str) -> bool:
        """Whether this layer writes the primary ``name`` as an older constructor."""
        if name in FOLDED:
            return self.decl(FOLDED[name][1]) is not None
        i = primary_index()[name]
        if _decl_result(primary_texts()[i]) not in RENAMED_TYPES:
            return False  # without parsing the declaration: this runs for every missing class
        return self._renamed_decl(primary_decl(i)) is not None

    def _renamed_decl(self, pc: Combinator) -> Combinator | None:
        fields = [p.name for p in pc.params if not p.is_flags]
        for n in self._by_type().get(RENAMED_TYPES[pc.result], ()):
            c = self.decl(n)
            if c is not None and [p.name for p in c.params if not p.is_flags] == fields:
                return c
        return None

    def _fold_readers(self) -> list[int]:
        """Old declarations read into folded pairs: per-kind ones this layer has, and
        its own form of a folded constructor when it lacks the kind field."""
        out = [
            j
            for j in self._old_only
            if j not in data.OLD_FUNCTIONS and fold_target(_decl_name(data.OLD_DECLS[j]))
        ]
        for j in self._changed.values():
            name = _decl_name(data.OLD_DECLS[j])
            field = FOLDED.get(name, ("",))[0]
            if field and field not in {p.name for p in old_decl(j).params} and fold_target(name):
                out.append(j)
        return out

    def _fold_reader(self, j: int):
        oc = old_decl(j)
        read_old = self._decl_class(oc).read

        def read(r):
            return unfold(read_old(r), oc.name)

        return read

    def _fold_writer(self, pc: Combinator):
        per_kind: dict[type, object] = {}

        def write(obj, b):
            k = getattr(obj, FOLDED[pc.name][0]).__class__
            fn = per_kind.get(k)
            if fn is None:
                fn = per_kind[k] = self._kind_writer(pc, k)
            fn(obj, b)

        return write

    def _kind_writer(self, pc: Combinator, kind_cls: type):
        field, old_prefix, kind_prefix = FOLDED[pc.name]
        kc = primary_decl(primary_index()[kind_cls.TL_NAME])
        parsed = _kind_suffix(kc.name, kind_prefix)
        oc = self.decl(_per_kind_name(old_prefix, *parsed)) if parsed else None
        if oc is None or fold_target(oc.name) != (pc.name, kc.name):
            # A kind this layer has no constructor for: the plain one, with its text.
            oc = self.decl(old_prefix)
        attrs: dict[str, str] = {}
        optional: set[str] = set()
        for src in (pc, kc):
            for name, a in _common_attrs(src, oc).items():
                if name != field:
                    attrs.setdefault(name, a)
            optional |= {attr_name(p.name) for p in src.params if p.flag_field is not None}
        mod = _SharedModule()
        body = self._emitter(
            mod, oc, attrs, optional_attrs=frozenset(optional), true_attrs=_true_attrs(pc) | _true_attrs(kc)
        ).write_body(oc.id)
        self.ns["_Folded"] = _Folded
        src = "def _w(_o, _b):\n" + "".join(f"    {s}\n" for s in [f"_o = _Folded(_o, {field!r})", *body])
        return self._function(mod, src, "_w")

    # -- compiling -------------------------------------------------------------------

    def _function(self, mod: Module, src: str, name: str):
        for fmt, sname in mod.structs.items():
            if sname not in self.ns:
                self.ns[sname] = struct.Struct(fmt)
        code = _CODE.get(src)
        if code is None:
            scratch: dict = {}
            exec(compile(src, f"<tl layer translation: {name}>", "exec"), scratch)
            code = _CODE[src] = scratch[name].__code__
        return FunctionType(code, self.ns, name)

    def make_writer(self, cls):
        if issubclass(cls, bytes | bytearray | memoryview):
            return self.ns["_write_raw"]
        i = self._affected_classes.get(cls)
        if i is None:
            # Nothing in it differs in this layer.
            return cls._write
        pc = primary_decl(i)
        fields = [p for p in pc.params if not p.is_flags]
        optional = frozenset(attr_name(p.name) for p in fields if p.flag_field is not None)
        mod = _SharedModule()
        oc = None if i in self._missing_idx else self.decl(pc.name)
        if pc.name in FOLDED and self._older_form(pc.name):
            field = FOLDED[pc.name][0]
            if oc is None or field not in {p.name for p in oc.params}:
                return self._fold_writer(pc)
        if oc is None and not pc.is_function and pc.result in RENAMED_TYPES:
            oc = self._renamed_decl(pc)
        if oc is None and not pc.is_function:
            oc = self.stand_in(pc.result)
        if oc is None:
            body = [f"raise EncodeError({f'{pc.name} has no equivalent in layer {self.layer}'!r})"]
        else:
            attrs = _common_attrs(pc, oc)
            plain = _plain_texts(pc, oc)
            for name in plain:
                attrs[name] = attr_name(name)
            body = self._emitter(
                mod, oc, attrs, optional_attrs=optional, true_attrs=_true_attrs(pc)
            ).write_body(oc.id) or ["pass"]
            if plain:
                self.ns["_PlainText"] = _PlainText
                body = [f"_o = _PlainText(_o, {frozenset(attr_name(n) for n in plain)!r})", *body]
        src = "def _w(_o, _b):\n" + "".join(f"    {s}\n" for s in body)
        return self._function(mod, src, "_w")

    def _lazy_reader(self, cid: int, make, *args) -> None:
        """Register a reader for ``cid`` that builds the real one on its first use."""

        def first_read(r):
            fn = self.registry[cid] = make(*args)
            return fn(r)

        self.registry[cid] = first_read

    def _changed_reader(self, i: int, j: int):
        pc, oc = primary_decl(i), old_decl(j)
        fields = [p for p in pc.params if not p.is_flags]
        attrs = _common_attrs(pc, oc)
        mod = _SharedModule()
        zero = Emitter(mod, pc, [], {}, {})
        defaults = {}
        for p in fields:
            a = attr_name(p.name)
            if p.is_true_flag:
                defaults[a] = "False"
            elif p.flag_field is not None:
                defaults[a] = "None"
            else:
                defaults[a] = zero.zero_value(p.type)
        extra = []
        if _replies_by_id(pc, oc):
            # Before layer 160 a request named the message it replies to by its id
            # alone: read it into `reply_to` as the inputReplyToMessage it means now.
            attrs["reply_to_msg_id"] = "reply_to"
            extra = [
                "if _o.reply_to is not None:",
                "    _o.reply_to = _t.InputReplyToMessage(reply_to_msg_id=_o.reply_to)",
            ]
        for name in _plain_texts(pc, oc):
            a = attrs[name] = attr_name(name)
            extra.append(f"_o.{a} = _t.TextWithEntities(text=_o.{a}, entities=[])")
        prim_types = {p.name: p.type for p in fields}
        for p in oc.params:
            t = prim_types.get(p.name)
            if (
                p.name in attrs
                and t is not None
                and str(t) != str(p.type)
                and _renamed(str(t)) == _renamed(str(p.type))
            ):
                # Read as the older type (inline keyboards' rows before layer 229).
                item = t.item if t.item is not None else t
                cls = self._renamed_target(item.name)
                if cls is not None:
                    cref = "_C_" + cls.TL_NAME
                    self.ns[cref] = cls
                    self.ns["_as_renamed"] = as_renamed
                    a = attrs[p.name]
                    extra.append(f"_o.{a} = _as_renamed(_o.{a}, {cref})")
        body = self._emitter(mod, oc, attrs, true_attrs=_true_attrs(pc)).read_body(defaults) + extra
        cref = "_C_" + pc.name.replace(".", "_")
        self.ns[cref] = primary_classes()[pc.name]
        src = (
            f"def _read(_r):\n    _o = _new({cref})\n"
            + "".join(f"    {s}\n" for s in body)
            + "    return _o\n"
        )
        return self._function(mod, src, "_read")

    def _renamed_target(self, type_name: str) -> type | None:
        # The primary type's constructor (one, for the renamed types) to read into.
        for text in primary_texts()[: data.PRIMARY_FUNCTIONS_FROM]:
            if _decl_result(text) == type_name:
                return primary_classes()[_decl_name(text)]
        return None

    def _old_only_reader(self, j: int):
        return self.old_class(old_decl(j).name).read

    def old_class(self, name: str) -> type:
        """The class of a constructor this layer has and the primary one dropped."""
        oc = self.decl(name)
        if oc is None or name in primary_index():
            raise KeyError(f"{name} is not a constructor only layer {self.layer} has")
        return self._decl_class(oc)

    def _decl_class(self, oc: Combinator) -> type:
        """A class reading and writing this layer's ``oc`` as it is."""
        name = oc.name
        cls = self._old_classes.get(name)
        if cls is None:
            cls_name = "Layer" + (oc.namespace.capitalize() if oc.namespace else "") + api_class_name(oc)
            mod = _SharedModule()
            emit_class(
                mod,
                oc,
                cls_name,
                {},
                with_bare=False,
                obj_write=OBJ_WRITE,
                vec_obj_write=VEC_OBJ_WRITE,
                obj_fn=OBJ_FN,
                fallback=self._fallback,
                missing_types=self.missing_types,
            )
            for fmt, sname in mod.structs.items():
                self.ns.setdefault(sname, struct.Struct(fmt))
            exec(compile("\n".join(mod.lines), f"<tl layer {self.layer}: {name}>", "exec"), self.ns)
            cls = self._old_classes[name] = self.ns[cls_name]
            cls.LAYER = self.layer
        return cls

    def compile_all(self) -> int:
        """Build every writer and reader now (benchmarks, tests); returns how many."""
        n = 0
        classes = primary_classes()
        for i in self._affected_idx:
            self.writers[classes[_decl_name(primary_texts()[i])]]
            n += 1
        for i, j in self._changed.items():
            self.registry[old_decl(j).id] = self._changed_reader(i, j)
            n += 1
        for j in self._old_only:
            self.registry[old_decl(j).id] = self._old_only_reader(j)
            n += 1
        for j in self._fold_readers():
            self.registry[old_decl(j).id] = self._fold_reader(j)
        return n


@cache
def tables(layer: int) -> LayerTables:
    return LayerTables(layer)
