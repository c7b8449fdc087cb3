"""The seam between the MTProto edge and the application.

``mtproto`` decrypts, unwraps (``invokeWithLayer``, ``initConnection``,
``invokeAfterMsg``, ``invokeWithoutUpdates``) and decodes a request into a primary-layer
TL object, then hands it to a :class:`Dispatcher` with a :class:`RequestContext`. The
application (``edge_app``) implements the dispatcher; ``mtproto`` never imports Django.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(slots=True)
class ClientInfo:
    """What ``initConnection`` said about the client."""

    api_id: int = 0
    device_model: str = ""
    system_version: str = ""
    app_version: str = ""
    system_lang_code: str = ""
    lang_pack: str = ""
    lang_code: str = ""


@dataclass(slots=True)
class RequestContext:
    """One RPC call as the application sees it."""

    auth_key_id: int  # the key that encrypted this message (temporary or permanent)
    perm_auth_key_id: int  # the permanent key it is bound to (== auth_key_id for permanent keys)
    session_id: int
    msg_id: int
    layer: int  # the API layer the client announced (primary layer if it never did)
    client: ClientInfo | None
    session: Any  # mtproto.session's live session handle: .user_id, .push(...)
    no_updates: bool = False  # invokeWithoutUpdates
    takeout_id: int | None = None  # invokeWithTakeout (the app checks it is the user's)
    ip: str = ""  # the client's address as this server sees it ("" when unknown)
    # Free slot for the application (e.g. the resolved user id); mtproto never reads it.
    app: dict[str, Any] = field(default_factory=dict)


class Dispatcher(Protocol):
    async def dispatch(self, ctx: RequestContext, request: Any) -> Any:
        """Run one request; return a TL object, or raise ``tl.errors.RpcError``."""

    async def connection_initialized(self, ctx: RequestContext, info: ClientInfo) -> None:
        """Called when a client sends ``initConnection`` (once per session and change)."""

    async def session_closed(self, session: Any) -> None:
        """Called when a live session loses its last connection."""
