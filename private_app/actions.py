"""Private messages: send, forward, history, exact reads, read marks, edit, delete
(the dialog list and its marks are in ``private_app.dialogs``).

Each change is one transaction that writes the boxes and appends one event per
affected owner to their account update log (``accounts_app.updates``): a device that
was offline replays it through ``updates.getDifference``, live sessions get it pushed
after the commit. The owners' ``users`` rows are locked in id order first; their pts
and message-id sequences advance under those locks, so two users writing to each
other at once never deadlock and ids are gapless per owner.

Message dicts (what ``tl_convert`` renders) are one owner's view of a box:
``id`` (the owner's message id), ``owner_id``, ``peer_id``, ``out``, ``sender_id``,
``date``, ``message``, ``entities``, ``fwd_from``, ``edit_date``, ``silent``,
``reply_to_msg_id``.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field, replace

from django.db import connection, transaction
from django.db.models import Max, OuterRef, Q, Subquery

from accounts_app.models import User
from accounts_app.privacy import hide_forward_senders
from accounts_app.updates import (
    UserUpdate,
    append_user_update,
    append_user_updates,
    get_state,
    push_user_updates,
)
from edge_app.orm_threads import in_thread
from media_app import actions as media_actions
from media_app.value_media import media_user_ids, plays_once
from message_core import limits, send_hooks
from message_core.clock import now
from message_core.send_origin import FROM_SCHEDULED
from message_core.text import SEARCH_WINDOW, history_window, is_caption, validate_caption, validate_text
from polls_app.actions import attach_results as attach_polls
from tl.errors import (
    LimitInvalidError,
    MediaPrevInvalidError,
    MessageAuthorRequiredError,
    MessageEditTimeExpiredError,
    MessageIdInvalidError,
    MessageIdsEmptyError,
    MessageNotModifiedError,
    MultiMediaTooLongError,
    RandomIdEmptyError,
    RandomIdInvalidError,
)

from . import send_store
from .models import MessageBox, PrivateDialog, PrivateMessage, PrivateReadDate
from .reaction_view import attach as attach_reactions
from .reaction_view import reactor_ids

USER_PEER = "user"  # message_core.send_hooks' kind of a private chat
NEW_MESSAGE = "private.new_message"
EDIT_MESSAGE = "private.edit_message"
DELETE_MESSAGES = "private.delete_messages"
READ_INBOX = "private.read_inbox"
READ_OUTBOX = "private.read_outbox"

EDIT_WINDOW = 48 * 3600  # as on Telegram; Saved Messages stay editable
UNREAD_COUNT_MAX = 10_000  # the most unread messages one dialog counts
# Boxes a text search walks newest first before it asks the trigram index instead.
SEARCH_WALK = 2_000
HISTORY_COUNT_MAX = 100_000  # a Saved Messages sublist's count is exact up to this many messages


@dataclass(slots=True)
class PrivateChange:
    """What the actor's answer shows: its own boxes (request order) and events."""

    messages: list[dict] = field(default_factory=list)
    events: list[UserUpdate] = field(default_factory=list)
    random_ids: dict[int, int] = field(default_factory=dict)  # box id -> random id
    pts: int = 0  # the actor's pts after the change


@dataclass(slots=True)
class PrivateHistory:
    messages: list[dict]
    count: int
    inexact: bool = False  # the count is an estimate (a search's page, not its total)


# --- reading helpers -----------------------------------------------------------------


def box_to_dict(box: MessageBox) -> dict:
    m = box.message
    return {
        "id": box.box_id,
        "owner_id": box.owner_id,
        "peer_id": box.peer_id,
        "out": box.out,
        "sender_id": m.sender_id,
        "date": m.date,
        "message": m.message,
        "entities": m.entities or [],
        "fwd_from": m.fwd_from,
        "edit_date": m.edit_date,
        "silent": m.silent,
        "reply_to_msg_id": box.reply_to_box_id,
        "message_pk": box.message_id,
        "reaction_unread": box.reaction_unread,
        "media": m.media,
        "grouped_id": m.grouped_id,
        "reply_markup": m.reply_markup,
        "via_bot_id": m.via_bot_id,
        "media_unread": not m.media_read and box.owner_id != box.peer_id and plays_once(m.media),
        "saved_peer": box.saved_peer,
    }


def live_boxes(owner_id: int | None):
    boxes = MessageBox.objects.select_related("message").filter(deleted=False)
    return boxes if owner_id is None else boxes.filter(owner_id=owner_id)


def load_boxes(owner_id: int, box_ids: list[int]) -> dict[int, dict]:
    """The owner's live boxes among ``box_ids`` (deleted ones are absent), by id."""
    return {b.box_id: box_to_dict(b) for b in live_boxes(owner_id).filter(box_id__in=box_ids)}


