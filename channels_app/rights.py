"""Admin and banned rights as bitmasks: bit n is flag n of chatAdminRights / chatBannedRights.

Stored this way in ``channel_members.admin_rights`` / ``banned_rights`` and
``channels.default_banned_rights`` so one integer column carries the whole TL flag set.
"""

from __future__ import annotations

ADMIN_FLAGS = {
    "change_info": 0,
    "post_messages": 1,
    "edit_messages": 2,
    "delete_messages": 3,
    "ban_users": 4,
    "invite_users": 5,
    "pin_messages": 7,
    "add_admins": 9,
    "anonymous": 10,
    "manage_call": 11,
    "other": 12,
    "manage_topics": 13,
    "post_stories": 14,
    "edit_stories": 15,
    "delete_stories": 16,
}

BANNED_FLAGS = {
    "view_messages": 0,
    "send_messages": 1,
    "send_media": 2,
    "send_stickers": 3,
    "send_gifs": 4,
    "send_games": 5,
    "send_inline": 6,
    "embed_links": 7,
    "send_polls": 8,
    "change_info": 10,
    "invite_users": 15,
    "pin_messages": 17,
    "manage_topics": 18,
    "send_photos": 19,
    "send_videos": 20,
    "send_roundvideos": 21,
    "send_audios": 22,
    "send_voices": 23,
    "send_docs": 24,
    "send_plain": 25,
}


def admin_bit(name: str) -> int:
    return 1 << ADMIN_FLAGS[name]


def banned_bit(name: str) -> int:
    return 1 << BANNED_FLAGS[name]


# What a creator holds (anonymous is a choice, not a right).
CREATOR_RIGHTS = sum(1 << b for n, b in ADMIN_FLAGS.items() if n != "anonymous")
# A broadcast channel's creator rights exclude group-only ones; TDesktop ignores extras.
CREATOR_RIGHTS_BROADCAST = CREATOR_RIGHTS & ~admin_bit("ban_users") & ~admin_bit("pin_messages")


def has_admin_right(member: dict | None, name: str) -> bool:
    if member is None or member["status"] != "active":
        return False
    if member["role"] == "creator":
        return True
    return member["role"] == "admin" and bool(member["admin_rights"] & admin_bit(name))


def is_admin(member: dict | None) -> bool:
    return member is not None and member["status"] == "active" and member["role"] in ("creator", "admin")


def effective_banned(member: dict | None, channel: dict, now: int) -> int:
    """Banned rights that apply to a non-admin: own (while unexpired) | channel defaults."""
    own = 0
    if member is not None and member["banned_rights"]:
        until = member["banned_until"]
        if until == 0 or until > now:
            own = member["banned_rights"]
    return own | channel["default_banned_rights"]


def flags_to_names(mask: int, table: dict[str, int]) -> dict[str, bool]:
    return {name: bool(mask & (1 << bit)) for name, bit in table.items()}


def names_to_flags(obj, table: dict[str, int]) -> int:
    """Bitmask from a TL rights object (attributes named as the flags)."""
    mask = 0
    for name, bit in table.items():
        if getattr(obj, name, False):
            mask |= 1 << bit
    return mask
