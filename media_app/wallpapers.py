"""Chat backgrounds: uploaded through the media store as image documents, kept in the
user's saved list (account.getWallPapers) with the user's settings, installed, shared
by slug, and set per private chat (messages.setChatWallPaper).

A wallpaper is public by its slug, as on Telegram: its document gets the ``public``
holder, so anybody the slug reaches may download it.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from django.db import transaction

from message_core.clock import now

from .actions import UploadRef, add_holders, do_upload_document, in_thread
from .models import ChatWallPaper, Document, UserWallPaper, WallPaper

SAVED_MAX = 100  # wallpapers in one user's list
SETTING_KEYS = (
    "blur",
    "motion",
    "background_color",
    "second_background_color",
    "third_background_color",
    "fourth_background_color",
    "intensity",
    "rotation",
    "emoticon",
)


class WallPaperInvalid(LookupError):
    """No such wallpaper (the handler answers WALLPAPER_INVALID)."""


@dataclass(slots=True)
class Shown:
    """A wallpaper as one user sees it: the row, its document and the settings."""

    wallpaper: WallPaper
    document: dict
    settings: dict
    creator: bool


def clean_settings(s: dict | None) -> dict:
    out = {}
    for k, v in (s or {}).items():
        if k in SETTING_KEYS and v not in (None, False):
            out[k] = v[:16] if isinstance(v, str) else v
    return out


def _slug() -> str:
    return secrets.token_urlsafe(12)


async def do_upload_wallpaper(
    owner_id: int, ref: UploadRef, mime_type: str, settings: dict, *, for_chat: bool
):
    """account.uploadWallPaper: the image becomes a document and a wallpaper (saved in
    the owner's list unless it is for one chat)."""
    doc = await do_upload_document(owner_id, ref, mime_type or "image/jpeg", [])
    return await in_thread(_create)(owner_id, doc, clean_settings(settings), for_chat)


def _create(owner_id: int, doc: dict, settings: dict, for_chat: bool) -> Shown:
    with transaction.atomic():
        wp = WallPaper.objects.create(
            id=secrets.randbits(62) + 1, access_hash=secrets.randbits(63), slug=_slug(), creator_id=owner_id,
            document_id=doc["id"], settings=settings, date=now(),
        )  # fmt: skip
        add_holders([("d", doc["id"])], "public", [0])
        if not for_chat:
            UserWallPaper.objects.create(user_id=owner_id, wallpaper=wp, settings=settings)
    return Shown(wp, doc, settings, creator=True)


def _find(ref: tuple) -> WallPaper:
    kind = ref[0]
    if kind == "id":
        wp = WallPaper.objects.filter(id=ref[1]).first()
        if wp is None or wp.access_hash != ref[2]:
            raise WallPaperInvalid()
        return wp
    if kind == "slug":
        wp = WallPaper.objects.filter(slug=ref[1]).first()
        if wp is None:
            raise WallPaperInvalid()
        return wp
    raise WallPaperInvalid()


def _shown(viewer_id: int, rows: list[tuple[WallPaper, dict]]) -> list[Shown]:
    from .actions import document_dict

    docs = {
        d.id: document_dict(d) for d in Document.objects.filter(id__in=[wp.document_id for wp, _ in rows])
    }
    return [
        Shown(wp, docs[wp.document_id], s, wp.creator_id == viewer_id)
        for wp, s in rows
        if wp.document_id in docs
    ]


@in_thread
def get_wallpaper(viewer_id: int, ref: tuple) -> Shown:
    wp = _find(ref)
    mine = (
        UserWallPaper.objects.filter(user_id=viewer_id, wallpaper=wp)
        .values_list("settings", flat=True)
        .first()
    )
    return _shown(viewer_id, [(wp, mine if mine is not None else wp.settings)])[0]


@in_thread
def get_wallpapers(viewer_id: int, refs: list[tuple]) -> list[Shown]:
    rows = []
    for ref in refs[:SAVED_MAX]:
        wp = _find(ref)
        rows.append((wp, wp.settings))
    return _shown(viewer_id, rows)


@in_thread
def saved_wallpapers(user_id: int) -> list[Shown]:
    """account.getWallPapers: the user's list, the installed one first, newest next."""
    rows = list(
        UserWallPaper.objects.filter(user_id=user_id)
        .select_related("wallpaper")
        .order_by("-installed", "-saved")[:SAVED_MAX]
    )
    return _shown(user_id, [(r.wallpaper, r.settings) for r in rows])


@in_thread
def do_save_wallpaper(
    user_id: int, ref: tuple, settings: dict, *, unsave: bool, install: bool = False
) -> None:
    """account.saveWallPaper (unsave removes it) / installWallPaper (install=True)."""
    wp = _find(ref)
    with transaction.atomic():
        if unsave:
            UserWallPaper.objects.filter(user_id=user_id, wallpaper=wp).delete()
            return
        if install:
            UserWallPaper.objects.filter(user_id=user_id, installed=True).update(installed=False)
        UserWallPaper.objects.update_or_create(
            user_id=user_id,
            wallpaper=wp,
            defaults={"settings": clean_settings(settings), **({"installed": True} if install else {})},
        )
        extra = UserWallPaper.objects.filter(user_id=user_id).order_by("-installed", "-saved")[SAVED_MAX:]
        UserWallPaper.objects.filter(id__in=[r.id for r in extra]).delete()


@in_thread
def do_reset_wallpapers(user_id: int) -> None:
    UserWallPaper.objects.filter(user_id=user_id).delete()


@in_thread
def do_set_chat_wallpaper(
    owner_id: int, peer_id: int, ref: tuple | None, settings: dict, *, for_both: bool, revert: bool
) -> Shown | None:
    """messages.setChatWallPaper for a private chat: the owner's background there (and
    the peer's with ``for_both``); ``ref`` None removes it; ``revert`` drops the one the
    peer set for both."""
    with transaction.atomic():
        if revert:
            ChatWallPaper.objects.filter(owner_id=owner_id, peer_id=peer_id, from_peer=True).delete()
            return None
        if ref is None:
            ChatWallPaper.objects.filter(owner_id=owner_id, peer_id=peer_id).delete()
            if for_both:
                ChatWallPaper.objects.filter(owner_id=peer_id, peer_id=owner_id, from_peer=True).delete()
            return None
        wp = _find(ref)
        settings = clean_settings(settings) or wp.settings
        ChatWallPaper.objects.update_or_create(
            owner_id=owner_id,
            peer_id=peer_id,
            defaults={"wallpaper": wp, "settings": settings, "from_peer": False},
        )
        if for_both and peer_id != owner_id:
            ChatWallPaper.objects.update_or_create(
                owner_id=peer_id,
                peer_id=owner_id,
                defaults={"wallpaper": wp, "settings": settings, "from_peer": True},
            )
            add_holders([("d", wp.document_id)], "u", [peer_id])
    return _shown(owner_id, [(wp, settings)])[0]


def chat_wallpaper(owner_id: int, peer_id: int) -> tuple[Shown, bool] | None:
    """The background the owner sees in the chat with ``peer_id`` and whether it is
    their own choice (``wallpaper_overridden``)."""
    row = ChatWallPaper.objects.filter(owner_id=owner_id, peer_id=peer_id).select_related("wallpaper").first()
    if row is None:
        return None
    shown = _shown(owner_id, [(row.wallpaper, row.settings)])
    return (shown[0], not row.from_peer) if shown else None
