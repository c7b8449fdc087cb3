"""Files over the Bot API: multipart uploads become photos and documents (the media
storage the MTProto path uses), ``file_id`` / ``file_unique_id``, getFile and the
``/file/bot<token>/<file_path>`` download.

A ``file_id`` names one photo size or one document together with its access hash, so it
cannot be guessed; it works for a bot that may see the file (it uploaded it, or the file
is held by a private chat of the bot's or a group it is in). ``file_unique_id`` is the
same for the same file whoever asks and never usable to download."""

from __future__ import annotations

import base64
import secrets

from aiohttp import web

from media_app import actions as media
from media_app.models import Document, Photo
from message_core import db
from tl.errors import RpcError

from .errors import BadRequest

PART = 512 * 1024
PHOTO_MAX = 10 * 1024 * 1024
DOCUMENT_MAX = 50 * 1024 * 1024
DOWNLOAD_MAX = 20 * 1024 * 1024  # getFile serves files up to 20 MB, as Telegram's


def _b64(s: str) -> str:
    return base64.urlsafe_b64encode(s.encode()).decode().rstrip("=")


def _unb64(s: str) -> str:
    try:
        return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4)).decode()
    except (ValueError, UnicodeDecodeError):
        raise BadRequest("wrong file_id or the file is temporarily unavailable") from None


def photo_file_id(photo: dict, size: str) -> str:
    return _b64(f"p.{photo['id']}.{photo['access_hash']}.{size}")


def document_file_id(doc: dict) -> str:
    return _b64(f"d.{doc['id']}.{doc['access_hash']}")


def unique_id(kind: str, media_id: int, size: str = "") -> str:
    return _b64(f"{kind}{media_id}{size}")


def photo_sizes(photo: dict) -> list[dict]:
    return [
        {
            "file_id": photo_file_id(photo, s["type"]),
            "file_unique_id": unique_id("p", photo["id"], s["type"]),
            "width": s["w"],
            "height": s["h"],
            "file_size": s["size"],
        }
        for s in photo.get("sizes") or []
    ]


def document(doc: dict) -> dict:
    d = {
        "file_id": document_file_id(doc),
        "file_unique_id": unique_id("d", doc["id"]),
        "mime_type": doc.get("mime_type") or "application/octet-stream",
        "file_size": doc.get("size") or 0,
    }
    for a in doc.get("attributes") or []:
        if a.get("_") == "filename":
            d["file_name"] = a.get("file_name", "")
    return d


def parse_file_id(file_id: str) -> tuple[str, int, int, str]:
    parts = _unb64(file_id).split(".")
    try:
        if parts[0] == "p" and len(parts) == 4:
            return "p", int(parts[1]), int(parts[2]), parts[3]
        if parts[0] == "d" and len(parts) == 3:
            return "d", int(parts[1]), int(parts[2]), ""
    except ValueError:
        pass
    raise BadRequest("wrong file_id or the file is temporarily unavailable")


# A photo or document row, whether the bot may see it directly (its uploader, a holder
# of it in a private box, everyone: a public profile photo) and the channels holding it
# (any member may see it). The membership is a statement of its own: the media tables
# stay on the coordinator under Citus, channel_members are sharded (docs/scaling.md).
_MEDIA_ROW = """
SELECT m.*,
       m.owner_id = %(b)s OR EXISTS (
         SELECT 1 FROM media_holders h WHERE h.kind = %(k)s AND h.media_id = %(m)s
            AND ((h.holder = 'u' AND h.holder_id = %(b)s) OR (h.holder = 'public' AND h.holder_id = 0))
       ) AS direct,
       ARRAY(SELECT h.holder_id FROM media_holders h
              WHERE h.kind = %(k)s AND h.media_id = %(m)s AND h.holder = 'c') AS channels
  FROM {table} m WHERE m.id = %(m)s"""
_TABLES = {"p": "media_photos", "d": "media_documents"}
_IN_ANY = (
    "SELECT 1 AS yes FROM channel_members"
    " WHERE channel_id = ANY(%s) AND user_id = %s AND status = 'active' LIMIT 1"
)


async def _visible(bot_id: int, kind: str, media_id: int) -> dict | None:
    """The media's row if the bot may see it, on the pooled connections."""
    row = await db.fetchone(_MEDIA_ROW.format(table=_TABLES[kind]), {"m": media_id, "b": bot_id, "k": kind})
    if row is None:
        return None
    direct, channels = row.pop("direct"), row.pop("channels")
    if direct or (channels and await db.fetchone(_IN_ANY, (channels, bot_id)) is not None):
        return row
    return None


async def _may_see(bot_id: int, kind: str, media_id: int) -> bool:
    return await _visible(bot_id, kind, media_id) is not None


async def media_of_file_id(bot_id: int, file_id: str, want: str) -> dict:
    """The stored media a reused ``file_id`` names, as a message's media (no thread:
    sendPhoto by file_id is one of the hot methods)."""
    kind, media_id, access_hash, _ = parse_file_id(file_id)
    if kind != ("p" if want == "photo" else "d"):
        raise BadRequest("wrong file identifier/HTTP URL specified")
    row = await _visible(bot_id, kind, media_id)
    if row is None or row["access_hash"] != access_hash:
        raise BadRequest("wrong file_id or the file is temporarily unavailable")
    if kind == "p":
        return {"photo": media.photo_dict(Photo(**row)), "kind": "photo", "spoiler": False}
    doc = media.document_dict(Document(**row))
    from messages_app.media_input import media_kind

    return {"document": doc, "kind": media_kind(doc["attributes"], doc["mime_type"]), "spoiler": False}


