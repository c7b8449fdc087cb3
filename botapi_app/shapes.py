"""Bot API objects (User, Chat, Message, MessageEntity, InlineKeyboardMarkup ...) from
the stored forms the chat kinds keep, and the stored forms of what bots send.

Only this module and ``parse_mode`` know the Bot API's JSON shapes; the domain actions
see the project's own message dicts and markup."""

from __future__ import annotations

import base64
import re

from accounts_app.models import User

# Stored entity type (MTProto's name) <-> the Bot API's.
_ENTITY_NAMES = {
    "bold": "bold",
    "italic": "italic",
    "underline": "underline",
    "strike": "strikethrough",
    "spoiler": "spoiler",
    "code": "code",
    "pre": "pre",
    "textUrl": "text_link",
    "mentionName": "text_mention",
    "url": "url",
    "mention": "mention",
    "hashtag": "hashtag",
    "cashtag": "cashtag",
    "botCommand": "bot_command",
    "email": "email",
    "phone": "phone_number",
    "blockquote": "blockquote",
    "customEmoji": "custom_emoji",
}
_STORED_NAMES = {v: k for k, v in _ENTITY_NAMES.items()}
# Telegram marks commands in any message a bot receives, whatever client sent it.
_COMMAND = re.compile(r"(?<![\w/])/[A-Za-z0-9_]{1,32}(?:@[A-Za-z0-9_]{3,32})?")


def utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def user(u: User, *, me: bool = False) -> dict:
    d = {"id": u.id, "is_bot": bool(u.bot), "first_name": u.first_name}
    if u.last_name:
        d["last_name"] = u.last_name
    if u.username:
        d["username"] = u.username
    if u.lang_code and not u.bot:
        d["language_code"] = u.lang_code
    return d


def bot_me(u: User, bot) -> dict:
    """getMe: the bot with the flags only it sees about itself."""
    return {
        **user(u),
        "can_join_groups": bool(bot.join_groups),
        "can_read_all_group_messages": not bot.privacy,
        "supports_inline_queries": bool(bot.inline_placeholder),
        "can_connect_to_business": False,
        "has_main_web_app": bool((bot.menu_button or {}).get("url")),
    }


def private_chat(u: User) -> dict:
    d = {"id": u.id, "type": "private", "first_name": u.first_name}
    if u.last_name:
        d["last_name"] = u.last_name
    if u.username:
        d["username"] = u.username
    return d


def entities_out(text: str, stored: list[dict], users: dict[int, User]) -> list[dict]:
    out = []
    for e in stored or []:
        name = _ENTITY_NAMES.get(e.get("type", ""))
        if name is None:
            continue
        d = {"type": name, "offset": e["offset"], "length": e["length"]}
        if name == "pre" and e.get("language"):
            d["language"] = e["language"]
        elif name == "text_link":
            d["url"] = e.get("url", "")
        elif name == "text_mention":
            target = users.get(int(e.get("user_id") or 0))
            if target is None:
                continue
            d["user"] = user(target)
        elif name == "custom_emoji":
            d["custom_emoji_id"] = str(e.get("document_id", ""))
        out.append(d)
    taken = [(d["offset"], d["offset"] + d["length"]) for d in out]
    for m in _COMMAND.finditer(text or ""):
        start = utf16_len(text[: m.start()])
        end = start + utf16_len(m.group())
        if not any(a < end and start < b for a, b in taken):
            out.append({"type": "bot_command", "offset": start, "length": end - start})
    out.sort(key=lambda d: (d["offset"], -d["length"]))
    return out


def entities_in(raw: list[dict]) -> list[dict]:
    """The stored form of a bot's ``entities`` (already shaped as the Bot API's)."""
    from .errors import BadRequest

    out = []
    for e in raw or []:
        if not isinstance(e, dict):
            raise BadRequest("can't parse entities: entity must be an object")
        stored = _STORED_NAMES.get(e.get("type"))
        try:
            offset, length = int(e["offset"]), int(e["length"])
        except (KeyError, TypeError, ValueError):
            raise BadRequest('can\'t parse entities: field "offset" must be of type Number') from None
        if stored is None or stored in (
            "mention",
            "hashtag",
            "cashtag",
            "botCommand",
            "url",
            "email",
            "phone",
        ):
            continue  # detected by Telegram, not taken from the bot
        d = {"type": stored, "offset": offset, "length": length}
        if stored == "pre" and e.get("language"):
            d["language"] = str(e["language"])
        if stored == "textUrl":
            d["url"] = str(e.get("url", ""))
        if stored == "mentionName":
            d["user_id"] = int((e.get("user") or {}).get("id") or 0)
        out.append(d)
    return out