def message_refs(messages: list[dict], user_ids: set[int], channel_ids: set[int]) -> None:
    """The peers a client needs to render these messages: both sides and the forward origin."""
    user_ids.update(reactor_ids(messages))
    for m in messages:
        user_ids.update((m["owner_id"], m["peer_id"], m["sender_id"]))
        if m.get("via_bot_id"):
            user_ids.add(m["via_bot_id"])
        user_ids.update(media_user_ids(m.get("media")))
        fwd = m.get("fwd_from") or {}
        for key in ("from_user_id", "saved_from_user_id"):
            if fwd.get(key):
                user_ids.add(fwd[key])
        for key in ("from_channel_id", "saved_from_channel_id"):
            if fwd.get(key):
                channel_ids.add(fwd[key])
        saved = m.get("saved_peer") or 0
        if saved > 0:
            user_ids.add(saved)
        elif saved < 0:
            channel_ids.add(-saved)


def _pushing(event: UserUpdate, box: MessageBox) -> UserUpdate:
    """The event as pushed: with the message its commit wrote, so each live session's
    rendering needs no query (the stored payload keeps only the box id)."""
    return replace(event, payload={**event.payload, "message": box_to_dict(box)})


def _lock_users(*user_ids: int) -> dict[int, bool]:
    """Lock the owners' rows in id order; returns ``{user_id: deleted}``."""
    return dict(
        User.objects.select_for_update()
        .filter(id__in=sorted(set(user_ids)))
        .order_by("id")
        .values_list("id", "deleted")
    )


def _refresh_top(owner_id: int, peer_id: int) -> None:
    """After deletes: the dialog's top is its newest live box (0 hides the dialog)."""
    top = live_boxes(owner_id).filter(peer_id=peer_id).order_by("-box_id").first()
    PrivateDialog.objects.filter(owner_id=owner_id, peer_id=peer_id).update(
        top_box_id=top.box_id if top else 0, top_date=top.message.date if top else 0
    )


# --- send / forward --------------------------------------------------------------------


async def _push(own: list[UserUpdate], theirs: list[UserUpdate], exclude) -> None:
    """After the commit: the actor's events to its other sessions, the rest to their owners."""
    await push_user_updates(own, exclude=exclude)
    await push_user_updates(theirs)


async def _finish(own: PrivateChange, theirs: list[UserUpdate], exclude) -> PrivateChange:
    await _push(own.events, theirs, exclude)
    return own


def _mark_from_scheduled(messages: list[dict], events: list[UserUpdate]) -> None:
    """The sender's copies of what the scheduler sent show ``from_scheduled`` (in the
    answer and the pushes; the stored message does not keep it)."""
    for m in messages:
        m["from_scheduled"] = True
    for ev in events:
        if isinstance(ev.payload.get("message"), dict):
            ev.payload["message"]["from_scheduled"] = True


async def _write(
    sender_id: int, peer_id: int, items: list[dict], random_ids: list[int], silent: bool, exclude
) -> PrivateChange:
    """Store ``items`` as new messages from ``sender_id`` to ``peer_id`` and push them.
    A random id the sender already used for this peer returns that message instead (a
    retried send); for another peer it is refused."""
    if len(random_ids) != len(items) or len(set(random_ids)) != len(random_ids):
        raise RandomIdInvalidError()
    if not all(random_ids):
        raise RandomIdEmptyError()
    await send_hooks.check(sender_id, USER_PEER, peer_id, len(items))
    written = await send_store.write_messages(
        sender_id, peer_id, items, random_ids, silent=silent, kind=NEW_MESSAGE
    )
    if FROM_SCHEDULED.get():
        _mark_from_scheduled(written.own_messages, written.own_events)
    own = PrivateChange(messages=written.own_messages, events=written.own_events, pts=written.pts)
    own.random_ids = {m["id"]: rid for m, rid in zip(written.own_messages, random_ids, strict=True)}
    done = await _finish(own, written.their_events, exclude)
    if written.their_events and peer_id != sender_id:  # not a retried send, not Saved Messages
        send_hooks.delivered(sender_id, USER_PEER, peer_id, written.own_messages)
    return done


