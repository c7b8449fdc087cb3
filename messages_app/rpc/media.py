"""Media of any peer: messages.sendMedia, sendMultiMedia, uploadMedia and
upload.getFile. The input media become a photo or document (media_app), the peer's
kind stores the message; a file is served only to someone who can see a message,
chat or profile holding it."""

from __future__ import annotations

from bots_app import markup as bot_markup
from channels_app import actions
from channels_app.actions import album
from channels_app.actions import media as channel_media
from channels_app.rpc.context import change_to_updates
from edge_app.orm_threads import in_thread
from edge_app.registry import rpc
from media_app import actions as media_actions
from media_app import profile
from media_app import tl_convert as media_tl
from message_core import limits
from message_core import tl_convert as core_tl
from message_core.context import own_session, resolve_input_user, viewer
from private_app import actions as private_actions
from stickers_app import catalog as sticker_catalog
from stickers_app import library as sticker_library
from stickers_app import tl_convert as stickers_tl
from tl import functions, types
from tl.errors import (
    LocationInvalidError,
    MediaCaptionTooLongError,
    MediaEmptyError,
    MediaInvalidError,
    MultiMediaTooLongError,
    PeerIdInvalidError,
)

from ..media_input import input_media
from ..media_input_kinds import VALUE_MEDIA
from ..peers import channel_peer, checked_channel, is_user_peer, peer_user_id, send_as_id
from . import private_peer, scheduled, webpages


def _caption(message: str) -> None:
    if len(message or "") > limits.CAPTION_MAX:
        raise MediaCaptionTooLongError()


def _reply_ids(reply_to) -> tuple[int, int]:
    if isinstance(reply_to, types.InputReplyToMessage):
        return reply_to.reply_to_msg_id, reply_to.top_msg_id or 0
    return 0, 0


async def _sender_name(me: int) -> str:
    from .messages import _sender_name as name

    return await name(me)


@rpc(functions.messages.SendMedia)
async def send_media(ctx, req: functions.messages.SendMedia):
    """A photo or document (uploaded or existing) with its caption. A web page "media"
    is a link preview: sent as the plain text message it annotates."""
    me = viewer(ctx)
    if isinstance(req.media, types.InputMediaWebPage):
        return await _send_web_page(ctx, req)
    if req.schedule_date is not None:
        scheduled.check_date(req.schedule_date, req.peer)
    _caption(req.message)
    user_peer = peer_user_id(me, req.peer) if is_user_peer(req.peer) else 0
    if not user_peer:
        channel, _ = await checked_channel(me, req.peer)
        send_as = send_as_id(me, req.send_as)
    media = await input_media(me, req.media, broadcast=not user_peer and channel["broadcast"])
    if req.schedule_date is not None:
        return await scheduled.schedule_media(ctx, req, media)
    entities = core_tl.entities_from_tl(req.entities, resolve_input_user(me))
    reply_to, top = _reply_ids(req.reply_to)
    markup = await bot_markup.markup_for_sender(me, req.reply_markup, resolve_input_user(me))
    if user_peer:
        change = await private_actions.do_send_private_message(
            me, user_peer, req.message, req.random_id, entities=entities, reply_to_msg_id=reply_to,
            silent=req.silent, exclude=own_session(ctx), media=media, reply_markup=markup,
        )  # fmt: skip
        answer = await private_peer.sent_updates(me, change)
    else:
        change = await actions.do_send_message(
            me, channel["id"], req.message, req.random_id, entities=entities, reply_to_msg_id=reply_to,
            top_msg_id=top, silent=req.silent, sender_name=lambda: _sender_name(me), media=media, send_as=send_as,
            reply_markup=markup,
        )  # fmt: skip
        answer = await change_to_updates(me, change)
    if media.get("kind") == "sticker":
        await sticker_library.do_note_sent(
            me, media["document"], move_to_top=bool(req.update_stickersets_order), exclude=own_session(ctx)
        )
    return answer


async def _send_web_page(ctx, req: functions.messages.SendMedia):
    """The page the client chose is fetched first (WEBPAGE_CURL_FAILED, nothing sent,
    when it gives none), then sent as the text message it annotates."""
    from .messages import send_text

    webpages.check_text(req.message)
    if req.schedule_date is not None:
        scheduled.check_date(req.schedule_date, req.peer)
    me = viewer(ctx)
    if is_user_peer(req.peer):
        peer_user_id(me, req.peer)
    else:
        await checked_channel(me, req.peer)
    preview = await webpages.web_page_media(req)
    text = req.message if req.message.strip() else req.media.url[: limits.MESSAGE_MAX]
    return await send_text(
        ctx,
        functions.messages.SendMessage(
            silent=req.silent, background=req.background, clear_draft=req.clear_draft,
            noforwards=req.noforwards, invert_media=req.invert_media, peer=req.peer, reply_to=req.reply_to,
            message=text, random_id=req.random_id, reply_markup=req.reply_markup,
            entities=req.entities if req.message.strip() else None, send_as=req.send_as,
            schedule_date=req.schedule_date, no_webpage=preview is None,
        ),
        preview,
    )  # fmt: skip


