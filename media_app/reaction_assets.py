"""The files behind the standard reaction catalog (messages.getAvailableReactions):
for each emoji a static WEBP icon and the Lottie animations (``.tgs``: gzipped Lottie
JSON) a client plays when the reaction appears, is selected, is sent and around it.

No artwork ships with the server, so the files are generated: a disk in a colour
derived from the emoji, drawn by Pillow for the icon and as a small vector animation
for the rest. Generation is deterministic, so the bytes, their SHA-256 (the storage
name), the document ids, access hashes and file references are the same on every
server and every run: creating them again (``make_reaction_assets``, or lazily on the
first catalog request) changes nothing. Bumping ``VERSION`` gives new ids, so clients
that cached the old files see new documents (the catalog hash moves with it).

The documents are owned by no one (owner 0) and held ``public``: anyone logged in
downloads them with upload.getFile like any other document."""

from __future__ import annotations

import colorsys
import gzip
import hashlib
import io
import json
import threading
import zlib

from PIL import Image, ImageDraw

from . import storage
from .actions import document_dict
from .models import Document, MediaHolder

VERSION = "1"
DATE = 1_700_000_000  # fixed: a document never looks changed
ICON_PX = 100  # Telegram's static reaction icons are 100x100 WEBP
LOTTIE_PX = 512
FPS = 60

STATIC = "static_icon"
# role -> (frames, what the animation does); all roles a catalog entry carries.
ANIMATIONS = {
    "appear_animation": 30,
    "select_animation": 60,
    "activate_animation": 60,
    "effect_animation": 90,
    "around_animation": 90,
    "center_icon": 60,
}
ROLES = (STATIC, *ANIMATIONS)


