"""Media domain actions: uploads become photos and documents (metadata rows here,
bytes in the media storage), file windows are served, holders recorded.

Photos and documents are handed around as plain dicts (``photo_dict`` /
``document_dict``): messages keep that snapshot in their own rows, so history,
search and difference render media without another lookup. Bytes fields in those
dicts (file reference, stripped thumbnail) are base64 text, so they survive JSON."""

from __future__ import annotations

import base64
import hashlib
import secrets
from dataclasses import dataclass

from edge_app.orm_threads import in_thread
from message_core.clock import now
from tl.errors import (
    DocumentInvalidError,
    FileReferenceExpiredError,
    ImageProcessFailedError,
    LimitInvalidError,
    LocationInvalidError,
    MediaInvalidError,
    OffsetInvalidError,
    PhotoInvalidError,
)

from . import images, storage, uploads
from .models import Document, MediaHolder, Photo

MIME_MAX = 128
ATTRIBUTES_MAX = 16
FILE_NAME_MAX = 255
WINDOW = 1024 * 1024  # upload.getFile reads never cross a 1 MB boundary
BIG_SIZES = ("w", "y", "x", "m", "s")


@dataclass(frozen=True)
class UploadRef:
    """An InputFile: the upload's id, its part count, the client's MD5 (small files)."""

    file_id: int
    parts: int
    name: str = ""
    md5: str = ""
    big: bool = False


def _b64(b: bytes) -> str:
    return base64.b64encode(bytes(b)).decode() if b else ""


def unb64(s: str) -> bytes:
    return base64.b64decode(s) if s else b""


def _new_id() -> int:
    return secrets.randbits(62) + 1


def _file_reference(kind: str, media_id: int) -> bytes:
    # Stable for the life of the file: clients cache it; a changed one means the file
    # itself is gone.
    return hashlib.sha256(f"{kind}:{media_id}:{secrets.token_hex(8)}".encode()).digest()[:16]


# --- uploads --------------------------------------------------------------------------------


@in_thread
def do_save_part(owner_id: int, file_id: int, part: int, data: bytes, total: int | None = None) -> None:
    uploads.save_part(owner_id, file_id, part, data, total)


def _assemble(owner_id: int, ref: UploadRef, *, keep_local: bool = False) -> uploads.Assembled:
    return uploads.assemble(owner_id, ref.file_id, ref.parts, ref.md5, big=ref.big, keep_local=keep_local)


def _store_sizes(sizes: list[images.Size]) -> list[dict]:
    out = []
    for s in sizes:
        sha = hashlib.sha256(s.jpeg).hexdigest()
        storage.put_bytes(sha, s.jpeg)
        out.append({"type": s.type, "w": s.w, "h": s.h, "size": len(s.jpeg), "sha256": sha})
    return out


def photo_dict(p: Photo) -> dict:
    return {
        "id": p.id,
        "access_hash": p.access_hash,
        "file_reference": _b64(p.file_reference),
        "date": p.date,
        "sizes": [{k: s[k] for k in ("type", "w", "h", "size")} for s in p.sizes],
        "stripped": _b64(p.stripped),
    }


def document_dict(d: Document) -> dict:
    return {
        "id": d.id,
        "access_hash": d.access_hash,
        "file_reference": _b64(d.file_reference),
        "date": d.date,
        "mime_type": d.mime_type,
        "size": d.size,
        "attributes": d.attributes,
        "thumbs": [{k: s[k] for k in ("type", "w", "h", "size")} for s in d.thumbs],
        "stripped": _b64(d.stripped),
    }


def _create_photo(owner_id: int, ref: UploadRef, error=ImageProcessFailedError) -> Photo:
    a = _assemble(owner_id, ref, keep_local=True)
    try:
        try:
            sizes, stripped = images.photo_sizes(a.path)
        except images.NotAnImage:
            raise error() from None
    finally:
        uploads.discard(a)
    pid = _new_id()
    return Photo.objects.create(
        id=pid, access_hash=secrets.randbits(63), file_reference=_file_reference("p", pid),
        owner_id=owner_id, date=now(), sizes=_store_sizes(sizes), stripped=stripped,
    )  # fmt: skip


@in_thread
def do_upload_photo(owner_id: int, ref: UploadRef, *, chat_photo: bool = False) -> dict:
    """An uploaded image as a photo of the ladder sizes. Not an image: IMAGE_PROCESS_FAILED
    (PHOTO_INVALID for a chat or profile photo)."""
    return photo_dict(
        _create_photo(owner_id, ref, PhotoInvalidError if chat_photo else ImageProcessFailedError)
    )


@in_thread
def do_store_public_photo(data: bytes) -> dict | None:
    """A photo made from image bytes the server fetched itself (a link preview's image):
    owned by no one and held ``public``, as everyone who sees the link may see it. None
    when the bytes are not an image."""
    import io

    try:
        sizes, stripped = images.photo_sizes(io.BytesIO(data))
    except images.NotAnImage:
        return None
    pid = _new_id()
    photo = Photo.objects.create(
        id=pid, access_hash=secrets.randbits(63), file_reference=_file_reference("p", pid),
        owner_id=0, date=now(), sizes=_store_sizes(sizes), stripped=stripped,
    )  # fmt: skip
    add_holders([("p", pid)], "public", [0])
    return photo_dict(photo)


