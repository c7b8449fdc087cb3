"""The owner's private dialogs: the list page (merged with channel dialogs by the
messages.getDialogs handler), getPeerDialogs, manual unread marks and folders.

The order key is kept on the dialog row (``top_date``, ``top_box_id``, written by
each send and by deletes of the top), so a page is one index range scan on
``private_dialogs_order`` however many private chats the owner has.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import connection, transaction
from django.db.models import Q

from accounts_app.notify_settings import user_peer_settings
from accounts_app.updates import do_append_user_update
from edge_app.orm_threads import in_thread
from message_core import limits
from message_core.clock import now
from message_core.folder_rule import PRIVATE, FolderRule
from polls_app.actions import attach_results as attach_polls
from tl.errors import FolderIdInvalidError

from .actions import box_to_dict, count_unread, live_boxes
from .models import PrivateDialog
from .reaction_view import attach as attach_reactions
from .reaction_view import unread_reaction_counts

UNREAD_MARK = "private.unread_mark"
FOLDER = "private.folder"
DIALOG_PINNED = "private.dialog_pinned"  # logged by the messages.toggleDialogPin handler


@dataclass(slots=True)
class PrivateDialogEntry:
    peer_id: int
    dialog: dict
    top_message: dict | None
    unread_count: int
    unread_reactions: int = 0


def _entries(owner_id: int, dialogs: list[PrivateDialog]) -> list[PrivateDialogEntry]:
    notify = user_peer_settings(owner_id, [d.peer_id for d in dialogs])
    tops = {
        b.box_id: box_to_dict(b)
        for b in live_boxes(owner_id).filter(box_id__in=[d.top_box_id for d in dialogs if d.top_box_id])
    }
    # A dialog's top message shows its reactions as history does.
    attach_reactions(owner_id, list(tops.values()))
    attach_polls(owner_id, list(tops.values()))
    reactions = unread_reaction_counts(owner_id, [d.peer_id for d in dialogs]) if dialogs else {}
    return [
        PrivateDialogEntry(
            d.peer_id,
            {
                "read_inbox_max_id": d.read_inbox_max_id,
                "read_outbox_max_id": d.read_outbox_max_id,
                "unread_mark": d.unread_mark,
                "pinned": d.pinned,
                "pinned_order": d.pinned_order,
                "folder_id": d.folder_id,
                "top_date": d.top_date,
                "top_box_id": d.top_box_id,
                "notify_settings": notify.get(d.peer_id, {}),
            },
            tops.get(d.top_box_id),
            count_unread(owner_id, d.peer_id, d.read_inbox_max_id),
            reactions.get(d.peer_id, 0),
        )
        for d in dialogs
    ]


_ORDER = ("-top_date", "-top_box_id", "-peer_id")


@in_thread
def get_dialogs(
    owner_id: int, *, limit: int, folder_id: int = 0, offset_date: int = 0, offset_id: int = 0,
    offset_peer_id: int = 0, cursor_pin: tuple[bool, int] | None = None, exclude_pinned: bool = False,
) -> tuple[list[PrivateDialogEntry], int]:  # fmt: skip
    """One page of the owner's private dialogs in a folder: pinned ones first (highest
    order on top), then newest top first. ``cursor_pin`` is the (pinned, order) of the
    cursor's dialog, whatever its kind: inside the pinned block the page continues with
    the lower pins and then every unpinned dialog; past it, after the row comparison
    ``(offset_date, offset_id, offset_peer_id)``. Returns (page, total)."""
    listed = PrivateDialog.objects.filter(owner_id=owner_id, folder_id=folder_id).filter(
        Q(top_box_id__gt=0) | Q(pinned=True)
    )
    total = listed.count()
    pinned_cursor, cursor_order = cursor_pin or (False, 0)
    cursor = bool(offset_date or offset_id or offset_peer_id or cursor_pin)
    pins = listed.filter(pinned=True).order_by("-pinned_order")
    if exclude_pinned or (cursor and not pinned_cursor):
        pins = pins.none()
    elif pinned_cursor:
        pins = pins.filter(pinned_order__lt=cursor_order)
    page = list(pins[: limits.PINNED_DIALOGS_MAX])
    rest = listed.filter(pinned=False, top_box_id__gt=0)
    if cursor and not pinned_cursor:
        with connection.cursor() as cur:
            cur.execute(
                f"SELECT id FROM {PrivateDialog._meta.db_table} WHERE owner_id = %s AND folder_id = %s"
                " AND NOT pinned AND top_box_id > 0 AND (top_date, top_box_id, peer_id) < (%s, %s, %s)"
                " ORDER BY top_date DESC, top_box_id DESC, peer_id DESC LIMIT %s",
                [owner_id, folder_id, offset_date or 2**31, offset_id or 2**31, offset_peer_id, limit],
            )
            rest = PrivateDialog.objects.filter(id__in=[r[0] for r in cur.fetchall()])
    page += list(rest.order_by(*_ORDER)[: max(limit - len(page), 0)])
    return _entries(owner_id, page), total


# A chat folder's rule (message_core.folder_rule) over the owner's main list and
# archive, before LIMIT: contacts / non-contacts by the owner's contact list (users
# here are never bots), a chat's own mute_until or else its kind's default, unread as
# a manual mark or an incoming box above the read mark (the history index, one probe).
_FOLDER_KEYS = """
SELECT d.id, d.peer_id, d.top_date, d.top_box_id,
  COALESCE((%(f_ranks)s::jsonb ->> d.peer_id::text)::int, 0) AS pin_rank
