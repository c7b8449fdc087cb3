"""channels.* handlers (thin: decode -> checked lookup -> domain action -> TL)."""

from __future__ import annotations

from accounts_app.actions import vector_hash
from edge_app.registry import rpc
from message_core import limits
from message_core import tl_convert as core_tl
from message_core.context import answer_without_updates, own_session, resolve_input_user, users_for, viewer
from tl import functions, types

from .. import account_updates, actions, tl_convert, viewer_hooks
from ..access import channel_ref
from ..actions import channels as channel_actions
from ..actions import dialogs as dialog_actions
from ..actions import messages as message_actions
from ..actions import send_as
from ..actions.common import participant_refs
from ..chat_context import chats_for
from ..errors import (
    ChannelInvalidError,
    ChannelPrivateError,
    LimitInvalidError,
    ParticipantIdInvalidError,
    PeerIdInvalidError,
    UserIdInvalidError,
)
from .context import change_to_updates, context_for


async def _checked(me: int, input_channel, *, preview: bool = False):
    cid, access_hash = channel_ref(input_channel)
    return await actions.get_channel_for_viewer(me, cid, access_hash, preview=preview)


@rpc(functions.channels.CreateChannel)
async def create_channel(ctx, req: functions.channels.CreateChannel):
    me = viewer(ctx)
    change = await actions.do_create_channel(
        me, req.title, about=req.about, broadcast=req.broadcast, megagroup=req.megagroup,
        for_import=req.for_import, has_geo=req.geo_point is not None or bool(req.address),
        ttl_period=req.ttl_period,
    )  # fmt: skip
    return await change_to_updates(me, change, extra=[tl_convert.update_channel_to_tl(change.channel["id"])])


@rpc(functions.channels.GetChannels)
async def get_channels(ctx, req: functions.channels.GetChannels):
    me = viewer(ctx)
    if len(req.id) > limits.GET_CHANNELS_MAX:
        raise LimitInvalidError()
    # Telegram fails the request for a channel the viewer cannot resolve (clients such
    # as Telethon's get_input_entity index the answer and break on an empty list).
    found = await actions.get_channels(me, [channel_ref(ic) for ic in req.id], strict=True)
    return tl_convert.chats_to_tl([tl_convert.channel_to_tl(ch, m) for ch, m in found])


@rpc(functions.channels.GetFullChannel)
async def get_full_channel(ctx, req: functions.channels.GetFullChannel):
    me = viewer(ctx)
    cid, access_hash = channel_ref(req.channel)
    full = await actions.get_full_channel(me, cid, access_hash)
    linked = [full["channel"]["linked_chat_id"]] if full["channel"].get("linked_chat_id") else []
    join_as = full["groupcall_default_join_as"] = await viewer_hooks.default_join_as(cid, me)
    if join_as and join_as[0] == "channel":
        linked.append(join_as[1])
    chats = await chats_for(me, [cid, *linked], {cid: (full["channel"], full["member"])})
    user_ids = {me, *full.get("recent_requesters", ())}
    if full.get("exported_invite"):
        user_ids.add(full["exported_invite"]["admin_user_id"])
    bot_info = []
    if full["member"] is not None and (full["is_admin"] or not full["channel"]["broadcast"]):
        bot_ids = await channel_actions.member_bot_ids(full["channel"])
        bot_info = await viewer_hooks.bot_infos(cid, bot_ids, me, bool(full["is_admin"]))
        user_ids.update(b.user_id for b in bot_info)
    return tl_convert.full_channel_to_tl(
        full, chats, await users_for(me, sorted(user_ids)), bot_info=bot_info
    )


_FILTERS = {
    types.ChannelParticipantsRecent: "recent",
    types.ChannelParticipantsAdmins: "admins",
    types.ChannelParticipantsKicked: "kicked",
    types.ChannelParticipantsBanned: "banned",
    types.ChannelParticipantsBots: "bots",
    types.ChannelParticipantsSearch: "search",
    types.ChannelParticipantsContacts: "contacts",
    types.ChannelParticipantsMentions: "mentions",
}


