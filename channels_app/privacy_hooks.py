"""Channels' part of account privacy rules: who is a member of the chats that
allow/disallow rules name, and those chats in answers."""

from __future__ import annotations

from django.db import connection

from accounts_app import privacy

from .chat_context import chats_for

MEMBERSHIP_CHATS_MAX = 1000


def _member_of_any(user_id: int, chat_ids: list[int]) -> bool:
    # Synchronous (privacy checks run in accounts' ORM code): Django's connection.
    with connection.cursor() as cur:
        cur.execute(
            # One key probe per chat, the status checked above it (channels_app.actions.mentions
            # says why not beside the key).
            "SELECT 1 FROM unnest(%s::bigint[]) AS c(id) CROSS JOIN LATERAL (SELECT status FROM channel_members"
            " WHERE channel_id = c.id AND user_id = %s LIMIT 1) m WHERE m.status = 'active' LIMIT 1",
            [list(chat_ids)[:MEMBERSHIP_CHATS_MAX], user_id],
        )
        return cur.fetchone() is not None


def install() -> None:
    privacy.register_chat_membership(_member_of_any)
    privacy.register_chats_renderer(chats_for)
