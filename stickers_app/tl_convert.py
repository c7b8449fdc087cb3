"""TL shapes of sticker sets and the user's sticker lists, and the InputStickerSet /
InputDocument forms turned into plain references."""

from __future__ import annotations

from django.conf import settings

from media_app.tl_convert import document_to_tl
from tl import types
from tl.errors import StickerDocumentInvalidError, StickersetInvalidError

from . import emoji as emoji_rules
from .catalog import SetRef
from .sets import DocRef, NewSticker

SPECIAL_INPUTS = {
    types.InputStickerSetAnimatedEmoji: "animated_emoji",
    types.InputStickerSetAnimatedEmojiAnimations: "animated_emoji_animations",
    types.InputStickerSetPremiumGifts: "premium_gifts",
    types.InputStickerSetEmojiGenericAnimations: "emoji_generic_animations",
    types.InputStickerSetEmojiDefaultStatuses: "emoji_default_statuses",
    types.InputStickerSetEmojiDefaultTopicIcons: "emoji_default_topic_icons",
    types.InputStickerSetEmojiChannelDefaultStatuses: "emoji_channel_default_statuses",
    types.InputStickerSetTonGifts: "ton_gifts",
}


# --- input ------------------------------------------------------------------------------------


def set_ref(s) -> SetRef | None:
    """None for inputStickerSetEmpty; STICKERSET_INVALID for what names nothing."""
    if isinstance(s, types.InputStickerSetID):
        return SetRef(id=s.id, access_hash=s.access_hash)
    if isinstance(s, types.InputStickerSetShortName):
        if not s.short_name:
            raise StickersetInvalidError()
        return SetRef(short_name=s.short_name[:64])
    if isinstance(s, types.InputStickerSetDice):
        return SetRef(special="dice", emoticon=(s.emoticon or "")[:16])
    special = SPECIAL_INPUTS.get(type(s))
    if special:
        return SetRef(special=special)
    if isinstance(s, types.InputStickerSetEmpty) or s is None:
        return None
    raise StickersetInvalidError()


def doc_ref(d, error=StickerDocumentInvalidError) -> DocRef:
    if not isinstance(d, types.InputDocument):
        raise error()
    return DocRef(d.id, d.access_hash, bytes(d.file_reference or b""))


def mask_coords_from_tl(c) -> dict | None:
    if c is None:
        return None
    return {"n": c.n, "x": c.x, "y": c.y, "zoom": c.zoom}


def new_sticker(item) -> NewSticker:
    return NewSticker(
        doc_ref(item.document), item.emoji or "", mask_coords_from_tl(item.mask_coords), item.keywords or ""
    )


# --- output -----------------------------------------------------------------------------------


def _thumb_type(doc: dict) -> str:
    return {"application/x-tgsticker": "a", "video/webm": "v"}.get(doc["mime_type"], "s")


def sticker_set_to_tl(s: dict, viewer_id: int):
    """A set's thumbnail file is listed in ``thumbs`` (downloaded by inputStickerSetThumb)."""
    inst = s.get("installed")
    thumb = s.get("thumb")
    fields = {}
    if s["kind"] == "emojis" and s.get("thumb_document_id"):
        fields["thumb_document_id"] = s["thumb_document_id"]
    elif thumb is not None:
        fields.update(
            thumbs=[types.PhotoSize(type=_thumb_type(thumb), w=100, h=100, size=thumb["size"])],
            thumb_dc_id=settings.MTPROTO_DC_ID, thumb_version=s["thumb_version"],
        )  # fmt: skip
    return types.StickerSet(
        archived=bool(inst and inst["archived"]) or None, official=s.get("official") or None,
        masks=(s["kind"] == "masks") or None, emojis=(s["kind"] == "emojis") or None,
        text_color=s.get("text_color") or None, creator=(s["owner_id"] == viewer_id and viewer_id != 0) or None,
        installed_date=inst["date"] if inst else None, id=s["id"], access_hash=s["access_hash"], title=s["title"],
        short_name=s["short_name"], count=s["count"], hash=s["hash"], **fields,
    )  # fmt: skip


def packs_to_tl(items: list[dict]) -> list:
    packs: dict[str, list[int]] = {}
    for i in items:
        for e in emoji_rules.split(i["emoji"]):
            packs.setdefault(e, []).append(i["document"]["id"])
    return [types.StickerPack(emoticon=e, documents=ids) for e, ids in packs.items()]