@rpc(functions.channels.GetParticipants)
async def get_participants(ctx, req: functions.channels.GetParticipants):
    me = viewer(ctx)
    channel, member = await _checked(me, req.channel)
    kind = _FILTERS.get(type(req.filter))
    if kind is None:
        raise ChannelInvalidError()
    q = getattr(req.filter, "q", "") or ""
    count, rows = await actions.get_participants(me, channel, member, kind, q, req.offset, req.limit)
    if req.hash and req.hash == vector_hash([r["user_id"] for r in rows]):
        return tl_convert.participants_not_modified_to_tl()
    users = await users_for(me, sorted(participant_refs(rows, set())))
    chats = await chats_for(me, [channel["id"]], {channel["id"]: (channel, member)})
    return tl_convert.participants_to_tl(count, rows, me, member, chats, users)


@rpc(functions.channels.GetParticipant)
async def get_participant(ctx, req: functions.channels.GetParticipant):
    from ..errors import ChatAdminRequiredError, UserNotParticipantError

    me = viewer(ctx)
    channel, member = await _checked(me, req.channel)
    from accounts_app.access import check_input_user, is_input_user

    if not is_input_user(req.participant):
        raise UserIdInvalidError()
    target = check_input_user(me, req.participant)
    if target != me and (member is None or member["status"] != "active"):
        raise ChatAdminRequiredError()
    row = await actions.get_participant(channel, target)
    if row is None or row["status"] == "left":
        raise UserNotParticipantError()
    if (
        row["status"] in ("kicked", "banned")
        and target != me
        and not (member and member["role"] in ("creator", "admin"))
    ):
        raise UserNotParticipantError()
    chats = await chats_for(me, [channel["id"]], {channel["id"]: (channel, member)})
    users = await users_for(me, sorted(participant_refs([row], {me, target})))
    return tl_convert.participant_result_to_tl(row, me, member, chats, users)


@rpc(functions.channels.InviteToChannel)
async def invite_to_channel(ctx, req: functions.channels.InviteToChannel):
    me = viewer(ctx)
    channel, _ = await _checked(me, req.channel)
    resolve = resolve_input_user(me)
    user_ids = [resolve(u) for u in req.users[: limits.INVITE_USERS_MAX + 1]]
    change = await actions.do_invite_to_channel(me, channel["id"], user_ids)
    updates = await change_to_updates(me, change, extra=[tl_convert.update_channel_to_tl(channel["id"])])
    return tl_convert.invited_users_to_tl(updates, change.missing_user_ids)


@rpc(functions.channels.JoinChannel)
async def join_channel(ctx, req: functions.channels.JoinChannel):
    me = viewer(ctx)
    channel, _ = await _checked(me, req.channel, preview=True)
    change = await actions.do_join_channel(me, channel["id"])
    return await change_to_updates(me, change, extra=[tl_convert.update_channel_to_tl(channel["id"])])


@rpc(functions.channels.LeaveChannel)
async def leave_channel(ctx, req: functions.channels.LeaveChannel):
    me = viewer(ctx)
    channel, _ = await _checked(me, req.channel)
    change = await actions.do_leave_channel(me, channel["id"])
    return await change_to_updates(me, change, extra=[tl_convert.update_channel_to_tl(channel["id"])])


@rpc(functions.channels.GetMessages)
async def get_messages(ctx, req: functions.channels.GetMessages):
    me = viewer(ctx)
    channel, _ = await _checked(me, req.channel, preview=True)
    if len(req.id) > limits.GET_IDS_MAX:
        raise LimitInvalidError()
    ids: list = []
    for item in req.id:
        if isinstance(item, types.InputMessageID):
            ids.append(item.id)
        elif isinstance(item, types.InputMessageReplyTo):
            ids.append(("reply", item.id))
        elif isinstance(item, types.InputMessagePinned):
            ids.append(("pinned",))
        else:
            ids.append(0)  # inputMessageCallbackQuery: no bots, messageEmpty
    h = await actions.get_messages(me, channel["id"], ids)
    users, chats = await context_for(
        me,
        [m for m in h.messages if not m.get("empty")],
        (),
        [channel["id"]],
        {channel["id"]: (h.channel, h.member)},
    )
    return tl_convert.channel_messages_to_tl(h, me, users, chats)


@rpc(functions.channels.DeleteMessages)
async def delete_messages(ctx, req: functions.channels.DeleteMessages):
    me = viewer(ctx)
    answer_without_updates()
    channel, _ = await _checked(me, req.channel)
    ch, event = await actions.do_delete_messages(me, channel["id"], list(req.id))
    if event is None:
        return core_tl.affected_messages_to_tl(ch["pts"], 0)
    return core_tl.affected_messages_to_tl(event.pts, event.pts_count)


