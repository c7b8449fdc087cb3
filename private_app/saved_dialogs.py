"""Saved Messages as chats (layer 173+): the owner's Saved Messages split into
sublists by the chat each message came from (``MessageBox.saved_peer``: a user id,
minus a channel id, or the owner's own id for what they wrote there), listed by
messages.getSavedDialogs with pins of their own.

A sublist's peer travels as a signed id here; ``peer_key`` / ``peer_of_key`` convert.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction

from message_core import limits
from tl.errors import LimitInvalidError, PeerIdInvalidError, PinnedDialogsTooMuchError

from .actions import attach_reactions, box_to_dict, in_thread, live_boxes
from .models import MessageBox, PrivateMessageReaction, SavedDialogPin

SAVED_DIALOG_PINNED = "private.saved_dialog_pinned"  # payload: saved_peer, pinned
SAVED_PINNED_ORDER = "private.saved_pinned_order"  # payload: order (saved peers)

# Telegram's saved_dialogs_pinned_limit_default (help.getAppConfig announces it).
PINNED_MAX = 5
# Sublists one getSavedDialogs call looks at: the sublists of an account are the
# chats it saved from, a few hundred at most in practice.
SUBLISTS_MAX = 2000
# Messages a per-sublist tag count looks at.
TAG_COUNT_WINDOW = 10000


def peer_key(kind: str, peer_id: int) -> int:
    return peer_id if kind == "u" else -peer_id


def peer_of_key(key: int) -> tuple[str, int]:
    return ("u", key) if key > 0 else ("c", -key)


@dataclass(slots=True)
class SavedDialog:
    saved_peer: int
    top: dict  # the sublist's newest message (box_to_dict)
    pinned: bool


@dataclass(slots=True)
class SavedDialogsPage:
    dialogs: list[SavedDialog]
    count: int
    complete: bool


def _saved(owner_id: int):
    return live_boxes(owner_id).filter(peer_id=owner_id).exclude(saved_peer=0)


def _tops(owner_id: int, keys: list[int] | None = None) -> dict[int, MessageBox]:
    rows = _saved(owner_id)
    if keys is not None:
        rows = rows.filter(saved_peer__in=keys)
    rows = rows.order_by("saved_peer", "-box_id").distinct("saved_peer")[:SUBLISTS_MAX]
    return {b.saved_peer: b for b in rows}


def _pins(owner_id: int) -> list[int]:
    return list(
        SavedDialogPin.objects.filter(owner_id=owner_id)
        .order_by("-order", "id")
        .values_list("saved_peer", flat=True)
    )


def _dialogs(owner_id: int, boxes: list[MessageBox], pinned: set[int]) -> list[SavedDialog]:
    shown = [box_to_dict(b) for b in boxes]
    attach_reactions(owner_id, shown)
    return [SavedDialog(m["saved_peer"], m, m["saved_peer"] in pinned) for m in shown]


@in_thread
def get_saved_dialogs(
    owner_id: int,
    *,
    offset_id: int = 0,
    offset_date: int = 0,
    offset_peer: int = 0,
    limit: int = 100,
    exclude_pinned: bool = False,
) -> SavedDialogsPage:
    """messages.getSavedDialogs: pinned sublists first (first page only), then the rest
    newest first, below the offset (the last sublist's top message id and date)."""
    if limit < 0:
        raise LimitInvalidError()
    limit = min(limit or limits.DIALOGS_LIMIT, limits.DIALOGS_LIMIT)
    tops = _tops(owner_id)
    pins = [k for k in _pins(owner_id) if k in tops]
    first_page = offset_id <= 0 and offset_date <= 0 and not offset_peer
    rest = sorted(
        (b for k, b in tops.items() if k not in pins), key=lambda b: (b.message.date, b.box_id), reverse=True
    )
    if not first_page:
        ceiling = (offset_date or 2**31, offset_id if offset_id > 0 else limits.MAX_MESSAGE_ID + 1)
        rest = [b for b in rest if (b.message.date, b.box_id) < ceiling]
    chosen = ([tops[k] for k in pins] if first_page and not exclude_pinned else []) + rest
    page = chosen[:limit]
    count = len(tops) - (len(pins) if exclude_pinned else 0)
    return SavedDialogsPage(_dialogs(owner_id, page, set(pins)), count, len(chosen) <= limit)


@in_thread
def get_pinned_saved_dialogs(owner_id: int) -> SavedDialogsPage:
    pins = _pins(owner_id)
    tops = _tops(owner_id, pins)
    boxes = [tops[k] for k in pins if k in tops]
    return SavedDialogsPage(_dialogs(owner_id, boxes, set(pins)), len(boxes), True)


@in_thread
def get_saved_dialogs_by_id(owner_id: int, keys: list[int]) -> SavedDialogsPage:
    if len(keys) > limits.GET_IDS_MAX:
        raise LimitInvalidError()
    tops = _tops(owner_id, keys)
    pins = set(_pins(owner_id))
    boxes = [tops[k] for k in dict.fromkeys(keys) if k in tops]
    return SavedDialogsPage(_dialogs(owner_id, boxes, pins), len(boxes), True)


@in_thread
def do_toggle_saved_dialog_pin(owner_id: int, key: int, pinned: bool) -> bool:
    """messages.toggleSavedDialogPin; whether anything changed. PINNED_DIALOGS_TOO_MUCH
    past the cap, PEER_ID_INVALID for a sublist that does not exist."""
    with transaction.atomic():
        rows = SavedDialogPin.objects.select_for_update().filter(owner_id=owner_id)
        current = {r.saved_peer: r for r in rows}
        if not pinned:
            return SavedDialogPin.objects.filter(owner_id=owner_id, saved_peer=key).delete()[0] > 0
        if key in current:
            return False
        if not _saved(owner_id).filter(saved_peer=key).exists():
            raise PeerIdInvalidError()
        if len(current) >= PINNED_MAX:
            raise PinnedDialogsTooMuchError()
        top = max((r.order for r in current.values()), default=0)
        SavedDialogPin.objects.create(owner_id=owner_id, saved_peer=key, order=top + 1)
        return True


@in_thread
def do_reorder_pinned_saved_dialogs(owner_id: int, order: list[int], force: bool) -> list[int]:
    """messages.reorderPinnedSavedDialogs: the pins in ``order`` (first on top); with
    ``force`` the ones left out are unpinned, else they follow. The new order."""
    order = list(dict.fromkeys(order))
    if len(order) > PINNED_MAX:
        raise PinnedDialogsTooMuchError()
    with transaction.atomic():
        current = {
            r.saved_peer: r for r in SavedDialogPin.objects.select_for_update().filter(owner_id=owner_id)
        }
        if force:
            unknown = [k for k in order if k not in current]
            if unknown and _saved(owner_id).filter(saved_peer__in=unknown).values(
                "saved_peer"
            ).distinct().count() < len(unknown):
                raise PeerIdInvalidError()
            SavedDialogPin.objects.filter(owner_id=owner_id).exclude(saved_peer__in=order).delete()
            final = order
        else:
            final = [k for k in order if k in current] + [
                k for k in sorted(current, key=lambda k: -current[k].order) if k not in order
            ]
        for rank, key in enumerate(reversed(final), start=1):
            SavedDialogPin.objects.update_or_create(
                owner_id=owner_id, saved_peer=key, defaults={"order": rank}
            )
    return final


@in_thread
def tag_counts(owner_id: int, key: int | None) -> dict[str, int]:
    """How many of the owner's Saved Messages (of one sublist, or all) carry each of the
    owner's reactions: the counts of messages.getSavedReactionTags."""
    boxes = _saved(owner_id)
    if key is not None:
        boxes = boxes.filter(saved_peer=key)
    newest = boxes.order_by("-box_id").values_list("box_id", flat=True).first() or 0
    ids = boxes.filter(box_id__gt=newest - TAG_COUNT_WINDOW).values("message_id")
    counts: dict[str, int] = {}
    for reaction in PrivateMessageReaction.objects.filter(user_id=owner_id, message_id__in=ids).values_list(
        "reaction", flat=True
    ):
        counts[reaction] = counts.get(reaction, 0) + 1
    return counts
