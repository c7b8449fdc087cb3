"""Emoji keywords (messages.getEmojiKeywords*): the keywords sticker and custom emoji
set owners gave their stickers, each mapped to the emoji of the stickers carrying it, so
typing a word suggests the emoji. They belong to no language: every language a client
asks about gets the same list.

The list is versioned: a read that finds it changed since the newest stored version
stores a new one (``EmojiKeywordsVersion``), and a difference from a kept version is the
exact additions and removals between the two (Telegram Desktop applies a difference on
top of what it holds, so it must be exact). A version older than the kept ones gets the
whole list."""

from __future__ import annotations

from django.db import IntegrityError, transaction

from edge_app.orm_threads import in_thread
from message_core.clock import now

from . import emoji
from .models import EmojiKeywordsVersion, SetSticker

KEYWORDS_MAX = 5000  # keywords served
STICKERS_READ_MAX = 50_000  # stickers with keywords read to build them (oldest first)
KEYWORD_LEN_MAX = 64
EMOTICONS_PER_KEYWORD = 20
VERSIONS_KEPT = 50
LANG_CODES_MAX = 20
LANG_CODE_LEN_MAX = 16


def normalize(keyword: str) -> str:
    return " ".join((keyword or "").lower().split())


def current_map() -> dict[str, list[str]]:
    """keyword -> emoji, from every set's stickers (bounded)."""
    out: dict[str, list[str]] = {}
    rows = SetSticker.objects.exclude(keywords=[]).order_by("id").values_list("emoji", "keywords")
    for text, words in rows[:STICKERS_READ_MAX].iterator():
        emoticons = emoji.split(text or "")
        for word in words or []:
            key = normalize(str(word))
            if not key or len(key) > KEYWORD_LEN_MAX:
                continue
            if key not in out:
                if len(out) >= KEYWORDS_MAX:
                    continue
                out[key] = []
            for e in emoticons:
                if e not in out[key] and len(out[key]) < EMOTICONS_PER_KEYWORD:
                    out[key].append(e)
    return {k: sorted(v) for k, v in sorted(out.items())}


def _latest() -> EmojiKeywordsVersion | None:
    return EmojiKeywordsVersion.objects.order_by("-version").first()


def _current() -> EmojiKeywordsVersion | None:
    """The newest version, stored anew when the keywords changed (None: there never
    were any)."""
    latest = _latest()
    words = current_map()
    if latest is None and not words:
        return None
    if latest is not None and latest.keywords == words:
        return latest
    version = (latest.version if latest else 0) + 1
    try:
        with transaction.atomic():
            row = EmojiKeywordsVersion.objects.create(version=version, keywords=words, created=now())
    except IntegrityError:  # another reader stored this change first
        return _latest()
    EmojiKeywordsVersion.objects.filter(version__lte=version - VERSIONS_KEPT).delete()
    return row


def _diff(old: dict[str, list[str]], new: dict[str, list[str]]) -> tuple[list, list]:
    added, removed = [], []
    for key in sorted(set(old) | set(new)):
        was, now_ = set(old.get(key, ())), set(new.get(key, ()))
        if now_ - was:
            added.append((key, sorted(now_ - was)))
        if was - now_:
            removed.append((key, sorted(was - now_)))
    return added, removed


@in_thread
def difference(from_version: int) -> tuple[int, list, list]:
    """(version, added [(keyword, emoji)], removed [(keyword, emoji)]) since
    ``from_version`` (0: everything)."""
    row = _current()
    if row is None:
        return 0, [], []
    if from_version == row.version:
        return row.version, [], []
    base = EmojiKeywordsVersion.objects.filter(version=from_version).first() if from_version > 0 else None
    added, removed = _diff(base.keywords if base else {}, row.keywords)
    return row.version, added, removed


@in_thread
def languages(lang_codes: list[str]) -> list[str]:
    """The asked languages keywords are served in: all of them when there are any."""
    if _current() is None or not _latest().keywords:
        return []
    codes = [c for c in dict.fromkeys(lang_codes) if c and len(c) <= LANG_CODE_LEN_MAX]
    return codes[:LANG_CODES_MAX]
