"""Channel settings handlers: title, about, photo, default rights, toggles, slow mode,
pins, public usernames, left / inactive channels; and the channel providers of
contacts.search / contacts.resolveUsername (accounts_app.peer_search)."""

from __future__ import annotations

from edge_app.registry import rpc
from media_app import actions as media_actions
from media_app import tl_convert as media_tl
from message_core import tl_convert as core_tl
from message_core.context import answer_without_updates, viewer
from stickers_app import tl_convert as stickers_tl
from tl import functions, types
from tl.errors import EmojiStatusInvalidError, PhotoInvalidError

from .. import rights, tl_convert, tl_convert_admin
from ..access import is_channel_peer
from ..actions import settings, usernames
from ..chat_context import chats_for
from ..errors import PeerIdInvalidError
from .admin import change_updates, checked_channel, state_updates


async def _checked_peer(me: int, peer):
    if not is_channel_peer(peer):
        raise PeerIdInvalidError()  # no legacy chats or private pins here
    return await checked_channel(me, peer)


@rpc(functions.channels.EditTitle)
async def edit_title(ctx, req: functions.channels.EditTitle):
    me = viewer(ctx)
    channel, _ = await checked_channel(me, req.channel)
    return await change_updates(me, await settings.do_edit_title(me, channel["id"], req.title))


async def input_chat_photo(me: int, photo) -> dict | None:
    """The photo an InputChatPhoto names (uploaded: processed into the ladder; existing:
    checked by hash and file reference), or None to remove the chat photo."""
    if isinstance(photo, types.InputChatPhotoEmpty):
        return None
    if isinstance(photo, types.InputChatUploadedPhoto):
        if photo.file is None:
            raise PhotoInvalidError()  # video-only chat photos are not stored
        return await media_actions.do_upload_photo(me, media_tl.upload_ref(photo.file), chat_photo=True)
    if isinstance(photo, types.InputChatPhoto) and isinstance(photo.id, types.InputPhoto):
        return await media_actions.get_photo(photo.id.id, photo.id.access_hash, photo.id.file_reference)
    raise PhotoInvalidError()


async def edit_chat_photo(me: int, channel_id: int, photo):
    """channels.editPhoto and the legacy messages.editChatPhoto: the service message and
    updateChannel (only updateChannel when nothing changed)."""
    change = await settings.do_edit_photo(me, channel_id, await input_chat_photo(me, photo))
    if not change.events:
        return await state_updates(me, channel_id)
    return await change_updates(me, change)


@rpc(functions.channels.EditPhoto)
async def edit_photo(ctx, req: functions.channels.EditPhoto):
    me = viewer(ctx)
    channel, _ = await checked_channel(me, req.channel)
    return await edit_chat_photo(me, channel["id"], req.photo)


@rpc(functions.messages.EditChatAbout)
async def edit_chat_about(ctx, req: functions.messages.EditChatAbout):
    me = viewer(ctx)
    channel, _ = await _checked_peer(me, req.peer)
    await settings.do_edit_about(me, channel["id"], req.about)
    return True


@rpc(functions.messages.EditChatDefaultBannedRights)
async def edit_default_banned_rights(ctx, req: functions.messages.EditChatDefaultBannedRights):
    me = viewer(ctx)
    channel, _ = await _checked_peer(me, req.peer)
    mask = rights.names_to_flags(req.banned_rights, rights.BANNED_FLAGS)
    await settings.do_edit_default_banned_rights(me, channel["id"], mask)
    return await state_updates(me, channel["id"])


def _toggle_handler(fn_class, action, field: str = "enabled"):
    @rpc(fn_class)
    async def handler(ctx, req):
        me = viewer(ctx)
        target = req.channel if hasattr(req, "channel") else req.peer
        if not hasattr(req, "channel") and not is_channel_peer(target):
            raise PeerIdInvalidError()
        channel, _ = await checked_channel(me, target)
        await action(me, channel["id"], bool(getattr(req, field)))
        return await state_updates(me, channel["id"])

    handler.__name__ = f"toggle_{fn_class.__name__}"
    return handler


