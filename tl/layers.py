"""Talking to clients of many API layers with one set of (primary-layer) classes.

``decode(data, layer)`` reads what a client of ``layer`` sent into primary classes;
``encode(obj, layer)`` writes a primary object the way that client expects. The
translation for an older layer is built from compact data (``tl/gen/layers_data.py``)
on first use, see ``tl/translate.py``.

A client may announce a layer we have no schema for: ``resolve`` picks the one served
(see its docstring), logs it once per announced layer and tells the ``on_fallback``
callbacks (the edge counts them in its metrics).
"""

from __future__ import annotations

import logging
import struct
from collections import Counter
from collections.abc import Callable
from functools import cache

from tl import functions, runtime, types
from tl.gen import layers_data
from tl.runtime import DecodeError, EncodeError, Reader, TLObject
from tl.translate import tables

PRIMARY = layers_data.PRIMARY
SUPPORTED: tuple[int, ...] = tuple(sorted((*layers_data.LAYERS, PRIMARY)))
_SUPPORTED_SET = frozenset(SUPPORTED)

log = logging.getLogger(__name__)

__all__ = [
    "FALLBACKS",
    "PRIMARY",
    "SUPPORTED",
    "DecodeError",
    "EncodeError",
    "decode",
    "encode",
    "encode_result",
    "on_fallback",
    "resolve",
    "result_for_layer",
    "result_type",
    "writer_for",
]

# (announced, served) -> how many times a client announced a layer we have no schema
# for. Callbacks in ``on_fallback`` get ``(announced, served)`` on every such resolve.
FALLBACKS: Counter[tuple[int, int]] = Counter()
on_fallback: list[Callable[[int, int], None]] = []


def nearest(layer: int) -> int:
    """The layer served to a client announcing ``layer`` (pure: no logging).

    A layer with a schema is served as it is. Otherwise the newest schema layer older
    than the announced one: Telegram's layers only add constructors and fields on the
    whole, so everything in an older layer is something the client can read, while a
    newer one could hand it constructors it cannot know. Announced below the oldest
    schema (150), there is no such layer: the oldest one is served, the closest match,
    and that is logged as a warning."""
    if layer in _SUPPORTED_SET:
        return layer
    older = [s for s in SUPPORTED if s <= layer]
    return older[-1] if older else SUPPORTED[0]


def resolve(layer: int) -> int:
    """``nearest(layer)``; a layer without a schema is logged once per announced layer
    and counted in ``FALLBACKS`` and the ``on_fallback`` callbacks, every time."""
    served = nearest(layer)
    if served != layer:
        key = (layer, served)
        if key not in FALLBACKS:
            log.log(
                logging.WARNING if served > layer else logging.INFO,
                "client layer %d has no schema here: serving layer %d%s",
                layer,
                served,
                " (older than any we have: it may get constructors it does not know)"
                if served > layer
                else "",
            )
        FALLBACKS[key] += 1
        for cb in list(on_fallback):
            cb(layer, served)
    return served


def _invoke_with_layer_reader(r: Reader):
    # The inner query is in the layer the client names here, not the outer one.
    layer = r.read_int()
    inner = r.sub_reader(registry(resolve(layer)))
    query = inner.read_object()
    r.pos = inner.pos
    r.gzip_left = inner.gzip_left
    o = object.__new__(functions.InvokeWithLayer)
    o.layer = layer
    o.query = query
    return o


_PRIMARY_REGISTRY = dict(runtime.REGISTRY)
_PRIMARY_REGISTRY[functions.InvokeWithLayer.CONSTRUCTOR_ID] = _invoke_with_layer_reader


@cache
def registry(layer: int) -> dict[int, Callable]:
    """Constructor id -> reader, for a client of a served ``layer``."""
    if layer == PRIMARY:
        return _PRIMARY_REGISTRY
    reg = tables(layer).registry
    reg[functions.InvokeWithLayer.CONSTRUCTOR_ID] = _invoke_with_layer_reader
    return reg


def decode(data: bytes, layer: int) -> TLObject:
    """A boxed object sent by a client of ``layer``, as primary-layer classes."""
    return Reader(data, registry=registry(nearest(layer))).read_object()


