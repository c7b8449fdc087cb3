"""Reply markup (keyboards under a message) between TL and the stored form both chat
kinds keep on a message (``reply_markup``; bots_app.markup holds the rules).

Stored form::

    {"kind": "inline" | "keyboard" | "hide" | "force_reply",
     "rows": [[{"text": str, "type": str, ...type fields}]],      # inline / keyboard
     "resize", "single_use", "selective", "persistent": bool, "placeholder": str}

Button types: inline ``callback`` (data: base64), ``url``, ``switch_inline`` (query,
same_peer), ``copy`` (copy_text), ``user_profile`` (user_id), ``web_view`` (url)
(games, payments, login URLs and peer requests are not kept); keyboard ``text``, ``request_phone``, ``request_geo``,
``request_poll`` (quiz), ``simple_web_view`` (url).
"""

from __future__ import annotations

import base64

from tl import types

_INLINE_FROM = {
    types.InlineButtonTypeCallback: ("callback", ("data", "requires_password")),
    types.InlineButtonTypeUrl: ("url", ("url",)),
    types.InlineButtonTypeSwitchInline: ("switch_inline", ("query", "same_peer")),
    types.InlineButtonTypeCopy: ("copy", ("copy_text",)),
    types.InlineButtonTypeUserProfile: ("user_profile", ("user_id",)),
    types.InlineButtonTypeWebView: ("web_view", ("url",)),
}
_INLINE_TO = {kind: (cls, fields) for cls, (kind, fields) in _INLINE_FROM.items()}
_KEYBOARD_FROM = {
    types.ButtonTypeDefault: ("text", ()),
    types.ButtonTypeRequestPhone: ("request_phone", ()),
    types.ButtonTypeRequestGeoLocation: ("request_geo", ()),
    types.ButtonTypeRequestPoll: ("request_poll", ("quiz",)),
    types.ButtonTypeSimpleWebView: ("simple_web_view", ("url",)),
}
_KEYBOARD_TO = {kind: (cls, fields) for cls, (kind, fields) in _KEYBOARD_FROM.items()}


class UnsupportedButton(ValueError):
    """A button type the server does not keep (the caller answers Telegram's error)."""


def _button_from_tl(button, table: dict, resolve_user) -> dict:
    btype = button.type
    if isinstance(btype, types.InputInlineButtonTypeUserProfile):
        return {"text": button.text, "type": "user_profile", "user_id": resolve_user(btype.user_id)}
    entry = table.get(type(btype))
    if entry is None:
        raise UnsupportedButton(type(btype).__name__)
    kind, fields = entry
    d = {"text": button.text, "type": kind}
    for name in fields:
        value = getattr(btype, name)
        if value is None:
            continue
        d[name] = base64.b64encode(value).decode() if isinstance(value, bytes) else value
    return d


def reply_markup_from_tl(markup, resolve_user=lambda u: 0) -> dict | None:
    """The stored form of a client's ReplyMarkup (None for none). ``resolve_user``
    turns an InputUser of a profile button into a user id (raising for a bad one)."""
    if markup is None:
        return None
    if isinstance(markup, types.ReplyKeyboardHide):
        return {"kind": "hide", "selective": bool(markup.selective)}
    if isinstance(markup, types.ReplyKeyboardForceReply):
        return {
            "kind": "force_reply",
            "single_use": bool(markup.single_use),
            "selective": bool(markup.selective),
            "placeholder": markup.placeholder or "",
        }
    if isinstance(markup, types.ReplyInlineMarkup):
        rows = [[_button_from_tl(b, _INLINE_FROM, resolve_user) for b in row.buttons] for row in markup.rows]
        return {"kind": "inline", "rows": rows}
    if isinstance(markup, types.ReplyKeyboardMarkup):
        rows = [
            [_button_from_tl(b, _KEYBOARD_FROM, resolve_user) for b in row.buttons] for row in markup.rows
        ]
        return {
            "kind": "keyboard",
            "rows": rows,
            "resize": bool(markup.resize),
            "single_use": bool(markup.single_use),
            "selective": bool(markup.selective),
            "persistent": bool(markup.persistent),
            "placeholder": markup.placeholder or "",
        }
    raise UnsupportedButton(type(markup).__name__)


def _button_to_tl(d: dict, table: dict, button_cls):
    cls, fields = table[d["type"]]
    args = {}
    for name in fields:
        if name in d:
            args[name] = base64.b64decode(d[name]) if name == "data" else d[name]
    if cls is types.InlineButtonTypeSwitchInline:
        args.setdefault("query", "")
    return button_cls(text=d["text"], type=cls(**args))


def reply_markup_to_tl(d: dict | None):
    if not d:
        return None
    kind = d["kind"]
    if kind == "hide":
        return types.ReplyKeyboardHide(selective=d.get("selective") or None)
    if kind == "force_reply":
        return types.ReplyKeyboardForceReply(
            single_use=d.get("single_use") or None,
            selective=d.get("selective") or None,
            placeholder=d.get("placeholder") or None,
        )
    if kind == "inline":
        return types.ReplyInlineMarkup(
            rows=[
                types.KeyboardInlineButtonRow(
                    buttons=[_button_to_tl(b, _INLINE_TO, types.KeyboardInlineButton) for b in row]
                )
                for row in d["rows"]
            ]
        )
    return types.ReplyKeyboardMarkup(
        resize=d.get("resize") or None,
        single_use=d.get("single_use") or None,
        selective=d.get("selective") or None,
        persistent=d.get("persistent") or None,
        rows=[
            types.KeyboardButtonRow(
                buttons=[_button_to_tl(b, _KEYBOARD_TO, types.KeyboardButton) for b in row]
            )
            for row in d["rows"]
        ],
        placeholder=d.get("placeholder") or None,
    )


def visible_markup(d: dict | None, viewer_id: int, *, sender_id: int, targets: set[int]) -> dict | None:
    """What ``viewer_id`` is shown of a group message's markup: a ``selective``
    keyboard (reply keyboard, removal, force reply) only reaches the users the message
    mentions or replies to (``targets``), and the bot that sent it."""
    if not d or not d.get("selective") or d["kind"] == "inline":
        return d
    return d if viewer_id == sender_id or viewer_id in targets else None
