"""Reactions in private chats (``private_message_reactions``), the author's unread
reactions (``private_message_boxes.reaction_unread``) and read dates of outgoing
messages (``private_read_dates``).

Reactions are stored once for the shared content, so both sides' boxes show them. A
change is logged in both owners' account logs (``MESSAGE_REACTIONS``, rendered as
``updateMessageReactions`` with the message's reactions as they are at render time),
so a device that was offline recovers it through updates.getDifference. Reading the
reactions logs ``READ_CONTENTS`` (``updateReadMessagesContents``) for the owner's
other devices.
"""

from __future__ import annotations

from django.db import transaction

from accounts_app.updates import UserUpdate, append_user_update, append_user_updates, get_state
from edge_app.orm_threads import in_thread
from media_app.value_media import plays_once
from message_core import limits
from message_core import reactions as rx
from message_core.clock import now
from tl.errors import LimitInvalidError, MessageIdInvalidError

from .actions import READ_DATE_EXPIRE, _lock_users, _push, box_to_dict, live_boxes
from .models import MessageBox, PrivateMessage, PrivateMessageReaction, PrivateReadDate
from .reaction_view import attach

MESSAGE_REACTIONS = "private.message_reactions"
READ_CONTENTS = "private.read_contents"

READ_BATCH = 100  # unread reactions cleared per readReactions call (ids go in the event)


# --- sendReaction ---------------------------------------------------------------------------


def _send(owner_id: int, peer_id: int, box_id: int, reactions: list[str], big: bool):
    with transaction.atomic():
        _lock_users(owner_id, peer_id)
        box = live_boxes(owner_id).filter(peer_id=peer_id, box_id=box_id).first()
        if box is None:
            raise MessageIdInvalidError()
        chosen = rx.check_choice(reactions, None)
        msg = box.message
        all_rows = list(PrivateMessageReaction.objects.select_for_update().filter(message=msg))
        old = {r.reaction: r for r in all_rows if r.user_id == owner_id}
        removed = [r for r in old if r not in chosen]
        added = [r for r in chosen if r not in old]
        if added:
            counts: dict[str, int] = {}
            for r in all_rows:
                if not (r.user_id == owner_id and r.reaction in removed):
                    counts[r.reaction] = counts.get(r.reaction, 0) + 1
            rx.check_uniq(counts, chosen, 0)
        date = now()
        PrivateMessageReaction.objects.filter(message=msg, user_id=owner_id, reaction__in=removed).delete()
        PrivateMessageReaction.objects.bulk_create(
            PrivateMessageReaction(
                message=msg, user_id=owner_id, reaction=r, chosen_order=i, big=big, date=date
            )
            for i, r in enumerate(chosen)
            if r not in old
        )
        for i, r in enumerate(chosen):
            if r in old and old[r].chosen_order != i:
                PrivateMessageReaction.objects.filter(pk=old[r].pk).update(chosen_order=i)
        boxes = [box, *list(live_boxes(owner_id=None).filter(message=msg).exclude(owner_id=owner_id))]
        if msg.sender_id != owner_id and (removed or added):
            # Only the other side reacts to the author's message in a private chat.
            MessageBox.objects.filter(message=msg, owner_id=msg.sender_id, deleted=False).update(
                reaction_unread=bool(chosen)
            )
        if not (removed or added):
            return box_to_dict(box), None, [], added
        logged = append_user_updates(
            [(b.owner_id, MESSAGE_REACTIONS, {"box_id": b.box_id, "peer_id": b.peer_id}) for b in boxes]
        )
        box.refresh_from_db(fields=["reaction_unread"])
        return box_to_dict(box), logged[0], logged[1:], added


