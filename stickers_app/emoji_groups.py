"""The emoji categories and default statuses clients show in their emoji panels, from
what operators chose here: each custom emoji set the operator features is a category
(messages.getEmojiGroups and its status / profile photo / sticker variants): its title,
its cover custom emoji as the icon, and the emoji its custom emoji stand for as what the
category finds. The default emoji statuses (account.getDefaultEmojiStatuses, and the
channel ones) are the custom emoji of the set an operator put in place of Telegram's
built-in one (catalog.SPECIAL "emoji_default_statuses" / "emoji_channel_default_statuses")."""

from __future__ import annotations

import hashlib
import json

from edge_app.orm_threads import in_thread

from . import emoji, hashing
from .models import SetSticker, StickerSet

GROUPS_MAX = 50
EMOTICONS_PER_GROUP = 100
STATUSES_MAX = 100


def _int32_hash(value) -> int:
    """Telegram's int hash of a list: any stable value, 0 only for "nothing"."""
    digest = hashlib.sha256(json.dumps(value, ensure_ascii=False).encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF or 1


@in_thread
def groups() -> tuple[int, list[dict]]:
    """(hash, [{"title", "icon_emoji_id", "emoticons"}]) of the featured custom emoji
    sets, newest featured first (a set without custom emoji is left out)."""
    sets = list(
        StickerSet.objects.filter(featured_at__gt=0, kind="emojis").order_by("-featured_at", "id")[
            :GROUPS_MAX
        ]
    )
    items: dict[int, list[SetSticker]] = {s.id: [] for s in sets}
    for i in SetSticker.objects.filter(set_id__in=list(items)).order_by("set_id", "position", "id"):
        items[i.set_id].append(i)
    out = []
    for s in sets:
        stickers = items[s.id]
        if not stickers:
            continue
        icon = s.thumb_document_id if s.thumb_document_id in {i.document_id for i in stickers} else None
        emoticons: list[str] = []
        for i in stickers:
            for e in emoji.split(i.emoji or ""):
                if e not in emoticons and len(emoticons) < EMOTICONS_PER_GROUP:
                    emoticons.append(e)
        out.append(
            {"title": s.title, "icon_emoji_id": icon or stickers[0].document_id, "emoticons": emoticons}
        )
    return (_int32_hash(out) if out else 0), out


@in_thread
def default_statuses(special: str) -> tuple[int, list[int]]:
    """(hash, custom emoji document ids) of the set standing in for a built-in status set."""
    row = StickerSet.objects.filter(special=special, kind="emojis").first()
    if row is None:
        return 0, []
    ids = list(
        SetSticker.objects.filter(set_id=row.id)
        .order_by("position", "id")
        .values_list("document_id", flat=True)
    )[:STATUSES_MAX]
    return (hashing.list_hash(ids) if ids else 0), ids
