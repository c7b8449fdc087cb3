"""Stickers put on uploaded media (``stickers`` of inputMediaUploadedPhoto /
inputMediaUploadedDocument): the sets they come from are kept per photo or document,
the media is flagged ``has_stickers``, and getAttachedStickers lists the sets."""

from __future__ import annotations

from edge_app.orm_threads import in_thread

from . import catalog
from .models import AttachedSet, SetSticker, StickerSet

ATTACHED_MAX = 20  # stickers named on one upload


@in_thread
def do_attach(media_kind: str, media_id: int, document_ids: list[int]) -> bool:
    """Record the sets of the named stickers (unknown ones ignored); whether any was."""
    ids = list(dict.fromkeys(document_ids))[:ATTACHED_MAX]
    set_ids = set(SetSticker.objects.filter(document_id__in=ids).values_list("set_id", flat=True))
    AttachedSet.objects.bulk_create(
        [AttachedSet(media_kind=media_kind, media_id=media_id, set_id=s) for s in sorted(set_ids)],
        ignore_conflicts=True,
    )
    return bool(set_ids)


@in_thread
def attached_sets(media_kind: str, media_id: int, viewer_id: int) -> tuple[list[dict], dict]:
    """(sets, covers) put on this photo or document, in set id order."""
    set_ids = list(
        AttachedSet.objects.filter(media_kind=media_kind, media_id=media_id)
        .order_by("set_id")
        .values_list("set_id", flat=True)
    )
    rows = list(StickerSet.objects.filter(id__in=set_ids).order_by("id"))
    return catalog.set_dicts(rows, viewer_id), catalog.covers([r.id for r in rows])
