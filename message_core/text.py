"""Message text, entity and paging rules every chat kind applies alike."""

from __future__ import annotations

from tl.errors import (
    EntitiesTooLongError,
    EntityBoundsInvalidError,
    LimitInvalidError,
    MediaCaptionTooLongError,
    MessageEmptyError,
    MessageTooLongError,
)

from . import limits


def utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def validate_text(message: str, entities: list[dict] | None, *, allow_empty: bool = False) -> list[dict]:
    """4096 code points, at most 256 entities, each inside the text (UTF-16 offsets)."""
    message = message or ""
    if not allow_empty and not message.strip():
        raise MessageEmptyError()
    if len(message) > limits.MESSAGE_MAX:
        raise MessageTooLongError()
    entities = list(entities or [])
    if len(entities) > limits.ENTITIES_MAX:
        raise EntitiesTooLongError()
    size = utf16_len(message)
    for e in entities:
        off, ln = int(e.get("offset", 0)), int(e.get("length", 0))
        if off < 0 or ln <= 0 or off + ln > size:
            raise EntityBoundsInvalidError()
    return entities


def validate_caption(caption: str, entities: list[dict] | None) -> list[dict]:
    """A media caption: may be empty, at most 1024 code points."""
    if len(caption or "") > limits.CAPTION_MAX:
        raise MediaCaptionTooLongError()
    return validate_text(caption, entities, allow_empty=True)


def mention_user_ids(entities: list[dict] | None) -> list[int]:
    """Users a message mentions: mention-name entities, and @username entities the
    server resolved when the message was written (their ``user_id``)."""
    if not entities:  # most messages: every rendering and every push asks
        return []
    return sorted(
        {
            int(e["user_id"])
            for e in entities or ()
            if e.get("type") in ("mentionName", "mention") and e.get("user_id")
        }
    )


def history_window(limit: int, add_offset: int) -> tuple[int, int]:
    """A history page's (limit, add_offset), capped as the design says (no unbounded
    page or offset)."""
    if limit < 0:
        raise LimitInvalidError()
    limit = min(limit or limits.HISTORY_LIMIT, limits.HISTORY_LIMIT)
    return limit, max(-limits.ADD_OFFSET_MAX, min(add_offset, limits.ADD_OFFSET_MAX))


SEARCH_WINDOW = 50_000  # message ids a text search scans below its offset, per page


def like_pattern(q: str) -> str:
    """An ILIKE pattern matching ``q`` anywhere, with q's own % and _ taken literally."""
    return "%" + q.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def is_caption(media: dict | None) -> bool:
    """Whether a message's text is a media caption (caption caps): it has media of its
    own. A link preview is not: the message stays a text message."""
    return bool(media) and media.get("kind") != "webpage"
