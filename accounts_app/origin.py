"""Where a login or a session came from, as the log lines operators trace abuse with
name it."""

from __future__ import annotations


def origin(ip: str, app_name: str = "", app_version: str = "") -> str:
    """'from 203.0.113.5 (Telegram Desktop 5.1.7)': the client's real address (behind a
    trusted PROXY-protocol balancer, the one its header named) and app where known."""
    app = " ".join(p for p in (app_name, app_version) if p)
    return f"from {ip or 'an unknown address'}" + (f" ({app})" if app else "")


def of_authorization(auth) -> str:
    """``origin`` of a stored Authorization row (or of nothing: None)."""
    if auth is None:
        return origin("")
    return origin(auth.ip, auth.app_name, auth.app_version)
