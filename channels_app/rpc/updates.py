"""updates.getChannelDifference."""

from __future__ import annotations

from edge_app.registry import rpc
from message_core.context import viewer
from tl import functions

from .. import actions, tl_convert
from ..access import channel_ref
from .context import context_for


@rpc(functions.updates.GetChannelDifference)
async def get_channel_difference(ctx, req: functions.updates.GetChannelDifference):
    me = viewer(ctx)
    cid, access_hash = channel_ref(req.channel)
    # The action checks the InputChannel on the read it starts with (one round trip).
    d = await actions.get_channel_difference(
        me, cid, req.pts, req.limit, access_hash=access_hash, force=req.force
    )
    # The action named every peer of its messages already (a page is up to 100 of them).
    users, chats = await context_for(me, (), d.user_ids, {cid, *d.channel_ids}, {cid: (d.channel, d.member)})
    return tl_convert.difference_to_tl(d, me, users, chats)