def _clean_attributes(attributes: list[dict], name: str) -> list[dict]:
    if len(attributes) > ATTRIBUTES_MAX:
        raise MediaInvalidError()
    out, seen = [], set()
    for a in attributes:
        if a["_"] in seen:
            continue  # one of each kind, the first wins
        seen.add(a["_"])
        if a["_"] == "filename":
            a = {**a, "file_name": a["file_name"][:FILE_NAME_MAX]}
        out.append(a)
    if "filename" not in seen and name:
        out.append({"_": "filename", "file_name": name[:FILE_NAME_MAX]})
    return out


@in_thread
def do_upload_document(
    owner_id: int,
    ref: UploadRef,
    mime_type: str,
    attributes: list[dict],
    thumb: UploadRef | None = None,
    *,
    force_file: bool = False,
) -> dict:
    """An uploaded file as a document: its attributes (one of each kind), mime type
    and, from ``thumb``, a thumbnail."""  # fmt: skip
    mime_type = (mime_type or "application/octet-stream").strip().lower()
    if len(mime_type) > MIME_MAX or "/" not in mime_type:
        raise MediaInvalidError()
    attributes = _clean_attributes(attributes, ref.name)
    a = _assemble(owner_id, ref, keep_local=mime_type.startswith("image/") and not thumb)
    thumbs, stripped = [], b""
    try:
        if a.path is not None and not any(x["_"] == "image_size" for x in attributes):
            wh = images.image_size(a.path)
            if wh:
                attributes.append({"_": "image_size", "w": wh[0], "h": wh[1]})
        source = a.path
        if thumb is not None:
            t = _assemble(owner_id, thumb, keep_local=True)
            source = t.path
        if source is not None:
            try:
                size, stripped = images.thumb(source)
                thumbs = _store_sizes([size])
            except images.NotAnImage:
                if thumb is not None:
                    raise ImageProcessFailedError() from None
            finally:
                if thumb is not None:
                    uploads.discard(t)
    finally:
        uploads.discard(a)
    did = _new_id()
    doc = Document.objects.create(
        id=did, access_hash=secrets.randbits(63), file_reference=_file_reference("d", did), owner_id=owner_id,
        date=now(), mime_type=mime_type, size=a.size, sha256=a.sha256, attributes=attributes, thumbs=thumbs,
        stripped=stripped,
    )  # fmt: skip
    return document_dict(doc)


# --- existing media ----------------------------------------------------------------------------


def _find(model, media_id: int, access_hash: int, file_reference: bytes | None, error):
    row = model.objects.filter(id=media_id).first()
    if row is None or row.access_hash != access_hash:
        raise error()
    if file_reference is not None and bytes(row.file_reference) != bytes(file_reference):
        raise FileReferenceExpiredError()
    return row


@in_thread
def get_photo(photo_id: int, access_hash: int, file_reference: bytes | None = None) -> dict:
    return photo_dict(_find(Photo, photo_id, access_hash, file_reference, PhotoInvalidError))


@in_thread
def get_document(doc_id: int, access_hash: int, file_reference: bytes | None = None) -> dict:
    return document_dict(_find(Document, doc_id, access_hash, file_reference, DocumentInvalidError))


@in_thread
def photos_by_id(ids: list[int]) -> dict[int, dict]:
    return {p.id: photo_dict(p) for p in Photo.objects.filter(id__in=ids)}


# --- holders: who may download ------------------------------------------------------------------


def media_keys(media: dict | None) -> list[tuple[str, int]]:
    """(kind, id) of the files a message's media holds ("l": a poll, whose holders
    are who may see and vote in it)."""
    if not media:
        return []
    if media.get("poll"):
        return [("l", media["poll"]["id"])]
    if media.get("photo"):
        return [("p", media["photo"]["id"])]
    if media.get("document"):
        return [("d", media["document"]["id"])]
    return []


def add_holders(keys: list[tuple[str, int]], holder: str, holder_ids: list[int]) -> None:
    rows = [
        MediaHolder(kind=k, media_id=mid, holder=holder, holder_id=h) for k, mid in keys for h in holder_ids
    ]
    if rows:
        MediaHolder.objects.bulk_create(rows, ignore_conflicts=True)


async def add_holders_on(conn, keys: list[tuple[str, int]], holder: str, holder_ids: list[int]) -> None:
    """:func:`add_holders` on an async psycopg connection, inside its caller's
    transaction (the private send path writes on the pooled connection)."""
    rows = [(k, mid, h) for k, mid in keys for h in holder_ids]
    if rows:
        await conn.execute(
            f"INSERT INTO {MediaHolder._meta.db_table} (kind, media_id, holder, holder_id)"
            " SELECT * FROM unnest(%s::text[], %s::bigint[], %s::text[], %s::bigint[])"
            " ON CONFLICT DO NOTHING",
            ([k for k, _, _ in rows], [m for _, m, _ in rows], [holder] * len(rows), [h for _, _, h in rows]),
        )


