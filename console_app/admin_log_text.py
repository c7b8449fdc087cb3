"""The admin log's "what" column in words: which rights were given or taken, what a
title changed from and to, which message was deleted. Never access hashes, file
references or rights bitmasks (the members page names rights the same way)."""

from __future__ import annotations

from collections.abc import Callable

from channels_app.rights import ADMIN_FLAGS, BANNED_FLAGS

TEXT_SHOWN = 80
MEMBER_VERBS = {
    "participant_kick": "banned (removed, cannot rejoin)",
    "participant_unkick": "unbanned",
    "participant_ban": "restricted",
    "participant_unban": "restrictions lifted",
    "participant_promote": "promoted",
    "participant_demote": "demoted",
}


def right_label(name: str) -> str:
    return name.replace("_", " ")


def rights_set(mask, table: dict[str, int]) -> set[str]:
    mask = int(mask or 0)
    return {name for name, bit in table.items() if mask & (1 << bit)}


def rights_names(mask, table: dict[str, int]) -> str:
    names = [n for n in table if n in rights_set(mask, table)]
    if not names:
        return "-"
    if len(names) == len(table):
        return "all"
    if len(names) > len(table) // 2:
        return "all but " + ", ".join(right_label(n) for n in table if n not in names)
    return ", ".join(right_label(n) for n in names)


def rights_change(prev, new, table: dict[str, int]) -> tuple[list[str], list[str]]:
    """(rights added, rights removed), named; "all" when every right moved."""
    before, after = rights_set(prev, table), rights_set(new, table)
    added = [right_label(n) for n in table if n in after - before]
    removed = [right_label(n) for n in table if n in before - after]
    return (["all"] if len(added) == len(table) else added), (
        ["all"] if len(removed) == len(table) else removed
    )


def _phrase(added: list[str], removed: list[str], gain: str, loss: str) -> str:
    parts = [f"{gain} {', '.join(added)}"] if added else []
    parts += [f"{loss} {', '.join(removed)}"] if removed else []
    return "; ".join(parts)


def _quote(value) -> str:
    text = "" if value is None else str(value)
    if len(text) > TEXT_SHOWN:
        text = text[: TEXT_SHOWN - 1] + "…"
    return f"«{text}»" if text else "(empty)"


def _message(m) -> str:
    if not isinstance(m, dict):
        return "a message"
    text = m.get("message") or ""
    what = f"message {m.get('id', '?')}"
    if text:
        return f"{what}: {_quote(text)}"
    if m.get("media"):
        return f"{what} (media)"
    return what


def _until(value) -> str:
    import datetime as dt

    value = int(value or 0)
    if not value:
        return "forever"
    return "until " + dt.datetime.fromtimestamp(value, dt.UTC).strftime("%Y-%m-%d %H:%M:%S")


def _member_change(prev: dict, new: dict) -> str:
    parts = []
    if prev.get("role") != new.get("role"):
        parts.append(f"role {prev.get('role', 'none')} → {new.get('role', 'none')}")
    if prev.get("status") != new.get("status") and new.get("status") in ("kicked", "left"):
        parts.append("removed from the group" if new.get("status") == "kicked" else "left")
    admin = _phrase(
        *rights_change(prev.get("admin_rights"), new.get("admin_rights"), ADMIN_FLAGS),
        "admin rights given:",
        "admin rights taken:",
    )
    if admin:
        parts.append(admin)
    # Banned rights are what a member may NOT do: an added one is a new restriction.
    banned = _phrase(
        *rights_change(prev.get("banned_rights"), new.get("banned_rights"), BANNED_FLAGS),
        "may no longer:",
        "may again:",
    )
    if banned:
        parts.append(banned)
    if new.get("banned_rights") and (banned or prev.get("banned_until") != new.get("banned_until")):
        parts.append(_until(new.get("banned_until")))
    if (prev.get("rank") or "") != (new.get("rank") or ""):
        parts.append(f"title {_quote(prev.get('rank'))} → {_quote(new.get('rank'))}")
    return ", ".join(parts) or "no change"


def _invite(inv) -> str:
    if not isinstance(inv, dict):
        return "an invite link"
    title = f" «{inv['title']}»" if inv.get("title") else ""
    link = f"t.me/+{inv['hash']}" if inv.get("hash") else "a link"
    return f"{link}{title}"


