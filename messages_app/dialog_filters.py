"""Chat folders (dialog filters): stored per user, ordered, logged for the owner's
other devices (updateDialogFilter / updateDialogFilterOrder) and replayed by
updates.getDifference.

A folder is a dict: ``chatlist`` (a shared folder) and ``has_my_invites`` (the
server's own mark that the user shared it by link, chatlists_app), ``title`` with ``title_entities``
and ``title_noanimate``, ``emoticon``, ``color``, the category switches in ``flags``
(contacts, non_contacts, groups, broadcasts, bots, exclude_muted, exclude_read,
exclude_archived) and the peers ``pinned`` / ``include`` / ``exclude`` as
["c", channel_id] / ["p", user_id] pairs, already checked by the caller.
"""

from __future__ import annotations

from asgiref.sync import sync_to_async
from django.db import transaction

from accounts_app.notify_settings import get_settings, is_muted
from accounts_app.updates import do_append_user_update
from message_core.clock import now
from message_core.folder_rule import FolderRule
from message_core.text import utf16_len
from tl.errors import (
    DialogFiltersTooMuchError,
    FilterIdInvalidError,
    FilterIncludeEmptyError,
    FilterTitleEmptyError,
    FolderIdInvalidError,
    LimitInvalidError,
    MessageTooLongError,
)

from .models import DialogFilter

FILTER = "dialogs.filter"
FILTER_ORDER = "dialogs.filter_order"

DEFAULT_ID = 0  # "All chats": has a place in the order, no rules
FILTER_ID_MIN, FILTER_ID_MAX = 2, 255  # 0 and 1 are the main list and the archive
FILTERS_MAX = 10  # Telegram's dialog_filters_limit_default
CHATS_MAX = 100  # pinned + included (dialog_filters_chats_limit_default); excluded alike
TITLE_MAX = 12  # UTF-16 units, as clients cut it
CATEGORY_FLAGS = ("contacts", "non_contacts", "groups", "broadcasts", "bots")
SWITCHES = (*CATEGORY_FLAGS, "exclude_muted", "exclude_read", "exclude_archived")


def _check(data: dict) -> dict:
    title = (data.get("title") or "").strip()
    if not title:
        raise FilterTitleEmptyError()
    if utf16_len(title) > TITLE_MAX:
        raise MessageTooLongError()  # the method's documented error for a long title
    pinned, include, exclude = (
        list(dict.fromkeys(map(tuple, data.get(k) or ()))) for k in ("pinned", "include", "exclude")
    )
    if len(pinned) + len(include) > CHATS_MAX or len(exclude) > CHATS_MAX:
        raise LimitInvalidError()
    flags = {k: bool((data.get("flags") or {}).get(k)) for k in SWITCHES}
    if data.get("chatlist"):
        flags = {k: False for k in SWITCHES}  # a shared folder is its chats only
        exclude = []
    if not (pinned or include or any(flags[k] for k in CATEGORY_FLAGS)):
        raise FilterIncludeEmptyError()
    return {
        "chatlist": bool(data.get("chatlist")),
        "has_my_invites": bool(data.get("chatlist") and data.get("has_my_invites")),
        "title": title,
        "title_entities": list(data.get("title_entities") or [])[:16],
        "title_noanimate": bool(data.get("title_noanimate")),
        "emoticon": (data.get("emoticon") or None) and str(data["emoticon"])[:8],
        "color": data.get("color"),
        "flags": flags,
        "pinned": [list(p) for p in pinned],
        "include": [list(p) for p in include if p not in pinned],
        "exclude": [list(p) for p in exclude],
    }


def _load(user_id: int) -> list[DialogFilter]:
    return list(DialogFilter.objects.filter(user_id=user_id).order_by("position", "filter_id"))


async def get_filters(user_id: int) -> list[tuple[int, dict | None]]:
    """(id, folder) in the user's order; ``None`` is "All chats" (first when never moved)."""
    rows = await sync_to_async(_load)(user_id)
    out = [(r.filter_id, None if r.filter_id == DEFAULT_ID else r.data) for r in rows]
    if all(fid != DEFAULT_ID for fid, _ in out):
        out.insert(0, (DEFAULT_ID, None))
    return out


async def do_update_filter(user_id: int, filter_id: int, data: dict | None, *, exclude=None) -> dict | None:
    """Create or replace folder ``filter_id`` (``data``), or delete it (``None``)."""
    if not FILTER_ID_MIN <= filter_id <= FILTER_ID_MAX:
        raise FilterIdInvalidError()
    folder = _check(data) if data is not None else None

    def write() -> bool:
        with transaction.atomic():
            rows = list(DialogFilter.objects.select_for_update().filter(user_id=user_id))
            current = next((r for r in rows if r.filter_id == filter_id), None)
            if folder is None:
                if current is None:
                    return False
                current.delete()
                return True
            if current is not None:
                if "has_my_invites" not in data and folder["chatlist"]:
                    # a client's edit of a shared folder keeps the server's mark
                    folder["has_my_invites"] = bool(current.data.get("has_my_invites"))
                current.data = folder
                current.save(update_fields=["data"])
                return True
            if sum(1 for r in rows if r.filter_id != DEFAULT_ID) >= FILTERS_MAX:
                raise DialogFiltersTooMuchError()
            last = max((r.position for r in rows), default=0)
            DialogFilter.objects.create(user_id=user_id, filter_id=filter_id, position=last + 1, data=folder)
            return True

    if await sync_to_async(write)():
        await do_append_user_update(user_id, FILTER, {"id": filter_id, "filter": folder}, exclude=exclude)
        if folder is None:
            for listener in _deleted_listeners:
                await listener(user_id, filter_id)
    return folder


