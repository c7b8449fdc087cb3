"""What each user keeps: installed and archived sets per kind (stickers, masks, custom
emoji) in their own order, recent stickers, faved stickers and saved GIFs. Every
change is logged for the user's other sessions (``events``)."""

from __future__ import annotations

from django.db import transaction
from django.db.models import F

from edge_app.orm_threads import in_thread
from media_app.models import Document
from message_core.clock import now
from tl.errors import GifIdInvalidError, StickerIdInvalidError, StickersetInvalidError

from . import catalog, events, hashing
from .catalog import SetRef
from .models import InstalledSet, SetSticker, StickerSet, UserDocument

# Telegram's caps for a non-premium account.
INSTALLED_MAX = 200  # per kind; installing past it archives the sets at the bottom
ARCHIVED_PAGE_MAX = 100
RECENT_MAX = 200  # the config's stickers_recent_limit
FAVED_MAX = 5  # stickers_faved_limit_default
GIFS_MAX = 200  # saved_gifs_limit_default
LIST_MAX = {"recent": RECENT_MAX, "attached": RECENT_MAX, "faved": FAVED_MAX, "gifs": GIFS_MAX}
LIST_EVENT = {"recent": events.RECENT, "attached": events.RECENT, "faved": events.FAVED, "gifs": events.GIFS}


# --- installed sets ---------------------------------------------------------------------------


def _installed_rows(user_id: int, kind: str, *, archived: bool) -> list[InstalledSet]:
    return list(
        InstalledSet.objects.filter(user_id=user_id, kind=kind, archived=archived).order_by(
            "position", "-installed_date"
        )
    )


@in_thread
def installed_sets(user_id: int, kind: str) -> tuple[int, list[dict]]:
    """(hash, sets) of the user's panel of ``kind``, in order. The hash is Telegram
    Desktop's: over each set's own hash, so an edit of any set changes it too."""
    rows = _installed_rows(user_id, kind, archived=False)
    sets = {r.id: r for r in StickerSet.objects.filter(id__in=[r.set_id for r in rows])}
    ordered = [sets[r.set_id] for r in rows if r.set_id in sets]
    dicts = catalog.set_dicts(ordered, user_id)
    return hashing.list_hash(d["hash"] for d in dicts), dicts


@in_thread
def archived_sets(user_id: int, kind: str, offset_id: int, limit: int) -> tuple[int, list[dict], dict]:
    """(count, sets after ``offset_id``, covers) of the archived sets, newest archived first."""
    rows = list(
        InstalledSet.objects.filter(user_id=user_id, kind=kind, archived=True).order_by(
            "-installed_date", "-set_id"
        )
    )
    ids = [r.set_id for r in rows]
    if offset_id and offset_id in ids:
        ids = ids[ids.index(offset_id) + 1 :]
    page = ids[: min(max(limit, 1), ARCHIVED_PAGE_MAX)]
    sets = {r.id: r for r in StickerSet.objects.filter(id__in=page)}
    dicts = catalog.set_dicts([sets[i] for i in page if i in sets], user_id)
    return len(rows), dicts, catalog.covers(page)


def _archive_overflow(user_id: int, kind: str) -> list[int]:
    rows = _installed_rows(user_id, kind, archived=False)
    over = rows[INSTALLED_MAX:]
    if over:
        InstalledSet.objects.filter(id__in=[r.id for r in over]).update(archived=True, installed_date=now())
    return [r.set_id for r in over]


async def do_install(
    user_id: int, ref: SetRef, *, archived: bool = False, exclude=None
) -> tuple[list[dict], dict]:
    """messages.installStickerSet: to the top of the panel (``archived``: straight to the
    archive). Returns the sets archived to make room, with their covers."""

    def write() -> tuple[StickerSet, list[int]]:
        row = catalog.find_row(ref)
        with transaction.atomic():
            if archived:
                InstalledSet.objects.update_or_create(
                    user_id=user_id, set_id=row.id,
                    defaults={"kind": row.kind, "position": 0, "archived": True, "installed_date": now()},
                )  # fmt: skip
                return row, []
            InstalledSet.objects.filter(user_id=user_id, kind=row.kind).update(position=F("position") + 1)
            InstalledSet.objects.update_or_create(
                user_id=user_id, set_id=row.id,
                defaults={"kind": row.kind, "position": 0, "archived": False, "installed_date": now()},
            )  # fmt: skip
            return row, _archive_overflow(user_id, row.kind)

    row, moved = await in_thread(write)()
    if archived:
        await events.log(user_id, events.SETS, {"kind": row.kind}, exclude=exclude)
    else:
        await events.log(user_id, events.NEW_SET, {"set_id": row.id, "kind": row.kind}, exclude=exclude)
        if moved:
            await events.log(user_id, events.SETS, {"kind": row.kind}, exclude=exclude)
    if not moved:
        return [], {}

    def read():
        rows = list(StickerSet.objects.filter(id__in=moved))
        return catalog.set_dicts(rows, user_id), catalog.covers(moved)

    return await in_thread(read)()


