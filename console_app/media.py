"""How the console shows media: a message's photo or document (kind, size, the
blurred thumbnail) and a chat's photo, from the snapshots the rows keep."""

from __future__ import annotations

import base64

from django.utils.html import format_html

from media_app.images import stripped_to_jpeg


def _size(n: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return ""


def _thumb(stripped_b64: str) -> str:
    if not stripped_b64:
        return ""
    jpeg = stripped_to_jpeg(base64.b64decode(stripped_b64))
    if not jpeg:
        return ""
    return format_html(
        '<img alt="" style="width:80px;image-rendering:auto" src="data:image/jpeg;base64,{}">',
        base64.b64encode(jpeg).decode(),
    )


def value_summary(media: dict) -> str:
    """Dice, places, contacts and polls: what they say (a poll's question and answers,
    never its voters)."""
    kind = media.get("kind")
    if kind == "dice":
        return f"dice {media['dice']['emoticon']} = {media['dice']['value']}"
    if kind in ("geo", "venue", "geo_live"):
        g = media["geo"]
        where = f"{g['lat']:.5f}, {g['long']:.5f}"
        if kind == "venue":
            return f"venue {media['venue']['title']} ({media['venue']['address']}) at {where}"
        if kind == "geo_live":
            return f"live location at {where} for {media['live']['period']} s"
        return f"location {where}"
    if kind == "contact":
        c = media["contact"]
        return f"contact {c['first_name']} {c['last_name']} {c['phone_number']}".replace("  ", " ")
    if kind == "poll":
        p = media["poll"]
        label = "quiz" if p.get("quiz") else "poll"
        return f"{label} {p['question']} [{' / '.join(a['text'] for a in p['answers'])}]"
    return ""


def media_summary(media: dict | None) -> str:
    """e.g. "photo 1500x1000, 210.3 KB" or "voice audio/ogg, 4.9 KB"."""
    if not media:
        return ""
    value = value_summary(media)
    if value:
        return value
    if media.get("photo"):
        big = (media["photo"].get("sizes") or [{}])[-1]
        return f"photo {big.get('w', 0)}x{big.get('h', 0)}, {_size(big.get('size', 0))}"
    doc = media.get("document") or {}
    name = next((a["file_name"] for a in doc.get("attributes", []) if a.get("_") == "filename"), "")
    label = f"{media.get('kind', 'document')} {doc.get('mime_type', '')}, {_size(doc.get('size', 0))}"
    return f"{label} ({name})" if name else label


def media_html(media: dict | None) -> str:
    if not media:
        return "—"
    item = media.get("photo") or media.get("document") or {}
    return format_html("{}<br>{}", media_summary(media), _thumb(item.get("stripped", "")))


def photo_html(photo: dict | None) -> str:
    if not photo:
        return "—"
    return media_html({"photo": photo})