async def _stage(bot_id: int, data: bytes) -> tuple[int, int]:
    """The bytes as an upload of the bot's (parts on disk), as a client would make it."""
    file_id = secrets.randbits(62) + 1
    chunks = [data[i : i + PART] for i in range(0, len(data), PART)]
    for i, chunk in enumerate(chunks):
        await media.do_save_part(bot_id, file_id, i, chunk)
    return file_id, len(chunks)


async def staged(bot_id: int, field: web.FileField, limit: int = DOCUMENT_MAX) -> media.UploadRef:
    """A multipart file as an upload of the bot's (checked for size)."""
    data = field.file.read()
    if not data:
        raise BadRequest("file must be non-empty")
    if len(data) > limit:
        raise BadRequest("file is too big")
    file_id, parts = await _stage(bot_id, data)
    return media.UploadRef(file_id=file_id, parts=parts, name=field.filename or "file")


async def upload(
    bot_id: int,
    field: web.FileField,
    want: str,
    *,
    attributes: list[dict] | None = None,
    mime_type: str = "",
    thumb: web.FileField | None = None,
) -> dict:
    """A multipart file as a new photo or document (``attributes`` make it a video,
    audio, voice, animation or sticker), as a message's media."""
    ref = await staged(bot_id, field, PHOTO_MAX if want == "photo" else DOCUMENT_MAX)
    try:
        if want == "photo":
            return {"photo": await media.do_upload_photo(bot_id, ref), "kind": "photo", "spoiler": False}
        thumb_ref = await staged(bot_id, thumb, PHOTO_MAX) if thumb is not None else None
        doc = await media.do_upload_document(
            bot_id, ref, mime_type or field.content_type or "", list(attributes or []), thumb_ref,
            force_file=want == "document",
        )  # fmt: skip
    except RpcError as exc:
        if exc.message == "IMAGE_PROCESS_FAILED":
            raise BadRequest("IMAGE_PROCESS_FAILED") from None
        raise
    from messages_app.media_input import media_kind

    kind = "document" if want == "document" else media_kind(doc["attributes"], doc["mime_type"])
    return {"document": doc, "kind": kind, "spoiler": False}


def attached(values: dict, ref):
    """An InputFile parameter: the upload itself, or the upload ``attach://<field>``
    names (how aiogram sends every file), or the string (a file_id) as it is."""
    if isinstance(ref, str) and ref.startswith("attach://"):
        found = values.get(ref[len("attach://") :])
        return found if isinstance(found, web.FileField) else ref
    return ref


async def input_media(bot_id: int, value, want: str) -> dict:
    """``photo`` / ``document`` of a send: an uploaded file, or a file_id to reuse. URLs
    are refused: the server fetches nothing for bots."""
    if isinstance(value, web.FileField):
        return await upload(bot_id, value, want)
    if not value:
        raise BadRequest(f"there is no {want} in the request")
    value = str(value)
    if value.startswith(("http://", "https://")):
        raise BadRequest("wrong file identifier/HTTP URL specified")
    if value.startswith("attach://"):
        raise BadRequest(f"there is no {want} in the request")
    return await media_of_file_id(bot_id, value, want)


# The folder of a file_path by media kind, as Telegram's (the path is only a name here).
_FOLDERS = {"video": "videos", "voice": "voice", "music": "music", "gif": "animations", "sticker": "stickers",
            "round": "video_notes"}  # fmt: skip


async def get_file(bot_id: int, file_id: str) -> dict:
    kind, media_id, access_hash, size = parse_file_id(file_id)
    if not await _may_see(bot_id, kind, media_id):
        raise BadRequest("wrong file_id or the file is temporarily unavailable")
    target, doc = await _target(kind, media_id, access_hash, size)
    d = {"file_id": file_id, "file_unique_id": unique_id(kind, media_id, size), "file_size": target.size}
    if target.size <= DOWNLOAD_MAX:
        if doc is None:
            folder = "photos"
        else:
            from messages_app.media_input import media_kind

            folder = _FOLDERS.get(media_kind(doc["attributes"], doc["mime_type"]), "documents")
        d["file_path"] = f"{folder}/{file_id}"
    return d


async def _target(kind: str, media_id: int, access_hash: int, size: str):
    """The file to read, and for a document its dict (None for a photo size)."""
    try:
        if kind == "p":
            return await media.photo_target(media_id, access_hash, None, size), None
        doc = await media.get_document(media_id, access_hash)
        target = await media.document_target(media_id, access_hash, media.unb64(doc["file_reference"]), "")
        return target, doc
    except RpcError:
        raise BadRequest("wrong file_id or the file is temporarily unavailable") from None


async def download(bot_id: int, file_path: str) -> tuple[bytes, str]:
    """The bytes of ``/file/bot<token>/<file_path>`` and their content type."""
    _, _, file_id = file_path.partition("/")
    kind, media_id, access_hash, size = parse_file_id(file_id)
    if not await _may_see(bot_id, kind, media_id):
        raise BadRequest("wrong file_id or the file is temporarily unavailable")
    target, doc = await _target(kind, media_id, access_hash, size)
    if target.size > DOWNLOAD_MAX:
        raise BadRequest("file is too big")
    data = await media.read_window(target, 0, target.size)
    mime = "image/jpeg" if doc is None else (doc.get("mime_type") or "application/octet-stream")
    return data, mime.split(";")[0].strip()
