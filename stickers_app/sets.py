"""Sticker sets their owners make and edit (stickers.*): every file is checked against
Telegram's rules before anything is written, and each sticker becomes a document of
its own (the uploaded file's bytes, the sticker's attributes, a thumbnail) that anyone
may download. Only the owner edits a set; another user's set is STICKERSET_INVALID,
another user's sticker STICKER_INVALID, as on Telegram."""

from __future__ import annotations

import io
import re
import secrets
from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.db.models import F, Max

from edge_app.orm_threads import in_thread
from media_app import actions as media_actions
from media_app import images, storage
from media_app.models import Document
from message_core.clock import now
from tl.errors import (
    PackShortNameInvalidError,
    PackShortNameOccupiedError,
    PackTitleInvalidError,
    ShortNameInvalidError,
    ShortNameOccupiedError,
    StickerDocumentInvalidError,
    StickerEmojiInvalidError,
    StickerIdInvalidError,
    StickerInvalidError,
    StickerPngNopngError,
    StickersEmptyError,
    StickersetInvalidError,
    StickersTooMuchError,
    StickerTgsNotgsError,
    StickerThumbPngNopngError,
    StickerVideoBigError,
    TitleInvalidError,
)

from . import catalog, emoji, events, formats
from .catalog import SetRef
from .models import GroupSet, InstalledSet, SetSticker, StickerSet, UserDocument

TITLE_MAX = 64
SHORT_NAME_MAX = 64
STICKERS_MAX = {"stickers": 120, "masks": 120, "emojis": 200}
KEYWORDS_MAX = 20
KEYWORD_MAX = 64
FILE_READ_MAX = formats.STATIC_BYTES_MAX
SHORT_NAME_RE = re.compile(r"[A-Za-z](?:_?[A-Za-z0-9])*_?")


@dataclass(frozen=True)
class DocRef:
    id: int
    access_hash: int
    file_reference: bytes | None = None


@dataclass(frozen=True)
class RawFile:
    """A file an operator imports from disk (no upload, no document yet)."""

    data: bytes
    mime_type: str


@dataclass(frozen=True)
class NewSticker:
    """An InputStickerSetItem: the uploaded document and what the sticker stands for."""

    document: DocRef | RawFile
    emoji: str
    mask_coords: dict | None = None
    keywords: str = ""


@dataclass(frozen=True)
class _Prepared:
    file: formats.StickerFile
    emoji: list[str]
    keywords: list[str]
    mask_coords: dict | None


# --- names ----------------------------------------------------------------------------------


def valid_short_name(name: str) -> bool:
    return 0 < len(name) <= SHORT_NAME_MAX and SHORT_NAME_RE.fullmatch(name) is not None


def _taken(name: str) -> bool:
    return StickerSet.objects.filter(short_name_lower=name.lower()).exists()


@in_thread
def check_short_name(name: str) -> None:
    """stickers.checkShortName: SHORT_NAME_INVALID / SHORT_NAME_OCCUPIED, else free."""
    if not valid_short_name(name):
        raise ShortNameInvalidError()
    if _taken(name):
        raise ShortNameOccupiedError()


@in_thread
def suggest_short_name(title: str) -> str:
    """A free short name made of the title's letters and digits."""
    if not (title or "").strip():
        raise TitleInvalidError()
    words = re.findall(r"[A-Za-z0-9]+", title)
    base = "_".join(words)[:48].strip("_") or "stickers"  # a title without Latin letters
    if not base[0].isalpha():
        base = f"set_{base}"[:48]
    name = base
    for _ in range(20):
        if not _taken(name):
            return name
        name = f"{base}_{secrets.randbelow(10**6)}"
    raise TitleInvalidError()


def _title(title: str) -> str:
    title = (title or "").strip()
    if not title or len(title) > TITLE_MAX:
        raise PackTitleInvalidError()
    return title


# --- files ------------------------------------------------------------------------------------


