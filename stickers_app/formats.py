"""Telegram's file rules for stickers, custom emoji and set thumbnails, checked on the
bytes themselves: static stickers are WEBP or PNG (stored as WEBP), animated ones TGS
(gzipped Lottie JSON), video ones WEBM with a VP9 track and no sound (checked on the
Matroska header; there is no decoder here). A file that breaks a rule gets the error
Telegram names for it."""

from __future__ import annotations

import gzip
import io
import json
import struct
import zlib
from dataclasses import dataclass

from PIL import Image

from tl.errors import (
    StickerFileInvalidError,
    StickerPngDimensionsError,
    StickerPngNopngError,
    StickerTgsNotgsError,
    StickerThumbPngNopngError,
    StickerThumbTgsNotgsError,
    StickerVideoBigError,
    StickerVideoNowebmError,
)

STATIC_SIDE = 512  # one side exactly this, the other at most
EMOJI_SIDE = 100  # custom emoji and set thumbnails: exactly this square
STATIC_BYTES_MAX = 512 * 1024
TGS_BYTES_MAX = 64 * 1024
TGS_JSON_MAX = 1024 * 1024  # unpacked: a gzip bomb is refused before parsing
TGS_FRAME_RATES = (30, 60)
VIDEO_BYTES_MAX = 256 * 1024
THUMB_BYTES_MAX = 32 * 1024
DURATION_MAX = 3.0  # seconds, animated and video alike
VIDEO_FPS_MAX = 30

MIME_STATIC = ("image/webp", "image/png")
MIME_TGS = "application/x-tgsticker"
MIME_VIDEO = "video/webm"


@dataclass(frozen=True)
class StickerFile:
    format: str  # "static", "animated", "video"
    mime_type: str
    file_name: str
    w: int
    h: int
    data: bytes
    duration: float = 0.0


def format_of(mime_type: str) -> str:
    if mime_type in MIME_STATIC:
        return "static"
    if mime_type == MIME_TGS:
        return "animated"
    if mime_type == MIME_VIDEO:
        return "video"
    raise StickerFileInvalidError()


def sniff_mime(mime_type: str, head) -> str:
    """The client's mime type when it is a sticker format, else what the first bytes
    say (a client that uploaded "application/octet-stream")."""
    if mime_type in (*MIME_STATIC, MIME_TGS, MIME_VIDEO):
        return mime_type
    data = head() or b""
    if data.startswith(b"\x1f\x8b"):
        return MIME_TGS
    if data.startswith(b"\x89PNG"):
        return "image/png"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    if data.startswith(b"\x1a\x45\xdf\xa3"):
        return MIME_VIDEO
    return mime_type


def check(data: bytes, mime_type: str, *, role: str) -> StickerFile:
    """``role``: "sticker" (and masks), "emoji" or "thumb"."""
    fmt = format_of(mime_type)
    if fmt == "static":
        return _static(data, role)
    if fmt == "animated":
        return _tgs(data, role)
    return _video(data, role)


def _static(data: bytes, role: str) -> StickerFile:
    nopng = StickerThumbPngNopngError if role == "thumb" else StickerPngNopngError
    if len(data) > (THUMB_BYTES_MAX if role == "thumb" else STATIC_BYTES_MAX):
        raise nopng()
    Image.MAX_IMAGE_PIXELS = 4096 * 4096
    try:
        img = Image.open(io.BytesIO(data))
        if img.format not in ("PNG", "WEBP"):
            raise nopng()
        img.load()
    except (OSError, ValueError, SyntaxError, Image.DecompressionBombError):
        raise nopng() from None
    w, h = img.size
    _check_side(w, h, role, nopng if role == "thumb" else StickerPngDimensionsError)
    if img.format == "WEBP":
        out = data
    else:
        buf = io.BytesIO()
        img.convert("RGBA").save(buf, "WEBP", lossless=True)
        out = buf.getvalue()
    return StickerFile("static", "image/webp", "sticker.webp", w, h, out)


def _check_side(w: int, h: int, role: str, error) -> None:
    if role in ("emoji", "thumb"):
        if (w, h) != (EMOJI_SIDE, EMOJI_SIDE):
            raise error()
    elif max(w, h) != STATIC_SIDE:
        raise error()


def _tgs(data: bytes, role: str) -> StickerFile:
    error = StickerThumbTgsNotgsError if role == "thumb" else StickerTgsNotgsError
    if len(data) > (THUMB_BYTES_MAX if role == "thumb" else TGS_BYTES_MAX):
        raise error()
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as f:
            raw = f.read(TGS_JSON_MAX + 1)
        if len(raw) > TGS_JSON_MAX:
            raise error()
        doc = json.loads(raw)
    except (OSError, EOFError, zlib.error, ValueError):
        raise error() from None
    if not isinstance(doc, dict):
        raise error()
    try:
        w, h, fr = int(doc["w"]), int(doc["h"]), float(doc["fr"])
        ip, op = float(doc.get("ip", 0)), float(doc["op"])
    except (KeyError, TypeError, ValueError):
        raise error() from None
    # Custom emoji and thumbnails: a 100 px canvas, or the sticker canvas scaled down.
    side = EMOJI_SIDE if role in ("emoji", "thumb") and (w, h) != (STATIC_SIDE, STATIC_SIDE) else STATIC_SIDE
    if (w, h) != (side, side) or fr not in TGS_FRAME_RATES or not isinstance(doc.get("layers"), list):
        raise error()
    duration = (op - ip) / fr
    if not 0 < duration <= DURATION_MAX:
        raise error()
    return StickerFile("animated", MIME_TGS, "AnimatedSticker.tgs", side, side, data, duration)