def message(m: dict, users: dict[int, User], chat: dict) -> dict:
    """A private message as its owner (the bot) sees it."""
    sender = users.get(m["sender_id"])
    d = {"message_id": m["id"], "date": m["date"], "chat": chat}
    if sender is not None:
        d["from"] = user(sender)
    if m.get("edit_date"):
        d["edit_date"] = m["edit_date"]
    if m.get("noforwards"):
        d["has_protected_content"] = True
    if m.get("fwd_from"):
        from .forward_shapes import forward_origin

        origin = forward_origin(m["fwd_from"], users, user)
        if origin is not None:
            d["forward_origin"] = origin
    text = m.get("message") or ""
    media = m.get("media")
    key = "caption" if media else "text"
    if text or not media:
        d[key] = text
        entities = entities_out(text, m.get("entities") or [], users)
        if entities:
            d["entities" if key == "text" else "caption_entities"] = entities
    if media:
        from .media_shapes import media_fields

        # A quiz's answer shows in the bot's private chats and on what the bot sent.
        reveal = chat.get("type") == "private" or bool(sender is not None and sender.bot)
        d.update(media_fields(media, entities_out, reveal_quiz=reveal))
        if m.get("grouped_id"):
            d["media_group_id"] = str(m["grouped_id"])
    if m.get("reply_markup") and m["reply_markup"].get("kind") == "inline":
        d["reply_markup"] = markup_out(m["reply_markup"])
    if m.get("via_bot_id") and m["via_bot_id"] in users:
        d["via_bot"] = user(users[m["via_bot_id"]])
    return d


def markup_out(stored: dict) -> dict:
    rows = []
    for row in stored.get("rows") or []:
        out_row = []
        for b in row:
            d = {"text": b["text"]}
            if b["type"] == "callback":
                d["callback_data"] = base64.b64decode(b.get("data", "")).decode("utf-8", "replace")
            elif b["type"] == "url":
                d["url"] = b.get("url", "")
            elif b["type"] == "switch_inline":
                d["switch_inline_query_current_chat" if b.get("same_peer") else "switch_inline_query"] = (
                    b.get("query", "")
                )
            elif b["type"] == "copy":
                d["copy_text"] = {"text": b.get("copy_text", "")}
            elif b["type"] == "web_view":
                d["web_app"] = {"url": b.get("url", "")}
            out_row.append(d)
        rows.append(out_row)
    return {"inline_keyboard": rows}


def markup_in(raw) -> dict | None:
    """The stored form of a bot's ``reply_markup`` (InlineKeyboardMarkup,
    ReplyKeyboardMarkup, ReplyKeyboardRemove or ForceReply); the rules are
    ``bots_app.markup``'s."""
    from .errors import BadRequest

    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise BadRequest("can't parse reply keyboard markup JSON object")
    if "inline_keyboard" in raw:
        rows = []
        for row in _rows(raw["inline_keyboard"], "inline keyboard"):
            out_row = []
            for b in row:
                text = str(b.get("text", ""))
                if "callback_data" in b:
                    data = str(b["callback_data"]).encode()
                    out_row.append(
                        {"text": text, "type": "callback", "data": base64.b64encode(data).decode()}
                    )
                elif "url" in b:
                    out_row.append({"text": text, "type": "url", "url": str(b["url"])})
                elif "switch_inline_query" in b or "switch_inline_query_current_chat" in b:
                    same = "switch_inline_query_current_chat" in b
                    query = b.get("switch_inline_query_current_chat" if same else "switch_inline_query") or ""
                    out_row.append(
                        {"text": text, "type": "switch_inline", "query": str(query), "same_peer": same}
                    )
                elif "copy_text" in b:
                    out_row.append(
                        {
                            "text": text,
                            "type": "copy",
                            "copy_text": str((b["copy_text"] or {}).get("text", "")),
                        }
                    )
                elif "web_app" in b:
                    out_row.append(
                        {"text": text, "type": "web_view", "url": str((b["web_app"] or {}).get("url", ""))}
                    )
                else:
                    raise BadRequest(
                        "can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard"
                    )
            rows.append(out_row)
        return {"kind": "inline", "rows": rows}
    if "keyboard" in raw:
        rows = []
        for row in _rows(raw["keyboard"], "keyboard"):
            out_row = []
            for b in row:
                if isinstance(b, str):
                    b = {"text": b}
                kind = (
                    "request_phone"
                    if b.get("request_contact")
                    else "request_geo"
                    if b.get("request_location")
                    else "text"
                )
                if isinstance(b.get("web_app"), dict):  # a Mini App answering with web_app_data
                    url = str(b["web_app"].get("url") or "")
                    out_row.append({"text": str(b.get("text", "")), "type": "simple_web_view", "url": url})
                    continue
                out_row.append({"text": str(b.get("text", "")), "type": kind})
            rows.append(out_row)
        return {
            "kind": "keyboard",
            "rows": rows,
            "resize": bool(raw.get("resize_keyboard")),
            "single_use": bool(raw.get("one_time_keyboard")),
            "selective": bool(raw.get("selective")),
            "persistent": bool(raw.get("is_persistent")),
            "placeholder": str(raw.get("input_field_placeholder") or ""),
        }
    if raw.get("remove_keyboard"):
        return {"kind": "hide", "selective": bool(raw.get("selective"))}
    if raw.get("force_reply"):
        return {
            "kind": "force_reply",
            "single_use": False,
            "selective": bool(raw.get("selective")),
            "placeholder": str(raw.get("input_field_placeholder") or ""),
        }
    raise BadRequest("can't parse reply keyboard markup JSON object")


