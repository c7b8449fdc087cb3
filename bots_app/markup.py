"""The rules of reply markup (keyboards a bot puts under its messages), applied to the
stored form of ``message_core.tl_convert_markup``.

Only bots' markup is kept: Telegram ignores the reply_markup of a user's message.
"""

from __future__ import annotations

import base64
import binascii

from message_core.tl_convert_markup import UnsupportedButton, reply_markup_from_tl
from tl.errors import (
    ButtonDataInvalidError,
    ButtonTextInvalidError,
    ButtonUrlInvalidError,
    ReplyMarkupInvalidError,
    ReplyMarkupTooLongError,
)

from . import send_rules

BUTTONS_MAX = 100
ROW_MAX = 12
TEXT_MAX = 256
DATA_MAX = 64  # bytes of callback data
COPY_TEXT_MAX = 256
URL_SCHEMES = ("http://", "https://", "tg://")
_URL_TYPES = {"url", "web_view", "simple_web_view"}


def validate(d: dict | None) -> dict | None:
    if d is None:
        return None
    rows = d.get("rows")
    if rows is None:
        return d
    rows = [row for row in rows if row]
    if d["kind"] == "keyboard" and not rows:
        raise ReplyMarkupInvalidError()
    if sum(len(r) for r in rows) > BUTTONS_MAX or any(len(r) > ROW_MAX for r in rows):
        raise ReplyMarkupTooLongError()
    for row in rows:
        for b in row:
            if not b["text"].strip() or len(b["text"]) > TEXT_MAX:
                raise ButtonTextInvalidError()
            if b["type"] == "callback":
                try:
                    data = base64.b64decode(b.get("data", ""), validate=True)
                except (binascii.Error, ValueError) as exc:
                    raise ButtonDataInvalidError() from exc
                if not 1 <= len(data) <= DATA_MAX:
                    raise ButtonDataInvalidError()
            if b["type"] in _URL_TYPES and not str(b.get("url", "")).startswith(URL_SCHEMES):
                raise ButtonUrlInvalidError()
            if b["type"] == "copy" and not 1 <= len(b.get("copy_text", "")) <= COPY_TEXT_MAX:
                raise ButtonDataInvalidError()
    return {**d, "rows": rows}


async def markup_for_sender(sender_id: int, markup, resolve_user) -> dict | None:
    """The stored form of a client's ReplyMarkup if ``sender_id`` is a bot (None for
    people: their markup is dropped, as Telegram does). REPLY_MARKUP_INVALID for a
    button the server does not keep."""
    if markup is None or not (await send_rules.are_bots(sender_id))[sender_id]:
        return None
    try:
        return validate(reply_markup_from_tl(markup, resolve_user))
    except UnsupportedButton as exc:
        raise ReplyMarkupInvalidError() from exc


def callback_data_in(d: dict | None, data: bytes) -> bool:
    """Whether the markup has a callback button carrying ``data``."""
    wanted = base64.b64encode(data).decode()
    return (
        bool(d)
        and d.get("kind") == "inline"
        and any(b["type"] == "callback" and b.get("data") == wanted for row in d["rows"] for b in row)
    )


def one_time_keyboard(rows: list[list[str]]) -> dict:
    """A reply keyboard of plain text buttons that hides once used (the service bot's)."""
    return {
        "kind": "keyboard",
        "rows": [[{"text": t, "type": "text"} for t in row] for row in rows],
        "resize": True,
        "single_use": True,
        "selective": False,
        "persistent": False,
        "placeholder": "",
    }


REMOVE = {"kind": "hide", "selective": False}


async def edit_markup_args(editor_id: int, markup, resolve_user) -> dict:
    """The ``reply_markup`` keyword of an edit: a bot's edit sets the keyboard it sends
    (none sent removes it, as on Telegram); a person's edit leaves it alone."""
    if not (await send_rules.are_bots(editor_id))[editor_id]:
        return {}
    return {"reply_markup": await markup_for_sender(editor_id, markup, resolve_user)}
