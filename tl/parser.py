"""Parser for the TL schema language as used by Telegram's .tl files.

The result is plain data (``Schema`` of ``Combinator`` of ``Param`` of ``TypeRef``) that
the code generator and the layer translator both work from.
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass, field
from pathlib import Path

SCHEMA_DIR = Path(__file__).resolve().parent / "schema"

# Types the runtime reads and writes itself; they never become classes.
PRIMITIVES = frozenset({"int", "long", "double", "string", "bytes", "int128", "int256", "Bool", "true"})
# Declarations of built-in types, e.g. `int ? = Int;`, `vector {t:Type} # [ t ] = Vector t;`.
_BUILTIN_RE = re.compile(
    r"^[a-zA-Z0-9_]+(#[0-9a-f]+)?\s+(\?|\{t:Type\}\s*#\s*\[\s*t\s*\]|\d+\*\[\s*int\s*\])\s*=\s*.+$"
)
_HEAD_RE = re.compile(r"^(?P<name>[a-zA-Z][\w]*(?:\.[a-zA-Z][\w]*)?)(?:#(?P<id>[0-9a-fA-F]{1,8}))?$")
_NAME_RE = re.compile(r"^[a-zA-Z_][\w]*$")
_FLAG_RE = re.compile(r"^(?P<field>[a-zA-Z_]\w*)\.(?P<bit>\d+)\?(?P<type>.+)$")
_TYPE_NAME_RE = re.compile(r"^%?[a-zA-Z][\w]*(?:\.[a-zA-Z][\w]*)?$")


class SchemaError(ValueError):
    """A line of a .tl file that this parser does not understand."""


@dataclass(frozen=True, slots=True)
class TypeRef:
    """A parameter type: ``name`` is a primitive, a boxed type (``Peer``), a bare
    constructor (``future_salt`` or ``%Message``), ``#`` (flags word), the generic
    ``!X``/``X``, or ``Vector``/``vector`` with ``item`` set."""

    name: str
    item: TypeRef | None = None
    bare: bool = False
    generic: bool = False

    @property
    def is_vector(self) -> bool:
        return self.item is not None

    def __str__(self) -> str:
        if self.item is not None:
            return f"{self.name}<{self.item}>"
        if self.generic:
            return "!" + self.name if self.bare else self.name
        return ("%" if self.bare and self.name[:1].isupper() else "") + self.name


@dataclass(frozen=True, slots=True)
class Param:
    name: str
    type: TypeRef
    flag_field: str | None = None  # "flags" / "flags2" for conditional fields
    flag_bit: int | None = None

    @property
    def is_flags(self) -> bool:
        return self.type.name == "#"

    @property
    def is_true_flag(self) -> bool:
        return self.flag_field is not None and self.type.name == "true"


@dataclass(slots=True)
class Combinator:
    name: str  # "messages.sendMessage"
    id: int
    params: list[Param]
    result: str  # "Updates", "X", "Vector<long>"
    is_function: bool
    file: str
    line: int
    generic: str | None = None  # "X" for {X:Type}
    explicit_id: bool = True

    @property
    def namespace(self) -> str | None:
        return self.name.rsplit(".", 1)[0] if "." in self.name else None

    @property
    def short_name(self) -> str:
        return self.name.rsplit(".", 1)[-1]


@dataclass(slots=True)
class Schema:
    path: str
    layer: int | None
    constructors: list[Combinator] = field(default_factory=list)
    functions: list[Combinator] = field(default_factory=list)

    def all(self) -> list[Combinator]:
        return self.constructors + self.functions


def _crc_id(text: str) -> int:
    # The TL spec derives an id from the CRC32 of the normalized declaration.
    norm = re.sub(r"\s+", " ", text.replace(":bytes", ":string").replace("?bytes", "?string"))
    norm = norm.replace("<", " ").replace(">", "").replace("{", "").replace("}", "")
    return zlib.crc32(norm.strip().encode()) & 0xFFFFFFFF


def parse_type(text: str, generic: str | None, where: str) -> TypeRef:
    if text == "#":
        return TypeRef("#")
    if text.startswith("!"):
        if text[1:] != generic:
            raise SchemaError(f"{where}: '!{text[1:]}' without {{{text[1:]}:Type}}")
        return TypeRef(text[1:], bare=True, generic=True)
    if generic is not None and text == generic:
        return TypeRef(text, generic=True)
    m = re.match(r"^([Vv]ector)<(.+)>$", text)
    if m:
        return TypeRef(m.group(1), item=parse_type(m.group(2), generic, where), bare=m.group(1) == "vector")
    if not _TYPE_NAME_RE.match(text):
        raise SchemaError(f"{where}: unknown type syntax {text!r}")
    if text.startswith("%"):
        return TypeRef(text[1:], bare=True)
    if text in PRIMITIVES:
        return TypeRef(text)
    # A lower-case name (after any namespace) is a bare constructor reference.
    return TypeRef(text, bare=text.rsplit(".", 1)[-1][:1].islower())


def parse_line(text: str, is_function: bool, file: str, line: int) -> Combinator | None:
    """Parse one declaration (without the trailing ';'); None for built-in type lines."""
    where = f"{file}:{line}"
    if _BUILTIN_RE.match(text):
        return None
    if "=" not in text:
        raise SchemaError(f"{where}: declaration without '='")
    lhs, _, result = text.rpartition("=")
    result = result.strip()
    tokens = lhs.split()
    if not tokens or not result:
        raise SchemaError(f"{where}: empty declaration")
    head = _HEAD_RE.match(tokens[0])
    if not head:
        raise SchemaError(f"{where}: bad combinator name {tokens[0]!r}")
    generic = None
    params: list[Param] = []
    flag_fields: set[str] = set()
    for tok in tokens[1:]:
        gm = re.match(r"^\{([A-Za-z]\w*):Type\}$", tok)
        if gm:
            if params or generic:
                raise SchemaError(f"{where}: generic parameter must come first")
            generic = gm.group(1)
            continue
        name, sep, type_text = tok.partition(":")
        if not sep or not _NAME_RE.match(name) or not type_text:
            raise SchemaError(f"{where}: bad parameter {tok!r}")
        fm = _FLAG_RE.match(type_text)
        if fm:
            if fm.group("field") not in flag_fields:
                raise SchemaError(f"{where}: {tok!r} refers to undeclared flags field")
            bit = int(fm.group("bit"))
            if bit > 31:
                raise SchemaError(f"{where}: flag bit {bit} out of range")
            params.append(Param(name, parse_type(fm.group("type"), generic, where), fm.group("field"), bit))
            continue
        typ = parse_type(type_text, generic, where)
        if typ.name == "true":
            raise SchemaError(f"{where}: 'true' outside a flag")
        if typ.name == "#":
            flag_fields.add(name)
        params.append(Param(name, typ))
    if not re.match(r"^[A-Za-z][\w.]*(<[\w.%<>]+>)?$", result) and not (generic and result == generic):
        raise SchemaError(f"{where}: bad result type {result!r}")
    if head.group("id") is not None:
        cid, explicit = int(head.group("id"), 16), True
    else:
        cid, explicit = _crc_id(text), False
    return Combinator(
        name=head.group("name"),
        id=cid,
        params=params,
        result=result,
        is_function=is_function,
        file=file,
        line=line,
        generic=generic,
        explicit_id=explicit,
    )


def parse_text(text: str, path: str = "<string>", layer: int | None = None) -> Schema:
    schema = Schema(path=path, layer=layer)
    name = Path(path).name
    is_function = False
    pending = ""
    pending_line = 0
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.split("//", 1)[0].strip()
        if not line:
            continue
        if line in ("---types---", "---functions---"):
            if pending:
                raise SchemaError(f"{name}:{pending_line}: declaration not terminated by ';'")
            is_function = line == "---functions---"
            continue
        if line.startswith("---"):
            raise SchemaError(f"{name}:{lineno}: unknown section marker {line!r}")
        if not pending:
            pending_line = lineno
        pending = f"{pending} {line}" if pending else line
        while ";" in pending:
            decl, _, rest = pending.partition(";")
            decl = decl.strip()
            if decl:
                comb = parse_line(decl, is_function, name, pending_line)
                if comb is not None:
                    (schema.functions if is_function else schema.constructors).append(comb)
            pending = rest.strip()
            pending_line = lineno
    if pending:
        raise SchemaError(f"{name}:{pending_line}: declaration not terminated by ';'")
    return schema


def parse_file(path: str | Path) -> Schema:
    path = Path(path)
    m = re.match(r"api-(\d+)\.tl$", path.name)
    return parse_text(path.read_text(encoding="utf-8"), str(path), int(m.group(1)) if m else None)


def api_schema(layer: int) -> Schema:
    return parse_file(SCHEMA_DIR / f"api-{layer}.tl")


def mtproto_schema() -> Schema:
    return parse_file(SCHEMA_DIR / "mtproto.tl")


def shipped_layers() -> tuple[int, ...]:
    return tuple(sorted(int(p.stem.split("-")[1]) for p in SCHEMA_DIR.glob("api-*.tl")))
