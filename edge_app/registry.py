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

from edge_app import current, push

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


# --- gates ------------------------------------------------------------------------------
#
# Apps above the edge may refuse a method to some callers after authorization, without
# the handlers knowing (bots_app: the methods bots may not use answer
# BOT_METHOD_INVALID). ``async fn(tl_name, user_id)`` raising the RpcError.

Gate = Callable[[str, int], Awaitable[None]]
_gates: list[Gate] = []


def add_gate(fn: Gate) -> Gate:
    if fn not in _gates:
        _gates.append(fn)
    return fn


async def check_gates(tl_name: str, user_id: int) -> None:
    for gate in _gates:
        await gate(tl_name, user_id)


# --- authorization ---------------------------------------------------------------------
#
# edge_app knows nothing of users: accounts_app installs the lookup from a permanent auth
# key to the user logged in on it. Answers are cached per permanent key until
# forget_authorization() (auth.logOut, a revoked session).

Authorizer = Callable[[Any], Awaitable[int | None]]

_authorizer: Authorizer | None = None
_authorized: dict[int, int] = {}
MAX_AUTHORIZED_CACHE = 200_000


def set_authorizer(fn: Authorizer) -> None:
    """Install ``async fn(ctx) -> user_id | None`` (accounts_app does, in ready())."""
    global _authorizer
    _authorizer = fn
    _authorized.clear()


async def authorize(ctx: Any) -> int | None:
    """The user logged in on ``ctx.perm_auth_key_id``, or None."""
    perm = ctx.perm_auth_key_id
    user_id = _authorized.get(perm)
    if user_id is None and _authorizer is not None:
        user_id = await _authorizer(ctx)
        if user_id is not None:
            if len(_authorized) >= MAX_AUTHORIZED_CACHE:
                _authorized.clear()
            _authorized[perm] = user_id
    return user_id


def remember_authorization(perm_auth_key_id: int, user_id: int) -> None:
    """Cache a fresh login (auth.signIn) so the next call need not ask the authorizer."""
    _authorized[perm_auth_key_id] = user_id


def forget_authorization(perm_auth_key_id: int) -> None:
    """Drop the cached authorization of a key in this process and, through the push
    channel, in every other edge process; live sessions of the key lose their user."""
    _forget_locally(perm_auth_key_id)
    push.publish_soon("edge.forget_authorization", {"perm_auth_key_id": perm_auth_key_id})


def _forget_locally(perm_auth_key_id: int) -> None:
    _authorized.pop(perm_auth_key_id, None)
    edge = current.get()
    if edge is not None:
        for session in edge.sessions_of_perm_key(perm_auth_key_id):
            session.user_id = None


@push.subscriber("edge.forget_authorization")
async def _forget_authorization(event: dict, edge: Any) -> None:
    _forget_locally(int(event["perm_auth_key_id"]))


# --- invokeWithTakeout -------------------------------------------------------------------
#
# accounts_app installs the check of a request wrapped in invokeWithTakeout: the export
# session is the user's and open (TAKEOUT_INVALID otherwise), and its pace.

TakeoutChecker = Callable[[Any, str], Awaitable[None]]
_takeout_checker: TakeoutChecker | None = None


def set_takeout_checker(fn: TakeoutChecker) -> None:
    global _takeout_checker
    _takeout_checker = fn


async def check_takeout(ctx: Any, name: str) -> None:
    if _takeout_checker is not None:
        await _takeout_checker(ctx, name)
