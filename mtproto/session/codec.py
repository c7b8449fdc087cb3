"""How a session turns API bytes into objects and back: ``tl.layers`` by default.

Kept behind a small interface so the session machinery can be exercised with a fake
codec and so the layer fallback policy lives in one place.
"""

from __future__ import annotations

from typing import Any, Protocol


class Codec(Protocol):
    primary: int

    def decode(self, data: bytes, layer: int) -> Any: ...

    def encode(self, obj: Any, layer: int) -> bytes: ...

    def resolve_layer(self, layer: int) -> int: ...


class TLCodec:
    """``tl.layers`` with the layer a client announced mapped onto a shipped one."""

    def __init__(self) -> None:
        from tl import layers

        self._layers = layers
        self.primary = layers.PRIMARY

    def decode(self, data: bytes, layer: int) -> Any:
        return self._layers.decode(data, layer)

    def encode(self, obj: Any, layer: int) -> bytes:
        return self._layers.encode(obj, layer)

    def resolve_layer(self, layer: int) -> int:
        # The rule (and its logging and counting) is tl.layers.resolve's.
        return self._layers.resolve(layer)