FROM private_dialogs d
WHERE d.owner_id = %(u)s AND d.folder_id IN (0, 1)
  AND (d.top_box_id > 0 OR d.peer_id = ANY(%(f_always)s::bigint[]))
  AND NOT (d.peer_id = ANY(%(f_never)s::bigint[]))
  AND (d.peer_id = ANY(%(f_always)s::bigint[]) OR (
    CASE WHEN EXISTS (SELECT 1 FROM contacts ct WHERE ct.owner_id = d.owner_id AND ct.user_id = d.peer_id)
      THEN %(f_contacts)s ELSE %(f_non_contacts)s END
    AND NOT (%(f_no_muted)s AND COALESCE(
      (SELECT (n.settings->>'mute_until')::bigint > %(now)s FROM notify_settings n
       WHERE n.user_id = d.owner_id AND n.scope = 'user' AND n.peer_id = d.peer_id), %(f_mute_users)s))
    AND NOT (%(f_no_read)s AND NOT d.unread_mark AND NOT EXISTS (
      SELECT 1 FROM private_message_boxes b WHERE b.owner_id = d.owner_id AND b.peer_id = d.peer_id
        AND NOT b.deleted AND NOT b.out AND b.box_id > d.read_inbox_max_id))
    AND NOT (%(f_no_archived)s AND d.folder_id = 1)))
LIMIT %(cap)s
"""
_FOLDER_PAGE = (
    "WITH k AS MATERIALIZED (" + _FOLDER_KEYS + "),"
    " p AS (SELECT * FROM k WHERE {seek}"
    "  ORDER BY pin_rank DESC, top_date DESC, top_box_id DESC, peer_id DESC LIMIT %(lim)s)"
    " SELECT p.id, (SELECT count(*) FROM k) AS total FROM p"
    " ORDER BY pin_rank DESC, top_date DESC, top_box_id DESC, peer_id DESC"
)
_FOLDER_SEEK = "(pin_rank, top_date, top_box_id, peer_id) < (%(c_rank)s, %(od)s, %(oi)s, %(op)s)"
FOLDER_DIALOGS_CAP = 10_000  # dialogs one folder page considers (bounded work)


@in_thread
def get_folder_dialogs(
    owner_id: int, rule: FolderRule, *, limit: int, offset_date: int = 0, offset_id: int = 0,
    offset_peer_id: int = 0, cursor_rank: int | None = None, exclude_pinned: bool = False,
) -> tuple[list[PrivateDialogEntry], int]:  # fmt: skip
    """One page of the private dialogs in a chat folder (``folder_id >= 2``): the
    folder's pins first (``cursor_rank`` is the cursor's rank among them, whatever its
    kind), then newest top first past ``(offset_date, offset_id, offset_peer_id)``.
    Returns (page, total in the folder)."""
    cursor = bool(offset_date or offset_id or offset_peer_id or cursor_rank)
    seek = _FOLDER_SEEK if cursor else "true"
    if exclude_pinned:
        seek += " AND pin_rank = 0"
    params = rule.sql_params(PRIVATE) | {
        "u": owner_id,
        "now": now(),
        "lim": limit,
        "cap": FOLDER_DIALOGS_CAP,
        "c_rank": cursor_rank or 0,
        "od": offset_date or limits.MAX_MESSAGE_ID,
        "oi": offset_id or limits.MAX_MESSAGE_ID,
        "op": offset_peer_id,
    }
    with connection.cursor() as cur:
        cur.execute(_FOLDER_PAGE.format(seek=seek), params)
        rows = cur.fetchall()
        if rows:
            total = rows[0][1]
        else:
            cur.execute(f"SELECT count(*) FROM ({_FOLDER_KEYS}) k", params)
            total = cur.fetchone()[0]
    found = {d.id: d for d in PrivateDialog.objects.filter(id__in=[r[0] for r in rows])}
    return _entries(owner_id, [found[r[0]] for r in rows if r[0] in found]), total


@in_thread
def get_pinned(owner_id: int, folder_id: int) -> list[PrivateDialogEntry]:
    pins = PrivateDialog.objects.filter(owner_id=owner_id, folder_id=folder_id, pinned=True)
    return _entries(owner_id, list(pins.order_by("-pinned_order")[: limits.PINNED_DIALOGS_MAX]))


@in_thread
def pin_state(owner_id: int, peer_id: int) -> tuple[int, bool, int]:
    """(folder_id, pinned, pinned_order) of the owner's dialog with ``peer_id``."""
    row = PrivateDialog.objects.filter(owner_id=owner_id, peer_id=peer_id).values_list(
        "folder_id", "pinned", "pinned_order"
    )
    return row.first() or (0, False, 0)


