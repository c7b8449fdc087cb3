"""TL shapes of media: photos, documents, message media, chat and profile photos,
downloaded file windows; and the TL input forms turned into plain values."""

from __future__ import annotations

from django.conf import settings

from message_core.clock import now
from tl import types
from tl.errors import MediaInvalidError

from .actions import UploadRef, unb64
from .tl_convert_kinds import value_media_to_tl

# --- input ------------------------------------------------------------------------------------


def upload_ref(f) -> UploadRef:
    if isinstance(f, types.InputFile):
        return UploadRef(f.id, f.parts, f.name or "", f.md5_checksum or "", big=False)
    if isinstance(f, types.InputFileBig):
        return UploadRef(f.id, f.parts, f.name or "", "", big=True)
    raise MediaInvalidError()


def attribute_from_tl(a) -> dict | None:
    if isinstance(a, types.DocumentAttributeFilename):
        return {"_": "filename", "file_name": a.file_name}
    if isinstance(a, types.DocumentAttributeAudio):
        return {
            "_": "audio", "voice": bool(a.voice), "duration": int(a.duration), "title": a.title,
            "performer": a.performer, "waveform": a.waveform.hex() if a.waveform else None,
        }  # fmt: skip
    if isinstance(a, types.DocumentAttributeVideo):
        return {
            "_": "video", "round_message": bool(a.round_message), "supports_streaming": bool(a.supports_streaming),
            "nosound": bool(a.nosound), "duration": float(a.duration), "w": int(a.w), "h": int(a.h),
        }  # fmt: skip
    if isinstance(a, types.DocumentAttributeAnimated):
        return {"_": "animated"}
    if isinstance(a, types.DocumentAttributeImageSize):
        return {"_": "image_size", "w": int(a.w), "h": int(a.h)}
    if isinstance(a, types.DocumentAttributeSticker):
        return {"_": "sticker", "alt": a.alt or ""}
    return None  # custom emoji, has_stickers: only stickers_app makes those


def attributes_from_tl(attributes) -> list[dict]:
    return [d for d in (attribute_from_tl(a) for a in attributes or []) if d is not None]


def attribute_to_tl(a: dict):
    kind = a["_"]
    if kind == "filename":
        return types.DocumentAttributeFilename(file_name=a["file_name"])
    if kind == "audio":
        return types.DocumentAttributeAudio(
            voice=a.get("voice") or None, duration=a.get("duration") or 0, title=a.get("title"),
            performer=a.get("performer"), waveform=bytes.fromhex(a["waveform"]) if a.get("waveform") else None,
        )  # fmt: skip
    if kind == "video":
        return types.DocumentAttributeVideo(
            round_message=a.get("round_message") or None, supports_streaming=a.get("supports_streaming") or None,
            nosound=a.get("nosound") or None, duration=a.get("duration") or 0.0, w=a.get("w", 0), h=a.get("h", 0),
        )  # fmt: skip
    if kind == "animated":
        return types.DocumentAttributeAnimated()
    if kind == "image_size":
        return types.DocumentAttributeImageSize(w=a["w"], h=a["h"])
    if kind == "sticker":
        c = a.get("mask_coords")
        return types.DocumentAttributeSticker(
            alt=a.get("alt", ""), stickerset=_sticker_set_ref(a), mask=a.get("mask") or None,
            mask_coords=types.MaskCoords(n=c["n"], x=c["x"], y=c["y"], zoom=c["zoom"]) if c else None,
        )  # fmt: skip
    if kind == "has_stickers":
        return types.DocumentAttributeHasStickers()
    if kind == "custom_emoji":
        return types.DocumentAttributeCustomEmoji(
            alt=a.get("alt", ""),
            stickerset=_sticker_set_ref(a),
            free=True,
            text_color=a.get("text_color") or None,
        )
    return None


def _sticker_set_ref(a: dict):
    # A sticker of a set names it (stickers_app writes set_id / set_access_hash).
    if a.get("set_id"):
        return types.InputStickerSetID(id=a["set_id"], access_hash=a["set_access_hash"])
    return types.InputStickerSetEmpty()


# --- output -----------------------------------------------------------------------------------


def _sizes_to_tl(sizes: list[dict], stripped: str) -> list:
    out = []
    if stripped:
        out.append(types.PhotoStrippedSize(type="i", bytes=unb64(stripped)))
    out.extend(types.PhotoSize(type=s["type"], w=s["w"], h=s["h"], size=s["size"]) for s in sizes)
    return out


def photo_to_tl(p: dict | None):
    if not p:
        return types.PhotoEmpty(id=0)
    return types.Photo(
        id=p["id"], access_hash=p["access_hash"], file_reference=unb64(p["file_reference"]), date=p["date"],
        sizes=_sizes_to_tl(p["sizes"], p.get("stripped", "")), dc_id=settings.MTPROTO_DC_ID,
        has_stickers=p.get("has_stickers") or None,
    )  # fmt: skip


def document_to_tl(d: dict):
    thumbs = _sizes_to_tl(d.get("thumbs") or [], d.get("stripped", "")) if d.get("thumbs") else None
    return types.Document(
        id=d["id"], access_hash=d["access_hash"], file_reference=unb64(d["file_reference"]), date=d["date"],
        mime_type=d["mime_type"], size=d["size"], thumbs=thumbs, dc_id=settings.MTPROTO_DC_ID,
        attributes=[x for x in (attribute_to_tl(a) for a in d.get("attributes") or []) if x is not None],
    )  # fmt: skip


