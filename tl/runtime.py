"""Reader/Writer primitives of the TL binary format and the base of generated classes.

Generated code (``tl/gen``) calls the module-level ``w_*`` helpers and the ``Reader``
methods directly; both are written for speed, since every request and every update
goes through them.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Callable

VECTOR_ID = 0x1CB5C415
BOOL_TRUE_ID = 0x997275B5
BOOL_FALSE_ID = 0xBC799737
GZIP_PACKED_ID = 0x3072CFA1
MSG_CONTAINER_ID = 0x73F1F8DC
MSG_COPY_ID = 0xE06046B2
RPC_RESULT_ID = 0xF35C6D01

# Inflating a gzip_packed body beyond this is refused: a 1 KiB packet could otherwise
# expand to gigabytes.
MAX_GZIP_SIZE = 16 * 1024 * 1024

_s_i = struct.Struct("<i")
_s_I = struct.Struct("<I")
_s_q = struct.Struct("<q")
_s_d = struct.Struct("<d")
_s_II = struct.Struct("<II")
unpack_i = _s_i.unpack_from
unpack_I = _s_I.unpack_from
unpack_q = _s_q.unpack_from
unpack_d = _s_d.unpack_from
pack_i = _s_i.pack
pack_I = _s_I.pack
pack_q = _s_q.pack
pack_d = _s_d.pack
pack_II = _s_II.pack
_PAD = (b"", b"\0", b"\0\0", b"\0\0\0")
TRUE_BYTES = pack_I(BOOL_TRUE_ID)
FALSE_BYTES = pack_I(BOOL_FALSE_ID)
VECTOR_BYTES = pack_I(VECTOR_ID)


class DecodeError(ValueError):
    """Truncated or malformed TL input."""


class EncodeError(ValueError):
    """An object that cannot be written (e.g. it has no equivalent in an older layer)."""


# cid -> callable(reader) returning the decoded object. Filled by tl.gen modules and by
# tl.mt_special; Bool values map to Python bools.
REGISTRY: dict[int, Callable[[Reader], object]] = {}


class TLObject:
    """Base of every generated class.

    Subclasses define ``CONSTRUCTOR_ID``, ``TL_NAME``, ``__slots__``, ``_FIELDS``
    (attribute names in schema order), ``_write(buf)`` (boxed) and ``read(reader)``.
    """

    __slots__ = ()
    CONSTRUCTOR_ID = 0
    TL_NAME = ""
    _FIELDS: tuple[str, ...] = ()

    def _write(self, b: bytearray) -> None:  # pragma: no cover - overridden
        raise NotImplementedError

    def to_bytes(self) -> bytes:
        b = bytearray()
        try:
            self._write(b)
        except (AttributeError, TypeError, struct.error) as e:
            # A required field left None, or a value of the wrong type somewhere inside.
            raise EncodeError(f"cannot encode {self.TL_NAME}: {e}") from e
        return bytes(b)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(getattr(self, f) == getattr(other, f) for f in self._FIELDS)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        # Unset optional fields (None) and clear flags (False) would drown the rest.
        parts = ", ".join(
            f"{f}={v!r}" for f in self._FIELDS if (v := getattr(self, f)) is not None and v is not False
        )
        return f"{type(self).__name__}({parts})"

    def to_dict(self) -> dict:
        return {"_": self.TL_NAME, **{f: getattr(self, f) for f in self._FIELDS}}


class Reader:
    """Reads TL values from a bytes-like buffer; every read checks the bounds."""

    __slots__ = ("data", "end", "gzip_left", "pos", "registry")

    def __init__(
        self, data: bytes | bytearray | memoryview, pos: int = 0, registry: dict | None = None
    ) -> None:
        self.data = bytes(data) if not isinstance(data, bytes) else data
        self.pos = pos
        self.end = len(self.data)
        # Which constructor ids mean what: the primary layer's by default; tl.layers
        # passes an older layer's table.
        self.registry = REGISTRY if registry is None else registry
        # What gzip_packed may still inflate to, over all nesting levels of one read.
        self.gzip_left = MAX_GZIP_SIZE

    def remaining(self) -> int:
        return self.end - self.pos

    def _short(self, what: str) -> DecodeError:
        return DecodeError(f"truncated input reading {what} at offset {self.pos} of {self.end}")

    def read_int(self) -> int:
        p = self.pos
        try:
            (v,) = unpack_i(self.data, p)
        except struct.error:
            raise self._short("int") from None
        self.pos = p + 4
        return v

    def read_uint(self) -> int:
        p = self.pos
        try:
            (v,) = unpack_I(self.data, p)
        except struct.error:
            raise self._short("int") from None
        self.pos = p + 4
        return v

    def read_long(self) -> int:
        p = self.pos
        try:
            (v,) = unpack_q(self.data, p)
        except struct.error:
            raise self._short("long") from None
        self.pos = p + 8
        return v

    def read_double(self) -> float:
        p = self.pos
        try:
            (v,) = unpack_d(self.data, p)
        except struct.error:
            raise self._short("double") from None
        self.pos = p + 8
        return v

    def read_fixed(self, s: struct.Struct) -> tuple:
        """Several fixed-size values at once (generated code merges runs of them)."""
        p = self.pos
        try:
            v = s.unpack_from(self.data, p)
        except struct.error:
            raise self._short(s.format) from None
        self.pos = p + s.size
        return v

    def read_raw(self, n: int) -> bytes:
        p = self.pos
        e = p + n
        if n < 0 or e > self.end:
            raise self._short(f"{n} bytes")
        self.pos = e
        return self.data[p:e]

    def read_int128(self) -> bytes:
        return self.read_raw(16)

    def read_int256(self) -> bytes:
        return self.read_raw(32)

    def read_bytes(self) -> bytes:
        d = self.data
        p = self.pos
        if p >= self.end:
            raise self._short("bytes length")
        n = d[p]
        if n < 254:
            start = p + 1
        elif n == 254:
            if p + 4 > self.end:
                raise self._short("bytes length")
            n = d[p + 1] | (d[p + 2] << 8) | (d[p + 3] << 16)
            start = p + 4
        else:
            raise DecodeError(f"invalid bytes length prefix 0xff at offset {p}")
        stop = start + n
        new_pos = p + ((stop - p + 3) & ~3)
        if new_pos > self.end:
            raise DecodeError(f"bytes length {n} at offset {p} exceeds the {self.end - p} bytes left")
        self.pos = new_pos
        return d[start:stop]

    def read_string(self) -> str:
        # read_bytes inlined: strings are the most frequent variable-size field.
        d = self.data
        p = self.pos
        if p >= self.end:
            raise self._short("string length")
        n = d[p]
        if n < 254:
            start = p + 1
        elif n == 254:
            if p + 4 > self.end:
                raise self._short("string length")
            n = d[p + 1] | (d[p + 2] << 8) | (d[p + 3] << 16)
            start = p + 4
        else:
            raise DecodeError(f"invalid string length prefix 0xff at offset {p}")
        stop = start + n
        new_pos = p + ((stop - p + 3) & ~3)
        if new_pos > self.end:
            raise DecodeError(f"string length {n} at offset {p} exceeds the {self.end - p} bytes left")
        self.pos = new_pos
        return d[start:stop].decode("utf-8", "replace")

    def read_bool(self) -> bool:
        v = self.read_uint()
        if v == BOOL_TRUE_ID:
            return True
        if v == BOOL_FALSE_ID:
            return False
        raise DecodeError(f"expected Bool, got constructor {v:#010x} at offset {self.pos - 4}")

    def read_object(self):
        """Read one boxed object by its constructor id (primary layer or MTProto)."""
        p = self.pos
        try:
            (cid,) = unpack_I(self.data, p)
        except struct.error:
            raise self._short("constructor id") from None
        self.pos = p + 4
        fn = self.registry.get(cid)
        if fn is None:
            if cid == GZIP_PACKED_ID:
                return self.read_gzip_inner()
            raise DecodeError(f"unknown constructor {cid:#010x} at offset {p}")
        try:
            return fn(self)
        except RecursionError:
            # Hostile input can nest objects (inputPeerUserFromMessage.peer, ...)
            # deeper than the interpreter's stack.
            raise DecodeError("objects nested too deeply") from None

    def read_gzip_inner(self):
        inner = Reader(inflate(self.read_bytes(), self.gzip_left), registry=self.registry)
        inner.gzip_left = self.gzip_left - inner.end
        obj = inner.read_object()
        self.gzip_left = inner.gzip_left
        return obj

    def sub_reader(self, registry: dict) -> Reader:
        """A reader at the same position with another constructor table (the caller
        copies ``pos`` back when done)."""
        r = Reader(self.data, self.pos, registry)
        r.gzip_left = self.gzip_left
        return r

    def _count(self, min_size: int = 4) -> int:
        n = self.read_int()
        # Each element takes at least min_size bytes: a larger count cannot be honest,
        # and must not make us allocate for it.
        if n < 0 or n * min_size > self.end - self.pos:
            raise DecodeError(f"vector length {n} at offset {self.pos - 4} exceeds the input")
        return n

    def _vector_header(self) -> None:
        v = self.read_uint()
        if v != VECTOR_ID:
            raise DecodeError(f"expected vector, got constructor {v:#010x} at offset {self.pos - 4}")

    def read_vector_int(self, bare: bool = False) -> list[int]:
        if not bare:
            self._vector_header()
        n = self._count(4)
        p = self.pos
        self.pos = p + 4 * n
        return list(struct.unpack_from(f"<{n}i", self.data, p))

    def read_vector_long(self, bare: bool = False) -> list[int]:
        if not bare:
            self._vector_header()
        n = self._count(8)
        p = self.pos
        self.pos = p + 8 * n
        return list(struct.unpack_from(f"<{n}q", self.data, p))

    def read_vector_double(self, bare: bool = False) -> list[float]:
        if not bare:
            self._vector_header()
        n = self._count(8)
        p = self.pos
        self.pos = p + 8 * n
        return list(struct.unpack_from(f"<{n}d", self.data, p))

    def read_vector_object(self, bare: bool = False) -> list:
        if not bare:
            self._vector_header()
        n = self._count(4)
        ro = self.read_object
        return [ro() for _ in range(n)]

    def read_vector_of(self, fn: Callable[[Reader], object], bare: bool = False, min_size: int = 1) -> list:
        """Vector whose items are read by ``fn(reader)`` (strings, bare constructors, ...)."""
        if not bare:
            self._vector_header()
        n = self._count(min_size)
        return [fn(self) for _ in range(n)]


def inflate(packed: bytes, limit: int | None = None) -> bytes:
    limit = MAX_GZIP_SIZE if limit is None else limit
    d = zlib.decompressobj(wbits=47)  # gzip or zlib header, autodetected
    try:
        out = d.decompress(packed, limit + 1)
    except zlib.error as e:
        raise DecodeError(f"gzip_packed: {e}") from None
    if len(out) > limit:
        raise DecodeError(f"gzip_packed inflates beyond {limit} bytes")
    if not d.eof:
        raise DecodeError("gzip_packed: truncated stream")
    return out


# --- writing -------------------------------------------------------------------------


def w_bytes(b: bytearray, data: bytes) -> None:
    n = len(data)
    if n < 254:
        b.append(n)
        b += data
        b += _PAD[-(n + 1) & 3]
    elif n < 0x1000000:
        b += pack_I((n << 8) | 254)
        b += data
        b += _PAD[-n & 3]
    else:
        raise ValueError(f"TL bytes value of {n} bytes is too long")


def w_string(b: bytearray, s: str) -> None:
    w_bytes(b, s.encode("utf-8"))


def w_int128(b: bytearray, v: bytes | int) -> None:
    if isinstance(v, int):
        v = v.to_bytes(16, "little", signed=True)
    elif len(v) != 16:
        raise ValueError("int128 needs 16 bytes")
    b += v


def w_int256(b: bytearray, v: bytes | int) -> None:
    if isinstance(v, int):
        v = v.to_bytes(32, "little", signed=True)
    elif len(v) != 32:
        raise ValueError("int256 needs 32 bytes")
    b += v


def w_vector_int(b: bytearray, v: list[int], bare: bool = False) -> None:
    n = len(v)
    if not bare:
        b += VECTOR_BYTES
    b += struct.pack(f"<i{n}i", n, *v)


def w_vector_long(b: bytearray, v: list[int], bare: bool = False) -> None:
    n = len(v)
    if not bare:
        b += VECTOR_BYTES
    b += struct.pack(f"<i{n}q", n, *v)


def w_vector_double(b: bytearray, v: list[float], bare: bool = False) -> None:
    n = len(v)
    if not bare:
        b += VECTOR_BYTES
    b += struct.pack(f"<i{n}d", n, *v)


def w_vector_object(b: bytearray, v: list, bare: bool = False) -> None:
    if not bare:
        b += VECTOR_BYTES
    b += pack_i(len(v))
    for x in v:
        x._write(b)


def w_vector_string(b: bytearray, v: list[str], bare: bool = False) -> None:
    if not bare:
        b += VECTOR_BYTES
    b += pack_i(len(v))
    for x in v:
        w_bytes(b, x.encode("utf-8"))


def w_vector_bytes(b: bytearray, v: list[bytes], bare: bool = False) -> None:
    if not bare:
        b += VECTOR_BYTES
    b += pack_i(len(v))
    for x in v:
        w_bytes(b, x)


def w_vector_bool(b: bytearray, v: list[bool], bare: bool = False) -> None:
    if not bare:
        b += VECTOR_BYTES
    b += pack_i(len(v))
    for x in v:
        b += TRUE_BYTES if x else FALSE_BYTES


def w_vector_of(b: bytearray, v: list, fn: Callable[[bytearray, object], None], bare: bool = False) -> None:
    if not bare:
        b += VECTOR_BYTES
    b += pack_i(len(v))
    for x in v:
        fn(b, x)


def w_object(b: bytearray, v) -> None:
    """Write a boxed value: a TLObject, or raw pre-serialized bytes (e.g. an encoded
    result for another layer)."""
    if isinstance(v, bytes | bytearray | memoryview):
        b += v
    else:
        v._write(b)


def r_string(r: Reader) -> str:
    return r.read_bytes().decode("utf-8", "replace")


def r_bytes(r: Reader) -> bytes:
    return r.read_bytes()


def r_bool(r: Reader) -> bool:
    return r.read_bool()


def r_int128(r: Reader) -> bytes:
    return r.read_raw(16)


def r_int256(r: Reader) -> bytes:
    return r.read_raw(32)


class Writer(bytearray):
    """A bytearray with TL write methods, for hand-written code (generated code uses
    the module-level helpers on any bytearray)."""

    def write_int(self, v: int) -> Writer:
        self += pack_i(v)
        return self

    def write_uint(self, v: int) -> Writer:
        self += pack_I(v)
        return self

    def write_long(self, v: int) -> Writer:
        self += pack_q(v)
        return self

    def write_double(self, v: float) -> Writer:
        self += pack_d(v)
        return self

    def write_int128(self, v: bytes | int) -> Writer:
        w_int128(self, v)
        return self

    def write_int256(self, v: bytes | int) -> Writer:
        w_int256(self, v)
        return self

    def write_bytes(self, v: bytes) -> Writer:
        w_bytes(self, v)
        return self

    def write_string(self, v: str) -> Writer:
        w_bytes(self, v.encode("utf-8"))
        return self

    def write_bool(self, v: bool) -> Writer:
        self += TRUE_BYTES if v else FALSE_BYTES
        return self

    def write_object(self, v) -> Writer:
        w_object(self, v)
        return self

    def write_raw(self, v: bytes) -> Writer:
        self += v
        return self


REGISTRY[BOOL_TRUE_ID] = lambda r: True
REGISTRY[BOOL_FALSE_ID] = lambda r: False
