"""The Bot API's errors: ``{"ok": false, "error_code": N, "description": "..."}`` with
Telegram's texts, and the translation of the domain's RpcErrors into them."""

from __future__ import annotations

import re

from tl.errors import RpcError


class BotApiError(Exception):
    code = 400
    prefix = "Bad Request"

    def __init__(self, detail: str = "", *, retry_after: int | None = None) -> None:
        self.detail = detail
        self.retry_after = retry_after
        super().__init__(self.description)

    @property
    def description(self) -> str:
        return f"{self.prefix}: {self.detail}" if self.detail else self.prefix

    def body(self) -> dict:
        d = {"ok": False, "error_code": self.code, "description": self.description}
        if self.retry_after is not None:
            d["parameters"] = {"retry_after": self.retry_after}
        return d


class BadRequest(BotApiError):
    pass


class Unauthorized(BotApiError):
    code = 401
    prefix = "Unauthorized"


class Forbidden(BotApiError):
    code = 403
    prefix = "Forbidden"


class NotFound(BotApiError):
    code = 404
    prefix = "Not Found"


class Conflict(BotApiError):
    code = 409
    prefix = "Conflict"


class TooLarge(BotApiError):
    code = 413
    prefix = "Request Entity Too Large"


class TooManyRequests(BotApiError):
    code = 429
    prefix = "Too Many Requests"


# The Bot API's words for the domain's errors (the rest: "Bad Request: <NAME>").
_TEXTS = {
    "PEER_ID_INVALID": (BadRequest, "chat not found"),
    "CHAT_ID_INVALID": (BadRequest, "chat not found"),
    "CHANNEL_INVALID": (BadRequest, "chat not found"),
    "CHANNEL_PRIVATE": (BadRequest, "chat not found"),
    "USER_ID_INVALID": (BadRequest, "user not found"),
    "USER_IS_BOT": (Forbidden, "bot can't send messages to bots"),
    "USER_IS_BLOCKED": (Forbidden, "bot was blocked by the user"),
    "INPUT_USER_DEACTIVATED": (Forbidden, "user is deactivated"),
    "MESSAGE_EMPTY": (BadRequest, "message text is empty"),
    "MESSAGE_TOO_LONG": (BadRequest, "message is too long"),
    "MESSAGE_NOT_MODIFIED": (
        BadRequest,
        "message is not modified: specified new message content and reply markup are exactly the same "
        "as a current content and reply markup of the message",
    ),
    "MESSAGE_ID_INVALID": (BadRequest, "message to edit not found"),
    "MESSAGE_AUTHOR_REQUIRED": (BadRequest, "message can't be edited"),
    "MESSAGE_EDIT_TIME_EXPIRED": (BadRequest, "message can't be edited"),
    "QUERY_ID_INVALID": (BadRequest, "query is too old and response timeout expired or query ID is invalid"),
    "REPLY_MARKUP_INVALID": (BadRequest, "REPLY_MARKUP_INVALID"),
    "REPLY_MARKUP_TOO_LONG": (BadRequest, "REPLY_MARKUP_TOO_LONG"),
    "BUTTON_DATA_INVALID": (BadRequest, "BUTTON_DATA_INVALID"),
    "BUTTON_URL_INVALID": (BadRequest, "BUTTON_URL_INVALID"),
    "BUTTON_TEXT_INVALID": (BadRequest, "BUTTON_TEXT_INVALID"),
    "BOT_COMMAND_INVALID": (BadRequest, "BOT_COMMAND_INVALID"),
    "BOT_COMMAND_DESCRIPTION_INVALID": (BadRequest, "BOT_COMMAND_DESCRIPTION_INVALID"),
    "ENTITY_BOUNDS_INVALID": (BadRequest, "can't parse entities: entity beginning/end is out of bounds"),
    "MEDIA_CAPTION_TOO_LONG": (BadRequest, "message caption is too long"),
    "REPLY_MESSAGE_ID_INVALID": (BadRequest, "message to be replied not found"),
    "MEDIA_PREV_INVALID": (BadRequest, "there is no media in the message to edit"),
    "CHAT_SEND_MEDIA_FORBIDDEN": (BadRequest, "not enough rights to send media to the chat"),
    "CHAT_SEND_STICKERS_FORBIDDEN": (BadRequest, "not enough rights to send stickers to the chat"),
    "CHAT_SEND_GIFS_FORBIDDEN": (BadRequest, "not enough rights to send animations to the chat"),
}


class rights_text:
    """Within it, the domain's CHAT_ADMIN_REQUIRED reads as the Bot API's words for the
    method ("not enough rights to ...")."""

    def __init__(self, what: str) -> None:
        self.what = what

    def __enter__(self):
        return self

    def __exit__(self, kind, exc, tb):
        if isinstance(exc, RpcError) and exc.message in ("CHAT_ADMIN_REQUIRED", "RIGHT_FORBIDDEN"):
            raise BadRequest(f"not enough rights to {self.what}") from None
        return False


_FLOOD = re.compile(r"^(?:FLOOD_WAIT|SLOWMODE_WAIT|FLOOD_PREMIUM_WAIT)_(\d+)$")


def from_rpc(exc: RpcError) -> BotApiError:
    m = _FLOOD.match(exc.message)
    if m:
        seconds = int(m.group(1))
        return TooManyRequests(f"retry after {seconds}", retry_after=seconds)
    cls, text = _TEXTS.get(exc.message, (BadRequest, exc.message))
    if exc.code == 401:
        return Unauthorized()
    return cls(text)
