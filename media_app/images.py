"""Photos decoded and re-encoded with Pillow: Telegram's size ladder and the stripped
thumbnail clients blur while the real size downloads."""

from __future__ import annotations

import io
from dataclasses import dataclass

from PIL import Image, ImageOps

# Telegram's photo ladder: (type, bounding box in px), smallest first.
LADDER = (("s", 100), ("m", 320), ("x", 800), ("y", 1280), ("w", 2560))
DOC_THUMB = ("m", 320)
STRIPPED_BOX = 40
JPEG_QUALITY = 87
# The stripped format drops the JPEG header: clients put back a fixed one (libjpeg's
# tables at quality 20, 4:2:0 sampling, the standard Huffman tables), so the encoder
# must use exactly those settings.
STRIPPED_QUALITY = 20
MAX_PIXELS = 64_000_000  # decompression bombs are refused, not decoded


class NotAnImage(Exception):
    pass


@dataclass(frozen=True)
class Size:
    type: str
    w: int
    h: int
    jpeg: bytes


def _open(path) -> Image.Image:
    Image.MAX_IMAGE_PIXELS = MAX_PIXELS
    try:
        img = Image.open(path)
        img.load()
        img = ImageOps.exif_transpose(img)
        if img.mode != "RGB":
            if img.mode in ("RGBA", "LA", "P"):
                img = img.convert("RGBA")
                back = Image.new("RGB", img.size, (255, 255, 255))
                back.paste(img, mask=img.getchannel("A"))
                img = back
            else:
                img = img.convert("RGB")
    except (OSError, ValueError, SyntaxError, Image.DecompressionBombError) as e:
        raise NotAnImage(str(e)) from e
    if img.width < 1 or img.height < 1:
        raise NotAnImage("empty image")
    return img


def _jpeg(img: Image.Image, **kw) -> bytes:
    out = io.BytesIO()
    img.save(out, "JPEG", **kw)
    return out.getvalue()


def _fit(img: Image.Image, box: int) -> Image.Image:
    if max(img.size) <= box:
        return img
    copy = img.copy()
    copy.thumbnail((box, box), Image.Resampling.LANCZOS)
    return copy


def stripped(img: Image.Image) -> bytes:
    """photoStrippedSize bytes: 0x01, height, width, then the JPEG scan data alone."""
    small = _fit(img, STRIPPED_BOX)
    data = _jpeg(small, quality=STRIPPED_QUALITY, subsampling=2, optimize=False, progressive=False)
    sos = data.index(b"\xff\xda")
    start = sos + 2 + int.from_bytes(data[sos + 2 : sos + 4], "big")
    return bytes([1, small.height, small.width]) + data[start:-2]


def photo_sizes(path) -> tuple[list[Size], bytes]:
    """The ladder sizes an image gets: every box smaller than the original, then the
    original itself (capped at the largest box) as the next type up."""
    img = _open(path)
    sizes = []
    longest = max(img.size)
    for kind, box in LADDER:
        fitted = _fit(img, box)
        sizes.append(Size(kind, fitted.width, fitted.height, _jpeg(fitted, quality=JPEG_QUALITY)))
        if longest <= box:
            break
    return sizes, stripped(img)


def thumb(path) -> tuple[Size, bytes]:
    """A document's thumbnail (one size) and its stripped form."""
    img = _open(path)
    fitted = _fit(img, DOC_THUMB[1])
    return Size(DOC_THUMB[0], fitted.width, fitted.height, _jpeg(fitted, quality=JPEG_QUALITY)), stripped(img)


def image_size(path) -> tuple[int, int] | None:
    """Width and height of an image document, or None when it is not one."""
    try:
        with Image.open(path) as img:
            return img.size
    except (OSError, ValueError, SyntaxError, Image.DecompressionBombError):
        return None


def stripped_to_jpeg(data: bytes) -> bytes:
    """A photoStrippedSize back into a JPEG (for pages that show it): the fixed header
    the encoder left out, made by the same encoder at the stripped settings."""
    if len(data) < 3 or data[0] != 1:
        return b""
    out = io.BytesIO()
    Image.new("RGB", (max(data[2], 1), max(data[1], 1))).save(
        out, "JPEG", quality=STRIPPED_QUALITY, subsampling=2, optimize=False, progressive=False
    )
    full = out.getvalue()
    sos = full.index(b"\xff\xda")
    return full[: sos + 2 + int.from_bytes(full[sos + 2 : sos + 4], "big")] + data[3:] + b"\xff\xd9"