def _too_big(mime_type: str, role: str):
    fmt = formats.format_of(mime_type)
    if fmt == "video":
        return StickerVideoBigError()
    if fmt == "animated":
        return StickerTgsNotgsError()
    return StickerThumbPngNopngError() if role == "thumb" else StickerPngNopngError()


def _read(ref: DocRef, role: str) -> formats.StickerFile:
    row = Document.objects.filter(id=ref.id).first()
    if row is None or row.access_hash != ref.access_hash:
        raise StickerDocumentInvalidError()
    mime = formats.sniff_mime(row.mime_type, lambda: storage.read_range(row.sha256, 0, 16))
    data = media_actions.read_document_bytes(row.id, FILE_READ_MAX)
    if data is None:
        raise _too_big(mime, role)
    return formats.check(data, mime, role=role)


def _keywords(text: str) -> list[str]:
    words = [w.strip()[:KEYWORD_MAX] for w in (text or "").split(",")]
    return list(dict.fromkeys(w for w in words if w))[:KEYWORDS_MAX]


def _mask_coords(c: dict | None) -> dict | None:
    if not c:
        return None
    return {
        "n": min(max(int(c["n"]), 0), 3),
        "x": float(c["x"]),
        "y": float(c["y"]),
        "zoom": float(c["zoom"]),
    }


def _prepare(item: NewSticker, kind: str) -> _Prepared:
    parts = emoji.clean(item.emoji)
    if parts is None:
        raise StickerEmojiInvalidError()
    role = "emoji" if kind == "emojis" else "sticker"
    if isinstance(item.document, RawFile):
        head = item.document.data[:16]
        mime = formats.sniff_mime(item.document.mime_type, lambda: head)
        if len(item.document.data) > FILE_READ_MAX:
            raise _too_big(mime, role)
        file = formats.check(item.document.data, mime, role=role)
    else:
        file = _read(item.document, role)
    return _Prepared(
        file, parts, _keywords(item.keywords), _mask_coords(item.mask_coords) if kind == "masks" else None
    )


def _attributes(p: _Prepared, row: StickerSet) -> list[dict]:
    f = p.file
    attrs: list[dict] = []
    if f.format == "video":
        attrs.append({"_": "video", "w": f.w, "h": f.h, "duration": round(f.duration, 3), "nosound": True})
    else:
        attrs.append({"_": "image_size", "w": f.w, "h": f.h})
    ref = {"alt": p.emoji[0], "set_id": row.id, "set_access_hash": row.access_hash}
    if row.kind == "emojis":
        attrs.append({"_": "custom_emoji", **ref, "text_color": row.text_color})
    else:
        attrs.append({"_": "sticker", **ref, "mask": row.kind == "masks", "mask_coords": p.mask_coords})
    attrs.append({"_": "filename", "file_name": f.file_name})
    return attrs


def _thumbs(f: formats.StickerFile) -> list:
    if f.format != "static":
        return []  # no Lottie or VP9 renderer here: clients draw the sticker itself
    try:
        size, _ = images.thumb(io.BytesIO(f.data))
    except images.NotAnImage:
        return []
    return [size]


def _write_sticker(row: StickerSet, p: _Prepared, position: int) -> SetSticker:
    doc = media_actions.create_document(
        row.owner_id, p.file.data, p.file.mime_type, _attributes(p, row), thumbs=_thumbs(p.file), public=True
    )
    return SetSticker.objects.create(
        set_id=row.id, document_id=doc["id"], position=position, emoji="".join(p.emoji),
        keywords=p.keywords, mask_coords=p.mask_coords,
    )  # fmt: skip


def _bump(row: StickerSet, **fields) -> None:
    row.hash = secrets.randbits(31) | 1
    for k, v in fields.items():
        setattr(row, k, v)
    row.save(update_fields=["hash", *fields])