def messages_sticker_set_to_tl(full: dict, viewer_id: int):
    items = full["items"]
    return types.messages.StickerSet(
        set=sticker_set_to_tl(full["set"], viewer_id),
        packs=packs_to_tl(items),
        keywords=[
            types.StickerKeyword(document_id=i["document"]["id"], keyword=i["keywords"])
            for i in items
            if i["keywords"]
        ],
        documents=[document_to_tl(i["document"]) for i in items],
    )


def covered_to_tl(s: dict, viewer_id: int, covers: dict[int, dict]):
    cover = covers.get(s["id"])
    st = sticker_set_to_tl(s, viewer_id)
    if cover is None:
        return types.StickerSetNoCovered(set=st)
    return types.StickerSetCovered(set=st, cover=document_to_tl(cover))


def all_stickers_to_tl(h: int, sets: list[dict], viewer_id: int):
    return types.messages.AllStickers(hash=h, sets=[sticker_set_to_tl(s, viewer_id) for s in sets])


def featured_to_tl(h: int, count: int, sets: list[dict], covers: dict, viewer_id: int):
    return types.messages.FeaturedStickers(
        hash=h, count=count, sets=[covered_to_tl(s, viewer_id, covers) for s in sets], unread=[]
    )


def found_sets_to_tl(h: int, sets: list[dict], covers: dict, viewer_id: int):
    return types.messages.FoundStickerSets(hash=h, sets=[covered_to_tl(s, viewer_id, covers) for s in sets])


def archived_to_tl(count: int, sets: list[dict], covers: dict, viewer_id: int):
    return types.messages.ArchivedStickers(
        count=count, sets=[covered_to_tl(s, viewer_id, covers) for s in sets]
    )


def install_result_to_tl(sets: list[dict], covers: dict, viewer_id: int):
    if not sets:
        return types.messages.StickerSetInstallResultSuccess()
    return types.messages.StickerSetInstallResultArchive(
        sets=[covered_to_tl(s, viewer_id, covers) for s in sets]
    )


def _packs_of(docs: list[dict], emoji: dict[int, str]) -> list:
    return packs_to_tl([{"document": d, "emoji": emoji.get(d["id"], "")} for d in docs if emoji.get(d["id"])])


def recent_to_tl(h: int, docs: list[dict], dates: list[int], emoji: dict[int, str]):
    return types.messages.RecentStickers(
        hash=h, packs=_packs_of(docs, emoji), stickers=[document_to_tl(d) for d in docs], dates=dates
    )


def faved_to_tl(h: int, docs: list[dict], emoji: dict[int, str]):
    return types.messages.FavedStickers(
        hash=h, packs=_packs_of(docs, emoji), stickers=[document_to_tl(d) for d in docs]
    )


def gifs_to_tl(h: int, docs: list[dict]):
    return types.messages.SavedGifs(hash=h, gifs=[document_to_tl(d) for d in docs])


def stickers_to_tl(h: int, docs: list[dict]):
    return types.messages.Stickers(hash=h, stickers=[document_to_tl(d) for d in docs])


def found_stickers_to_tl(h: int, docs: list[dict], next_offset: int | None):
    return types.messages.FoundStickers(
        hash=h, stickers=[document_to_tl(d) for d in docs], next_offset=next_offset
    )


def documents_to_tl(docs: list[dict]) -> list:
    return [document_to_tl(d) for d in docs]


def my_stickers_to_tl(count: int, sets: list[dict], covers: dict, viewer_id: int):
    return types.messages.MyStickers(count=count, sets=[covered_to_tl(s, viewer_id, covers) for s in sets])


def kind_flags(kind: str) -> dict:
    return {"masks": (kind == "masks") or None, "emojis": (kind == "emojis") or None}


def sets_update_to_tl(kind: str):
    return types.UpdateStickerSets(**kind_flags(kind))


def order_update_to_tl(kind: str, order: list[int]):
    return types.UpdateStickerSetsOrder(order=order, **kind_flags(kind))


def move_to_top_update_to_tl(kind: str, set_id: int):
    return types.UpdateMoveStickerSetToTop(stickerset=set_id, **kind_flags(kind))


def new_set_update_to_tl(full: dict, viewer_id: int):
    return types.UpdateNewStickerSet(stickerset=messages_sticker_set_to_tl(full, viewer_id))


LIST_UPDATES = {
    "recent": types.UpdateRecentStickers,
    "attached": types.UpdateRecentStickers,
    "faved": types.UpdateFavedStickers,
    "gifs": types.UpdateSavedGifs,
}