_toggle_handler(functions.channels.ToggleSignatures, settings.do_toggle_signatures, "signatures_enabled")
_toggle_handler(functions.channels.TogglePreHistoryHidden, settings.do_toggle_pre_history_hidden)
_toggle_handler(functions.channels.ToggleParticipantsHidden, settings.do_toggle_participants_hidden)
_toggle_handler(functions.channels.ToggleJoinToSend, settings.do_toggle_join_to_send)
_toggle_handler(functions.channels.ToggleJoinRequest, settings.do_toggle_join_request)
_toggle_handler(functions.messages.ToggleNoForwards, settings.do_toggle_noforwards)
_toggle_handler(functions.channels.ToggleAntiSpam, settings.do_toggle_antispam)
_toggle_handler(functions.channels.ToggleAutotranslation, settings.do_toggle_autotranslation)
_toggle_handler(
    functions.channels.RestrictSponsoredMessages, settings.do_restrict_sponsored_messages, "restricted"
)


@rpc(functions.channels.ToggleForum)
async def toggle_forum(ctx, req: functions.channels.ToggleForum):
    me = viewer(ctx)
    channel, _ = await checked_channel(me, req.channel)
    await settings.do_toggle_forum(me, channel["id"], bool(req.enabled), bool(req.tabs))
    return await state_updates(me, channel["id"])


@rpc(functions.channels.UpdateColor)
async def update_color(ctx, req: functions.channels.UpdateColor):
    me = viewer(ctx)
    channel, _ = await checked_channel(me, req.channel)
    await settings.do_update_color(
        me, channel["id"], for_profile=req.for_profile, color=req.color,
        background_emoji_id=req.background_emoji_id,
    )  # fmt: skip
    return await state_updates(me, channel["id"])


@rpc(functions.channels.UpdateEmojiStatus)
async def update_emoji_status(ctx, req: functions.channels.UpdateEmojiStatus):
    """A plain custom emoji or none; collectible statuses need gifts, which do not exist here."""
    me = viewer(ctx)
    channel, _ = await checked_channel(me, req.channel)
    status = req.emoji_status
    if isinstance(status, types.EmojiStatus):
        document_id, until = status.document_id, status.until
    elif isinstance(status, types.EmojiStatusEmpty):
        document_id = until = None
    else:
        raise EmojiStatusInvalidError()
    await settings.do_update_emoji_status(me, channel["id"], document_id, until)
    return await state_updates(me, channel["id"])


@rpc(functions.channels.UpdatePaidMessagesPrice)
async def update_paid_messages_price(ctx, req: functions.channels.UpdatePaidMessagesPrice):
    me = viewer(ctx)
    channel, _ = await checked_channel(me, req.channel)
    await settings.do_update_paid_messages_price(
        me,
        channel["id"],
        req.send_paid_messages_stars,
        broadcast_messages_allowed=req.broadcast_messages_allowed,
    )
    return await state_updates(me, channel["id"])


@rpc(functions.channels.SetStickers, functions.channels.SetEmojiStickers)
async def set_stickers(ctx, req):
    me = viewer(ctx)
    channel, _ = await checked_channel(me, req.channel)
    kind = "emojis" if isinstance(req, functions.channels.SetEmojiStickers) else "stickers"
    await settings.do_set_sticker_set(me, channel["id"], kind, stickers_tl.set_ref(req.stickerset))
    return True


@rpc(functions.channels.ToggleSlowMode)
async def toggle_slow_mode(ctx, req: functions.channels.ToggleSlowMode):
    me = viewer(ctx)
    channel, _ = await checked_channel(me, req.channel)
    await settings.do_toggle_slow_mode(me, channel["id"], req.seconds)
    return await state_updates(me, channel["id"])


@rpc(functions.channels.ConvertToGigagroup)
async def convert_to_gigagroup(ctx, req: functions.channels.ConvertToGigagroup):
    me = viewer(ctx)
    channel, _ = await checked_channel(me, req.channel)
    await settings.do_convert_to_gigagroup(me, channel["id"])
    return await state_updates(me, channel["id"])


@rpc(functions.messages.MigrateChat)
async def migrate_chat(ctx, req: functions.messages.MigrateChat):
    """No legacy chat exists: the chat id is its megagroup (TDesktop's migrateTo path)."""
    me = viewer(ctx)
    channel, _ = await checked_channel(me, types.InputPeerChat(chat_id=req.chat_id))
    await settings.do_migrate_chat(me, channel["id"])
    return await state_updates(me, channel["id"])


