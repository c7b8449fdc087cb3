"""The edge running in this process (an :class:`mtproto.server.MTProtoServer`), or None
(the admin, management commands, most tests)."""

from __future__ import annotations

from typing import Any

_edge: Any = None


def get() -> Any:
    return _edge


def set(edge: Any) -> None:
    global _edge
    _edge = edge