# --- WEBM: the EBML header, Info and Tracks of the Matroska segment ------------------------

EBML, DOCTYPE = 0x1A45DFA3, 0x4282
SEGMENT, INFO, TRACKS, TRACK_ENTRY = 0x18538067, 0x1549A966, 0x1654AE6B, 0xAE
TIMECODE_SCALE, DURATION = 0x2AD7B1, 0x4489
TRACK_TYPE, CODEC_ID, DEFAULT_DURATION, VIDEO, PIXEL_W, PIXEL_H = 0x83, 0x86, 0x23E383, 0xE0, 0xB0, 0xBA
CLUSTER = 0x1F43B675
UNKNOWN = -1


class _Bad(Exception):
    pass


def _vint(buf: bytes, pos: int, *, keep_marker: bool) -> tuple[int, int]:
    if pos >= len(buf):
        raise _Bad()
    first = buf[pos]
    length = 1
    while length <= 8 and not first & (0x80 >> (length - 1)):
        length += 1
    if length > 8 or pos + length > len(buf):
        raise _Bad()
    value = first if keep_marker else first & (0xFF >> length)
    for b in buf[pos + 1 : pos + length]:
        value = (value << 8) | b
    if not keep_marker and value == (1 << (7 * length)) - 1:
        value = UNKNOWN
    return value, pos + length


def _elements(buf: bytes, start: int, end: int):
    pos = start
    while pos < end:
        eid, pos = _vint(buf, pos, keep_marker=True)
        size, pos = _vint(buf, pos, keep_marker=False)
        stop = end if size == UNKNOWN else pos + size
        if stop > end:
            stop = end  # a truncated last element: read what is there
        yield eid, pos, stop
        pos = stop


def _uint(buf: bytes, a: int, b: int) -> int:
    return int.from_bytes(buf[a:b], "big") if b > a else 0


def _float(buf: bytes, a: int, b: int) -> float:
    if b - a == 4:
        return struct.unpack(">f", buf[a:b])[0]
    if b - a == 8:
        return struct.unpack(">d", buf[a:b])[0]
    raise _Bad()


def webm_info(data: bytes) -> dict:
    """{"doctype", "duration" (s), "tracks": [{"type", "codec", "w", "h", "fps"}]}."""
    info: dict = {"doctype": "", "duration": 0.0, "tracks": []}
    for eid, a, b in _elements(data, 0, len(data)):
        if eid == EBML:
            for sid, sa, sb in _elements(data, a, b):
                if sid == DOCTYPE:
                    info["doctype"] = data[sa:sb].decode("ascii", "replace")
        elif eid == SEGMENT:
            scale, raw_duration = 1_000_000, 0.0
            for sid, sa, sb in _elements(data, a, b):
                if sid == INFO:
                    for iid, ia, ib in _elements(data, sa, sb):
                        if iid == TIMECODE_SCALE:
                            scale = _uint(data, ia, ib)
                        elif iid == DURATION:
                            raw_duration = _float(data, ia, ib)
                elif sid == TRACKS:
                    for tid, ta, tb in _elements(data, sa, sb):
                        if tid == TRACK_ENTRY:
                            info["tracks"].append(_track(data, ta, tb))
                elif sid == CLUSTER:
                    break  # the frames: nothing the header rules need
            info["duration"] = raw_duration * scale / 1e9
            break
    return info


def _track(data: bytes, a: int, b: int) -> dict:
    track = {"type": 0, "codec": "", "w": 0, "h": 0, "fps": 0.0}
    for eid, ea, eb in _elements(data, a, b):
        if eid == TRACK_TYPE:
            track["type"] = _uint(data, ea, eb)
        elif eid == CODEC_ID:
            track["codec"] = data[ea:eb].decode("ascii", "replace").rstrip("\x00")
        elif eid == DEFAULT_DURATION:
            ns = _uint(data, ea, eb)
            track["fps"] = 1e9 / ns if ns else 0.0
        elif eid == VIDEO:
            for vid, va, vb in _elements(data, ea, eb):
                if vid == PIXEL_W:
                    track["w"] = _uint(data, va, vb)
                elif vid == PIXEL_H:
                    track["h"] = _uint(data, va, vb)
    return track


def _video(data: bytes, role: str) -> StickerFile:
    if len(data) > (THUMB_BYTES_MAX if role == "thumb" else VIDEO_BYTES_MAX):
        raise StickerVideoBigError()
    try:
        info = webm_info(data)
    except (_Bad, ValueError):
        raise StickerVideoNowebmError() from None
    if info["doctype"] != "webm":
        raise StickerVideoNowebmError()
    videos = [t for t in info["tracks"] if t["type"] == 1]
    # One VP9 video track and nothing else (no sound), at most 3 s and 30 frames a second.
    if len(videos) != 1 or len(info["tracks"]) != 1 or videos[0]["codec"] != "V_VP9":
        raise StickerVideoNowebmError()
    v = videos[0]
    if not 0 < info["duration"] <= DURATION_MAX + 0.01 or v["fps"] > VIDEO_FPS_MAX + 0.5:
        raise StickerVideoNowebmError()
    _check_side(v["w"], v["h"], role, StickerVideoNowebmError)
    return StickerFile("video", MIME_VIDEO, "sticker.webm", v["w"], v["h"], data, info["duration"])
