"""Reading sticker sets: finding one from what a client names (id and access hash,
short name, or one of Telegram's built-in sets), and a set as plain data (its row,
its stickers with their documents, how the viewer holds it). Shared by the owner's
edits, the user's lists, search and the group sets."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count

from media_app.actions import FileTarget, document_dict
from media_app.models import Document
from tl.errors import LocationInvalidError, StickersetInvalidError

from .models import InstalledSet, SetSticker, StickerSet

# Telegram's built-in sets clients ask for by kind (animated emoji, dice, default
# statuses...). No such set ships with this server: each answers as an empty set with
# a fixed id, so a client stores "nothing here" instead of asking again.
SPECIAL_BASE = 0x7E1E_5E70_0000_0000
SPECIAL = {
    "animated_emoji": ("AnimatedEmojies", "Animated emoji", "stickers"),
    "animated_emoji_animations": ("EmojiAnimations", "Emoji animations", "stickers"),
    "premium_gifts": ("GiftsPremium", "Premium gifts", "stickers"),
    "emoji_generic_animations": ("EmojiGenericAnimations", "Generic animations", "stickers"),
    "emoji_default_statuses": ("StatusEmojiWhite", "Default statuses", "emojis"),
    "emoji_default_topic_icons": ("Topics", "Topic icons", "emojis"),
    "emoji_channel_default_statuses": ("ChannelStatusEmoji", "Channel statuses", "emojis"),
    "ton_gifts": ("TonGifts", "TON gifts", "stickers"),
    "dice": ("Dice", "Dice", "stickers"),
}


@dataclass(frozen=True)
class SetRef:
    """What a client names: ``id`` with ``access_hash``, a ``short_name``, or a
    ``special`` built-in set (``emoticon`` for dice)."""

    id: int = 0
    access_hash: int = 0
    short_name: str = ""
    special: str = ""
    emoticon: str = ""


def special_key(ref: SetRef) -> str:
    return f"dice:{ref.emoticon}" if ref.special == "dice" else ref.special


def special_full(ref: SetRef, viewer_id: int) -> dict:
    """The set an operator put in place of a built-in one, else the empty stand-in."""
    row = StickerSet.objects.filter(special=special_key(ref)).first()
    if row is not None:
        return full_set(row, viewer_id)
    return {"set": special_set(ref), "items": []}


def special_set(ref: SetRef) -> dict:
    short, title, kind = SPECIAL[ref.special]
    index = list(SPECIAL).index(ref.special)
    if ref.special == "dice":
        short, title = f"Dice{ref.emoticon.encode().hex()}"[:64], f"Dice {ref.emoticon}"
        index = 100 + sum(ref.emoticon.encode()) % 1000
    return {
        "id": SPECIAL_BASE + index, "access_hash": SPECIAL_BASE + index, "owner_id": 0, "title": title,
        "short_name": short, "kind": kind, "text_color": False, "hash": 1, "created": 0,
        "thumb_document_id": None, "thumb_version": 0, "featured_at": 0, "count": 0, "installed": None,
        "official": True,
    }  # fmt: skip


def find_row(ref: SetRef) -> StickerSet:
    """The set a client names; STICKERSET_INVALID for none or a wrong access hash."""
    if ref.short_name:
        row = StickerSet.objects.filter(short_name_lower=ref.short_name.lower()).first()
    elif ref.id:
        row = StickerSet.objects.filter(id=ref.id).first()
        if row is not None and row.access_hash != ref.access_hash:
            row = None
    else:
        row = None
    if row is None:
        raise StickersetInvalidError()
    return row


def set_dict(row: StickerSet, count: int, installed: InstalledSet | None = None) -> dict:
    return {
        "id": row.id, "access_hash": row.access_hash, "owner_id": row.owner_id, "title": row.title,
        "short_name": row.short_name, "kind": row.kind, "text_color": row.text_color, "hash": row.hash,
        "created": row.created, "thumb_document_id": row.thumb_document_id, "thumb_version": row.thumb_version,
        "featured_at": row.featured_at, "count": count,
        "installed": {"date": installed.installed_date, "archived": installed.archived} if installed else None,
        "official": False,
    }  # fmt: skip


def _thumbs(rows: list[StickerSet]) -> dict[int, dict]:
    """set id -> {"mime_type", "size"} of the thumbnail file of sets that have one
    (custom emoji sets name a sticker instead: ``thumb_document_id``)."""
    wanted = {r.id: r.thumb_document_id for r in rows if r.thumb_document_id and r.kind != "emojis"}
    docs = {
        d["id"]: {"mime_type": d["mime_type"], "size": d["size"]}
        for d in Document.objects.filter(id__in=list(wanted.values())).values("id", "mime_type", "size")
    }
    return {sid: docs[did] for sid, did in wanted.items() if did in docs}


def set_dicts(rows: list[StickerSet], viewer_id: int) -> list[dict]:
    """Rows as set dicts (sticker counts, the viewer's installs) with two queries."""
    ids = [r.id for r in rows]
    if not ids:
        return []
    counts = dict(
        SetSticker.objects.filter(set_id__in=ids)
        .values_list("set_id")
        .annotate(n=Count("id"))
        .values_list("set_id", "n")
    )
    installs = {i.set_id: i for i in InstalledSet.objects.filter(user_id=viewer_id, set_id__in=ids)}
    thumbs = _thumbs(rows)
    return [{**set_dict(r, counts.get(r.id, 0), installs.get(r.id)), "thumb": thumbs.get(r.id)} for r in rows]


def items_of(set_ids: list[int]) -> dict[int, list[dict]]:
    """set id -> its stickers in order: {"document", "emoji", "keywords", "mask_coords"}."""
    items = list(SetSticker.objects.filter(set_id__in=set_ids).order_by("set_id", "position", "id"))
    docs = {d.id: document_dict(d) for d in Document.objects.filter(id__in=[i.document_id for i in items])}
    out: dict[int, list[dict]] = {sid: [] for sid in set_ids}
    for i in items:
        if i.document_id in docs:
            out[i.set_id].append(
                {
                    "document": docs[i.document_id],
                    "emoji": i.emoji,
                    "keywords": i.keywords,
                    "mask_coords": i.mask_coords,
                }
            )
    return out


def full_set(row: StickerSet, viewer_id: int) -> dict:
    """A set with its stickers: {"set": set dict, "items": [...]}."""
    items = items_of([row.id])[row.id]
    installed = InstalledSet.objects.filter(user_id=viewer_id, set_id=row.id).first()
    return {
        "set": {**set_dict(row, len(items), installed), "thumb": _thumbs([row]).get(row.id)},
        "items": items,
    }


def thumb_target(ref: SetRef, version: int) -> FileTarget:
    """The thumbnail file of a set at ``version`` (inputStickerSetThumb); sets are
    public, so anyone who names the set may download it. LOCATION_INVALID otherwise."""
    try:
        row = find_row(ref)
    except StickersetInvalidError:
        raise LocationInvalidError() from None
    doc = Document.objects.filter(id=row.thumb_document_id).first() if row.thumb_document_id else None
    if doc is None or row.thumb_version != version or row.kind == "emojis":
        raise LocationInvalidError()
    return FileTarget("d", doc.id, doc.sha256, doc.size, doc.date, False)


def covers(set_ids: list[int]) -> dict[int, dict]:
    """set id -> the document that stands for it (its chosen thumb sticker, else the first)."""
    rows = {r.id: r for r in StickerSet.objects.filter(id__in=set_ids)}
    firsts = {}
    for i in SetSticker.objects.filter(set_id__in=set_ids).order_by("set_id", "position", "id"):
        firsts.setdefault(i.set_id, i.document_id)
    wanted = {sid: (rows[sid].thumb_document_id or firsts.get(sid)) for sid in rows}
    docs = {d.id: document_dict(d) for d in Document.objects.filter(id__in=[d for d in wanted.values() if d])}
    return {sid: docs[d] for sid, d in wanted.items() if d in docs}


def documents(doc_ids: list[int]) -> list[dict]:
    """Documents in the order asked (missing ones left out)."""
    docs = {d.id: document_dict(d) for d in Document.objects.filter(id__in=doc_ids)}
    return [docs[i] for i in doc_ids if i in docs]