@in_thread
def pinned_orders(owner_id: int, folder_id: int) -> dict[int, int]:
    """peer id -> pin order of the owner's pinned private dialogs in a folder."""
    pins = PrivateDialog.objects.filter(owner_id=owner_id, folder_id=folder_id, pinned=True)
    return dict(pins.values_list("peer_id", "pinned_order")[: limits.PINNED_DIALOGS_MAX * 2])


@in_thread
def set_pins(owner_id: int, folder_id: int, orders: dict[int, int], *, unpin_others: bool = False) -> None:
    """Pin these dialogs at these orders (0 unpins); ``unpin_others`` unpins the rest of
    the folder. The cross-kind rules (cap, one order) are channels_app.actions.pins'."""
    with transaction.atomic():
        for peer_id, order in orders.items():
            PrivateDialog.objects.update_or_create(
                owner_id=owner_id,
                peer_id=peer_id,
                defaults={"pinned": order > 0, "pinned_order": max(order, 0)},
            )
        if unpin_others:
            PrivateDialog.objects.filter(owner_id=owner_id, folder_id=folder_id, pinned=True).exclude(
                peer_id__in=list(orders)
            ).update(pinned=False, pinned_order=0)


@in_thread
def get_peer_dialogs(owner_id: int, peer_ids: list[int]) -> list[PrivateDialogEntry]:
    found = {d.peer_id: d for d in PrivateDialog.objects.filter(owner_id=owner_id, peer_id__in=peer_ids)}
    dialogs = [found.get(p) or PrivateDialog(owner_id=owner_id, peer_id=p) for p in peer_ids]
    return _entries(owner_id, dialogs)


def _set_dialog(owner_id: int, peer_id: int, field: str, value, **along) -> bool:
    """Set one field of the owner's dialog with ``peer_id`` (created if missing, as a
    dialog can be marked before any message), and ``along`` with it when it changes;
    True if it changed."""
    with transaction.atomic():
        dialog, _ = PrivateDialog.objects.select_for_update().get_or_create(
            owner_id=owner_id, peer_id=peer_id
        )
        if getattr(dialog, field) == value:
            return False
        for name, v in {field: value, **along}.items():
            setattr(dialog, name, v)
        dialog.save(update_fields=[field, *along])
        return True


async def do_mark_dialog_unread(owner_id: int, peer_id: int, unread: bool, *, exclude=None) -> bool:
    """messages.markDialogUnread on a private chat; reading the chat clears the mark."""
    if not await in_thread(_set_dialog)(owner_id, peer_id, "unread_mark", unread):
        return False
    await do_append_user_update(
        owner_id, UNREAD_MARK, {"peer_id": peer_id, "unread": unread}, exclude=exclude
    )
    return True


@in_thread
def get_unread_marks(owner_id: int) -> list[int]:
    marked = PrivateDialog.objects.filter(owner_id=owner_id, unread_mark=True)
    return list(marked.values_list("peer_id", flat=True)[: limits.CHANNELS_PER_USER_MAX])


async def do_set_dialog_folder(owner_id: int, peer_id: int, folder_id: int, *, exclude=None) -> int | None:
    """folders.editPeerFolders for a private chat: 0 main list, 1 archive (a pin stays
    behind: pins belong to their folder). Returns the pts of the logged change (None
    when nothing changed)."""
    if folder_id not in (0, 1):
        raise FolderIdInvalidError()
    if not await in_thread(_set_dialog)(
        owner_id, peer_id, "folder_id", folder_id, pinned=False, pinned_order=0
    ):
        return None
    return await do_append_user_update(
        owner_id, FOLDER, {"peer_id": peer_id, "folder_id": folder_id}, exclude=exclude
    )