async def do_send_private_reaction(
    owner_id: int, peer_id: int, box_id: int, reactions: list[str], *, big: bool = False, exclude=None
) -> tuple[dict, UserUpdate | None, list[str]]:
    """messages.sendReaction in a private chat: the owner's reactions to their message
    ``box_id`` become ``reactions``. Returns (the message with its reactions as the
    owner sees them, the owner's logged event or None when nothing changed, added)."""
    if not 0 < box_id <= limits.MAX_MESSAGE_ID:
        raise MessageIdInvalidError()
    m, own, theirs, added = await in_thread(_send)(owner_id, peer_id, box_id, reactions, big)
    await in_thread(attach)(owner_id, [m])
    await _push([own] if own else [], theirs, exclude)
    return m, own, added


def load_for_render(owner_id: int, box_ids: list[int]) -> dict[int, dict]:
    """The owner's live boxes with their reactions (the renderer of MESSAGE_REACTIONS)."""
    boxes = {b.box_id: box_to_dict(b) for b in live_boxes(owner_id).filter(box_id__in=box_ids)}
    attach(owner_id, list(boxes.values()))
    return boxes


@in_thread
def get_messages_with_reactions(owner_id: int, peer_id: int, ids: list[int]) -> list[dict]:
    """messages.getMessagesReactions: the owner's live messages of this chat among ids."""
    if len(ids) > limits.GET_IDS_MAX:
        raise LimitInvalidError()
    boxes = load_for_render(owner_id, ids)
    return [boxes[i] for i in ids if i in boxes and boxes[i]["peer_id"] == peer_id]


@in_thread
def reactions_list(owner_id: int, peer_id: int, box_id: int, reaction: str | None) -> list[dict]:
    """messages.getMessageReactionsList of a private message: every reactor (at most
    the two sides' few reactions, so one page), newest first."""
    box = live_boxes(owner_id).filter(peer_id=peer_id, box_id=box_id).first()
    if box is None:
        raise MessageIdInvalidError()
    rows = PrivateMessageReaction.objects.filter(message_id=box.message_id)
    if reaction is not None:
        rows = rows.filter(reaction=rx.canonical(reaction))
    unread = box.reaction_unread and box.owner_id == owner_id
    return [
        {"user_id": r.user_id, "reaction": r.reaction, "date": r.date, "big": r.big,
         "unread": unread and r.user_id != owner_id}
        for r in rows.order_by("-date", "-user_id")[: rx.LIST_PAGE_MAX]
    ]  # fmt: skip


# --- the author's unread reactions ------------------------------------------------------------


def _unread(owner_id: int, peer_id: int):
    return live_boxes(owner_id).filter(peer_id=peer_id, reaction_unread=True)


@in_thread
def unread_reaction_ids(
    owner_id: int, peer_id: int, *, offset_id: int = 0, add_offset: int = 0, limit: int = 100,
    max_id: int = 0, min_id: int = 0,
) -> tuple[list[int], int]:  # fmt: skip
    """messages.getUnreadReactions of a private chat: (ids newest first, total)."""
    if limit < 0 or not -limits.ADD_OFFSET_MAX <= add_offset <= limits.ADD_OFFSET_MAX:
        raise LimitInvalidError()
    limit = min(limit or limits.HISTORY_LIMIT, limits.HISTORY_LIMIT)
    rows = _unread(owner_id, peer_id)
    if max_id:
        rows = rows.filter(box_id__lt=max_id)
    if min_id:
        rows = rows.filter(box_id__gt=min_id)
    if add_offset < 0:
        ids = list(
            rows.filter(box_id__gte=offset_id)
            .order_by("box_id")
            .values_list("box_id", flat=True)[:-add_offset]
        )
        ids = sorted(ids, reverse=True)[:limit]
    else:
        if offset_id:
            rows = rows.filter(box_id__lt=offset_id)
        ids = list(rows.order_by("-box_id").values_list("box_id", flat=True)[add_offset : add_offset + limit])
    total = _unread(owner_id, peer_id).values("id")[: limits.DELETE_HISTORY_PAGE * 10].count()
    return ids, total


def _read(owner_id: int, boxes) -> tuple[int, int, list[UserUpdate]]:
    with transaction.atomic():
        ids = list(
            boxes.select_for_update(of=("self",)).order_by("-box_id").values_list("id", "box_id")[:READ_BATCH]
        )
        if not ids:
            return get_state(owner_id).pts, 0, []
        MessageBox.objects.filter(id__in=[i for i, _ in ids]).update(reaction_unread=False)
        event = append_user_update(owner_id, READ_CONTENTS, {"ids": sorted(b for _, b in ids)})
        return event.pts, len(ids), [event]