def media_to_tl(m: dict | None):
    """A message's media (``None``: a text message has none)."""
    if not m:
        return None
    if m.get("photo"):
        return types.MessageMediaPhoto(photo=photo_to_tl(m["photo"]), spoiler=m.get("spoiler") or None)
    if m.get("document"):
        kind = m.get("kind")
        return types.MessageMediaDocument(
            document=document_to_tl(m["document"]), spoiler=m.get("spoiler") or None,
            voice=(kind == "voice") or None, round=(kind == "round") or None, video=(kind == "video") or None,
        )  # fmt: skip
    if m.get("webpage") is not None:
        return web_page_media_to_tl(m)
    return value_media_to_tl(m) or types.MessageMediaEmpty()


def web_page_to_tl(w: dict):
    """A link preview (webpages_app's page dict): pending while it is fetched."""
    if w.get("pending"):
        return types.WebPagePending(id=w["id"], url=w["url"], date=w["date"])
    if w.get("empty"):
        return types.WebPageEmpty(id=w["id"], url=w["url"])
    photo = w.get("photo")
    return types.WebPage(
        id=w["id"], url=w["url"], display_url=w["display_url"], hash=w.get("hash", 0), type=w.get("type"),
        site_name=w.get("site_name"), title=w.get("title"), description=w.get("description"),
        photo=photo_to_tl(photo) if photo else None, has_large_media=bool(w.get("large_media")) or None,
    )  # fmt: skip


def web_page_media_to_tl(m: dict):
    return types.MessageMediaWebPage(
        webpage=web_page_to_tl(m["webpage"]), force_large_media=m.get("force_large_media") or None,
        force_small_media=m.get("force_small_media") or None, manual=m.get("manual") or None,
        safe=True,
    )  # fmt: skip


def chat_photo_to_tl(p: dict | None):
    if not p:
        return types.ChatPhotoEmpty()
    return types.ChatPhoto(
        photo_id=p["id"], stripped_thumb=unb64(p.get("stripped", "")) or None, dc_id=settings.MTPROTO_DC_ID
    )


def user_profile_photo_to_tl(p: dict | None):
    if not p:
        return types.UserProfilePhotoEmpty()
    return types.UserProfilePhoto(
        photo_id=p["id"], stripped_thumb=unb64(p.get("stripped", "")) or None, dc_id=settings.MTPROTO_DC_ID
    )


def file_to_tl(data: bytes, *, jpeg: bool, mtime: int, partial: bool):
    kind = (
        types.storage.FileJpeg()
        if jpeg
        else (types.storage.FilePartial() if partial else types.storage.FileUnknown())
    )
    return types.upload.File(type=kind, mtime=mtime, bytes=data)


def photos_to_tl(count: int, photos: list[dict], users: list, *, sliced: bool):
    tl_photos = [photo_to_tl(p) for p in photos]
    if sliced:
        return types.photos.PhotosSlice(count=count, photos=tl_photos, users=users)
    return types.photos.Photos(photos=tl_photos, users=users)


def photos_photo_to_tl(photo: dict | None, users: list):
    return types.photos.Photo(photo=photo_to_tl(photo), users=users)


# --- wallpapers (media_app.wallpapers) -------------------------------------------------------


def wallpaper_settings_from_tl(s) -> dict:
    if s is None:
        return {}
    from .wallpapers import SETTING_KEYS

    return {k: getattr(s, k, None) for k in SETTING_KEYS}


def wallpaper_settings_to_tl(d: dict):
    return types.WallPaperSettings(**{k: v for k, v in (d or {}).items() if v not in (None, False)})


def wallpaper_ref(w) -> tuple | None:
    """An InputWallPaper as wallpapers' reference; None for Telegram's no-file (plain
    colour) backgrounds, which clients draw themselves."""
    if isinstance(w, types.InputWallPaper):
        return ("id", w.id, w.access_hash)
    if isinstance(w, types.InputWallPaperSlug):
        return ("slug", w.slug)
    return None


def wallpaper_to_tl(shown):
    wp = shown.wallpaper
    return types.WallPaper(
        id=wp.id, creator=shown.creator or None, pattern=wp.pattern or None, dark=wp.dark or None,
        access_hash=wp.access_hash, slug=wp.slug, document=document_to_tl(shown.document),
        settings=wallpaper_settings_to_tl(shown.settings) if shown.settings else None,
    )  # fmt: skip


def no_file_wallpaper_to_tl(wallpaper_id: int, settings: dict):
    return types.WallPaperNoFile(
        id=wallpaper_id, settings=wallpaper_settings_to_tl(settings) if settings else None
    )


def wallpapers_to_tl(shown: list, client_hash: int):
    h = 0
    for s in shown:
        h = (h * 20261 + s.wallpaper.id) & 0x7FFFFFFFFFFFFFFF
    if client_hash and client_hash == h:
        return types.account.WallPapersNotModified()
    return types.account.WallPapers(hash=h, wallpapers=[wallpaper_to_tl(s) for s in shown])


def peer_wallpaper_update_to_tl(peer_id: int, shown, overridden: bool, users: list):
    update = types.UpdatePeerWallpaper(
        wallpaper_overridden=overridden or None,
        peer=types.PeerUser(user_id=peer_id),
        wallpaper=wallpaper_to_tl(shown) if shown is not None else None,
    )
    return types.Updates(updates=[update], users=users, chats=[], date=now(), seq=0)


def saved_ringtones_to_tl(docs: list[dict], list_hash: int, client_hash: int):
    if client_hash and client_hash == list_hash:
        return types.account.SavedRingtonesNotModified()
    return types.account.SavedRingtones(hash=list_hash, ringtones=[document_to_tl(d) for d in docs])


def saved_ringtones_update_to_tl():
    return types.Updates(updates=[types.UpdateSavedRingtones()], users=[], chats=[], date=now(), seq=0)