def _thumb_document(row: StickerSet, f: formats.StickerFile) -> int:
    doc = media_actions.create_document(
        row.owner_id, f.data, f.mime_type, [{"_": "image_size", "w": f.w, "h": f.h},
                                            {"_": "filename", "file_name": f.file_name}], public=True,
    )  # fmt: skip
    return doc["id"]


# --- the owner's actions ----------------------------------------------------------------------


def _owned(ref: SetRef, owner_id: int | None, *, lock: bool = True) -> StickerSet:
    row = catalog.find_row(ref)
    if lock:
        row = StickerSet.objects.select_for_update().get(id=row.id)
    if owner_id is not None and row.owner_id != owner_id:
        raise StickersetInvalidError()
    return row


def _owned_sticker(owner_id: int, doc: DocRef) -> tuple[StickerSet, SetSticker]:
    item = SetSticker.objects.filter(document_id=doc.id).first()
    if item is None:
        raise StickerInvalidError()
    row = StickerSet.objects.select_for_update().get(id=item.set_id)
    d = Document.objects.filter(id=doc.id).only("access_hash").first()
    if row.owner_id != owner_id or d is None or d.access_hash != doc.access_hash:
        raise StickerInvalidError()
    return row, SetSticker.objects.get(id=item.id)


def create_set_sync(
    owner_id: int,
    title: str,
    short_name: str,
    stickers: list[NewSticker],
    *,
    kind: str = "stickers",
    text_color: bool = False,
    thumb: DocRef | None = None,
    software: str = "",
    install: bool = True,
) -> tuple[StickerSet, list[_Prepared]]:
    title = _title(title)
    if not valid_short_name(short_name):
        raise PackShortNameInvalidError()
    if not stickers:
        raise StickersEmptyError()
    if len(stickers) > STICKERS_MAX[kind]:
        raise StickersTooMuchError()
    prepared = [_prepare(s, kind) for s in stickers]  # every file checked before any write
    thumb_file = _read(thumb, "thumb") if thumb is not None else None
    try:
        return _create(owner_id, title, short_name, prepared, kind, text_color, thumb_file, software, install)
    except IntegrityError:
        raise PackShortNameOccupiedError() from None  # taken by a concurrent create


def _create(owner_id, title, short_name, prepared, kind, text_color, thumb_file, software, install):
    with transaction.atomic():
        if _taken(short_name):
            raise PackShortNameOccupiedError()
        row = StickerSet.objects.create(
            id=media_actions.new_document_id(), access_hash=secrets.randbits(63), owner_id=owner_id, title=title,
            short_name=short_name, short_name_lower=short_name.lower(), kind=kind,
            text_color=bool(text_color and kind == "emojis"), hash=secrets.randbits(31) | 1, created=now(),
            software=(software or "")[:64],
        )  # fmt: skip
        for position, p in enumerate(prepared):
            _write_sticker(row, p, position)
        if thumb_file is not None:
            row.thumb_document_id = _thumb_document(row, thumb_file)
            row.thumb_version = 1
            row.save(update_fields=["thumb_document_id", "thumb_version"])
        if install and owner_id:
            _install_row(owner_id, row)
    return row, prepared


def _install_row(user_id: int, row: StickerSet) -> None:
    InstalledSet.objects.filter(user_id=user_id, kind=row.kind).update(position=F("position") + 1)
    InstalledSet.objects.update_or_create(
        user_id=user_id, set_id=row.id,
        defaults={"kind": row.kind, "position": 0, "archived": False, "installed_date": now()},
    )  # fmt: skip


async def do_create_set(owner_id: int, title: str, short_name: str, stickers: list[NewSticker], *, exclude=None,
                        **kw) -> dict:  # fmt: skip
    """stickers.createStickerSet: the set, installed for its owner (whose other sessions
    get it as updateNewStickerSet)."""
    row, _ = await in_thread(create_set_sync)(owner_id, title, short_name, stickers, **kw)
    await events.log(owner_id, events.NEW_SET, {"set_id": row.id, "kind": row.kind}, exclude=exclude)
    return await in_thread(catalog.full_set)(row, owner_id)


