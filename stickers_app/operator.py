"""What an operator does with sticker sets (console, management commands): feature a
set (it shows in everyone's trending list), remove any set (it leaves every panel,
as when its owner deletes it), import a set from a folder of files."""

from __future__ import annotations

import json
from pathlib import Path

from asgiref.sync import async_to_sync

from message_core.clock import now

from . import emoji, sets
from .catalog import SPECIAL, SetRef
from .models import SetSticker, StickerSet

IMPORT_SUFFIXES = {
    ".webp": "image/webp",
    ".png": "image/png",
    ".tgs": "application/x-tgsticker",
    ".webm": "video/webm",
}
DEFAULT_EMOJI = "\U0001f642"


def feature(set_id: int, on: bool) -> None:
    StickerSet.objects.filter(id=set_id).update(featured_at=now() if on else 0)


def remove(set_id: int) -> None:
    row = StickerSet.objects.get(id=set_id)
    async_to_sync(sets.do_delete_set)(None, SetRef(id=row.id, access_hash=row.access_hash))


def usage(set_ids: list[int]) -> dict[int, int]:
    """set id -> messages sent with its stickers."""
    out: dict[int, int] = {}
    for sid, uses in SetSticker.objects.filter(set_id__in=set_ids).values_list("set_id", "uses"):
        out[sid] = out.get(sid, 0) + uses
    return out


def import_folder(folder: Path, *, title: str, short_name: str, kind: str = "stickers", owner_id: int = 0,
                  default_emoji: str = DEFAULT_EMOJI, feature_it: bool = False, special: str = "") -> StickerSet:  # fmt: skip
    """A set made of the folder's .webp/.png/.tgs/.webm files in name order. The emoji of
    each comes from ``emoji.json`` ({"file name": "emoji" or {"emoji", "keywords"}}),
    else the file's name when it is an emoji, else ``default_emoji``. Every file is
    checked by the same rules as an upload; one bad file imports nothing."""
    folder = Path(folder)
    meta_path = folder / "emoji.json"
    meta = json.loads(meta_path.read_text(encoding="utf-8")) if meta_path.exists() else {}
    items = []
    for path in sorted(p for p in folder.iterdir() if p.suffix.lower() in IMPORT_SUFFIXES):
        m = meta.get(path.name, {})
        if isinstance(m, str):
            m = {"emoji": m}
        text = m.get("emoji") or (path.stem if emoji.clean(path.stem) else default_emoji)
        mime = IMPORT_SUFFIXES[path.suffix.lower()]
        items.append(
            sets.NewSticker(
                sets.RawFile(path.read_bytes(), mime), text, keywords=",".join(m.get("keywords", []))
            )
        )
    if special and special.split(":", 1)[0] not in SPECIAL:
        raise ValueError(f"unknown built-in set {special!r} (one of {', '.join(SPECIAL)}; dice as dice:🎲)")
    row, _ = sets.create_set_sync(owner_id, title, short_name, items, kind=kind, install=bool(owner_id))
    if special:
        # One set per built-in kind: the newest import takes the place.
        StickerSet.objects.filter(special=special).update(special="")
        StickerSet.objects.filter(id=row.id).update(special=special)
        row.refresh_from_db()
    if feature_it:
        feature(row.id, True)
        row.refresh_from_db()
    return row
