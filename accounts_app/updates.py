"""The account update log: per-user pts, ``user_update_events``, difference, live push.

Every account-level change a user's other devices must learn about (profile, dialog
pin/folder/read state, ...) is appended here with the next pts of that user. Live
sessions get it pushed at once; a device that was offline replays it through
``updates.getDifference``.

Other apps plug in with three hooks:

- :func:`register_update_renderer` ``(kind, fn)``: how events of ``kind`` look as TL
  updates (``async fn(event, viewer_id) -> Rendered``), used for both push and
  difference. Build the TL objects in your app's ``tl_convert``. A kind whose events
  need a query each may also register ``many`` (``async fn(events, viewer_id) ->
  list[Rendered | None]``), which a difference page calls once for all its events of
  that kind.
- :func:`register_difference_contributor` ``(fn)``: computed updates added to every
  non-too-long difference without taking pts (the channel module's
  ``updateChannelTooLong`` nudges): ``async fn(user_id, since: datetime) -> Rendered``.
- :func:`append_user_update` inside your own transaction, then
  :func:`push_user_updates` after it commits; or :func:`do_append_user_update`, which
  does both.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from asgiref.sync import sync_to_async
from django.db import connection, transaction
from django.utils import timezone

from accounts_app.models import User, UserUpdateEvent

log = logging.getLogger("telesrv.accounts.updates")

# Difference caps: events per page, and how far behind a client may be before it is
# told to start over (differenceTooLong) instead of replaying.
DIFFERENCE_PAGE = 100
DIFFERENCE_MAX_PAGE = 1000
TOO_LONG_GAP = 10_000

# A pts that was allocated for nothing (kept so clients never see a permanent gap).
NOOP = "noop"
PUSH_KIND = "accounts.user_update"


@dataclass(frozen=True, slots=True)
class UserUpdate:
    """One event of a user's account update log."""

    user_id: int
    pts: int
    pts_count: int
    type: str
    payload: dict
    date: datetime

    def to_json(self) -> dict:
        return {
            "user_id": self.user_id,
            "pts": self.pts,
            "pts_count": self.pts_count,
            "type": self.type,
            "payload": self.payload,
            "date": int(self.date.timestamp()),
        }

    @classmethod
    def from_json(cls, data: dict) -> UserUpdate:
        return cls(
            user_id=int(data["user_id"]),
            pts=int(data["pts"]),
            pts_count=int(data["pts_count"]),
            type=str(data["type"]),
            payload=dict(data["payload"]),
            date=datetime.fromtimestamp(int(data["date"]), tz=UTC),
        )


@dataclass(slots=True)
class Rendered:
    """TL updates for one event (or contribution) plus the peers they mention.

    ``carries_pts``: one of ``updates`` carries this event's account pts/pts_count
    (``updateReadHistoryInbox``, ``updateFolderPeers``...). When not, a live push
    appends an empty ``updateDeleteMessages`` with the event's pts so the client's
    pts stays in step instead of detecting a gap.
    """

    updates: list[Any] = field(default_factory=list)
    # Message objects for updates.difference.new_messages, where their updateNewMessage
    # is implied; a live push wraps them in one (one pts per message, ending at the
    # event's pts), so renderers list them here only.
    messages: list[Any] = field(default_factory=list)
    user_ids: set[int] = field(default_factory=set)
    chats: list[Any] = field(default_factory=list)
    carries_pts: bool = False
    # ``user_ids`` already rendered for the viewer (a live push of a message renders
    # them from the chat kinds' short-lived cache); a difference renders user_ids itself.
    users: list[Any] | None = None


Renderer = Callable[[UserUpdate, int], Awaitable[Rendered | None]]
ManyRenderer = Callable[[list[UserUpdate], int], Awaitable[list[Rendered | None]]]
Contributor = Callable[[int, datetime], Awaitable[Rendered | None]]

_renderers: dict[str, Renderer] = {}
_many_renderers: dict[str, ManyRenderer] = {}
_contributors: list[Contributor] = []


def register_update_renderer(kind: str, fn: Renderer, *, many: ManyRenderer | None = None) -> Renderer:
    if kind in _renderers and _renderers[kind] is not fn:
        raise RuntimeError(f"user update kind {kind!r} registered twice")
    _renderers[kind] = fn
    if many is not None:
        _many_renderers[kind] = many
    return fn