@in_thread
def do_add_holders(keys: list[tuple[str, int]], holder: str, holder_ids: list[int]) -> None:
    add_holders(keys, holder, holder_ids)


@in_thread
def holders_of(kind: str, media_id: int) -> tuple[int, list[tuple[str, int]]]:
    """(uploader, [(holder, holder_id)]) of a photo or document."""
    model = Photo if kind == "p" else Document
    owner = model.objects.filter(id=media_id).values_list("owner_id", flat=True).first()
    rows = MediaHolder.objects.filter(kind=kind, media_id=media_id).values_list("holder", "holder_id")
    return (owner or 0), list(rows)


# --- downloads ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class FileTarget:
    kind: str  # "p" photo, "d" document
    media_id: int
    sha256: str
    size: int
    date: int
    jpeg: bool


def check_window(offset: int, limit: int, precise: bool) -> None:
    """upload.getFile's offset/limit rules: 4 KB aligned (1 KB when ``precise``), a limit
    dividing 1 MB (any multiple of 1 KB up to 1 MB when precise), never crossing a 1 MB
    boundary."""
    if offset < 0:
        raise OffsetInvalidError()
    if limit <= 0 or limit > WINDOW:
        raise LimitInvalidError()
    if precise:
        if offset % 1024:
            raise OffsetInvalidError()
        if limit % 1024:
            raise LimitInvalidError()
    else:
        if offset % 4096:
            raise OffsetInvalidError()
        if limit % 4096 or WINDOW % limit:
            raise LimitInvalidError()
    if offset // WINDOW != (offset + limit - 1) // WINDOW:
        raise LimitInvalidError()


def _pick(sizes: list[dict], thumb_size: str) -> dict:
    for s in sizes:
        if s["type"] == thumb_size:
            return s
    raise LocationInvalidError()


@in_thread
def photo_target(
    photo_id: int, access_hash: int | None, file_reference: bytes | None, thumb_size: str
) -> FileTarget:
    row = Photo.objects.filter(id=photo_id).first()
    if row is None or (access_hash is not None and row.access_hash != access_hash):
        raise LocationInvalidError()
    if file_reference is not None and bytes(row.file_reference) != bytes(file_reference):
        raise FileReferenceExpiredError()
    s = _pick(row.sizes, thumb_size)
    return FileTarget("p", row.id, s["sha256"], s["size"], row.date, True)


@in_thread
def peer_photo_target(photo_id: int, big: bool) -> FileTarget:
    """A chat or profile photo: big is its largest size, small the largest up to 320 px."""
    row = Photo.objects.filter(id=photo_id).first()
    if row is None or not row.sizes:
        raise LocationInvalidError()
    sizes = row.sizes
    s = sizes[-1] if big else ([x for x in sizes if max(x["w"], x["h"]) <= 320] or sizes[:1])[-1]
    return FileTarget("p", row.id, s["sha256"], s["size"], row.date, True)


@in_thread
def document_target(doc_id: int, access_hash: int, file_reference: bytes, thumb_size: str) -> FileTarget:
    row = Document.objects.filter(id=doc_id).first()
    if row is None or row.access_hash != access_hash:
        raise LocationInvalidError()
    if bytes(row.file_reference) != bytes(file_reference):
        raise FileReferenceExpiredError()
    if thumb_size:
        s = _pick(row.thumbs, thumb_size)
        return FileTarget("d", row.id, s["sha256"], s["size"], row.date, True)
    return FileTarget("d", row.id, row.sha256, row.size, row.date, False)


@in_thread
def read_window(target: FileTarget, offset: int, limit: int) -> bytes:
    if offset >= target.size:
        return b""
    return storage.read_range(target.sha256, offset, limit)


# --- documents made by other apps ------------------------------------------------------------


def create_document(
    owner_id: int,
    data: bytes,
    mime_type: str,
    attributes: list[dict],
    *,
    thumbs: list[images.Size] = (),
    doc_id: int | None = None,
    public: bool = False,
) -> dict:
    """A document of these bytes (stored by hash), attributes and thumbnails, in the
    caller's transaction; ``public``: anyone may download it (a sticker set's files)."""
    sha = hashlib.sha256(data).hexdigest()
    storage.put_bytes(sha, data)
    did = doc_id or _new_id()
    doc = Document.objects.create(
        id=did, access_hash=secrets.randbits(63), file_reference=_file_reference("d", did), owner_id=owner_id,
        date=now(), mime_type=mime_type, size=len(data), sha256=sha, attributes=attributes,
        thumbs=_store_sizes(list(thumbs)), stripped=b"",
    )  # fmt: skip
    if public:
        add_holders([("d", did)], "public", [0])
    return document_dict(doc)


def new_document_id() -> int:
    return _new_id()


def read_document_bytes(doc_id: int, limit: int) -> bytes | None:
    """A document's bytes, or None when it is larger than ``limit`` (not read)."""
    row = Document.objects.filter(id=doc_id).only("sha256", "size").first()
    if row is None or row.size > limit:
        return None
    return storage.read_range(row.sha256, 0, row.size)
