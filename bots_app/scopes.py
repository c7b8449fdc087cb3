"""Command scopes as stored keys, and which scopes apply where (Telegram's order of
precedence: the most specific scope that has commands wins)."""

from __future__ import annotations

DEFAULT = "default"
USERS = "users"
CHATS = "chats"
CHAT_ADMINS = "chat_admins"


def peer_key(kind: str, peer_id: int) -> str:
    """``kind``: "u" (a user) or "c" (a channel or megagroup)."""
    return f"{kind}{int(peer_id)}"


def peer(key: str) -> str:
    return f"peer:{key}"


def peer_admins(key: str) -> str:
    return f"peer_admins:{key}"


def peer_user(key: str, user_id: int) -> str:
    return f"peer_user:{key}:{int(user_id)}"


def private_chat_scopes(user_id: int) -> list[str]:
    return [peer(peer_key("u", user_id)), USERS, DEFAULT]


def group_scopes(channel_id: int, user_id: int, is_admin: bool) -> list[str]:
    key = peer_key("c", channel_id)
    out = [peer_user(key, user_id)]
    if is_admin:
        out.append(peer_admins(key))
    out.append(peer(key))
    if is_admin:
        out.append(CHAT_ADMINS)
    out += [CHATS, DEFAULT]
    return out
