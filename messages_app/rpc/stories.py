"""stories.* of one peer: there are no stories on this server, so a peer's list is
Telegram's empty one (Web K asks for it whenever it opens a profile or chat)."""

from __future__ import annotations

from channels_app.chat_context import chats_for
from edge_app.registry import rpc
from message_core.context import users_for, viewer
from tl import functions

from .. import tl_convert as compat_tl
from ..peers import resolve_peer


@rpc(functions.stories.GetPeerStories)
async def get_peer_stories(ctx, req: functions.stories.GetPeerStories):
    me = viewer(ctx)
    p = await resolve_peer(me, req.peer)
    users = await users_for(me, [p.user_id]) if p.user_id else []
    chats = await chats_for(me, [p.channel_id], {p.channel_id: (p.channel, p.member)}) if p.channel else []
    return compat_tl.empty_peer_stories_to_tl(p.user_id, p.channel_id, chats, users)
