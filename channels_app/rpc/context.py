"""The context a channel answer carries: the users and chats its messages name."""

from __future__ import annotations

from message_core.context import users_for
from polls_app import actions as polls

from .. import tl_convert
from ..actions.common import message_refs
from ..chat_context import chats_for


async def context_for(me: int, messages, user_ids=(), channel_ids=(), known=None) -> tuple[list, list]:
    """(users, chats) for a response showing ``messages`` (with every header peer)."""
    users, chans = set(user_ids), set(channel_ids)
    message_refs(messages, users, chans)
    return await users_for(me, users), await chats_for(me, sorted(chans), known)


async def change_to_updates(me: int, change, *, extra=(), known=None):
    channel = change.channel
    if known is None and change.member is not None:
        known = {channel["id"]: (channel, change.member)}
    msgs = [e.message for e in change.events if e.message]
    await polls.attach_results_async(me, msgs)  # a sent or forwarded poll: its totals, the sender's choice
    users, chats = await context_for(me, msgs, change.user_ids, [channel["id"]], known)
    return tl_convert.sent_updates_to_tl(change.events, me, users, chats, extra=extra)