async def _changed(owner_id: int, row: StickerSet, exclude) -> dict:
    await events.log(owner_id, events.SETS, {"kind": row.kind}, exclude=exclude)
    return await in_thread(catalog.full_set)(row, owner_id)


async def do_add_sticker(owner_id: int, ref: SetRef, sticker: NewSticker, *, exclude=None) -> dict:
    """stickers.addStickerToSet: at the end; STICKERS_TOO_MUCH past the set's cap."""

    def write() -> StickerSet:
        row = catalog.find_row(ref)
        if row.owner_id != owner_id:
            raise StickersetInvalidError()
        p = _prepare(sticker, row.kind)
        with transaction.atomic():
            row = _owned(ref, owner_id)
            n = SetSticker.objects.filter(set_id=row.id).count()
            if n >= STICKERS_MAX[row.kind]:
                raise StickersTooMuchError()
            last = SetSticker.objects.filter(set_id=row.id).aggregate(m=Max("position"))["m"]
            _write_sticker(row, p, (last if last is not None else -1) + 1)
            _bump(row)
        return row

    return await _changed(owner_id, await in_thread(write)(), exclude)


async def do_replace_sticker(owner_id: int, doc: DocRef, sticker: NewSticker, *, exclude=None) -> dict:
    """stickers.replaceSticker: the new sticker takes the old one's place."""

    def write() -> StickerSet:
        with transaction.atomic():
            row, item = _owned_sticker(owner_id, doc)
            p = _prepare(sticker, row.kind)
            position = item.position
            item.delete()
            _write_sticker(row, p, position)
            _bump(row)
        return row

    return await _changed(owner_id, await in_thread(write)(), exclude)


async def do_remove_sticker(owner_id: int, doc: DocRef, *, exclude=None) -> dict:
    """stickers.removeStickerFromSet. The document stays: messages that carry it keep it."""

    def write() -> StickerSet:
        with transaction.atomic():
            row, item = _owned_sticker(owner_id, doc)
            item.delete()
            if row.thumb_document_id == doc.id:
                row.thumb_document_id = None
                _bump(row, thumb_document_id=None)
            else:
                _bump(row)
        return row

    return await _changed(owner_id, await in_thread(write)(), exclude)


async def do_move_sticker(owner_id: int, doc: DocRef, position: int, *, exclude=None) -> dict:
    """stickers.changeStickerPosition: 0 is first; past the end means last."""

    def write() -> StickerSet:
        with transaction.atomic():
            row, item = _owned_sticker(owner_id, doc)
            order = list(SetSticker.objects.filter(set_id=row.id).order_by("position", "id"))
            order = [i for i in order if i.id != item.id]
            order.insert(min(max(position, 0), len(order)), item)
            for pos, i in enumerate(order):
                if i.position != pos:
                    SetSticker.objects.filter(id=i.id).update(position=pos)
            _bump(row)
        return row

    return await _changed(owner_id, await in_thread(write)(), exclude)


async def do_change_sticker(owner_id: int, doc: DocRef, *, emoji_text: str | None = None,
                            mask_coords: dict | None = None, keywords: str | None = None, exclude=None) -> dict:  # fmt: skip
    """stickers.changeSticker: its emoji (the document's alt follows), keywords, mask place."""

    def write() -> StickerSet:
        with transaction.atomic():
            row, item = _owned_sticker(owner_id, doc)
            if emoji_text is not None:
                parts = emoji.clean(emoji_text)
                if parts is None:
                    raise StickerEmojiInvalidError()
                item.emoji = "".join(parts)
                d = Document.objects.select_for_update().get(id=item.document_id)
                d.attributes = [
                    {**a, "alt": parts[0]} if a["_"] in ("sticker", "custom_emoji") else a
                    for a in d.attributes
                ]
                d.save(update_fields=["attributes"])
            if keywords is not None:
                item.keywords = _keywords(keywords)
            if mask_coords is not None and row.kind == "masks":
                item.mask_coords = _mask_coords(mask_coords)
                d = Document.objects.select_for_update().get(id=item.document_id)
                d.attributes = [
                    {**a, "mask_coords": item.mask_coords} if a["_"] == "sticker" else a for a in d.attributes
                ]
                d.save(update_fields=["attributes"])
            item.save(update_fields=["emoji", "keywords", "mask_coords"])
            _bump(row)
        return row

    return await _changed(owner_id, await in_thread(write)(), exclude)