async def do_send_private_message(
    sender_id: int,
    peer_id: int,
    message: str,
    random_id: int,
    *,
    entities: list[dict] | None = None,
    reply_to_msg_id: int = 0,
    silent: bool = False,
    exclude: tuple[int, int] | None = None,
    media: dict | None = None,
    reply_markup: dict | None = None,
    via_bot_id: int = 0,
) -> PrivateChange:
    """messages.sendMessage (or sendMedia, with ``media``) to a user (or to oneself:
    Saved Messages). ``reply_markup``: a bot's keyboard, already checked;
    ``via_bot_id``: sent through that bot's inline mode."""
    attached = media if is_caption(media) else None
    entities = validate_caption(message, entities) if attached else validate_text(message, entities)
    item = {"message": message, "entities": entities, "reply_to_msg_id": reply_to_msg_id, "media": media}
    if reply_markup is not None:
        item["reply_markup"] = reply_markup
    if via_bot_id:
        item["via_bot_id"] = via_bot_id
    return await _write(sender_id, peer_id, [item], [random_id], silent, exclude)


def is_service(m: dict) -> bool:
    return bool(m.get("media")) and "action" in m["media"]


async def do_send_private_service(
    sender_id: int, peer_id: int, action: dict, random_id: int, *, exclude: tuple[int, int] | None = None
) -> PrivateChange:
    """A service message from ``sender_id`` to ``peer_id`` (``action``: its kind and
    fields, e.g. the data a Mini App's keyboard button sent to its bot). Private
    messages keep it in ``media`` under ``"action"``: no file, no text, and every
    reading path already carries the media column (tl_convert renders it as
    messageService)."""
    item = {"message": "", "entities": [], "reply_to_msg_id": 0, "media": {"action": action}}
    return await _write(sender_id, peer_id, [item], [random_id], False, exclude)


async def do_send_private_album(
    sender_id: int,
    peer_id: int,
    items: list[dict],
    *,
    silent: bool = False,
    exclude: tuple[int, int] | None = None,
) -> PrivateChange:
    """messages.sendMultiMedia to a user: ``items`` (message, entities, media, random_id)
    become messages of one grouped_id, in order."""
    if not items:
        raise RandomIdEmptyError()
    if len(items) > limits.ALBUM_MAX:
        raise MultiMediaTooLongError()
    grouped_id = secrets.randbits(62) + 1
    rows = [
        {"message": it["message"], "entities": validate_caption(it["message"], it.get("entities")),
         "media": it["media"], "grouped_id": grouped_id}
        for it in items
    ]  # fmt: skip
    return await _write(sender_id, peer_id, rows, [it["random_id"] for it in items], silent, exclude)


async def do_forward_to_user(
    sender_id: int,
    peer_id: int,
    items: list[dict],
    random_ids: list[int],
    *,
    drop_author: bool = False,
    silent: bool = False,
    exclude: tuple[int, int] | None = None,
    source: tuple[str, int] | None = None,
) -> PrivateChange:
    """Target side of messages.forwardMessages into a private chat. ``items``: message,
    entities, fwd_from (from a channel's or a private chat's get_forwardable);
    ``source``: the chat they come from, ("u", user id) or ("c", channel id)."""
    if len(items) > limits.FORWARD_IDS_MAX:
        raise LimitInvalidError()
    if sender_id == peer_id:
        items = _saved_copies(sender_id, items, source)
    rows = [
        {"message": it["message"], "entities": it.get("entities") or [], "media": it.get("media"),
         "fwd_from": None if drop_author else it.get("fwd_from"), "saved_peer": it.get("saved_peer", 0)}
        for it in items
    ]  # fmt: skip
    return await _write(sender_id, peer_id, rows, random_ids, silent, exclude)


def _forward_header(m: dict) -> dict:
    if m.get("fwd_from"):
        # A forward of a forward names the original source; where a Saved Messages copy
        # was saved from stays behind.
        return {k: v for k, v in m["fwd_from"].items() if not k.startswith("saved_from")}
    return {"from_user_id": m["sender_id"], "date": m["date"]}


def _saved_copies(owner_id: int, items: list[dict], source: tuple[str, int] | None) -> list[dict]:
    """Forwards into the owner's Saved Messages keep the chat they came from: it is the
    Saved Messages sublist they go to and their forward header's ``saved_from``. A
    forward inside Saved Messages keeps the sublist it had."""
    out = []
    for it in items:
        it = dict(it)
        src = it.get("source") or {}
        if source is None or source == ("u", owner_id):
            it["saved_peer"] = src.get("saved_peer") or owner_id
            if src.get("fwd_from"):
                it["fwd_from"] = src["fwd_from"]
        else:
            kind, peer_id = source
            it["saved_peer"] = peer_id if kind == "u" else -peer_id
            if it.get("fwd_from") is not None:
                key = "saved_from_user_id" if kind == "u" else "saved_from_channel_id"
                it["fwd_from"] = {**it["fwd_from"], key: peer_id, "saved_from_msg_id": src.get("id", 0)}
        out.append(it)
    return out


