"""The console's view of media: a message's kind and size, a preview of a stored size
(the blurred thumbnail only when no size is stored)."""

from __future__ import annotations

import base64
import io
import re

from PIL import Image

from console_app.media import media_html, media_summary, photo_html
from media_app import images


def test_summary_and_thumbnail(tmp_path):
    path = tmp_path / "p.png"
    Image.new("RGB", (600, 300), (0, 0, 255)).save(path)
    sizes, stripped = images.photo_sizes(path)
    photo = {
        "id": 1, "sizes": [{"type": s.type, "w": s.w, "h": s.h, "size": len(s.jpeg)} for s in sizes],
        "stripped": base64.b64encode(stripped).decode(),
    }  # fmt: skip
    assert media_summary({"photo": photo, "kind": "photo"}).startswith("photo 600x300, ")
    html = photo_html(photo)
    # the preview is the largest stored size up to 320 px, the link opens the largest
    small = max((s for s in photo["sizes"] if max(s["w"], s["h"]) <= 320), key=lambda s: s["w"])
    assert f'src="/admin/console_app/message/media/photo/1/{small["type"]}/"' in html
    assert (
        'href="/admin/console_app/message/media/photo/1/full/"' in html
        and "open the full image (600x300)" in html
    )
    # without stored sizes, the blurred stripped thumbnail is what there is
    html = photo_html({**photo, "sizes": []})
    data = re.search(r"base64,([^\"]+)", html).group(1)
    thumb = Image.open(io.BytesIO(base64.b64decode(data)))
    thumb.load()
    assert thumb.size == (40, 20) and thumb.getpixel((5, 5))[2] > 150
    doc = {"document": {"mime_type": "audio/ogg", "size": 5000, "attributes": [{"_": "filename", "file_name": "v.ogg"}],
                        "stripped": ""}, "kind": "voice"}  # fmt: skip
    assert media_summary(doc) == "voice audio/ogg, 4.9 KB (v.ogg)"
    assert media_html(None) == "—" and photo_html(None) == "—"
