"""What accounts handlers read from the request context."""

from __future__ import annotations

from accounts_app.login import DeviceInfo


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
    client = ctx.client
    if client is None:
        return DeviceInfo()
    session = ctx.session
    ip = getattr(session, "peer_ip", "") or ""
    return DeviceInfo(
        api_id=client.api_id,
        device_model=client.device_model,
        platform=client.system_version.split(" ")[0] if client.system_version else "",
        system_version=client.system_version,
        app_name=_APP_NAMES.get(client.lang_pack, client.lang_pack or f"app {client.api_id}"),
        app_version=client.app_version,
        ip=str(ip),
    )


def bind_session(ctx, user_id: int | None) -> None:
    """Route pushes for this live session to ``user_id`` (or to nobody after log-out)."""
    ctx.app["user_id"] = user_id
    session = ctx.session
    if session is not None and hasattr(session, "user_id"):
        session.user_id = user_id
    try:
        from edge_app.registry import forget_authorization
    except ImportError:
        return
    # The dispatcher may have cached "not logged in" (or the old user) for this key.
    forget_authorization(ctx.perm_auth_key_id)