@in_thread
def get_forwardable(owner_id: int, peer_id: int, ids: list[int]) -> list[dict]:
    """Source side of messages.forwardMessages from a private chat: the owner's live
    messages of that dialog, in request order, with their forward header."""
    if not ids:
        raise MessageIdsEmptyError()
    if len(ids) > limits.FORWARD_IDS_MAX:
        raise LimitInvalidError()
    found = {b.box_id: box_to_dict(b) for b in live_boxes(owner_id).filter(peer_id=peer_id, box_id__in=ids)}
    out = [
        {
            "message": m["message"],
            "entities": m["entities"],
            "media": m["media"],
            "fwd_from": _forward_header(m),
            "source": m,
        }
        for m in (found.get(i) for i in ids)
        if m is not None and not is_service(m)  # service messages are not forwarded
    ]
    if not out:
        raise MessageIdInvalidError()
    hide_forward_senders(owner_id, out)
    return out


# --- history / exact reads ---------------------------------------------------------------


@in_thread
def get_history(
    owner_id: int,
    peer_id: int,
    *,
    offset_id: int = 0,
    offset_date: int = 0,
    add_offset: int = 0,
    limit: int = 20,
    max_id: int = 0,
    min_id: int = 0,
    q: str = "",
    min_date: int = 0,
    max_date: int = 0,
    media_kinds: tuple[str, ...] = (),
    saved_peer: int = 0,
) -> PrivateHistory:
    """messages.getHistory of a private chat: seek on the owner's (peer, id) index.
    messages.search uses the same seek with ``q`` / dates. A text search walks the
    newest SEARCH_WALK boxes below its offset (a common word fills its page there),
    then asks the trigram index for the matches of the whole history (a rare word)."""
    limit, add_offset = history_window(limit, add_offset)
    if len(q) > limits.SEARCH_QUERY_MAX:
        raise LimitInvalidError()
    dialog = live_boxes(owner_id).filter(peer_id=peer_id)
    if saved_peer:
        # messages.getSavedHistory: one sublist of Saved Messages (saved_dialogs)
        dialog = dialog.filter(saved_peer=saved_peer)
    ceiling = max_id if max_id > 0 else limits.MAX_MESSAGE_ID + 1
    rows = dialog.filter(box_id__gt=max(min_id, 0), box_id__lt=ceiling)
    filtered = bool(q or min_date or max_date or media_kinds)
    whole = rows  # the index way reads the whole history, not the walk's window
    if q or media_kinds:
        top = offset_id if offset_id > 0 else limits.MAX_MESSAGE_ID + 1
        newest = dialog.order_by("-box_id").values_list("box_id", flat=True).first() or 0
        rows = rows.filter(box_id__gt=min(top, newest + 1) - SEARCH_WINDOW)
        if media_kinds:
            rows = rows.filter(media_q(media_kinds))
    indexed = None  # a text search's second way: the matches through the trigram index
    if q and not media_kinds:
        indexed = (whole, _text_matches(q, (owner_id, peer_id), min_date, max_date))
        rows = rows.filter(message_id=Subquery(text_hit(q, min_date, max_date)))
    else:
        if q:
            rows = rows.filter(message__message__icontains=q)
        if min_date:
            rows = rows.filter(message__date__gte=min_date)
        if max_date:
            rows = rows.filter(message__date__lte=max_date)
    if offset_id <= 0 and offset_date > 0:
        pivot = dialog.filter(message__date__lt=offset_date).order_by("-box_id").first()
        offset_id = pivot.box_id + 1 if pivot else 1
    if offset_id <= 0:
        offset_id = limits.MAX_MESSAGE_ID + 1
    messages: list[MessageBox] = []
    if add_offset < 0:  # the window moves to newer ids
        newer = rows.filter(box_id__gte=offset_id).order_by("box_id")[: min(-add_offset, limit)]
        messages = list(reversed(newer))
    older = limit + add_offset
    if older > 0:
        skip = max(add_offset, 0)
        want = min(older, limit)
        below = rows.filter(box_id__lt=offset_id)
        if indexed is not None:  # a common word fills the page from the newest boxes
            below = below.filter(box_id__gte=min(offset_id, newest + 1) - SEARCH_WALK)
        page = list(below.order_by("-box_id")[skip : skip + want])
        if indexed is not None and len(page) < want:  # a rare one: its few matches by index
            page = list(
                _matched(indexed).filter(box_id__lt=offset_id).order_by("-box_id")[skip : skip + want]
            )
        messages += page
    messages = messages[:limit]
    inexact = False
    if filtered:
        count = len(messages) + (1 if len(messages) == limit else 0)  # no count(*) of the matches
        inexact = True
    elif saved_peer:
        count = dialog.values("id")[:HISTORY_COUNT_MAX].count()
    else:  # the total kept with the writes (PrivateDialog.message_count), never counted here
        count = (
            PrivateDialog.objects.filter(owner_id=owner_id, peer_id=peer_id)
            .values_list("message_count", flat=True)
            .first()
            or 0
        )
    shown = [box_to_dict(b) for b in messages]
    attach_reactions(owner_id, shown)
    attach_polls(owner_id, shown)
    return PrivateHistory(shown, max(count, len(messages)), inexact)