@rpc(functions.channels.DeleteHistory)
async def delete_history(ctx, req: functions.channels.DeleteHistory):
    me = viewer(ctx)
    channel, member = await _checked(me, req.channel)
    ch, event, applied, _more = await actions.do_delete_history(
        me, channel["id"], req.max_id, for_everyone=req.for_everyone
    )
    ups = []
    if event is not None:
        ups.append(tl_convert.event_to_update(event, me))
    else:
        await account_updates.append(
            me,
            account_updates.AVAILABLE_MESSAGES,
            {"channel_id": ch["id"], "available_min_id": applied},
            exclude=own_session(ctx),
        )
        ups.append(tl_convert.available_messages_to_tl(ch["id"], applied))
    chats = await chats_for(me, [ch["id"]], {ch["id"]: (ch, member)})
    return tl_convert.updates_to_tl(ups, [], chats)


async def read_channel(ctx, me: int, channel_id: int, max_id: int) -> dict:
    res = await actions.do_read_history(me, channel_id, max_id)
    if res["advanced"]:
        await account_updates.append(
            me,
            account_updates.READ_INBOX,
            {
                "channel_id": channel_id,
                "max_id": res["max_id"],
                "still_unread_count": res["still_unread_count"],
                "pts": res["pts"],
            },
            exclude=own_session(ctx),
        )
    return res


@rpc(functions.channels.ReadHistory)
async def read_history(ctx, req: functions.channels.ReadHistory):
    me = viewer(ctx)
    channel, _ = await _checked(me, req.channel)
    await read_channel(ctx, me, channel["id"], req.max_id)
    return True


@rpc(functions.channels.ExportMessageLink)
async def export_message_link(ctx, req: functions.channels.ExportMessageLink):
    me = viewer(ctx)
    channel, _ = await _checked(me, req.channel)
    link = await message_actions.export_message_link(me, channel["id"], req.id, thread=req.thread)
    return tl_convert.message_link_to_tl(link)


@rpc(functions.channels.GetMessageAuthor)
async def get_message_author(ctx, req: functions.channels.GetMessageAuthor):
    me = viewer(ctx)
    channel, _ = await _checked(me, req.channel)
    author = await message_actions.get_message_author(me, channel["id"], req.id)
    (user,) = await users_for(me, [author])
    return user


@rpc(functions.channels.DeleteParticipantHistory)
async def delete_participant_history(ctx, req: functions.channels.DeleteParticipantHistory):
    from accounts_app.access import check_input_peer_user, is_input_user

    me = viewer(ctx)
    answer_without_updates()
    channel, _ = await _checked(me, req.channel)
    if not is_input_user(req.participant):
        raise ParticipantIdInvalidError()
    target = check_input_peer_user(me, req.participant)
    event, more = await message_actions.do_delete_participant_history(me, channel["id"], target)
    if event is None:
        return core_tl.affected_history_to_tl(channel["pts"], 0, False)
    return core_tl.affected_history_to_tl(event.pts, event.pts_count, more)


@rpc(functions.channels.ToggleViewForumAsMessages)
async def toggle_view_forum_as_messages(ctx, req: functions.channels.ToggleViewForumAsMessages):
    me = viewer(ctx)
    channel, member = await _checked(me, req.channel)
    if member is None or member["status"] != "active":
        raise ChannelPrivateError()
    changed = await dialog_actions.do_set_view_forum_as_messages(me, channel["id"], bool(req.enabled))
    extra = [tl_convert.view_forum_as_messages_to_tl(channel["id"], bool(req.enabled))] if changed else []
    return tl_convert.updates_to_tl(
        extra, [], await chats_for(me, [channel["id"]], {channel["id"]: (channel, member)})
    )


@rpc(functions.channels.GetSendAs)
async def get_send_as(ctx, req: functions.channels.GetSendAs):
    me = viewer(ctx)
    from ..access import is_channel_peer

    if not is_channel_peer(req.peer):
        raise PeerIdInvalidError()
    channel, _ = await _checked(me, req.peer)
    channel, member, peers = await send_as.get_send_as(me, channel["id"])
    others = [p for p in peers if p]
    chats = await chats_for(me, [channel["id"]], {channel["id"]: (channel, member)})
    return tl_convert.send_as_peers_to_tl(me, others, chats, await users_for(me, [me]))