async def do_uninstall(user_id: int, ref: SetRef, *, exclude=None) -> None:
    def write() -> StickerSet:
        row = catalog.find_row(ref)
        if not InstalledSet.objects.filter(user_id=user_id, set_id=row.id).delete()[0]:
            raise StickersetInvalidError()
        return row

    row = await in_thread(write)()
    await events.log(user_id, events.SETS, {"kind": row.kind}, exclude=exclude)


async def do_toggle(user_id: int, refs: list[SetRef], *, uninstall: bool, archive: bool, unarchive: bool,
                    exclude=None) -> None:  # fmt: skip
    """messages.toggleStickerSets: uninstall, archive or unarchive several sets at once."""

    def write() -> set[str]:
        rows = [catalog.find_row(r) for r in refs]
        kinds = set()
        with transaction.atomic():
            for row in rows:
                q = InstalledSet.objects.filter(user_id=user_id, set_id=row.id)
                if uninstall:
                    changed = q.delete()[0]
                elif archive:
                    changed = InstalledSet.objects.update_or_create(
                        user_id=user_id, set_id=row.id,
                        defaults={"kind": row.kind, "position": 0, "archived": True, "installed_date": now()},
                    )  # fmt: skip
                elif unarchive:
                    InstalledSet.objects.filter(user_id=user_id, kind=row.kind).update(
                        position=F("position") + 1
                    )
                    changed = InstalledSet.objects.update_or_create(
                        user_id=user_id, set_id=row.id,
                        defaults={"kind": row.kind, "position": 0, "archived": False, "installed_date": now()},
                    )  # fmt: skip
                    _archive_overflow(user_id, row.kind)
                else:
                    changed = False
                if changed:
                    kinds.add(row.kind)
        return kinds

    for kind in sorted(await in_thread(write)()):
        await events.log(user_id, events.SETS, {"kind": kind}, exclude=exclude)


async def do_reorder(user_id: int, kind: str, order: list[int], *, exclude=None) -> list[int]:
    """messages.reorderStickerSets: the listed sets first in that order (unknown ids
    ignored), the others after them in their old order."""
    order = list(dict.fromkeys(order))[: INSTALLED_MAX * 2]

    def write() -> list[int]:
        with transaction.atomic():
            rows = {
                r.set_id: r
                for r in InstalledSet.objects.select_for_update().filter(
                    user_id=user_id, kind=kind, archived=False
                )
            }
            listed = [i for i in order if i in rows]
            rest = sorted((r for i, r in rows.items() if i not in listed), key=lambda r: r.position)
            applied = [*listed, *(r.set_id for r in rest)]
            for pos, sid in enumerate(applied):
                if rows[sid].position != pos:
                    InstalledSet.objects.filter(id=rows[sid].id).update(position=pos)
            return applied

    applied = await in_thread(write)()
    await events.log(user_id, events.ORDER, {"kind": kind, "order": applied}, exclude=exclude)
    return applied


@in_thread
def installed_order(user_id: int, kind: str) -> list[int]:
    return [r.set_id for r in _installed_rows(user_id, kind, archived=False)]


# --- recent, faved, GIFs ------------------------------------------------------------------------


def _sticker_doc(doc_id: int, access_hash: int) -> bool:
    d = Document.objects.filter(id=doc_id).only("access_hash").first()
    return (
        d is not None
        and d.access_hash == access_hash
        and SetSticker.objects.filter(document_id=doc_id).exists()
    )


def _gif_doc(doc_id: int, access_hash: int) -> bool:
    d = Document.objects.filter(id=doc_id).only("access_hash", "mime_type", "attributes").first()
    if d is None or d.access_hash != access_hash:
        return False
    kinds = {a.get("_") for a in d.attributes or []}
    return "animated" in kinds or d.mime_type in ("image/gif", "video/mp4")