def update_renderer(kind: str) -> Callable[[Renderer], Renderer]:
    """Decorator form of :func:`register_update_renderer`."""
    return lambda fn: register_update_renderer(kind, fn)


def register_difference_contributor(fn: Contributor) -> Contributor:
    if fn not in _contributors:
        _contributors.append(fn)
    return fn


# --- writing -----------------------------------------------------------------------


def append_user_update(user_id: int, kind: str, payload: dict, *, pts_count: int = 1) -> UserUpdate:
    """Allocate the user's next pts and log the event, in the caller's transaction.

    The users row lock serializes writers per user, so pts is gapless and ordered; the
    caller pushes with :func:`push_user_updates` once its transaction commits.
    """
    if pts_count < 1:
        raise ValueError("pts_count must be positive")
    # No savepoint: a failure here fails the caller's whole change, which is what we
    # want, and a message send logs two events (two round trips saved each).
    with transaction.atomic(savepoint=False):
        with connection.cursor() as cur:
            cur.execute(
                f"UPDATE {User._meta.db_table} SET pts = pts + %s WHERE id = %s RETURNING pts",
                [pts_count, user_id],
            )
            row = cur.fetchone()
        if row is None:
            raise LookupError(f"no user {user_id}")
        pts = row[0]
        event = UserUpdateEvent.objects.create(
            user_id=user_id, pts=pts, pts_count=pts_count, type=kind, payload=payload
        )
    return UserUpdate(user_id, pts, pts_count, kind, payload, event.date)


def append_user_updates(items: list[tuple[int, str, dict]]) -> list[UserUpdate]:
    """Log several events (``(user_id, kind, payload)``, one pts each) in the caller's
    transaction with two statements whatever their number: the users rows are locked
    in id order and bumped once each, then the events are inserted. Each user's events
    take consecutive pts in the order given. Same contract as :func:`append_user_update`."""
    if not items:
        return []
    counts: dict[int, int] = {}
    for user_id, _, _ in items:
        counts[user_id] = counts.get(user_id, 0) + 1
    with transaction.atomic(savepoint=False), connection.cursor() as cur:
        cur.execute(
            f"WITH locked AS (SELECT id FROM {User._meta.db_table} WHERE id = ANY(%s) ORDER BY id FOR UPDATE)"
            f" UPDATE {User._meta.db_table} u SET pts = u.pts + c.n FROM unnest(%s::bigint[], %s::int[]) AS c(id, n)"
            " WHERE u.id = c.id AND u.id IN (SELECT id FROM locked) RETURNING u.id, u.pts",
            [list(counts), list(counts), list(counts.values())],
        )
        last = dict(cur.fetchall())
        if len(last) < len(counts):
            raise LookupError(f"no user {sorted(set(counts) - set(last))}")
        next_pts = {uid: last[uid] - n + 1 for uid, n in counts.items()}
        date = timezone.now()
        events = []
        for user_id, kind, payload in items:
            events.append(UserUpdate(user_id, next_pts[user_id], 1, kind, payload, date))
            next_pts[user_id] += 1
        UserUpdateEvent.objects.bulk_create(
            UserUpdateEvent(
                user_id=e.user_id, pts=e.pts, pts_count=1, type=e.type, payload=e.payload, date=date
            )
            for e in events
        )
    return events


async def push_user_updates(events: list[UserUpdate], *, exclude: tuple[int, int] | None = None) -> None:
    """Send committed events to the owners' live sessions (all edge processes).

    ``exclude`` is ``(auth_key_id, session_id)`` of the session that caused the change:
    it gets the change in its RPC answer instead.
    """
    from edge_app.push import push_to_users

    for event in events:
        try:
            await push_to_users([event.user_id], PUSH_KIND, event.to_json(), exclude=exclude)
        except Exception:
            # The event is durable: a device that missed the push catches up through
            # getDifference, so a failed publish must not fail the action.
            log.exception("push of user update %s@%d failed", event.type, event.pts)


async def do_append_user_update(
    user_id: int,
    kind: str,
    payload: dict,
    *,
    pts_count: int = 1,
    exclude: tuple[int, int] | None = None,
) -> int:
    """Log one event in its own transaction, push it live, return the new pts."""
    event = await sync_to_async(append_user_update)(user_id, kind, payload, pts_count=pts_count)
    await push_user_updates([event], exclude=exclude)
    return event.pts


