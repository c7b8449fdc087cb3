"""Talking to clients of several API layers with one set of (primary-layer) classes.

``decode(data, layer)`` reads what a client of ``layer`` sent into primary classes;
``encode(obj, layer)`` writes a primary object the way that client expects. The
translation tables are generated (``tl/gen/layer<N>.py``, see ``tl/layergen.py``).
"""

from __future__ import annotations

import struct
from collections.abc import Callable

from tl import functions, runtime
from tl.gen import layer224, layer225, layer227
from tl.runtime import DecodeError, EncodeError, Reader, TLObject

PRIMARY = 229
SUPPORTED = (224, 225, 227, 229)
_MODULES = {224: layer224, 225: layer225, 227: layer227}

__all__ = [
    "PRIMARY",
    "SUPPORTED",
    "DecodeError",
    "EncodeError",
    "decode",
    "encode",
    "encode_result",
    "resolve",
    "writer_for",
]


def resolve(layer: int) -> int:
    """The shipped layer used for a client announcing ``layer``: the newest one not
    newer than it (the client understands all of it), else the oldest."""
    if layer in _REGISTRIES:
        return layer
    older = [s for s in SUPPORTED if s <= layer]
    return older[-1] if older else SUPPORTED[0]


def _invoke_with_layer_reader(r: Reader):
    # The inner query is in the layer the client names here, not the outer one.
    layer = r.read_int()
    inner = r.sub_reader(_REGISTRIES[resolve(layer)])
    query = inner.read_object()
    r.pos = inner.pos
    r.gzip_left = inner.gzip_left
    o = object.__new__(functions.InvokeWithLayer)
    o.layer = layer
    o.query = query
    return o


def _build_registry(overrides: dict[int, Callable]) -> dict[int, Callable]:
    reg = dict(runtime.REGISTRY)
    reg.update(overrides)
    reg[functions.InvokeWithLayer.CONSTRUCTOR_ID] = _invoke_with_layer_reader
    return reg


_REGISTRIES: dict[int, dict[int, Callable]] = {PRIMARY: _build_registry({})}
for _n, _m in _MODULES.items():
    _REGISTRIES[_n] = _build_registry(_m.READERS)


def decode(data: bytes, layer: int) -> TLObject:
    """A boxed object sent by a client of ``layer``, as primary-layer classes."""
    return Reader(data, registry=_REGISTRIES[resolve(layer)]).read_object()


def writer_for(layer: int) -> Callable[[TLObject, bytearray], None] | None:
    """``fn(obj, buf)`` appending ``obj`` encoded for ``layer`` (None: the primary)."""
    layer = resolve(layer)
    if layer == PRIMARY:
        return None
    w = _MODULES[layer].WRITERS
    return lambda obj, buf: w[obj.__class__](obj, buf)


def encode(obj: TLObject | bool, layer: int) -> bytes:
    """``obj`` (a primary-layer object, or a bool for ``Bool``) as a boxed value for a
    client of ``layer``. Raises ``EncodeError`` when it has no equivalent there."""
    if obj is True or obj is False:
        return runtime.TRUE_BYTES if obj else runtime.FALSE_BYTES
    layer = resolve(layer)
    if layer == PRIMARY:
        return obj.to_bytes()
    b = bytearray()
    try:
        _MODULES[layer].WRITERS[obj.__class__](obj, b)
    except (AttributeError, TypeError, struct.error) as e:
        raise EncodeError(f"cannot encode {getattr(obj, 'TL_NAME', type(obj).__name__)}: {e}") from e
    return bytes(b)


_VECTOR_PRIMS = {"int": "i", "long": "q", "double": "d"}


def encode_result(value, result_type: str, layer: int) -> bytes:
    """An RPC result of TL type ``result_type`` (``RESULT_TYPE`` of the function):
    handles the ``Vector<...>`` and ``Bool`` results ``encode`` cannot infer."""
    if result_type.startswith("Vector<"):
        item = result_type[len("Vector<") : -1]
        b = bytearray(runtime.VECTOR_BYTES)
        b += struct.pack("<i", len(value))
        fmt = _VECTOR_PRIMS.get(item)
        if fmt is not None:
            b += struct.pack(f"<{len(value)}{fmt}", *value)
        elif item in ("string", "bytes"):
            for x in value:
                runtime.w_bytes(b, x.encode() if isinstance(x, str) else x)
        else:
            if item.startswith("Vector<"):
                raise EncodeError(f"nested vector result {result_type} is not supported")
            for x in value:
                b += encode(x, layer)
        return bytes(b)
    if result_type == "Bool":
        return runtime.TRUE_BYTES if value else runtime.FALSE_BYTES
    return encode(value, layer)
