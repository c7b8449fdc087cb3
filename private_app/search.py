"""messages.searchGlobal over the owner's private chats: newest first with the same
seek cursor as the channel side (date, kind rank, peer, id). A text search walks the
owner's newest SEARCH_WALK boxes, then asks the trigram index
(private_messages_sender_body_trgm_idx serves the text alone too); a word with more
matches than that scans the owner's newest SEARCH_WINDOW boxes."""

from __future__ import annotations

from django.conf import settings
from django.db import connections
from django.db.models import Q, Subquery

from edge_app.orm_threads import in_thread
from message_core import limits
from message_core.text import SEARCH_WINDOW
from polls_app.actions import attach_results as attach_polls

from .actions import SEARCH_WALK, TEXT_MATCHES_MAX, box_to_dict, live_boxes, media_q, text_hit
from .reaction_view import attach as attach_reactions

PRIVATE_RANK = 0  # the cursor's kind rank (channel results are 1)


def _after_cursor(cursor: tuple[int, int, int, int]) -> Q:
    """Rows whose (date, PRIVATE_RANK, peer_id, box_id) sorts below ``cursor``."""
    rate, rank, peer, box = cursor
    older = Q(message__date__lt=rate)
    if rank > PRIVATE_RANK:
        return older | Q(message__date=rate)
    if rank < PRIVATE_RANK:
        return older
    return (
        older | Q(message__date=rate, peer_id__lt=peer) | Q(message__date=rate, peer_id=peer, box_id__lt=box)
    )


@in_thread
def search_global(
    owner_id: int,
    q: str,
    *,
    cursor: tuple[int, int, int, int] | None = None,
    limit: int = limits.SEARCH_GLOBAL_LIMIT,
    min_date: int = 0,
    max_date: int = 0,
    media_kinds: tuple[str, ...] = (),
) -> list[dict]:
    """The owner's messages containing ``q`` (any text when empty) and of one of
    ``media_kinds`` (when given), newest first past ``cursor``."""
    # Search tolerates seconds of lag: a standby's, when there is one (docs/operations.md).
    boxes = live_boxes(owner_id).using(settings.READ_DATABASE)
    newest = boxes.order_by("-box_id").values_list("box_id", flat=True).first()
    if newest is None or limit <= 0 or not (q or media_kinds):
        return []
    found = _text_page(boxes, newest, q, cursor, limit, min_date, max_date) if q and not media_kinds else None
    if found is None:
        rows = boxes.filter(box_id__gt=newest - SEARCH_WINDOW)
        if q:
            rows = rows.filter(message__message__icontains=q)
        if media_kinds:
            rows = rows.filter(media_q(media_kinds))
        found = _page(rows, cursor, limit, min_date, max_date)
    attach_reactions(owner_id, found)
    attach_polls(owner_id, found)
    return found


def _text_page(
    boxes, newest: int, q: str, cursor, limit: int, min_date: int, max_date: int
) -> list[dict] | None:
    """A text search's page without scanning the owner's window of SEARCH_WINDOW boxes
    (issue 48: 50,000 boxes joined to their texts on every searchGlobal of a user with a
    long private history): first the newest SEARCH_WALK boxes, newest first, each text
    probed by key, stopped at the page (a common word); then the texts matching through
    the trigram index and the owner's boxes of them (a rare word). ``None`` when the
    word has more than TEXT_MATCHES_MAX matches and the walk did not fill the page."""
    # Box ids follow time for an owner: the newest boxes first are the newest messages.
    walk = boxes.filter(box_id__gt=newest - SEARCH_WALK, message_id=Subquery(text_hit(q, min_date, max_date)))
    if cursor is not None:
        walk = walk.filter(_after_cursor(cursor))
    page = [box_to_dict(b) for b in walk.order_by("-box_id")[:limit]]
    if len(page) == limit or newest <= SEARCH_WALK:
        return _by_date(page)
    pattern = "%" + q.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
    with connections[boxes.db].cursor() as cur:
        # MATERIALIZED: planned for all its rows, so the LIMIT cannot make a scan of
        # every text look cheaper than the index.
        cur.execute(
            "WITH hit AS MATERIALIZED (SELECT id FROM private_messages WHERE message ILIKE %s)"
            " SELECT id FROM hit LIMIT %s",
            [pattern, TEXT_MATCHES_MAX + 1],
        )
        ids = [r[0] for r in cur.fetchall()]
    if len(ids) > TEXT_MATCHES_MAX:
        return None
    return _page(boxes.filter(message_id__in=ids), cursor, limit, min_date, max_date)


def _page(rows, cursor, limit: int, min_date: int, max_date: int) -> list[dict]:
    """The page of ``rows`` past ``cursor`` and within the dates, newest first."""
    if cursor is not None:
        rows = rows.filter(_after_cursor(cursor))
    if min_date:
        rows = rows.filter(message__date__gte=min_date)
    if max_date:
        rows = rows.filter(message__date__lte=max_date)
    return [box_to_dict(b) for b in rows.order_by("-message__date", "-peer_id", "-box_id")[:limit]]


def _by_date(found: list[dict]) -> list[dict]:
    return sorted(found, key=lambda m: (m["date"], m["peer_id"], m["id"]), reverse=True)
