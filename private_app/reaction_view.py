"""How private messages show their reactions: the summary each viewer sees
(``message_core.reactions.summary``), loaded for a whole page in one query."""

from __future__ import annotations

from message_core import reactions as rx

from .models import MessageBox, PrivateMessageReaction


def attach(viewer_id: int, messages: list[dict]) -> None:
    """Give each live message its ``reactions`` summary as ``viewer_id`` sees it: one
    query for the page (a private message has at most two users' reactions)."""
    live = [m for m in messages if m and not m.get("empty") and m.get("message_pk")]
    if not live:
        return
    rows: dict[int, list[PrivateMessageReaction]] = {}
    # Only the two sides of a chat react: naming them keeps the read on their shards
    # once reactions are distributed by user (telesrv_project/sharding.py).
    sides = {m[k] for m in live for k in ("owner_id", "peer_id") if m.get(k)}
    for r in PrivateMessageReaction.objects.filter(
        message_id__in={m["message_pk"] for m in live}, user_id__in=sides
    ).order_by("-date", "-user_id", "chosen_order"):
        rows.setdefault(r.message_id, []).append(r)
    for m in live:
        found = rows.get(m["message_pk"], [])
        counts: dict[str, int] = {}
        for r in found:
            counts[r.reaction] = counts.get(r.reaction, 0) + 1
        mine = [r.reaction for r in sorted(found, key=lambda r: r.chosen_order) if r.user_id == viewer_id]
        # The owner of an outgoing message sees the peer's reactions unread until read.
        unread = bool(m.get("reaction_unread")) and m.get("owner_id") == viewer_id
        recent = [
            {"user_id": r.user_id, "reaction": r.reaction, "date": r.date, "big": r.big,
             "unread": unread and r.user_id != viewer_id}
            for r in found[: rx.RECENT_SHOWN]
        ]  # fmt: skip
        m["reactions"] = rx.summary(counts, mine, recent)


def reactor_ids(messages: list[dict]) -> set[int]:
    return {r["user_id"] for m in messages if m for r in ((m.get("reactions") or {}).get("recent") or ())}


def unread_reaction_counts(owner_id: int, peer_ids: list[int]) -> dict[int, int]:
    """Dialog badges: messages with unread reactions per peer (partial index)."""
    from django.db.models import Count

    rows = (
        MessageBox.objects.filter(
            owner_id=owner_id, peer_id__in=peer_ids, reaction_unread=True, deleted=False
        )
        .values("peer_id")
        .annotate(n=Count("id"))
    )
    return {r["peer_id"]: r["n"] for r in rows}