def _stable_id(*parts: str) -> int:
    digest = hashlib.blake2b("\x00".join((VERSION, *parts)).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") & 0x7FFF_FFFF_FFFF_FFFF or 1


def document_id(emoticon: str, role: str) -> int:
    return _stable_id("reaction", emoticon, role)


def _colour(emoticon: str) -> tuple[float, float, float]:
    hue = (zlib.crc32(emoticon.encode()) % 360) / 360
    return colorsys.hsv_to_rgb(hue, 0.65, 0.95)


def render_icon(emoticon: str) -> bytes:
    """A 100x100 lossless WEBP: a coloured disk with a lighter core, transparent around."""
    r, g, b = (round(c * 255) for c in _colour(emoticon))
    img = Image.new("RGBA", (ICON_PX, ICON_PX), (0, 0, 0, 0))
    draw = ImageDraw.Draw(img)
    draw.ellipse((4, 4, ICON_PX - 5, ICON_PX - 5), fill=(r, g, b, 255))
    light = tuple(min(255, c + 70) for c in (r, g, b))
    draw.ellipse((30, 30, ICON_PX - 31, ICON_PX - 31), fill=(*light, 255))
    out = io.BytesIO()
    img.save(out, "WEBP", lossless=True, quality=100, method=4, exact=True)
    return out.getvalue()


def _kf(t: int, value: list[float]) -> dict:
    ease = {"i": {"x": [0.4], "y": [1]}, "o": {"x": [0.6], "y": [0]}}
    return {"t": t, "s": value, **ease}


def _animated(frames: list[tuple[int, list[float]]]) -> dict:
    return {"a": 1, "k": [_kf(t, v) for t, v in frames]}


def _still(value) -> dict:
    return {"a": 0, "k": value}


def _layer(ind: int, frames: int, scale: dict, opacity: dict, shape: dict) -> dict:
    return {
        "ddd": 0, "ind": ind, "ty": 4, "nm": f"l{ind}", "sr": 1, "ao": 0, "ip": 0, "op": frames, "st": 0, "bm": 0,
        "ks": {
            "o": opacity, "r": _still(0), "p": _still([LOTTIE_PX / 2, LOTTIE_PX / 2, 0]),
            "a": _still([0, 0, 0]), "s": scale,
        },
        "shapes": [{"ty": "gr", "nm": "g", "it": [
            {"ty": "el", "nm": "e", "d": 1, "p": _still([0, 0]), "s": _still([shape["d"], shape["d"]])},
            shape["paint"],
            {"ty": "tr", "p": _still([0, 0]), "a": _still([0, 0]), "s": _still([100, 100]), "r": _still(0),
             "o": _still(100)},
        ]}],
    }  # fmt: skip


def _scales(role: str, n: int) -> list[tuple[int, list[float]]]:
    def s(v: float) -> list[float]:
        return [v, v, 100]

    if role == "appear_animation":
        return [(0, s(0)), (n, s(100))]
    if role in ("effect_animation", "around_animation"):
        return [(0, s(40)), (n, s(100))]
    peak = 140 if role == "activate_animation" else 115
    return [(0, s(100)), (n // 2, s(peak)), (n, s(100))]


def render_animation(emoticon: str, role: str) -> bytes:
    """A ``.tgs`` of the role: the emoji's disk (appear / select / activate / center)
    or a ring around it that grows and fades (effect / around)."""
    n = ANIMATIONS[role]
    rgb = list(_colour(emoticon))
    ring = role in ("effect_animation", "around_animation")
    if ring:
        paint = {
            "ty": "st",
            "nm": "s",
            "c": _still([*rgb, 1]),
            "o": _still(100),
            "w": _still(24),
            "lc": 2,
            "lj": 2,
        }
        opacity = _animated([(0, [100]), (n, [0])])
        diameter = LOTTIE_PX - 40
    else:
        paint = {"ty": "fl", "nm": "f", "c": _still([*rgb, 1]), "o": _still(100), "r": 1}
        opacity = _still(100)
        diameter = LOTTIE_PX // 2
    layer = _layer(1, n, _animated(_scales(role, n)), opacity, {"d": diameter, "paint": paint})
    doc = {
        "tgs": 1, "v": "5.5.2", "fr": FPS, "ip": 0, "op": n, "w": LOTTIE_PX, "h": LOTTIE_PX,
        "nm": f"{role} {emoticon}", "ddd": 0, "assets": [], "layers": [layer],
    }  # fmt: skip
    raw = json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode()
    return gzip.compress(raw, compresslevel=9, mtime=0)


def _file(emoticon: str, role: str) -> tuple[bytes, str, list[dict]]:
    if role == STATIC:
        data, mime, name, px = render_icon(emoticon), "image/webp", "sticker.webp", ICON_PX
    else:
        data, mime, name = render_animation(emoticon, role), "application/x-tgsticker", "AnimatedSticker.tgs"
        px = LOTTIE_PX
    attributes = [
        {"_": "image_size", "w": px, "h": px},
        {"_": "sticker", "alt": emoticon},
        {"_": "filename", "file_name": name},
    ]
    return data, mime, attributes


def _build(emoticon: str, role: str) -> Document:
    data, mime, attributes = _file(emoticon, role)
    sha = hashlib.sha256(data).hexdigest()
    storage.put_bytes(sha, data)
    did = document_id(emoticon, role)
    return Document(
        id=did, access_hash=_stable_id("reaction-hash", emoticon, role),
        file_reference=hashlib.sha256(f"reaction-ref:{did}:{sha}".encode()).digest()[:16], owner_id=0,
        date=DATE, mime_type=mime, size=len(data), sha256=sha, attributes=attributes, thumbs=[], stripped=b"",
    )  # fmt: skip


_lock = threading.Lock()
_ready: dict[tuple[str, ...], dict[str, dict[str, dict]]] = {}


def do_ensure_reaction_documents(emoticons: list[str]) -> dict[str, dict[str, dict]]:
    """emoji -> role -> document dict of every role, creating what is missing (bytes in
    the media storage, a document row, a public holder). Idempotent; after the first
    call a process answers from memory."""
    key = tuple(emoticons)
    with _lock:
        wanted = {document_id(e, r): (e, r) for e in emoticons for r in ROLES}
        # One count keeps the memo honest when the rows went away (a wiped database).
        if key in _ready and Document.objects.filter(id__in=list(wanted)).count() == len(wanted):
            return _ready[key]
        rows = {d.id: d for d in Document.objects.filter(id__in=list(wanted))}
        # A row whose bytes are gone (a wiped media directory) is written again.
        missing = [
            wanted[i] for i in wanted if i not in rows or not storage.media_storage().exists(storage.blob_name(rows[i].sha256))
        ]  # fmt: skip
        if missing:
            built = [_build(e, r) for e, r in missing]
            Document.objects.bulk_create(built, ignore_conflicts=True)
            MediaHolder.objects.bulk_create(
                [MediaHolder(kind="d", media_id=d.id, holder="public", holder_id=0) for d in built],
                ignore_conflicts=True,
            )
            rows = {d.id: d for d in Document.objects.filter(id__in=list(wanted))}
        out: dict[str, dict[str, dict]] = {e: {} for e in emoticons}
        for i, (e, r) in wanted.items():
            out[e][r] = document_dict(rows[i])
        _ready[key] = out
        return out


def catalog_hash(base: int) -> int:
    """The catalog's hash (``base``: the emoji list's) moved by the files' version."""
    return zlib.crc32(f"{base}:{VERSION}".encode()) & 0x7FFFFFFF