def writer_for(layer: int) -> Callable[[TLObject, bytearray], None] | None:
    """``fn(obj, buf)`` appending ``obj`` encoded for ``layer`` (None: the primary)."""
    layer = nearest(layer)
    if layer == PRIMARY:
        return None
    w = tables(layer).writers
    return lambda obj, buf: w[obj.__class__](obj, buf)


def encode(obj: TLObject | bool, layer: int) -> bytes:
    """``obj`` (a primary-layer object, or a bool for ``Bool``) as a boxed value for a
    client of ``layer``. Raises ``EncodeError`` when it has no equivalent there."""
    if obj is True or obj is False:
        return runtime.TRUE_BYTES if obj else runtime.FALSE_BYTES
    layer = nearest(layer)
    if layer == PRIMARY:
        return obj.to_bytes()
    b = bytearray()
    try:
        tables(layer).writers[obj.__class__](obj, b)
    except (AttributeError, TypeError, struct.error) as e:
        raise EncodeError(f"cannot encode {getattr(obj, 'TL_NAME', type(obj).__name__)}: {e}") from e
    return bytes(b)


def old_class(layer: int, name: str) -> type:
    """The class a constructor ``layer`` has and the primary layer dropped is read into
    (handlers never see these as primary classes)."""
    return tables(nearest(layer)).old_class(name)


def _unwrap_updates(v, layer):
    # messages.invitedUsers, messages.chatInviteJoinResultOk: the Updates inside.
    return v.updates if getattr(v, "TL_NAME", "").startswith("messages.") else v


def _old_web_view(name):
    def adapt(v, layer):
        url = getattr(v, "url", None)
        return v if url is None else old_class(layer, name)(url=url)

    return adapt


# (primary result type, an older layer's result type of the same function) ->
# fn(answer, layer) making the handler's answer the older one (tl/README.md, "Layers").
# Answers already in the older form pass through.
_RESULT_ADAPTERS: dict[tuple[str, str], Callable] = {
    ("messages.InvitedUsers", "Updates"): _unwrap_updates,
    ("messages.ChatInviteJoinResult", "Updates"): _unwrap_updates,
    ("messages.DialogFilters", "Vector<DialogFilter>"): lambda v, layer: getattr(v, "filters", v),
    ("help.AppConfig", "JSONValue"): lambda v, layer: (
        v.config if hasattr(v, "config") else types.JsonObject(value=[]) if hasattr(v, "TL_NAME") else v
    ),
    ("messages.WebPage", "WebPage"): lambda v, layer: getattr(v, "webpage", v),
    ("messages.WebPagePreview", "MessageMedia"): lambda v, layer: getattr(v, "media", v),
    ("bots.BotInfo", "Vector<string>"): lambda v, layer: (
        [v.name, v.about, v.description] if hasattr(v, "TL_NAME") else v
    ),
    ("Vector<ReadParticipantDate>", "Vector<long>"): lambda v, layer: [getattr(x, "user_id", x) for x in v],
    ("Vector<RecentStory>", "Vector<int>"): lambda v, layer: [
        (x.max_id or 0) if hasattr(x, "TL_NAME") else x for x in v
    ],
    ("WebViewResult", "AppWebViewResult"): _old_web_view("appWebViewResultUrl"),
    ("WebViewResult", "SimpleWebViewResult"): _old_web_view("simpleWebViewResultUrl"),
    ("ReportResult", "Bool"): lambda v, layer: True,
    ("stories.CanSendStoryCount", "Bool"): lambda v, layer: True,
    ("Updates", "Bool"): lambda v, layer: True,
}


def result_type(request: TLObject, layer: int) -> str:
    """The TL type ``request``'s answer has for a client of ``layer``."""
    layer = nearest(layer)
    ours = getattr(request, "RESULT_TYPE", None)
    if layer == PRIMARY or ours is None:
        return ours
    old = tables(layer).decl(request.TL_NAME)
    return ours if old is None else old.result


def result_for_layer(value, request: TLObject, layer: int):
    """The handler's answer to ``request`` as a client of ``layer`` expects it, where
    that layer's function returns another type than the primary one (an old
    ``channels.inviteToChannel`` returns ``Updates``, not ``messages.InvitedUsers``)."""
    ours = getattr(request, "RESULT_TYPE", None)
    theirs = result_type(request, layer)
    if theirs == ours:
        return value
    adapt = _RESULT_ADAPTERS.get((ours, theirs))
    return value if adapt is None else adapt(value, nearest(layer))


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