def _rows(rows, what: str) -> list[list[dict]]:
    from .errors import BadRequest

    if not isinstance(rows, list) or not all(isinstance(r, list) for r in rows):
        raise BadRequest(f'field "{what}" of the reply markup must be an Array of Arrays')
    if not all(isinstance(b, dict | str) for r in rows for b in r):
        raise BadRequest(f"can't parse {what} button")
    return rows


# ChatMemberAdministrator's flags <-> the stored admin rights' names (channels_app.rights).
ADMIN_CAN = {
    "can_change_info": "change_info",
    "can_post_messages": "post_messages",
    "can_edit_messages": "edit_messages",
    "can_delete_messages": "delete_messages",
    "can_restrict_members": "ban_users",
    "can_invite_users": "invite_users",
    "can_pin_messages": "pin_messages",
    "can_promote_members": "add_admins",
    "can_manage_video_chats": "manage_call",
    "can_manage_chat": "other",
    "can_manage_topics": "manage_topics",
    "can_post_stories": "post_stories",
    "can_edit_stories": "edit_stories",
    "can_delete_stories": "delete_stories",
}
# ChatPermissions' fields and the banned rights that take each away (send_messages takes
# every sending right).
_PERMITS = {
    "can_send_messages": ("send_messages", "send_plain"),
    "can_send_audios": ("send_messages", "send_audios"),
    "can_send_documents": ("send_messages", "send_docs"),
    "can_send_photos": ("send_messages", "send_photos"),
    "can_send_videos": ("send_messages", "send_videos"),
    "can_send_video_notes": ("send_messages", "send_roundvideos"),
    "can_send_voice_notes": ("send_messages", "send_voices"),
    "can_send_polls": ("send_messages", "send_polls"),
    "can_send_other_messages": ("send_messages", "send_stickers", "send_gifs", "send_games", "send_inline"),
    "can_add_web_page_previews": ("send_messages", "embed_links"),
    "can_react_to_messages": (),
    "can_edit_tag": ("change_info",),
    "can_change_info": ("change_info",),
    "can_invite_users": ("invite_users",),
    "can_pin_messages": ("pin_messages",),
    "can_manage_topics": ("manage_topics",),
}


def chat_member(u: User, row: dict | None) -> dict:
    """A ChatMember from a member row or snapshot (role, status, rights), as the Bot
    API's updates carry it: creator, administrator, member, restricted, left, kicked."""
    from channels_app.rights import ADMIN_FLAGS, BANNED_FLAGS

    d = {"user": user(u)}
    row = row or {}
    status, role = row.get("status") or "none", row.get("role") or "member"
    if status not in ("active", "kicked", "banned"):
        return {**d, "status": "left"}
    if status in ("kicked", "banned") and int(row.get("banned_rights") or 0) & 1:
        return {**d, "status": "kicked", "until_date": int(row.get("banned_until") or 0)}
    if role == "creator":
        return {**d, "status": "creator", "is_anonymous": False}
    if role == "admin":
        rights = int(row.get("admin_rights") or 0)
        out = {**d, "status": "administrator", "can_be_edited": False}
        out["is_anonymous"] = bool(rights >> ADMIN_FLAGS["anonymous"] & 1)
        for name, stored in ADMIN_CAN.items():
            out[name] = bool(rights >> ADMIN_FLAGS[stored] & 1)
        out["can_send_welcome_messages"] = False
        if row.get("rank"):
            out["custom_title"] = row["rank"]
        return out
    banned = int(row.get("banned_rights") or 0)
    if banned:
        out = {**d, "status": "restricted", "is_member": status == "active",
               "until_date": int(row.get("banned_until") or 0)}  # fmt: skip
        for name, takers in _PERMITS.items():
            out[name] = not any(banned >> BANNED_FLAGS[t] & 1 for t in takers)
        return out
    return {**d, "status": "member"}


def poll(p, counts: dict[str, int], total: int) -> dict:
    """A Poll as the bot that sent it sees it (the quiz's answer included)."""
    d = {
        "id": str(p.id),
        "question": p.question,
        # The option's bytes (hex) are its persistent id, as MTProto's are.
        "options": [
            {"persistent_id": a["option"], "text": a["text"], "voter_count": counts.get(a["option"], 0)}
            for a in p.answers
        ],
        "total_voter_count": total,
        "is_closed": bool(p.closed),
        "is_anonymous": not p.public_voters,
        "type": "quiz" if p.quiz else "regular",
        "allows_multiple_answers": bool(p.multiple_choice),
        "allows_revoting": not p.quiz,  # a quiz answer is final
        "members_only": False,
    }
    if p.quiz and p.correct:
        options = [a["option"] for a in p.answers]
        if p.correct[0] in options:
            d["correct_option_id"] = options.index(p.correct[0])
            d["correct_option_ids"] = [options.index(c) for c in p.correct if c in options]
        if p.solution:
            d["explanation"] = p.solution
    if p.close_period:
        d["open_period"] = p.close_period
    if p.close_date:
        d["close_date"] = p.close_date
    return d
