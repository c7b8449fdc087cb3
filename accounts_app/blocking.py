"""Blocking other users (contacts.block / unblock / getBlocked).

A block is one-sided: the owner stops getting the blocked user's private messages
(the blocked user is told USER_IS_BLOCKED, the owner YOU_BLOCKED_USER when writing to
someone they blocked) and the blocked user stops seeing the owner's last-seen time.
Private chats enforce it in their send path (``private_app.send_store``), which reads
the blocks either way under both users' row locks, in the statement after the lock.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime

from django.db import IntegrityError, transaction

from accounts_app.models import Block, User
from accounts_app.render_changes import user_render_changed
from accounts_app.updates import UserUpdate, append_user_update
from tl.errors import ContactIdInvalidError

PEER_BLOCKED_UPDATE = "account.peer_blocked"  # payload: user_id, blocked
log = logging.getLogger("telesrv.accounts")

# Who else hears of a block or unblock, without accounts_app importing them (botapi_app:
# a bot blocked by a user gets my_chat_member): async fn(owner_id, user_id, blocked, pts),
# awaited by the handler after the change committed.
Listener = Callable[[int, int, bool, int], Awaitable[None]]
_listeners: list[Listener] = []


def register_listener(fn: Listener) -> Listener:
    if fn not in _listeners:
        _listeners.append(fn)
    return fn


async def changed(owner_id: int, user_id: int, logged: UserUpdate) -> None:
    for fn in list(_listeners):
        try:
            await fn(owner_id, user_id, bool(logged.payload.get("blocked")), logged.pts)
        except Exception:
            log.exception("block listener %r failed for %d -> %d", fn, owner_id, user_id)


BLOCKED_PAGE_MAX = 100  # contacts.getBlocked limit, clamped as Telegram does


@dataclass(frozen=True, slots=True)
class BlockedPage:
    rows: list[tuple[int, datetime]]  # (user_id, blocked at), newest first
    count: int


def _log(owner_id: int, user_id: int, blocked: bool) -> UserUpdate:
    return append_user_update(owner_id, PEER_BLOCKED_UPDATE, {"user_id": user_id, "blocked": blocked})


def do_block(owner_id: int, user_id: int) -> UserUpdate | None:
    """Block ``user_id``; the logged change, or None when already blocked."""
    if owner_id == user_id:
        raise ContactIdInvalidError()
    if not User.objects.filter(id=user_id).exists():
        raise ContactIdInvalidError()
    with transaction.atomic():
        try:
            with transaction.atomic():
                Block.objects.create(owner_id=owner_id, user_id=user_id)
        except IntegrityError:
            return None
        logged = _log(owner_id, user_id, True)
    user_render_changed(owner_id, user_id)  # a blocker's last-seen hides from the blocked
    return logged


def do_unblock(owner_id: int, user_id: int) -> UserUpdate | None:
    """Unblock ``user_id``; the logged change, or None when it was not blocked."""
    if owner_id == user_id:
        raise ContactIdInvalidError()
    with transaction.atomic():
        if not Block.objects.filter(owner_id=owner_id, user_id=user_id).delete()[0]:
            return None
        logged = _log(owner_id, user_id, False)
    user_render_changed(owner_id, user_id)
    return logged


def list_blocked(owner_id: int, offset: int, limit: int) -> BlockedPage:
    offset = max(0, offset)
    limit = max(1, min(limit or BLOCKED_PAGE_MAX, BLOCKED_PAGE_MAX))
    blocks = Block.objects.filter(owner_id=owner_id)
    rows = list(blocks.order_by("-id").values_list("user_id", "created")[offset : offset + limit])
    count = blocks.count() if rows or offset else 0
    return BlockedPage(rows, count)


def is_blocked(owner_id: int, user_id: int) -> bool:
    """``owner_id`` blocked ``user_id``."""
    return Block.objects.filter(owner_id=owner_id, user_id=user_id).exists()


def blockers_among(viewer_id: int, user_ids: list[int]) -> set[int]:
    """Which of ``user_ids`` blocked ``viewer_id`` (they hide their last-seen from it)."""
    if not user_ids:
        return set()
    return set(
        Block.objects.filter(owner_id__in=user_ids, user_id=viewer_id).values_list("owner_id", flat=True)
    )


def blocked_by(owner_id: int, user_ids: list[int]) -> set[int]:
    """Which of ``user_ids`` ``owner_id`` blocked."""
    if not user_ids:
        return set()
    return set(
        Block.objects.filter(owner_id=owner_id, user_id__in=user_ids).values_list("user_id", flat=True)
    )
