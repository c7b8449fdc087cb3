"""Service messages as a person reads them: "Alice removed Carol", "Bob pinned a
message", "the group photo was changed", instead of the stored action's constructor."""

from __future__ import annotations

from collections.abc import Mapping


def action_user_ids(action) -> set[int]:
    """The users a service message names besides its sender (resolved with the page)."""
    if not isinstance(action, dict):
        return set()
    ids = {int(u) for u in action.get("users") or () if u}
    for key in ("user_id", "inviter_id"):
        if action.get(key):
            ids.add(int(action[key]))
    return ids


def service_text(action, sender_id: int, names: Mapping[int, str], *, broadcast: bool = False) -> str:
    """One line for a stored service action; ``names`` maps user ids to display names.
    A sender 0 is the operator console (the change shows as the group's own)."""
    if not isinstance(action, dict):
        return "a service message"
    kind = action.get("_", "")
    place = "channel" if broadcast else "group"

    def name(uid) -> str:
        return names.get(int(uid or 0)) or f"user {uid}"

    who = name(sender_id) if sender_id else ""

    def did(text: str, passive: str) -> str:
        return f"{who} {text}" if who else passive

    if kind == "channelCreate":
        return did(
            f"created the {place} «{action.get('title', '')}»",
            f"the {place} «{action.get('title', '')}» was created",
        )
    if kind == "chatAddUser":
        users = [int(u) for u in action.get("users") or ()]
        if users == [sender_id]:
            return f"{who} joined the {place}"
        added = ", ".join(name(u) for u in users)
        return did(f"added {added}", f"{added} joined the {place}")
    if kind == "chatJoinedByLink":
        return f"{who or 'someone'} joined the {place} via an invite link"
    if kind == "chatJoinedByRequest":
        return f"{who or 'someone'} was accepted into the {place}"
    if kind == "chatDeleteUser":
        target = int(action.get("user_id") or 0)
        if target == sender_id:
            return f"{who} left the {place}"
        return did(f"removed {name(target)}", f"{name(target)} was removed from the {place}")
    if kind == "chatEditTitle":
        return did(
            f"renamed the {place} to «{action.get('title', '')}»",
            f"the {place} was renamed to «{action.get('title', '')}»",
        )
    if kind == "chatEditPhoto":
        return did(f"changed the {place} photo", f"the {place} photo was changed")
    if kind == "chatDeletePhoto":
        return did(f"removed the {place} photo", f"the {place} photo was removed")
    if kind == "pinMessage":
        return did("pinned a message", "a message was pinned")
    if kind == "historyClear":
        return "the history was cleared"
    if kind == "topicCreate":
        return did(
            f"created the topic «{action.get('title', '')}»",
            f"the topic «{action.get('title', '')}» was created",
        )
    if kind == "topicEdit":
        return did(_topic_edit(action), "the topic was changed: " + _topic_edit(action))
    if kind == "chatMigrateTo" or kind == "channelMigrateFrom":
        return "the group was upgraded to a supergroup"
    if kind == "setMessagesTTL":
        period = int(action.get("period") or 0)
        return did(
            f"set messages to auto-delete after {period} s" if period else "turned off auto-delete",
            "auto-delete was changed",
        )
    words = "".join(" " + c.lower() if c.isupper() else c for c in kind).strip()
    return f"a service message ({words or 'unknown'})"


def _topic_edit(action: dict) -> str:
    parts = []
    if action.get("title") is not None:
        parts.append(f"renamed the topic to «{action['title']}»")
    if action.get("icon_emoji_id") is not None:
        parts.append("changed the topic icon")
    if action.get("closed") is not None:
        parts.append("closed the topic" if action["closed"] else "reopened the topic")
    if action.get("hidden") is not None:
        parts.append("hid the topic" if action["hidden"] else "showed the topic")
    return ", ".join(parts) or "edited the topic"