TEXT_MATCHES_MAX = 2_000  # matching contents read by id before a word counts as common here


def _matched(indexed):
    """The boxes of the matching contents: their ids read first, one statement per
    sender through the (sender, trigrams) index, then the boxes by id. As a subquery, a
    word common in other users' chats looked common to the planner, which walked every
    box of the dialog probing each text (237,514 boxes, 1.4 s at 250k messages)."""
    boxes, (q, senders, pattern, min_date, max_date) = indexed
    dates = (" AND date >= %s" if min_date else "") + (" AND date <= %s" if max_date else "")
    ids: list[int] = []
    with connection.cursor() as cur:
        for sender in sorted(set(senders)):
            # One sender per statement: a GIN index cannot take sender_id = ANY(...),
            # and the planner factors the pattern out of (sender = a AND p) OR (sender =
            # b AND p), leaving the index the pattern alone. MATERIALIZED: planned for
            # all its rows, so the LIMIT cannot make a scan of every user's texts look
            # cheaper than the index.
            cur.execute(
                "WITH hit AS MATERIALIZED (SELECT id FROM private_messages WHERE sender_id = %s"
                " AND message ILIKE %s" + dates + ") SELECT id FROM hit LIMIT %s",
                [sender, pattern, *[d for d in (min_date, max_date) if d], TEXT_MATCHES_MAX + 1 - len(ids)],
            )
            ids += [r[0] for r in cur.fetchall()]
    if len(ids) > TEXT_MATCHES_MAX:  # common in this chat, below the walk's reach
        hit = PrivateMessage.objects.filter(sender_id__in=senders, message__icontains=q)
        if min_date:
            hit = hit.filter(date__gte=min_date)
        if max_date:
            hit = hit.filter(date__lte=max_date)
        return boxes.filter(message_id__in=hit.values("pk"))
    return boxes.filter(message_id__in=ids)


def _text_matches(q: str, senders: tuple[int, int], min_date: int, max_date: int) -> tuple:
    """What finds the contents of the dialog's two users that match ``q``: each
    sender's through the index of (sender, trigrams) on private_messages (``ILIKE``:
    ``icontains`` writes ``UPPER(..) LIKE``, which the index cannot serve). Cheap for a
    rare word, which the walk would have to probe the whole window for; a common word
    fills its page in the walk first."""
    pattern = "%" + q.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
    return q, senders, pattern, min_date, max_date


def text_hit(q: str, min_date: int, max_date: int):
    """The content row of a box (``OuterRef``) when it matches ``q`` and the dates: a
    scalar subquery, which PostgreSQL never turns into a join, so a search walks the
    dialog's history index newest first, probes each box's content by primary key and
    stops at the page's LIMIT (as a join, the matches of the whole window were joined
    and sorted on disk: 100 ms at 100k messages)."""
    hit = PrivateMessage.objects.filter(pk=OuterRef("message_id"), message__icontains=q)
    if min_date:
        hit = hit.filter(date__gte=min_date)
    if max_date:
        hit = hit.filter(date__lte=max_date)
    return hit.values("pk")[:1]


def media_q(kinds: tuple[str, ...]) -> Q:
    """Messages of these media kinds ("url": a link entity)."""
    q = Q(message__media__kind__in=[k for k in kinds if k != "url"])
    if "url" in kinds:
        q |= Q(message__entities__contains=[{"type": "url"}]) | Q(
            message__entities__contains=[{"type": "textUrl"}]
        )
    return q


@in_thread
def count_media(owner_id: int, peer_id: int, kinds: tuple[str, ...]) -> tuple[int, bool]:
    """(count, inexact) of the dialog's messages of these kinds within the newest
    SEARCH_WINDOW ids (no media index)."""
    dialog = live_boxes(owner_id).filter(peer_id=peer_id)
    newest = dialog.order_by("-box_id").values_list("box_id", flat=True).first() or 0
    n = dialog.filter(media_q(kinds), box_id__gt=newest - SEARCH_WINDOW).count()
    return n, newest > SEARCH_WINDOW


@in_thread
def media_dates(owner_id: int, peer_id: int, kinds: tuple[str, ...], cap: int) -> list[tuple[int, int]]:
    """(id, date) of the dialog's messages of these kinds, newest first, at most ``cap``."""
    rows = live_boxes(owner_id).filter(media_q(kinds), peer_id=peer_id).order_by("-box_id")
    return list(rows.values_list("box_id", "message__date")[:cap])


