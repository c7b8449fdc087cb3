"""Telegram's sticker file rules on real bytes: static images, TGS animations, WEBM
headers (built here element by element), the emoji a sticker stands for, the list hash."""

from __future__ import annotations

import gzip
import io
import json
import struct

import pytest
from PIL import Image

from stickers_app import emoji, formats, hashing
from tl import errors


def image(w: int, h: int, fmt: str = "WEBP") -> bytes:
    out = io.BytesIO()
    Image.new("RGBA", (w, h), (1, 2, 3, 128)).save(out, fmt)
    return out.getvalue()


def tgs(side: int = 512, fr: float = 60, ip: float = 0, op: float = 60, **extra) -> bytes:
    doc = {"w": side, "h": side, "fr": fr, "ip": ip, "op": op, "layers": [], **extra}
    return gzip.compress(json.dumps(doc).encode())


def element(eid: int, payload: bytes) -> bytes:
    head = eid.to_bytes((eid.bit_length() + 7) // 8, "big")
    return head + _size(len(payload)) + payload


def _size(n: int) -> bytes:
    return bytes([0x01]) + n.to_bytes(7, "big")  # the 8-byte form: any size


def uint(eid: int, value: int) -> bytes:
    return element(eid, value.to_bytes(4, "big"))


def webm(*, doctype=b"webm", seconds=2.0, w=512, h=512, codec=b"V_VP9", fps=30, audio=False) -> bytes:
    video = element(formats.VIDEO, uint(formats.PIXEL_W, w) + uint(formats.PIXEL_H, h))
    tracks = element(formats.TRACK_ENTRY, uint(formats.TRACK_TYPE, 1) + element(formats.CODEC_ID, codec)
                     + uint(formats.DEFAULT_DURATION, int(1e9 / fps)) + video)  # fmt: skip
    if audio:
        tracks += element(
            formats.TRACK_ENTRY, uint(formats.TRACK_TYPE, 2) + element(formats.CODEC_ID, b"A_OPUS")
        )
    info = element(formats.INFO, uint(formats.TIMECODE_SCALE, 1_000_000)
                   + element(formats.DURATION, struct.pack(">d", seconds * 1000)))  # fmt: skip
    segment = element(
        formats.SEGMENT, info + element(formats.TRACKS, tracks) + element(formats.CLUSTER, b"\0" * 8)
    )
    return element(formats.EBML, element(formats.DOCTYPE, doctype)) + segment


def test_static_stickers_one_side_512_stored_as_webp():
    assert formats.check(image(512, 512), "image/webp", role="sticker").mime_type == "image/webp"
    png = formats.check(image(512, 200, "PNG"), "image/png", role="sticker")
    assert (png.w, png.h, png.mime_type) == (512, 200, "image/webp")
    assert Image.open(io.BytesIO(png.data)).format == "WEBP"
    for w, h in ((300, 300), (513, 512), (100, 100)):
        with pytest.raises(errors.StickerPngDimensionsError):
            formats.check(image(w, h), "image/webp", role="sticker")
    with pytest.raises(errors.StickerPngNopngError):
        formats.check(b"\x89PNG not really", "image/png", role="sticker")
    with pytest.raises(errors.StickerPngNopngError):
        formats.check(image(512, 512, "BMP"), "image/png", role="sticker")


def test_custom_emoji_and_thumbs_are_100_px():
    assert formats.check(image(100, 100), "image/webp", role="emoji").w == 100
    with pytest.raises(errors.StickerPngDimensionsError):
        formats.check(image(512, 512), "image/webp", role="emoji")
    with pytest.raises(errors.StickerThumbPngNopngError):
        formats.check(image(512, 512), "image/webp", role="thumb")
    assert formats.check(tgs(100), formats.MIME_TGS, role="emoji").w == 100
    with pytest.raises(errors.StickerThumbTgsNotgsError):
        formats.check(tgs(200), formats.MIME_TGS, role="thumb")


def test_tgs_rules():
    ok = formats.check(tgs(), formats.MIME_TGS, role="sticker")
    assert (ok.format, ok.w, ok.duration) == ("animated", 512, 1.0)
    assert formats.check(tgs(fr=30, op=90), formats.MIME_TGS, role="sticker").duration == 3.0
    for bad in (
        tgs(fr=25),  # 30 or 60 frames a second only
        tgs(op=181),  # longer than 3 s
        tgs(side=256),  # a 512 px canvas
        tgs(op=0),
        b"not gzip at all",
        gzip.compress(b"[1, 2]"),
        gzip.compress(b"{broken"),
        gzip.compress(json.dumps({"w": 512, "h": 512, "fr": 60, "op": 60}).encode()),  # no layers
        tgs(padding="x" * (2 * 1024 * 1024)),  # unpacks past the cap
    ):
        with pytest.raises(errors.StickerTgsNotgsError):
            formats.check(bad, formats.MIME_TGS, role="sticker")
    big = gzip.compress(json.dumps({"w": 512, "layers": [], "r": list(range(40000))}).encode(), 0)
    assert len(big) > formats.TGS_BYTES_MAX
    with pytest.raises(errors.StickerTgsNotgsError):
        formats.check(big, formats.MIME_TGS, role="sticker")


def test_webm_header_rules():
    info = formats.webm_info(webm())
    assert info["doctype"] == "webm" and info["duration"] == 2.0
    assert info["tracks"] == [{"type": 1, "codec": "V_VP9", "w": 512, "h": 512, "fps": pytest.approx(30)}]
    ok = formats.check(webm(w=512, h=300), formats.MIME_VIDEO, role="sticker")
    assert (ok.format, ok.w, ok.h, ok.duration) == ("video", 512, 300, 2.0)
    assert formats.check(webm(w=100, h=100), formats.MIME_VIDEO, role="emoji").w == 100
    for bad in (
        webm(doctype=b"matroska"),
        webm(seconds=3.5),
        webm(codec=b"V_VP8"),
        webm(fps=60),
        webm(audio=True),
        webm(w=400, h=400),
        b"\x1a\x45\xdf\xa3\x81",
        b"RIFF....",
    ):
        with pytest.raises(errors.StickerVideoNowebmError):
            formats.check(bad, formats.MIME_VIDEO, role="sticker")
    with pytest.raises(errors.StickerVideoBigError):
        formats.check(webm() + b"\0" * formats.VIDEO_BYTES_MAX, formats.MIME_VIDEO, role="sticker")


def test_mime_from_the_bytes_when_the_client_sent_none():
    head = image(512, 512)[:16]
    assert formats.sniff_mime("application/octet-stream", lambda: head) == "image/webp"
    assert formats.sniff_mime("application/octet-stream", lambda: tgs()[:16]) == formats.MIME_TGS
    assert formats.sniff_mime("", lambda: webm()[:16]) == formats.MIME_VIDEO
    with pytest.raises(errors.StickerFileInvalidError):
        formats.check(b"abc", "text/plain", role="sticker")


def test_emoji_split_and_checked():
    assert emoji.split("👍🏽❤️🇺🇦👨‍👩‍👧1️⃣") == ["👍🏽", "❤️", "🇺🇦", "👨‍👩‍👧", "1️⃣"]
    assert emoji.clean(" 😀 😀🐱 ") == ["😀", "🐱"]
    assert emoji.clean("abc") is None and emoji.clean("") is None and emoji.clean("😀a") is None
    assert emoji.clean("1") is None and emoji.clean("".join(chr(0x1F600 + i) for i in range(21))) is None


def test_list_hash_follows_telegrams_algorithm():
    assert hashing.list_hash([]) == 0
    assert hashing.list_hash([5]) == 5
    a, b = hashing.list_hash([1, 2, 3]), hashing.list_hash([3, 2, 1])
    assert a != b and -(2**63) <= a < 2**63
    assert hashing.list_hash([2**64 - 1, 2**63]) < 2**63
    assert not hashing.unchanged(0, 0) and hashing.unchanged(a, a) and not hashing.unchanged(a, b)
