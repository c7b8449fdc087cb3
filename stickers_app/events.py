"""What a user's other sessions learn when their sticker, GIF or emoji lists change:
events in the account update log (pushed live, replayed by updates.getDifference),
rendered by ``update_kinds``. Payloads name kinds and ids only; the renderer reads
the current state."""

from __future__ import annotations

from asgiref.sync import sync_to_async

from accounts_app import updates

SETS = "stickers.sets"  # {"kind"}: updateStickerSets (masks / emojis flags by kind)
ORDER = "stickers.order"  # {"kind", "order"}: updateStickerSetsOrder
NEW_SET = "stickers.new_set"  # {"set_id", "kind"}: updateNewStickerSet (the whole set)
RECENT = "stickers.recent"  # updateRecentStickers
FAVED = "stickers.faved"  # updateFavedStickers
GIFS = "stickers.gifs"  # updateSavedGifs
MOVE_TOP = "stickers.move_top"  # {"kind", "set_id"}: updateMoveStickerSetToTop
KINDS = (SETS, ORDER, NEW_SET, RECENT, FAVED, GIFS, MOVE_TOP)

FAN_OUT_CHUNK = 1000


async def log(user_id: int, kind: str, payload: dict | None = None, *, exclude=None) -> None:
    await updates.do_append_user_update(user_id, kind, payload or {}, exclude=exclude)


async def log_many(user_ids: list[int], kind: str, payload: dict) -> None:
    """One event for each of many users (everyone who installed a removed set)."""
    for start in range(0, len(user_ids), FAN_OUT_CHUNK):
        chunk = user_ids[start : start + FAN_OUT_CHUNK]
        events = await sync_to_async(_append)([(uid, kind, payload) for uid in chunk])
        await updates.push_user_updates(events)


def _append(items):
    from django.db import transaction

    with transaction.atomic():
        return updates.append_user_updates(items)