def _toggle(label: str, data: dict) -> str:
    return f"{label} {'on' if data.get('new') else 'off'}"


def _seconds(value) -> str:
    value = int(value or 0)
    return f"{value} s" if value else "off"


def _reactions(policy) -> str:
    if not policy:
        return "none"
    if isinstance(policy, dict):
        kind = policy.get("kind") or policy.get("_") or ""
        if policy.get("emoticons"):
            return " ".join(str(e) for e in policy["emoticons"][:20])
        return str(kind) or "custom"
    return str(policy)[:40]


def admin_log_text(event_type: str, data, query: str = "", name: Callable[[int], str] | None = None) -> str:
    """One line for an admin log event; ``name`` turns a user id into a person's name."""
    data = data if isinstance(data, dict) else {}
    name = name or (lambda uid: f"user {uid}")
    prev, new = data.get("prev"), data.get("new")
    t = event_type
    if t == "participant_join":
        return "joined"
    if t == "participant_join_by_invite":
        return f"joined via {_invite(data.get('invite'))}"
    if t == "participant_join_by_request":
        by = data.get("approved_by")
        return f"joined by request via {_invite(data.get('invite'))}" + (
            f", approved by {name(by)}" if by else ""
        )
    if t == "participant_leave":
        return "left"
    if t == "participant_invite":
        who = (data.get("participant") or {}).get("user_id")
        return f"added {name(who)}" if who else "added a member"
    if t.startswith("participant_"):
        verb = MEMBER_VERBS.get(t, t.removeprefix("participant_"))
        change = _member_change(prev if isinstance(prev, dict) else {}, new if isinstance(new, dict) else {})
        return f"{verb}: {change}"
    if t == "change_title":
        return f"title {_quote(prev)} → {_quote(new)}"
    if t == "change_about":
        return f"description {_quote(prev)} → {_quote(new)}"
    if t == "change_username":
        return f"username {('@' + prev) if prev else '(none)'} → {('@' + new) if new else '(none)'}"
    if t == "change_photo":
        if new and not prev:
            return "set a photo"
        return "changed the photo" if new else "removed the photo"
    if t in ("change_peer_color", "change_profile_peer_color"):
        return "changed the profile color" if t.endswith("profile_peer_color") else "changed the name color"
    if t == "change_emoji_status":
        return "changed the emoji status"
    if t == "change_linked_chat":
        return f"discussion group {prev or '(none)'} → {new or '(none)'}"
    if t == "toggle_signatures":
        return _toggle("signatures", data)
    if t == "toggle_prehistory_hidden":
        return "history hidden from new members" if data.get("new") else "history visible to new members"
    if t == "toggle_noforwards":
        return _toggle("content protection (no forwards)", data)
    if t == "toggle_invites":
        return _toggle("members may add members", data)
    if t == "toggle_antispam":
        return _toggle("aggressive anti-spam", data)
    if t == "toggle_autotranslation":
        return _toggle("auto-translation", data)
    if t == "toggle_forum":
        return _toggle("topics (forum)", data)
    if t == "toggle_slow_mode":
        return f"slow mode {_seconds(prev)} → {_seconds(new)}"
    if t == "default_banned_rights":
        change = _phrase(
            *rights_change(prev, new, BANNED_FLAGS), "members may no longer:", "members may again:"
        )
        return change or "members' default rights unchanged"
    if t == "change_available_reactions":
        return f"reactions {_reactions(prev)} → {_reactions(new)}"
    if t == "update_pinned":
        return ("pinned " if data.get("pinned") else "unpinned ") + _message(data.get("message"))
    if t == "edit_message":
        old_text = (data.get("prev_message") or {}).get("message", "")
        new_text = (data.get("new_message") or {}).get("message", "")
        mid = (data.get("new_message") or data.get("prev_message") or {}).get("id", "?")
        return f"edited message {mid}: {_quote(old_text)} → {_quote(new_text)}"
    if t == "delete_message":
        return "deleted " + _message(data.get("message"))
    if t == "send_message":
        return "sent " + _message(data.get("message"))
    if t == "invite_edit":
        return f"edited {_invite(data.get('new_invite') or data.get('prev_invite'))}"
    if t == "invite_revoke":
        return f"revoked {_invite(data.get('invite'))}"
    if t == "invite_delete":
        return f"deleted {_invite(data.get('invite'))}"
    if query:
        return query[:120]
    return t.replace("_", " ") or "-"
