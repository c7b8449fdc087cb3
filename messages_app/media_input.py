"""The client's InputMedia as a message's media: uploads assembled and processed,
existing photos and documents checked by hash and file reference (media_app)."""

from __future__ import annotations

from media_app import actions as media_actions
from media_app import tl_convert as media_tl
from stickers_app import attached
from tl import types
from tl.errors import MediaEmptyError, MediaInvalidError

from .media_input_kinds import VALUE_MEDIA, edited_value_media, value_media


def media_kind(attributes: list[dict], mime_type: str) -> str:
    """The media kind a document is filed under (search filters, send rights)."""
    by = {a["_"]: a for a in attributes}
    if "sticker" in by:
        return "sticker"
    if "audio" in by:
        return "voice" if by["audio"].get("voice") else "music"
    if "video" in by:
        if by["video"].get("round_message"):
            return "round"
        return "gif" if "animated" in by else "video"
    if "animated" in by or mime_type == "image/gif":
        return "gif"
    return "document"


async def _attach(media_kind: str, media_id: int, stickers) -> bool:
    """Masks put on an upload: their sets are kept for getAttachedStickers."""
    ids = [d.id for d in stickers or () if isinstance(d, types.InputDocument)]
    return bool(ids) and await attached.do_attach(media_kind, media_id, ids)


async def input_media(me: int, media, *, broadcast: bool = False) -> dict:
    """A message's media from the client's InputMedia (uploads assembled and processed;
    ``broadcast``: it goes to a broadcast channel, whose polls cannot show voters)."""
    if isinstance(media, VALUE_MEDIA):
        return await value_media(me, media, broadcast=broadcast)
    if isinstance(media, types.InputMediaUploadedPhoto):
        photo = await media_actions.do_upload_photo(me, media_tl.upload_ref(media.file))
        if await _attach("p", photo["id"], media.stickers):
            photo["has_stickers"] = True
        return {"photo": photo, "kind": "photo", "spoiler": bool(media.spoiler)}
    if isinstance(media, types.InputMediaPhoto):
        if not isinstance(media.id, types.InputPhoto):
            raise MediaEmptyError()
        photo = await media_actions.get_photo(media.id.id, media.id.access_hash, media.id.file_reference)
        return {"photo": photo, "kind": "photo", "spoiler": bool(media.spoiler)}
    if isinstance(media, types.InputMediaUploadedDocument):
        attributes = media_tl.attributes_from_tl(media.attributes)
        thumb = media_tl.upload_ref(media.thumb) if media.thumb is not None else None
        doc = await media_actions.do_upload_document(
            me,
            media_tl.upload_ref(media.file),
            media.mime_type,
            attributes,
            thumb,
            force_file=bool(media.force_file),
        )
        if await _attach("d", doc["id"], media.stickers):
            doc["attributes"] = [*doc["attributes"], {"_": "has_stickers"}]
        kind = "document" if media.force_file else media_kind(doc["attributes"], doc["mime_type"])
        return {"document": doc, "kind": kind, "spoiler": bool(media.spoiler)}
    if isinstance(media, types.InputMediaDocument):
        if not isinstance(media.id, types.InputDocument):
            raise MediaEmptyError()
        doc = await media_actions.get_document(media.id.id, media.id.access_hash, media.id.file_reference)
        return {
            "document": doc,
            "kind": media_kind(doc["attributes"], doc["mime_type"]),
            "spoiler": bool(media.spoiler),
        }
    if media is None or isinstance(media, types.InputMediaEmpty):
        raise MediaEmptyError()
    raise MediaInvalidError()


async def edited_media(me: int, media, current=None) -> dict | None:
    """The new media of messages.editMessage (None: keep the message's media; a web
    page preview is not stored). ``current``: ``async () -> media dict`` of the edited
    message, read only for the kinds that change in place (live locations, polls)."""
    if media is None or isinstance(media, types.InputMediaEmpty | types.InputMediaWebPage):
        return None
    if isinstance(media, VALUE_MEDIA):
        if not isinstance(media, types.InputMediaGeoLive | types.InputMediaPoll):
            raise MediaInvalidError()
        return await edited_value_media(media, await current() if current else None)
    return await input_media(me, media)
