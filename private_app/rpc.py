"""messages.* methods only private chats have: exact ids in the owner's numbering
(channels use channels.getMessages / deleteMessages). Methods that take any peer are
registered once, in ``messages_app``, which calls this app's domain for a user peer."""

from __future__ import annotations

from edge_app.registry import rpc
from message_core.context import own_session, viewer
from message_core.tl_convert import affected_messages_to_tl
from tl import functions, types

from . import actions, tl_convert
from .context import context_for


@rpc(functions.messages.GetMessages)
async def get_messages(ctx, req: functions.messages.GetMessages):
    """Exact private-message ids (the owner's numbering); inputMessageReplyTo names the
    message that one replies to. Pinned and callback lookups find nothing: private
    chats have no pins or inline buttons here."""
    me = viewer(ctx)
    ids = [
        item.id if isinstance(item, types.InputMessageID | types.InputMessageReplyTo) else 0
        for item in req.id
    ]
    replies = {item.id for item in req.id if isinstance(item, types.InputMessageReplyTo)}
    messages = await actions.get_messages(me, ids, reply_ids=replies)
    users, chats = await context_for(me, messages)
    return tl_convert.messages_to_tl(messages, users, chats)


@rpc(functions.messages.DeleteMessages)
async def delete_messages(ctx, req: functions.messages.DeleteMessages):
    me, origin = viewer(ctx), own_session(ctx)
    pts, count = await actions.do_delete_private_messages(me, list(req.id), revoke=req.revoke, exclude=origin)
    return affected_messages_to_tl(pts, count)