async def do_read_reactions(owner_id: int, peer_id: int, *, exclude=None) -> tuple[int, int, bool]:
    """messages.readReactions of a private chat: one batch; (pts, pts_count, more)."""
    pts, n, own = await in_thread(_read)(owner_id, _unread(owner_id, peer_id))
    await _push(own, [], exclude)
    return pts, len(own), n >= READ_BATCH


def _read_contents(owner_id: int, ids: list[int]) -> tuple[int, list[UserUpdate], list[UserUpdate]]:
    """The owner's reactions among ``ids`` read, and the voice notes / round videos they
    received among them played: one READ_CONTENTS event for the owner, and one for
    each sender whose message is now "listened" (with the sender's own ids)."""
    with transaction.atomic():
        rows = list(
            live_boxes(owner_id)
            .select_for_update(of=("self",))
            .filter(box_id__in=ids)
            .values_list("id", "box_id", "reaction_unread", "out", "peer_id", "message_id", "message__media",
                         "message__media_read")
        )  # fmt: skip
        reacted = [(pk, b) for pk, b, unread, *_ in rows if unread]
        played = [
            (b, peer, mid)
            for _, b, _, out, peer, mid, media, read in rows
            if not out and not read and peer != owner_id and plays_once(media)
        ]
        if reacted:
            MessageBox.objects.filter(id__in=[pk for pk, _ in reacted]).update(reaction_unread=False)
        theirs = []
        if played:
            PrivateMessage.objects.filter(id__in=[mid for *_, mid in played]).update(media_read=True)
            senders: dict[int, list[int]] = {}
            for sender, box_id in (
                MessageBox.objects.filter(message_id__in=[mid for *_, mid in played], deleted=False)
                .exclude(owner_id=owner_id)
                .values_list("owner_id", "box_id")
            ):
                senders.setdefault(sender, []).append(box_id)
            theirs = [
                append_user_update(s, READ_CONTENTS, {"ids": sorted(b)}) for s, b in sorted(senders.items())
            ]
        changed = sorted({b for _, b in reacted} | {b for b, *_ in played})
        if not changed:
            return get_state(owner_id).pts, [], []
        event = append_user_update(owner_id, READ_CONTENTS, {"ids": changed})
        return event.pts, [event], theirs


async def do_read_message_contents(owner_id: int, ids: list[int], *, exclude=None) -> tuple[int, int]:
    """messages.readMessageContents: the contents of the owner's messages ``ids`` were
    seen: their reactions are read, received voice notes and round videos played (the
    sender's copy shows "listened"). Logged (and takes a pts) only when something
    changed. Returns (pts, pts_count)."""
    if len(ids) > limits.GET_IDS_MAX:
        raise LimitInvalidError()
    pts, own, theirs = await in_thread(_read_contents)(owner_id, list(ids))
    await _push(own, theirs, exclude)
    return pts, len(own)


# --- read dates of outgoing messages -------------------------------------------------------------


@in_thread
def outbox_read_date(owner_id: int, peer_id: int, msg_id: int) -> int | None:
    """When the peer read the owner's outgoing message (None: not read yet); raises
    MESSAGE_ID_INVALID for no such message, MESSAGE_TOO_OLD beyond the window."""
    from tl.errors import MessageTooOldError

    box = live_boxes(owner_id).filter(peer_id=peer_id, box_id=msg_id, out=True).first()
    if box is None:
        raise MessageIdInvalidError()
    if now() - box.message.date > READ_DATE_EXPIRE:
        raise MessageTooOldError()
    row = (
        PrivateReadDate.objects.filter(owner_id=owner_id, peer_id=peer_id, max_id__gte=msg_id)
        .order_by("max_id")
        .values_list("date", flat=True)
        .first()
    )
    return row