# --- reading -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class State:
    pts: int
    date: datetime


@dataclass(slots=True)
class Difference:
    """What updates.getDifference answers, before TL conversion.

    ``kind``: ``"empty"`` (nothing new), ``"difference"`` (``events`` bring the client to
    ``state``), ``"slice"`` (more follows after ``state``), ``"too_long"`` (start over
    from ``state.pts``).
    """

    kind: str
    state: State
    events: list[UserUpdate] = field(default_factory=list)
    extra: list[Rendered] = field(default_factory=list)


def get_state(user_id: int) -> State:
    pts = User.objects.filter(id=user_id).values_list("pts", flat=True).first() or 1
    return State(pts=pts, date=timezone.now())


def _page_size(pts_limit: int | None) -> int:
    if not pts_limit or pts_limit <= 0:
        return DIFFERENCE_PAGE
    return min(pts_limit, DIFFERENCE_MAX_PAGE)


def get_account_difference(
    user_id: int, pts: int, *, pts_limit: int | None = None, pts_total_limit: int | None = None
) -> Difference:
    """The logged events after ``pts`` (synchronous part; no contributors)."""
    state = get_state(user_id)
    if pts == state.pts:
        return Difference("empty", state)
    gap_cap = TOO_LONG_GAP
    if pts_total_limit and pts_total_limit > 0:
        gap_cap = min(gap_cap, pts_total_limit)
    # A client ahead of the server (its pts came from a wiped database) would drop
    # every new event as already seen: make it start over, as when far behind.
    if pts < 0 or pts > state.pts or state.pts - pts > gap_cap:
        return Difference("too_long", state)
    rows = list(
        UserUpdateEvent.objects.filter(user_id=user_id, pts__gt=pts)
        .order_by("pts")
        .values_list("pts", "pts_count", "type", "payload", "date")[: _page_size(pts_limit)]
    )
    events = [UserUpdate(user_id, p, c, t, payload, d) for p, c, t, payload, d in rows]
    if events and events[-1].pts < state.pts:
        return Difference("slice", State(pts=events[-1].pts, date=state.date), events)
    return Difference("difference", state, events)


async def do_get_difference(
    user_id: int,
    pts: int,
    date: datetime,
    *,
    pts_limit: int | None = None,
    pts_total_limit: int | None = None,
) -> Difference:
    """updates.getDifference: logged events plus contributors' computed updates."""
    diff = await sync_to_async(get_account_difference)(
        user_id, pts, pts_limit=pts_limit, pts_total_limit=pts_total_limit
    )
    if diff.kind in ("too_long", "slice"):
        # too_long: the client reloads everything anyway. slice: contributions come
        # with the final page, so they are not repeated per page.
        return diff
    for contributor in list(_contributors):
        try:
            extra = await contributor(user_id, date)
        except Exception:
            log.exception("difference contributor %r failed", contributor)
            continue
        if extra is not None and extra.updates:
            diff.extra.append(extra)
    if diff.kind == "empty" and diff.extra:
        diff.kind = "difference"
    return diff


async def render_event(event: UserUpdate, viewer_id: int) -> Rendered | None:
    if event.type == NOOP:
        return None
    renderer = _renderers.get(event.type)
    if renderer is None:
        log.warning("no renderer for user update kind %r (pts %d)", event.type, event.pts)
        return None
    return await renderer(event, viewer_id)


async def render_events(events: list[UserUpdate], viewer_id: int) -> list[Rendered]:
    """Render a difference page in order: one ``many`` call per kind that has one,
    one renderer call per event otherwise."""
    by_kind: dict[str, list[int]] = {}
    for i, event in enumerate(events):
        if event.type in _many_renderers:
            by_kind.setdefault(event.type, []).append(i)
    done: dict[int, Rendered | None] = {}
    for kind, idx in by_kind.items():
        parts = await _many_renderers[kind]([events[i] for i in idx], viewer_id)
        done.update(zip(idx, parts, strict=True))
    out = []
    for i, event in enumerate(events):
        part = done[i] if i in done else await render_event(event, viewer_id)
        if part is not None:
            out.append(part)
    return out