@in_thread
def get_messages(owner_id: int, ids: list[int], *, reply_ids: set[int] = frozenset()) -> list[dict]:
    """messages.getMessages: exact ids of the owner's private messages, in request order;
    for an id in ``reply_ids`` the message it replies to. A missing or deleted one is
    ``{"id": ..., "empty": True}``."""
    if len(ids) > limits.GET_IDS_MAX:
        raise LimitInvalidError()
    found = {b.box_id: box_to_dict(b) for b in live_boxes(owner_id).filter(box_id__in=ids)}
    if reply_ids:
        targets = {
            i: found[i]["reply_to_msg_id"] for i in reply_ids if i in found and found[i]["reply_to_msg_id"]
        }
        replied = {b.box_id: box_to_dict(b) for b in live_boxes(owner_id).filter(box_id__in=targets.values())}
        ids = [targets.get(i, 0) if i in reply_ids else i for i in ids]
        found |= replied
    out = [found.get(i) or {"id": i, "empty": True} for i in ids]
    attach_reactions(owner_id, [m for m in out if not m.get("empty")])
    attach_polls(owner_id, [m for m in out if not m.get("empty")])
    return out


# --- read marks ------------------------------------------------------------------------


READ_DATE_EXPIRE = 7 * 86400  # appConfig pm_read_date_expire_period


def record_read_date(owner_id: int, peer_id: int, max_id: int, date: int) -> None:
    """The peer read the owner's messages up to ``max_id`` now (in the read's
    transaction), for messages.getOutboxReadDate; rows past its window go."""
    PrivateReadDate.objects.filter(
        owner_id=owner_id, peer_id=peer_id, date__lt=date - READ_DATE_EXPIRE
    ).delete()
    PrivateReadDate.objects.create(owner_id=owner_id, peer_id=peer_id, max_id=max_id, date=date)


def count_unread(owner_id: int, peer_id: int, after_id: int) -> int:
    return (
        live_boxes(owner_id)
        .filter(peer_id=peer_id, out=False, box_id__gt=after_id)
        .values("id")[:UNREAD_COUNT_MAX]
        .count()
    )


def _read(owner_id: int, peer_id: int, max_id: int) -> tuple[int, list[UserUpdate], list[UserUpdate]]:
    with transaction.atomic():
        _lock_users(owner_id, peer_id)
        dialog = PrivateDialog.objects.filter(owner_id=owner_id, peer_id=peer_id).first()
        if dialog is None:
            return get_state(owner_id).pts, [], []
        top = dialog.top_box_id
        max_id = top if max_id <= 0 else min(max_id, top)
        if max_id <= dialog.read_inbox_max_id:
            if dialog.unread_mark:
                # By owner and id, not by id alone: one shard once dialogs are distributed.
                PrivateDialog.objects.filter(owner_id=owner_id, id=dialog.id).update(unread_mark=False)
            return get_state(owner_id).pts, [], []
        # The peer's outbox mark: their id of the newest message of theirs read now.
        read_now = live_boxes(owner_id).filter(
            peer_id=peer_id, out=False, box_id__gt=dialog.read_inbox_max_id, box_id__lte=max_id
        )
        peer_mark = (
            MessageBox.objects.filter(
                owner_id=peer_id, message_id__in=read_now.values("message_id")
            ).aggregate(m=Max("box_id"))["m"]
            or 0
        )
        old = dialog.read_inbox_max_id
        PrivateDialog.objects.filter(owner_id=owner_id, id=dialog.id).update(
            read_inbox_max_id=max_id, unread_mark=False
        )
        still = count_unread(owner_id, peer_id, max_id)
        own = [
            append_user_update(
                owner_id, READ_INBOX, {"peer_id": peer_id, "max_id": max_id, "still_unread_count": still}
            )
        ]
        theirs = []
        if peer_id != owner_id and peer_mark and old < max_id:
            updated = PrivateDialog.objects.filter(
                owner_id=peer_id, peer_id=owner_id, read_outbox_max_id__lt=peer_mark
            ).update(read_outbox_max_id=peer_mark)
            if updated:
                record_read_date(peer_id, owner_id, peer_mark, now())
                theirs.append(
                    append_user_update(peer_id, READ_OUTBOX, {"peer_id": owner_id, "max_id": peer_mark})
                )
    return own[0].pts, own, theirs


