"""messages.searchGlobal over the owner's private chats: newest first with the same
seek cursor as the channel side (date, kind rank, peer, id), at most SEARCH_WINDOW of
the owner's newest messages scanned; ILIKE is served by private_messages_body_trgm_idx."""

from __future__ import annotations

from django.conf import settings
from django.db.models import Q

from edge_app.orm_threads import in_thread
from message_core import limits
from message_core.text import SEARCH_WINDOW
from polls_app.actions import attach_results as attach_polls

from .actions import box_to_dict, live_boxes, media_q
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
    rows = boxes.filter(box_id__gt=newest - SEARCH_WINDOW)
    if q:
        rows = rows.filter(message__message__icontains=q)
    if media_kinds:
        rows = rows.filter(media_q(media_kinds))
    if cursor is not None:
        rows = rows.filter(_after_cursor(cursor))
    if min_date:
        rows = rows.filter(message__date__gte=min_date)
    if max_date:
        rows = rows.filter(message__date__lte=max_date)
    found = [box_to_dict(b) for b in rows.order_by("-message__date", "-peer_id", "-box_id")[:limit]]
    attach_reactions(owner_id, found)
    attach_polls(owner_id, found)
    return found
