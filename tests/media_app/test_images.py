"""The photo ladder, stripped thumbnails, and upload.getFile's window rules."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from media_app import images
from media_app.actions import check_window
from tl import errors


def _png(tmp_path, w, h, mode="RGB"):
    path = tmp_path / f"{w}x{h}.png"
    Image.new(mode, (w, h), (200, 30, 30, 255)[: len(mode)] if mode != "P" else 3).save(path)
    return path


def stripped_to_jpeg(data: bytes) -> bytes:
    """What clients do: a fixed JPEG header (libjpeg quality 20 tables) around the scan."""
    small = Image.new("RGB", (data[2], data[1]))
    out = io.BytesIO()
    small.save(out, "JPEG", quality=images.STRIPPED_QUALITY, subsampling=2)
    full = out.getvalue()
    sos = full.index(b"\xff\xda")
    header = full[: sos + 2 + int.from_bytes(full[sos + 2 : sos + 4], "big")]
    return header + data[3:] + b"\xff\xd9"


def test_ladder_keeps_only_sizes_not_larger_than_the_original(tmp_path):
    sizes, stripped = images.photo_sizes(_png(tmp_path, 1000, 600))
    assert [(s.type, s.w, s.h) for s in sizes] == [
        ("s", 100, 60), ("m", 320, 192), ("x", 800, 480), ("y", 1000, 600),
    ]  # fmt: skip
    for s in sizes:
        assert Image.open(io.BytesIO(s.jpeg)).size == (s.w, s.h)
    assert stripped[0] == 1 and (stripped[2], stripped[1]) == (40, 24)
    decoded = Image.open(io.BytesIO(stripped_to_jpeg(stripped)))
    decoded.load()
    r, g, b = decoded.getpixel((10, 10))
    assert r > 150 and g < 80 and b < 80  # the blurred preview has the photo's colour
    tiny, _ = images.photo_sizes(_png(tmp_path, 50, 20))
    assert [(s.type, s.w, s.h) for s in tiny] == [("s", 50, 20)]
    huge, _ = images.photo_sizes(_png(tmp_path, 4000, 1000))
    assert (huge[-1].type, huge[-1].w) == ("w", 2560)
    transparent, _ = images.photo_sizes(_png(tmp_path, 300, 300, "RGBA"))
    assert transparent[-1].type == "m"


def test_not_an_image(tmp_path):
    path = tmp_path / "x.jpg"
    path.write_bytes(b"plain text, not a picture")
    with pytest.raises(images.NotAnImage):
        images.photo_sizes(path)
    assert images.image_size(path) is None


@pytest.mark.parametrize(
    ("offset", "limit", "precise", "error"),
    [
        (0, 4096, False, None),
        (1024 * 1024, 1024 * 1024, False, None),
        (512 * 1024, 512 * 1024, False, None),
        (-4096, 4096, False, errors.OffsetInvalidError),
        (1024, 4096, False, errors.OffsetInvalidError),
        (0, 0, False, errors.LimitInvalidError),
        (0, 12288, False, errors.LimitInvalidError),  # does not divide 1 MB
        (0, 2 * 1024 * 1024, False, errors.LimitInvalidError),
        (1024 * 1024 - 4096, 8192, False, errors.LimitInvalidError),  # crosses a 1 MB boundary
        (1024, 3072, True, None),
        (1000, 3072, True, errors.OffsetInvalidError),
        (1024, 1000, True, errors.LimitInvalidError),
    ],
)
def test_get_file_window_rules(offset, limit, precise, error):
    if error is None:
        check_window(offset, limit, precise)
    else:
        with pytest.raises(error):
            check_window(offset, limit, precise)
