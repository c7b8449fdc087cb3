"""The context a private-chat answer carries: the users and chats its messages name."""

from __future__ import annotations

from message_core.context import chats_for, users_for

from . import actions


async def context_for(me: int, messages: list[dict]) -> tuple[list, list]:
    users, chans = {me}, set()
    actions.message_refs([m for m in messages if not m.get("empty")], users, chans)
    return await users_for(me, users), await chats_for(me, sorted(chans)) if chans else []