@rpc(functions.messages.UpdatePinnedMessage)
async def update_pinned_message(ctx, req: functions.messages.UpdatePinnedMessage):
    me = viewer(ctx)
    channel, _ = await _checked_peer(me, req.peer)
    change = await settings.do_update_pinned_message(
        me, channel["id"], req.id, unpin=req.unpin, silent=req.silent
    )
    if not change.events:
        return tl_convert.updates_to_tl([], [], await chats_for(me, [channel["id"]]))
    return await change_updates(me, change)


@rpc(functions.messages.UnpinAllMessages)
async def unpin_all_messages(ctx, req: functions.messages.UnpinAllMessages):
    me = viewer(ctx)
    answer_without_updates()
    channel, _ = await _checked_peer(me, req.peer)
    change, more = await settings.do_unpin_all_messages(me, channel["id"])
    if not change.events:
        return core_tl.affected_history_to_tl(change.channel["pts"], 0, False)
    ev = change.events[0]
    return core_tl.affected_history_to_tl(ev.pts, ev.pts_count, bool(more))


# --- usernames ---------------------------------------------------------------------


@rpc(functions.channels.CheckUsername)
async def check_username(ctx, req: functions.channels.CheckUsername):
    me = viewer(ctx)
    if isinstance(req.channel, types.InputChannelEmpty):
        # Creating a channel: only the name is checked (TDesktop's create flow).
        from asgiref.sync import sync_to_async

        from accounts_app.usernames import check_username_format, is_username_taken

        check_username_format(req.username)
        return not await sync_to_async(is_username_taken)(req.username)
    channel, _ = await checked_channel(me, req.channel)
    return await usernames.check_username(me, channel["id"], req.username)


@rpc(functions.channels.UpdateUsername)
async def update_username(ctx, req: functions.channels.UpdateUsername):
    me = viewer(ctx)
    channel, _ = await checked_channel(me, req.channel)
    await usernames.do_update_username(me, channel["id"], req.username)
    return True


@rpc(functions.channels.GetAdminedPublicChannels)
async def get_admined_public_channels(ctx, req: functions.channels.GetAdminedPublicChannels):
    me = viewer(ctx)
    found = [] if req.by_location else await usernames.get_admined_public_channels(me)
    if req.check_limit and len(found) >= usernames.PUBLIC_CHANNELS_PER_USER_MAX:
        raise usernames.ChannelsAdminPublicTooMuchError()
    chats = await chats_for(me, [c["id"] for c in found])
    return tl_convert.chats_to_tl(chats)


@rpc(functions.channels.GetLeftChannels)
async def get_left_channels(ctx, req: functions.channels.GetLeftChannels):
    from accounts_app.takeout import require_takeout

    require_takeout(ctx)  # as on Telegram: only a data export lists them
    me = viewer(ctx)
    count, rows, complete = await usernames.get_left_channels(me, req.offset)
    chats = await chats_for(me, [c["id"] for c in rows])
    return tl_convert_admin.left_channels_to_tl(count, chats, complete)


@rpc(functions.channels.GetInactiveChannels)
async def get_inactive_channels(ctx, req: functions.channels.GetInactiveChannels):
    me = viewer(ctx)
    found = await usernames.get_inactive_channels(me)
    chats = await chats_for(me, [c["id"] for c, _ in found])
    return tl_convert_admin.inactive_chats_to_tl([d for _, d in found], chats, [])


# --- contacts.search / contacts.resolveUsername providers ------------------------------


async def search_provider(viewer_id: int, query: str, limit: int):
    from accounts_app.peer_search import PeerHits

    mine, public = await usernames.search_public_channels(viewer_id, query, limit)
    if not mine and not public:
        return None
    chats = await chats_for(viewer_id, [c["id"] for c in mine + public])
    return PeerHits(
        my_results=[types.PeerChannel(channel_id=c["id"]) for c in mine],
        results=[types.PeerChannel(channel_id=c["id"]) for c in public],
        chats=chats,
    )


async def username_resolver(viewer_id: int, key: str):
    from accounts_app.peer_search import PeerHits

    found = await usernames.resolve_public_channel(viewer_id, key)
    if found is None:
        return None
    channel, member = found
    chats = await chats_for(viewer_id, [channel["id"]], {channel["id"]: (channel, member)})
    return PeerHits(results=[types.PeerChannel(channel_id=channel["id"])], chats=chats)


def _install_peer_search() -> None:
    from accounts_app import peer_search

    peer_search.register_search_provider(search_provider)
    peer_search.register_username_resolver(username_resolver)


_install_peer_search()
