"""RPC handler registry: TL function class -> async handler.

Apps register thin handlers at import time::

    from edge_app.registry import rpc

    @rpc(functions.channels.JoinChannel)
    async def join_channel(ctx: RequestContext, req: functions.channels.JoinChannel):
        ...

``auth=False`` marks methods a client may call before it has logged in (auth.sendCode,
help.getConfig, ...). Every other handler runs only once the dispatcher has resolved
``ctx.app["user_id"]`` from the auth key's authorization.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

Handler = Callable[[Any, Any], Awaitable[Any]]


@dataclass(frozen=True, slots=True)
class Registration:
    tl_name: str
    handler: Handler
    auth: bool


_handlers: dict[str, Registration] = {}


def rpc(*functions: type, auth: bool = True) -> Callable[[Handler], Handler]:
    """Register ``handler`` for one or more TL function classes (matched by TL name)."""

    def register(handler: Handler) -> Handler:
        for fn in functions:
            name = fn.TL_NAME
            if name in _handlers:
                raise RuntimeError(f"{name} registered twice ({_handlers[name].handler!r}, {handler!r})")
            _handlers[name] = Registration(name, handler, auth)
        return handler

    return register


def lookup(tl_name: str) -> Registration | None:
    return _handlers.get(tl_name)


def registered_names() -> frozenset[str]:
    return frozenset(_handlers)