async def do_save(user_id: int, which: str, doc_id: int, access_hash: int, *, remove: bool = False,
                  exclude=None) -> None:  # fmt: skip
    """saveRecentSticker ("recent"/"attached"), faveSticker ("faved"), saveGif ("gifs"):
    to the front of the list, the oldest dropped past its cap; ``remove`` takes it out.
    Not a sticker of a set: STICKER_ID_INVALID; not a GIF: GIF_ID_INVALID."""
    check, error = (_gif_doc, GifIdInvalidError) if which == "gifs" else (_sticker_doc, StickerIdInvalidError)

    def write() -> bool:
        if not check(doc_id, access_hash):
            if remove:
                return (
                    UserDocument.objects.filter(user_id=user_id, list=which, document_id=doc_id).delete()[0]
                    > 0
                )
            raise error()
        with transaction.atomic():
            if remove:
                return (
                    UserDocument.objects.filter(user_id=user_id, list=which, document_id=doc_id).delete()[0]
                    > 0
                )
            UserDocument.objects.update_or_create(
                user_id=user_id, list=which, document_id=doc_id, defaults={"date": now()}
            )
            keep = UserDocument.objects.filter(user_id=user_id, list=which).order_by("-date", "-id")
            stale = list(keep.values_list("id", flat=True)[LIST_MAX[which] :])
            if stale:
                UserDocument.objects.filter(id__in=stale).delete()
            return True

    if await in_thread(write)():
        await events.log(user_id, LIST_EVENT[which], {"list": which}, exclude=exclude)


async def do_clear(user_id: int, which: str, *, exclude=None) -> None:
    def write() -> int:
        return UserDocument.objects.filter(user_id=user_id, list=which).delete()[0]

    if await in_thread(write)():
        await events.log(user_id, LIST_EVENT[which], {"list": which}, exclude=exclude)


@in_thread
def user_list(user_id: int, which: str) -> tuple[int, list[dict], list[int], dict[int, str]]:
    """(hash, documents newest first, their dates, document id -> emoji)."""
    rows = list(
        UserDocument.objects.filter(user_id=user_id, list=which).order_by("-date", "-id")[: LIST_MAX[which]]
    )
    docs = catalog.documents([r.document_id for r in rows])
    dates = {r.document_id: r.date for r in rows}
    emoji = dict(
        SetSticker.objects.filter(document_id__in=[d["id"] for d in docs]).values_list("document_id", "emoji")
    )
    return hashing.list_hash(d["id"] for d in docs), docs, [dates[d["id"]] for d in docs], emoji


async def do_note_sent(user_id: int, document: dict, *, move_to_top: bool = False, exclude=None) -> None:
    """A sticker of a set was sent: it counts as used and goes to the front of the
    sender's recent stickers, as Telegram does; ``move_to_top`` (sendMedia's
    update_stickersets_order) moves its set to the top of the sender's panel."""
    if not any(a.get("_") == "sticker" for a in document.get("attributes") or []):
        return

    def write() -> tuple[bool, InstalledSet | None]:
        item = SetSticker.objects.filter(document_id=document["id"]).only("id", "set_id").first()
        if item is None:
            return False, None
        SetSticker.objects.filter(id=item.id).update(uses=F("uses") + 1)
        if not move_to_top:
            return True, None
        with transaction.atomic():
            inst = (
                InstalledSet.objects.select_for_update()
                .filter(user_id=user_id, set_id=item.set_id, archived=False)
                .first()
            )
            if inst is None:
                return True, None
            mine = InstalledSet.objects.filter(user_id=user_id, kind=inst.kind, archived=False)
            top = mine.order_by("position").values_list("position", flat=True).first()
            if top is None or inst.position <= top:
                return True, None
            mine.filter(position__lt=inst.position).update(position=F("position") + 1)
            InstalledSet.objects.filter(id=inst.id).update(position=top)
            return True, inst

    known, moved = await in_thread(write)()
    if not known:
        return
    await do_save(user_id, "recent", document["id"], document["access_hash"], exclude=exclude)
    if moved is not None:
        await events.log(
            user_id, events.MOVE_TOP, {"kind": moved.kind, "set_id": moved.set_id}, exclude=exclude
        )