async def do_read_history(owner_id: int, peer_id: int, max_id: int, *, exclude=None) -> tuple[int, int]:
    """messages.readHistory of a private chat: the owner's inbox mark, and the sender's
    outbox mark (updateReadHistoryOutbox) for what was read. Returns the owner's
    (pts, pts_count): the read takes one pts when it moved the mark."""
    pts, own, theirs = await in_thread(_read)(owner_id, peer_id, max_id)
    await _push(own, theirs, exclude)
    return pts, len(own)


# --- edit / delete ---------------------------------------------------------------------


def require_editable(m: dict, editor_id: int) -> None:
    """Who may edit a private message: its author, within 48 hours (in Saved Messages
    at any time)."""
    if m["sender_id"] != editor_id:
        raise MessageAuthorRequiredError()
    if is_service(m):
        raise MessageIdInvalidError()
    if m["peer_id"] != editor_id and now() - m["date"] > EDIT_WINDOW:
        raise MessageEditTimeExpiredError()


KEEP = object()  # reply_markup of an edit that leaves the keyboard as it is


def _edit(
    owner_id: int,
    peer_id: int,
    box_id: int,
    message: str | None,
    entities,
    media: dict | None,
    markup=KEEP,
    relink=None,
):
    with transaction.atomic():
        _lock_users(owner_id, peer_id)
        box = live_boxes(owner_id).filter(peer_id=peer_id, box_id=box_id).first()
        if box is None:
            raise MessageIdInvalidError()
        msg = box.message
        require_editable(box_to_dict(box), owner_id)
        if media is not None and not msg.media:
            raise MediaPrevInvalidError()  # only a media message gets new media
        if message is None:
            message, entities = msg.message, msg.entities or []
        else:
            entities = (
                validate_caption(message, entities)
                if is_caption(msg.media)
                else validate_text(message, entities)
            )
        same_markup = markup is KEEP or markup == msg.reply_markup
        if media is None and msg.message == message and (msg.entities or []) == entities and same_markup:
            raise MessageNotModifiedError()
        msg.message, msg.entities, msg.edit_date = message, entities, now()
        if markup is not KEEP:
            msg.reply_markup = markup
        if relink is not None and media is None and not is_caption(msg.media):
            msg.media = relink[0]  # a text message's preview follows its new text
        if media is not None:
            msg.media = media
            media_actions.add_holders(media_actions.media_keys(media), "u", sorted({owner_id, peer_id}))
        msg.save(update_fields=["message", "entities", "edit_date", "media", "reply_markup"])
        others = list(live_boxes(owner_id=None).filter(message=msg).exclude(owner_id=owner_id))
        logged = append_user_updates(
            [(b.owner_id, EDIT_MESSAGE, {"box_id": b.box_id}) for b in [box, *others]]
        )
        own = [_pushing(logged[0], box)]
        theirs = [_pushing(e, b) for e, b in zip(logged[1:], others, strict=True)]
        shown = [box_to_dict(box)]
        attach_reactions(owner_id, shown)  # the editor's answer keeps the message's reactions
        attach_polls(owner_id, shown)
        return PrivateChange(messages=shown, events=own, pts=own[0].pts), theirs


async def do_edit_private_message(
    owner_id: int,
    peer_id: int,
    box_id: int,
    message: str | None,
    entities: list[dict] | None,
    *,
    exclude=None,
    media: dict | None = None,
    reply_markup=KEEP,
    link_preview: dict | None = None,
    relink: bool = False,
) -> PrivateChange:
    """messages.editMessage in a private chat: the author edits the shared text or
    caption and/or replaces the media (within 48 hours, except in Saved Messages); both
    sides get updateEditMessage. ``message`` None keeps the text; ``reply_markup`` a
    bot's new keyboard (None removes it; KEEP leaves it). ``relink``: a text message's
    link preview becomes ``link_preview`` (None: none)."""
    if message is None and media is None and reply_markup is KEEP:
        raise MessageNotModifiedError()
    own, theirs = await in_thread(_edit)(
        owner_id, peer_id, box_id, message, entities, media, reply_markup, (link_preview,) if relink else None
    )
    done = await _finish(own, theirs, exclude)
    if peer_id != owner_id:
        send_hooks.edited(owner_id, USER_PEER, peer_id, own.messages)
    return done


def _delete(
    owner_id: int, boxes: list[MessageBox], revoke: bool
) -> tuple[list[UserUpdate], list[UserUpdate]]:
    """Mark ``boxes`` (the owner's, locked) deleted, and with ``revoke`` the other
    side's boxes of the same messages; one delete event per owner."""
    if not boxes:
        return [], []
    by_owner: dict[int, list[MessageBox]] = {owner_id: boxes}
    if revoke:
        for b in MessageBox.objects.filter(
            message_id__in=[b.message_id for b in boxes], deleted=False
        ).exclude(owner_id=owner_id):
            by_owner.setdefault(b.owner_id, []).append(b)
    own, theirs = [], []
    for uid, owned in by_owner.items():
        MessageBox.objects.filter(id__in=[b.id for b in owned]).update(deleted=True)
        for pid in {b.peer_id for b in owned}:
            _refresh_top(uid, pid)
        ids = sorted(b.box_id for b in owned)
        event = append_user_update(uid, DELETE_MESSAGES, {"ids": ids}, pts_count=len(ids))
        (own if uid == owner_id else theirs).append(event)
    return own, theirs


