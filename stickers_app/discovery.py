"""Finding stickers: by emoji among the user's sets, sets by title or short name,
stickers by emoji or keyword, the sets the operator features, custom emoji documents
by id, the user's own sets."""

from __future__ import annotations

from django.db.models import Q

from edge_app.orm_threads import in_thread

from . import catalog, emoji, hashing
from .models import InstalledSet, SetSticker, StickerSet

BY_EMOJI_MAX = 200
FOUND_SETS_MAX = 50
FEATURED_MAX = 100
CUSTOM_EMOJI_IDS_MAX = 200
MY_SETS_MAX = 100
QUERY_MAX = 64


def _installed_set_ids(user_id: int, kinds: tuple[str, ...]) -> list[int]:
    return list(
        InstalledSet.objects.filter(user_id=user_id, kind__in=kinds, archived=False)
        .order_by("position")
        .values_list("set_id", flat=True)
    )


def _matching(set_ids: list[int], emoticon: str, keyword: str = "") -> list[int]:
    """Document ids of the sets' stickers whose emoji holds ``emoticon`` (or whose
    keywords start with ``keyword``), in set order then sticker order."""
    wanted = [e.rstrip("\ufe0f") for e in emoji.split(emoticon)] if emoticon else []
    order = {sid: i for i, sid in enumerate(set_ids)}
    items = SetSticker.objects.filter(set_id__in=set_ids)
    if wanted and not keyword:
        items = items.filter(emoji__contains=wanted[0])
    out = []
    for i in sorted(items, key=lambda i: (order[i.set_id], i.position)):
        by_emoji = bool(wanted) and any(w in i.emoji for w in wanted)
        by_keyword = bool(keyword) and any(k.lower().startswith(keyword.lower()) for k in i.keywords)
        if by_emoji or by_keyword:
            out.append(i.document_id)
    return out


@in_thread
def stickers_for_emoji(user_id: int, emoticon: str) -> tuple[int, list[dict]]:
    """messages.getStickers: the user's installed stickers for this emoji, then those
    of featured sets."""
    mine = _installed_set_ids(user_id, ("stickers",))
    featured = list(
        StickerSet.objects.filter(featured_at__gt=0, kind="stickers").exclude(id__in=mine)
        .order_by("-featured_at").values_list("id", flat=True)[:FEATURED_MAX]
    )  # fmt: skip
    ids = _matching(mine + featured, emoticon[:QUERY_MAX])[:BY_EMOJI_MAX]
    return hashing.list_hash(ids), catalog.documents(ids)


@in_thread
def search_sets(
    user_id: int, q: str, *, emojis: bool, exclude_featured: bool
) -> tuple[int, list[dict], dict]:
    """(hash, sets, covers) whose title or short name holds ``q``."""
    q = (q or "").strip()[:QUERY_MAX]
    rows = StickerSet.objects.filter(kind="emojis") if emojis else StickerSet.objects.exclude(kind="emojis")
    if q:
        rows = rows.filter(Q(title__icontains=q) | Q(short_name_lower__contains=q.lower()))
    if exclude_featured:
        rows = rows.filter(featured_at=0)
    found = list(rows.order_by("-featured_at", "title", "id")[:FOUND_SETS_MAX])
    dicts = catalog.set_dicts(found, user_id)
    return hashing.list_hash(d["id"] for d in dicts), dicts, catalog.covers([d["id"] for d in dicts])


@in_thread
def search_stickers(user_id: int, q: str, emoticon: str, *, emojis: bool, offset: int, limit: int):
    """messages.searchStickers: by emoji or keyword, the user's sets first, then every
    other set. (hash, documents, next offset or None)."""
    kind = ("emojis",) if emojis else ("stickers",)
    mine = _installed_set_ids(user_id, kind)
    others = list(
        StickerSet.objects.filter(kind__in=kind).exclude(id__in=mine)
        .order_by("-featured_at", "id").values_list("id", flat=True)[:FEATURED_MAX]
    )  # fmt: skip
    ids = _matching(mine + others, (emoticon or "")[:QUERY_MAX], (q or "").strip()[:QUERY_MAX])
    page = ids[offset : offset + limit]
    nxt = offset + limit if offset + limit < len(ids) else None
    return hashing.list_hash(page), catalog.documents(page), nxt


@in_thread
def featured(user_id: int, *, emojis: bool, offset: int = 0, limit: int = FEATURED_MAX):
    """(hash, count, sets, covers) the operator features, newest first."""
    rows = StickerSet.objects.filter(featured_at__gt=0)
    rows = rows.filter(kind="emojis") if emojis else rows.exclude(kind="emojis")
    count = rows.count()
    page = list(rows.order_by("-featured_at", "id")[offset : offset + min(limit, FEATURED_MAX)])
    dicts = catalog.set_dicts(page, user_id)
    return hashing.list_hash(d["id"] for d in dicts), count, dicts, catalog.covers([d["id"] for d in dicts])


@in_thread
def custom_emoji_documents(ids: list[int]) -> list[dict]:
    """Custom emoji of any set by document id (unknown ids left out)."""
    ids = list(dict.fromkeys(ids))[:CUSTOM_EMOJI_IDS_MAX]
    known = set(SetSticker.objects.filter(document_id__in=ids).values_list("document_id", flat=True))
    docs = catalog.documents([i for i in ids if i in known])
    return [d for d in docs if any(a.get("_") == "custom_emoji" for a in d["attributes"])]


@in_thread
def search_custom_emoji(user_id: int, emoticon: str) -> tuple[int, list[int]]:
    ids = _matching(_installed_set_ids(user_id, ("emojis",)), emoticon[:QUERY_MAX])[:BY_EMOJI_MAX]
    return hashing.list_hash(ids), ids


@in_thread
def my_sets(user_id: int, offset_id: int, limit: int) -> tuple[int, list[dict], dict]:
    rows = list(StickerSet.objects.filter(owner_id=user_id).order_by("-created", "-id"))
    ids = [r.id for r in rows]
    start = ids.index(offset_id) + 1 if offset_id in ids else 0
    page = rows[start : start + min(max(limit, 1), MY_SETS_MAX)]
    return len(rows), catalog.set_dicts(page, user_id), catalog.covers([r.id for r in page])
