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
    channel, _ = await actions.get_channel_for_viewer(me, cid, access_hash)
    d = await actions.get_channel_difference(me, channel["id"], req.pts, req.limit, force=req.force)
    # The action named every peer of its messages already (a page is up to 100 of them).
    users, chats = await context_for(
        me, (), d.user_ids, {channel["id"], *d.channel_ids}, {channel["id"]: (d.channel, d.member)}
    )
    return tl_convert.difference_to_tl(d, me, users, chats)