def _delete_ids(owner_id: int, ids: list[int], revoke: bool):
    with transaction.atomic():
        found = list(live_boxes(owner_id).filter(box_id__in=ids))
        _lock_users(owner_id, *{b.peer_id for b in found})
        found = list(
            MessageBox.objects.select_for_update().filter(id__in=[b.id for b in found], deleted=False)
        )
        own, theirs = _delete(owner_id, found, revoke)
        pts = own[0].pts if own else get_state(owner_id).pts
        return pts, len(found), own, theirs


async def do_delete_private_messages(
    owner_id: int, ids: list[int], *, revoke: bool = False, exclude=None
) -> tuple[int, int]:
    """messages.deleteMessages: the owner's ids; ``revoke`` deletes them for the other
    side too (any message of a private chat, as on Telegram). Returns (pts, pts_count)."""
    if len(ids) > limits.GET_IDS_MAX:
        raise LimitInvalidError()
    pts, count, own, theirs = await in_thread(_delete_ids)(owner_id, list(dict.fromkeys(ids)), revoke)
    await _push(own, theirs, exclude)
    return pts, count


def _delete_history(
    owner_id: int,
    peer_id: int,
    max_id: int,
    revoke: bool,
    saved_peer: int = 0,
    min_date: int = 0,
    max_date: int = 0,
):
    with transaction.atomic():
        _lock_users(owner_id, peer_id)
        rows = live_boxes(owner_id).filter(peer_id=peer_id)
        if saved_peer:
            rows = rows.filter(saved_peer=saved_peer)
        if min_date:
            rows = rows.filter(message__date__gte=min_date)
        if max_date:
            rows = rows.filter(message__date__lte=max_date)
        if max_id > 0:
            rows = rows.filter(box_id__lte=max_id)
        page = list(
            rows.select_for_update(of=("self",)).order_by("-box_id")[: limits.DELETE_HISTORY_PAGE + 1]
        )
        more = len(page) > limits.DELETE_HISTORY_PAGE
        page = page[: limits.DELETE_HISTORY_PAGE]
        own, theirs = _delete(owner_id, page, revoke)
        pts = own[0].pts if own else get_state(owner_id).pts
        return pts, len(page), more, own, theirs


async def do_delete_private_history(
    owner_id: int,
    peer_id: int,
    max_id: int = 0,
    *,
    revoke: bool = False,
    exclude=None,
    saved_peer: int = 0,
    min_date: int = 0,
    max_date: int = 0,
) -> tuple[int, int, bool]:
    """messages.deleteHistory of a private chat (or deleteSavedHistory of one Saved
    Messages sublist, ``saved_peer``), one bounded page per call (the client repeats
    while ``offset`` says more). Returns (pts, pts_count, more)."""
    pts, count, more, own, theirs = await in_thread(_delete_history)(
        owner_id, peer_id, max_id, revoke, saved_peer, min_date, max_date
    )
    await _push(own, theirs, exclude)
    return pts, count, more


@in_thread
def outbox_read_state(owner_id: int, peer_id: int, msg_id: int) -> bool | None:
    """Whether the owner's outgoing message ``msg_id`` to ``peer_id`` was read (None:
    no such outgoing message)."""
    box = live_boxes(owner_id).filter(peer_id=peer_id, box_id=msg_id, out=True).first()
    if box is None:
        return None
    mark = (
        PrivateDialog.objects.filter(owner_id=owner_id, peer_id=peer_id)
        .values_list("read_outbox_max_id", flat=True)
        .first()
    )
    return (mark or 0) >= msg_id


async def do_fill_web_page(content_ids: list[int], page: dict) -> list[int]:
    """Private messages (content rows: both sides' boxes) sent while their link
    preview was pending show the fetched page; not an edit."""
    import json

    from message_core import db

    rows = await db.fetchall(
        "UPDATE private_messages SET media = jsonb_set(media, '{webpage}', %s::jsonb)"
        " WHERE id = ANY(%s) AND media->>'kind' = 'webpage' AND media->'webpage'->>'url' = %s RETURNING id",
        (json.dumps(page), content_ids, page["url"]),
    )
    return [r["id"] for r in rows]
