"""What the channel handlers share: the viewer, the origin session, response context."""

from __future__ import annotations

from .. import notify, tl_convert
from ..access import chats_for, users_for
from ..actions.common import message_refs


def viewer(ctx) -> int:
    """The logged-in user; also marks this session as the origin of any push."""
    notify.origin.set((ctx.auth_key_id, ctx.session_id))
    return ctx.app["user_id"]


def own_session(ctx) -> tuple[int, int]:
    return (ctx.auth_key_id, ctx.session_id)


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
    users, chats = await context_for(me, msgs, change.user_ids, [channel["id"]], known)
    return tl_convert.sent_updates_to_tl(change.events, me, users, chats, extra=extra)