async def do_set_thumb(owner_id: int, ref: SetRef, *, thumb: DocRef | None = None,
                       thumb_document_id: int | None = None, exclude=None) -> dict:  # fmt: skip
    """stickers.setStickerSetThumb: a 100 px thumbnail file, or (custom emoji sets) one of
    the set's own stickers by id; neither: back to the first sticker."""

    def write() -> StickerSet:
        row = catalog.find_row(ref)
        if row.owner_id != owner_id:
            raise StickersetInvalidError()
        new_id = None
        thumb_file = _read(thumb, "thumb") if thumb is not None and not thumb_document_id else None
        with transaction.atomic():
            row = _owned(ref, owner_id)
            if thumb_document_id:
                if not SetSticker.objects.filter(set_id=row.id, document_id=thumb_document_id).exists():
                    raise StickerIdInvalidError()
                new_id = thumb_document_id
            elif thumb is not None:
                new_id = _thumb_document(row, thumb_file)
            _bump(row, thumb_document_id=new_id, thumb_version=row.thumb_version + 1)
        return row

    return await _changed(owner_id, await in_thread(write)(), exclude)


async def do_rename_set(owner_id: int, ref: SetRef, title: str, *, exclude=None) -> dict:
    title = _title(title)

    def write() -> StickerSet:
        with transaction.atomic():
            row = _owned(ref, owner_id)
            _bump(row, title=title)
        return row

    return await _changed(owner_id, await in_thread(write)(), exclude)


async def do_delete_set(owner_id: int | None, ref: SetRef, *, exclude=None) -> None:
    """stickers.deleteStickerSet (``owner_id`` None: an operator removing any set). Its
    stickers leave every panel, recent and faved list and group; everyone affected is
    told (updateStickerSets, updateRecentStickers, updateFavedStickers). Messages keep
    the documents they carry."""

    def write() -> tuple[StickerSet, list[int], dict[str, list[int]]]:
        with transaction.atomic():
            row = _owned(ref, owner_id)
            installers = list(InstalledSet.objects.filter(set_id=row.id).values_list("user_id", flat=True))
            docs = list(SetSticker.objects.filter(set_id=row.id).values_list("document_id", flat=True))
            kept = UserDocument.objects.filter(document_id__in=docs, list__in=("recent", "attached", "faved"))
            listed: dict[str, set[int]] = {}
            for user_id, which in kept.values_list("user_id", "list"):
                listed.setdefault(events.RECENT if which != "faved" else events.FAVED, set()).add(user_id)
            kept.delete()
            InstalledSet.objects.filter(set_id=row.id).delete()
            SetSticker.objects.filter(set_id=row.id).delete()
            GroupSet.objects.filter(set_id=row.id).delete()
            row.delete()
        return row, installers, {k: sorted(v) for k, v in listed.items()}

    row, installers, listed = await in_thread(write)()
    told = set(installers) | ({owner_id} if owner_id else set())
    if owner_id:
        await events.log(owner_id, events.SETS, {"kind": row.kind}, exclude=exclude)
    others = sorted(u for u in told if u != owner_id)
    if others:
        await events.log_many(others, events.SETS, {"kind": row.kind})
    for kind, user_ids in listed.items():
        which = "faved" if kind == events.FAVED else "recent"
        await events.log_many(user_ids, kind, {"list": which})
