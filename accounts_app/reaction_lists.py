"""The account's reaction lists: recently used (``add_to_recent``), most used, and
saved-tag titles. Reactions arrive canonical (the chat kinds check them)."""

from __future__ import annotations

import time

from asgiref.sync import sync_to_async
from django.db import connection

from .models_reactions import RecentReaction, SavedReactionTag, TopReaction

RECENT_KEEP = 100  # rows kept per account (the longest list a client may ask for)
TOP_KEEP = 100


def _record_use(user_id: int, reactions: list[str], add_to_recent: bool) -> None:
    """Count the use (top list) and, asked to, put the reactions first in the recent
    list (trimmed to RECENT_KEEP): upserts, one statement per list."""
    now = int(time.time())
    with connection.cursor() as cur:
        cur.execute(
            f"INSERT INTO {TopReaction._meta.db_table} (user_id, reaction, count, date)"
            " SELECT %s, r, 1, %s FROM unnest(%s::text[]) AS r ON CONFLICT (user_id, reaction)"
            f" DO UPDATE SET count = {TopReaction._meta.db_table}.count + 1, date = EXCLUDED.date",
            [user_id, now, reactions],
        )
        if add_to_recent:
            table = RecentReaction._meta.db_table
            cur.execute(
                f"WITH up AS (INSERT INTO {table} (user_id, reaction, date) SELECT %s, r, %s FROM unnest(%s::text[])"
                " AS r ON CONFLICT (user_id, reaction) DO UPDATE SET date = EXCLUDED.date RETURNING id)"
                f" DELETE FROM {table} WHERE id IN (SELECT id FROM {table} WHERE user_id = %s"
                " ORDER BY date DESC, id DESC OFFSET %s)",
                [user_id, now, reactions, user_id, RECENT_KEEP],
            )


def _recent(user_id: int, limit: int) -> list[str]:
    return list(
        RecentReaction.objects.filter(user_id=user_id)
        .order_by("-date", "-id")
        .values_list("reaction", flat=True)[:limit]
    )


def _top(user_id: int, limit: int) -> list[str]:
    return list(
        TopReaction.objects.filter(user_id=user_id)
        .order_by("-count", "-date")
        .values_list("reaction", flat=True)[: min(limit, TOP_KEEP)]
    )


def _clear_recent(user_id: int) -> None:
    RecentReaction.objects.filter(user_id=user_id).delete()


def _tags(user_id: int) -> list[tuple[str, str]]:
    return list(
        SavedReactionTag.objects.filter(user_id=user_id).order_by("reaction").values_list("reaction", "title")
    )


def _set_tag(user_id: int, reaction: str, title: str | None) -> bool:
    """Rename (or with an empty title, unname) a tag; whether anything changed."""
    if not title:
        return SavedReactionTag.objects.filter(user_id=user_id, reaction=reaction).delete()[0] > 0
    row, created = SavedReactionTag.objects.get_or_create(
        user_id=user_id, reaction=reaction, defaults={"title": title}
    )
    if created:
        return True
    if row.title == title:
        return False
    row.title = title
    row.save(update_fields=["title"])
    return True


record_use = sync_to_async(_record_use, thread_sensitive=False)
recent = sync_to_async(_recent, thread_sensitive=False)
top = sync_to_async(_top, thread_sensitive=False)
clear_recent = sync_to_async(_clear_recent, thread_sensitive=False)
saved_tags = sync_to_async(_tags, thread_sensitive=False)
set_saved_tag = sync_to_async(_set_tag, thread_sensitive=False)
