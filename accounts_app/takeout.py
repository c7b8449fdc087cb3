"""Exporting one's data (Telegram Desktop's "Export Telegram data", Telethon's
``takeout()``): account.initTakeoutSession opens an export session, requests wrapped in
``invokeWithTakeout(id)`` run inside it (checked here, paced per session), and
account.finishTakeoutSession closes it.

``TAKEOUT_INIT_DELAY`` (seconds, 0 by default) makes a device that logged in recently
wait before it may export, as Telegram does (``TAKEOUT_INIT_DELAY_X``); a closed
deployment usually trusts its devices. Exports are paced at ``TAKEOUT_RATE`` wrapped
requests per second per session (FLOOD_WAIT_X past it): an export reads much more than
a user does.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass

from django.conf import settings
from django.utils import timezone

from accounts_app.models import Authorization, TakeoutSession
from tl.errors import FloodWaitError, TakeoutInitDelayError, TakeoutInvalidError, TakeoutRequiredError

SCOPES = ("contacts", "message_users", "message_chats", "message_megagroups", "message_channels", "files")
FILE_MAX_SIZE = 4000 * 512 * 1024  # the largest file there is
OPEN_SESSIONS_MAX = 5  # per user: a new one closes the oldest


def init_delay() -> int:
    return int(getattr(settings, "TAKEOUT_INIT_DELAY", 0))


def rate() -> float:
    return float(getattr(settings, "TAKEOUT_RATE", 30))


def do_init_takeout(user_id: int, perm_auth_key_id: int, scopes: dict) -> TakeoutSession:
    """account.initTakeoutSession. TAKEOUT_INIT_DELAY_X while the device is younger
    than the delay."""
    delay = init_delay()
    if delay:
        created = (
            Authorization.objects.filter(perm_auth_key_id=perm_auth_key_id, user_id=user_id)
            .values_list("created", flat=True)
            .first()
        )
        if created is not None:
            left = delay - (timezone.now() - created).total_seconds()
            if left > 0:
                raise TakeoutInitDelayError(int(left) + 1)
    clean = {k: bool(scopes.get(k)) for k in SCOPES}
    clean["file_max_size"] = max(0, min(int(scopes.get("file_max_size") or 0), FILE_MAX_SIZE))
    open_ids = list(
        TakeoutSession.objects.filter(user_id=user_id, finished__isnull=True)
        .order_by("-created")
        .values_list("id", flat=True)
    )
    if len(open_ids) >= OPEN_SESSIONS_MAX:
        TakeoutSession.objects.filter(id__in=open_ids[OPEN_SESSIONS_MAX - 1 :]).update(
            finished=timezone.now()
        )
    return TakeoutSession.objects.create(
        id=secrets.randbits(63) or 1, user_id=user_id, perm_auth_key_id=perm_auth_key_id, scopes=clean
    )


def do_finish_takeout(user_id: int, takeout_id: int | None, success: bool) -> None:
    """account.finishTakeoutSession: the wrapped session (or the user's latest open one)."""
    rows = TakeoutSession.objects.filter(user_id=user_id, finished__isnull=True)
    row = rows.filter(id=takeout_id).first() if takeout_id is not None else rows.order_by("-created").first()
    if row is None:
        raise TakeoutRequiredError() if takeout_id is None else TakeoutInvalidError()
    row.finished = timezone.now()
    row.success = success
    row.save(update_fields=["finished", "success"])
    _checked.pop(row.id, None)


@dataclass(slots=True)
class _Pace:
    user_id: int
    checked_at: float
    window_start: float
    count: int = 0


# takeout id -> who owns it and its pace in this process (re-checked every few seconds,
# so a finished session stops working quickly on every edge)
_checked: dict[int, _Pace] = {}
RECHECK_SECONDS = 5.0
CHECKED_MAX = 10_000


def _open_owner(takeout_id: int) -> int | None:
    return (
        TakeoutSession.objects.filter(id=takeout_id, finished__isnull=True)
        .values_list("user_id", flat=True)
        .first()
    )


async def check(ctx, name: str) -> None:
    """edge_app's check of a request wrapped in invokeWithTakeout."""
    from asgiref.sync import sync_to_async

    from edge_app import registry

    user_id = ctx.app.get("user_id") or await registry.authorize(ctx)
    now = time.monotonic()
    pace = _checked.get(ctx.takeout_id)
    if pace is None or now - pace.checked_at > RECHECK_SECONDS:
        owner = await sync_to_async(_open_owner, thread_sensitive=False)(ctx.takeout_id)
        if owner is None:
            _checked.pop(ctx.takeout_id, None)
            raise TakeoutInvalidError()
        if len(_checked) >= CHECKED_MAX:
            _checked.clear()
        pace = _checked[ctx.takeout_id] = _Pace(
            owner, now, pace.window_start if pace else now, pace.count if pace else 0
        )
    if user_id is None or pace.user_id != user_id:
        raise TakeoutInvalidError()
    if now - pace.window_start >= 1.0:
        pace.window_start, pace.count = now, 0
    pace.count += 1
    if pace.count > rate():
        raise FloodWaitError(seconds=1)


def require_takeout(ctx) -> None:
    """Methods only an export may call (channels.getLeftChannels)."""
    if getattr(ctx, "takeout_id", None) is None:
        raise TakeoutRequiredError()