@rpc(functions.messages.SendMultiMedia)
async def send_multi_media(ctx, req: functions.messages.SendMultiMedia):
    """An album: up to ten photos or documents, one grouped_id, one update batch."""
    me = viewer(ctx)
    if req.schedule_date is not None:
        scheduled.check_date(req.schedule_date, req.peer)
    if len(req.multi_media) > limits.ALBUM_MAX:
        raise MultiMediaTooLongError()
    for m in req.multi_media:
        _caption(m.message)
        if isinstance(m.media, VALUE_MEDIA):
            raise MediaInvalidError()  # an album holds photos, videos, audio and files
    user_peer = peer_user_id(me, req.peer) if is_user_peer(req.peer) else 0
    if not user_peer:
        channel, _ = await checked_channel(me, req.peer)
    if not req.multi_media:
        raise MediaEmptyError()  # after the peer check, as every method here
    items = []
    for m in req.multi_media:
        items.append(
            {
                "media": await input_media(me, m.media),
                "message": m.message,
                "entities": core_tl.entities_from_tl(m.entities, resolve_input_user(me)),
                "random_id": m.random_id,
            }
        )
    if req.schedule_date is not None:
        return await scheduled.schedule_album(ctx, req, items)
    if user_peer:
        change = await private_actions.do_send_private_album(
            me, user_peer, items, silent=req.silent, exclude=own_session(ctx)
        )
        return await private_peer.sent_updates(me, change)
    name = await _sender_name(me) if channel["broadcast"] and channel["signatures"] else ""
    change = await album.do_send_album(me, channel["id"], items, silent=req.silent, sender_name=name)
    return await change_to_updates(me, change)


@rpc(functions.messages.UploadMedia)
async def upload_media(ctx, req: functions.messages.UploadMedia):
    """The media as it would be sent, without a message: reusable by id (albums)."""
    me = viewer(ctx)
    if is_user_peer(req.peer):
        peer_user_id(me, req.peer)
    else:
        await checked_channel(me, req.peer)
    if isinstance(req.media, (types.InputMediaWebPage, *VALUE_MEDIA)):
        raise MediaInvalidError()  # only files are uploaded ahead of a send
    return media_tl.media_to_tl(await input_media(me, req.media))


# --- downloads ---------------------------------------------------------------------------------


async def _may_download(me: int, kind: str, media_id: int) -> bool:
    owner, holders = await media_actions.holders_of(kind, media_id)
    if owner == me:
        return True
    channels = []
    for holder, holder_id in holders:
        if holder == "public" or (holder == "u" and holder_id == me):
            return True
        if holder == "c":
            channels.append(holder_id)
    return await channel_media.can_view(me, channels) if channels else False


async def _peer_photo_target(me: int, loc: types.InputPeerPhotoFileLocation):
    if is_user_peer(loc.peer):
        uid = peer_user_id(me, loc.peer)
        if not await profile.is_profile_photo(uid, loc.photo_id):
            raise LocationInvalidError()
        return await media_actions.peer_photo_target(loc.photo_id, bool(loc.big))
    try:
        channel_peer(loc.peer)
    except PeerIdInvalidError:
        raise LocationInvalidError() from None
    channel, _ = await checked_channel(me, loc.peer, preview=True)
    if (channel.get("photo") or {}).get("id") != loc.photo_id:
        raise LocationInvalidError()
    return await media_actions.peer_photo_target(loc.photo_id, bool(loc.big))


@rpc(functions.upload.GetFile)
async def get_file(ctx, req: functions.upload.GetFile):
    me = viewer(ctx)
    media_actions.check_window(req.offset, req.limit, bool(req.precise))
    loc = req.location
    if isinstance(loc, types.InputPeerPhotoFileLocation):
        target = await _peer_photo_target(me, loc)
    elif isinstance(loc, types.InputStickerSetThumb):
        ref = stickers_tl.set_ref(loc.stickerset)
        if ref is None or ref.special:
            raise LocationInvalidError()
        target = await in_thread(sticker_catalog.thumb_target)(ref, loc.thumb_version)
    else:
        if isinstance(loc, types.InputPhotoFileLocation):
            target = await media_actions.photo_target(
                loc.id, loc.access_hash, loc.file_reference, loc.thumb_size
            )
        elif isinstance(loc, types.InputDocumentFileLocation):
            target = await media_actions.document_target(
                loc.id, loc.access_hash, loc.file_reference, loc.thumb_size
            )
        else:
            raise LocationInvalidError()
        if not await _may_download(me, target.kind, target.media_id):
            raise LocationInvalidError()
    data = await media_actions.read_window(target, req.offset, req.limit)
    return media_tl.file_to_tl(data, jpeg=target.jpeg, mtime=target.date, partial=req.offset > 0)
