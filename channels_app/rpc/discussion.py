"""channels.getGroupsForDiscussion / setDiscussionGroup (thin: the rules live in
``actions.discussion``)."""

from __future__ import annotations

from edge_app.registry import rpc
from message_core.context import viewer
from tl import functions, types

from .. import tl_convert
from ..access import channel_ref
from ..actions import discussion
from ..chat_context import chats_for
from ..errors import (
    BroadcastIdInvalidError,
    ChannelInvalidError,
    ChannelPrivateError,
    MegagroupIdInvalidError,
)
from .admin import checked_channel


@rpc(functions.channels.GetGroupsForDiscussion)
async def get_groups_for_discussion(ctx, req: functions.channels.GetGroupsForDiscussion):
    me = viewer(ctx)
    return tl_convert.chats_to_tl(await chats_for(me, await discussion.groups_for_discussion(me)))


async def _side(me: int, input_channel, error) -> int:
    """The checked channel id of one side; inputChannelEmpty is 0 (unlink)."""
    if isinstance(input_channel, types.InputChannelEmpty):
        return 0
    try:
        channel_ref(input_channel)
        channel, _ = await checked_channel(me, input_channel)
    except (ChannelInvalidError, ChannelPrivateError):
        raise error() from None
    return channel["id"]


@rpc(functions.channels.SetDiscussionGroup)
async def set_discussion_group(ctx, req: functions.channels.SetDiscussionGroup):
    me = viewer(ctx)
    broadcast_id = await _side(me, req.broadcast, BroadcastIdInvalidError)
    group_id = await _side(me, req.group, MegagroupIdInvalidError)
    await discussion.do_set_discussion_group(me, broadcast_id, group_id)
    return True