_deleted_listeners: list = []


def on_filter_deleted(listener) -> None:
    """``await listener(user_id, filter_id)`` after a folder is deleted (by the user or an
    app): shared folders (chatlists_app, above this app) drop their links and joins."""
    _deleted_listeners.append(listener)


async def get_filter(user_id: int, filter_id: int) -> dict | None:
    """One stored folder of the user, or None."""
    if filter_id == DEFAULT_ID:
        return None
    row = await sync_to_async(DialogFilter.objects.filter(user_id=user_id, filter_id=filter_id).first)()
    return row.data if row is not None else None


async def do_reorder_filters(user_id: int, order: list[int], *, exclude=None) -> list[int]:
    """messages.updateDialogFiltersOrder: the listed folders (0 is "All chats") first, in
    that order; ids the user has no folder for are ignored, unlisted ones keep their
    relative order after them."""
    if len(order) > FILTERS_MAX + 1:
        raise LimitInvalidError()

    def write() -> list[int]:
        with transaction.atomic():
            rows = {r.filter_id: r for r in DialogFilter.objects.select_for_update().filter(user_id=user_id)}
            if DEFAULT_ID not in rows:
                rows[DEFAULT_ID] = DialogFilter(user_id=user_id, filter_id=DEFAULT_ID, position=0, data={})
            listed = [fid for fid in dict.fromkeys(order) if fid in rows]
            rest = sorted(
                (r for fid, r in rows.items() if fid not in listed), key=lambda r: (r.position, r.filter_id)
            )
            applied = [*listed, *(r.filter_id for r in rest)]
            for position, fid in enumerate(applied):
                row = rows[fid]
                row.position = position
                row.save()
            return applied

    applied = await sync_to_async(write)()
    await do_append_user_update(user_id, FILTER_ORDER, {"order": applied}, exclude=exclude)
    return applied


def _load_rule(user_id: int, filter_id: int) -> FolderRule:
    row = DialogFilter.objects.filter(user_id=user_id, filter_id=filter_id).first()
    if row is None or filter_id == DEFAULT_ID:
        raise FolderIdInvalidError()
    data = row.data
    flags = data.get("flags") or {}
    muted = {}
    if flags.get("exclude_muted"):
        muted = {k: is_muted(get_settings(user_id, k), now()) for k in ("users", "chats", "broadcasts")}
    return FolderRule(
        pinned=tuple(dict.fromkeys((k, int(i)) for k, i in data.get("pinned") or ())),
        include=frozenset((k, int(i)) for k, i in data.get("include") or ()),
        exclude=frozenset((k, int(i)) for k, i in data.get("exclude") or ()),
        flags={k: bool(flags.get(k)) for k in SWITCHES},
        muted_by_default=muted,
    )


async def folder_rule(user_id: int, filter_id: int) -> FolderRule:
    """The rule messages.getDialogs applies for ``folder_id >= 2``: the user's stored
    folder of that id; FOLDER_ID_INVALID when there is none."""
    return await sync_to_async(_load_rule)(user_id, filter_id)


_SUGGESTIONS = (
    ({"title": "Unread", "emoticon": "✅", "flags": {**dict.fromkeys(CATEGORY_FLAGS, True), "exclude_read": True}},
     "New messages from all chats"),
    ({"title": "Personal", "emoticon": "👤", "flags": {"contacts": True, "non_contacts": True}},
     "Only messages from private chats"),
    ({"title": "Groups", "emoticon": "👥", "flags": {"groups": True}}, "All your groups"),
    ({"title": "Channels", "emoticon": "📢", "flags": {"broadcasts": True}}, "Channels you follow"),
)  # fmt: skip


def _rules_of(folder: dict) -> tuple:
    return (
        tuple(sorted(k for k, v in folder["flags"].items() if v)),
        bool(folder["pinned"] or folder["include"]),
    )


async def suggested_filters(user_id: int) -> list[tuple[dict, str]]:
    """What clients offer on the folders page: one folder per chat kind and one of
    unread chats, less the ones whose rules the user already has as a folder."""
    have = {_rules_of(f) for _, f in await get_filters(user_id) if f}
    suggestions = [(_check(data), text) for data, text in _SUGGESTIONS]
    return [(f, text) for f, text in suggestions if _rules_of(f) not in have]
