"""What accounts handlers read from the request context."""

from __future__ import annotations

import contextlib
import logging

from accounts_app.login import DeviceInfo
from accounts_app.platforms import platform_of
from tl.errors import RpcError

log = logging.getLogger("telesrv.login")

# Not refusals: the next step of a login that goes on.
_NOT_REFUSED = frozenset({"SESSION_PASSWORD_NEEDED"})


def viewer_id(ctx) -> int:
    """The logged-in user (set by the dispatcher for ``auth=True`` handlers)."""
    return ctx.app["user_id"]


def own_session(ctx) -> tuple[int, int]:
    """``(auth_key_id, session_id)``: the session that already gets the RPC answer."""
    return (ctx.auth_key_id, ctx.session_id)


# initConnection has no app name; its lang_pack names the official apps.
_APP_NAMES = {
    "tdesktop": "Telegram Desktop",
    "android": "Telegram Android",
    "ios": "Telegram iOS",
    "macos": "Telegram macOS",
    "webk": "Telegram WebK",
    "weba": "Telegram WebA",
}


def device_info(ctx) -> DeviceInfo:
    # RequestContext.ip: the client's address as the edge saw it ("" when unknown).
    ip = ctx.ip or ""
    client = ctx.client
    if client is None:
        return DeviceInfo(ip=str(ip))
    return DeviceInfo(
        api_id=client.api_id,
        device_model=client.device_model,
        platform=platform_of(client.system_version, client.device_model, client.lang_pack),
        system_version=client.system_version,
        app_name=_APP_NAMES.get(client.lang_pack, client.lang_pack or f"app {client.api_id}"),
        app_version=client.app_version,
        ip=str(ip),
        lang_code=client.lang_code,
    )


def bind_session(ctx, user_id: int | None) -> None:
    """After sign-in: this key is ``user_id`` from now on (its sessions get that user's
    pushes). After log-out (``None``): the key authorizes nobody, in every edge process."""
    from edge_app import registry

    if user_id is None:
        registry.forget_authorization(ctx.perm_auth_key_id)
    else:
        registry.remember_authorization(ctx.perm_auth_key_id, user_id)
    ctx.app["user_id"] = user_id
    if ctx.session is not None:
        ctx.session.user_id = user_id


@contextlib.contextmanager
def refusals_logged(ctx, what: str, phone: str = ""):
    """Log a refused login step (``what``: "sign-in", "sign-up", ...) with the error,
    the phone where known, and where the client came from; the error goes on."""
    try:
        yield
    except RpcError as exc:
        if exc.message not in _NOT_REFUSED:
            log.info(
                "%s refused (%s)%s %s",
                what,
                exc.message,
                f" for +{phone.lstrip('+')}" if phone else "",
                device_info(ctx).origin(),
            )
        raise
