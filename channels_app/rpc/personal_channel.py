"""account.updatePersonalChannel: a broadcast channel the user created, shown on their
profile (accounts_app keeps the choice; the channel side checks and renders it)."""

from __future__ import annotations

from asgiref.sync import sync_to_async

from accounts_app import account_settings, full_user
from accounts_app.actions import USER_PROFILE_UPDATE
from accounts_app.updates import do_append_user_update
from channels_app.access import channel_ref
from channels_app.actions.common import load_channel_and_member
from channels_app.chat_context import chats_for
from edge_app.registry import rpc
from message_core.context import own_session, viewer
from tl import functions, types
from tl.errors import ChannelPrivateError, PersonalChannelInvalidError


@rpc(functions.account.UpdatePersonalChannel)
async def update_personal_channel(ctx, req: functions.account.UpdatePersonalChannel):
    me = viewer(ctx)
    channel_id = 0
    if not isinstance(req.channel, types.InputChannelEmpty):
        cid, access_hash = channel_ref(req.channel)
        channel, _member = await load_channel_and_member(cid, me)
        if channel["deleted"] or (access_hash and access_hash != channel["access_hash"]):
            raise ChannelPrivateError()
        if not channel["broadcast"] or channel["creator_user_id"] != me:
            raise PersonalChannelInvalidError()
        channel_id = cid
    await sync_to_async(account_settings.do_update_personal_channel)(me, channel_id)
    await do_append_user_update(me, USER_PROFILE_UPDATE, {"user_id": me}, exclude=own_session(ctx))
    return True


@full_user.register_personal_channel_renderer
async def render_personal_channel(viewer_id: int, channel_id: int) -> tuple[list, int]:
    channel, _member = await load_channel_and_member(channel_id, viewer_id)
    if channel["deleted"]:
        return [], 0
    return await chats_for(viewer_id, [channel_id]), channel["top_message_id"] or 0
