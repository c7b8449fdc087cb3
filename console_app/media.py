"""How the console shows media: a message's photo or document, a chat's photo.

Previews are the stored photo sizes (or a document's thumbnail) served by
:func:`media_file` to logged-in staff only; the full image opens in a new tab, a
document downloads, a voice note or audio file plays in the page. The blurred stripped
thumbnail is only the fallback when no stored size exists."""

from __future__ import annotations

import base64

from django.http import FileResponse, Http404
from django.urls import reverse
from django.utils.html import format_html

from media_app.images import stripped_to_jpeg

PREVIEW_MAX = 320  # px: the largest stored size up to this is the preview
# Served inline with their own type; anything else downloads as bytes, so an uploaded
# HTML or SVG file never runs as a page of the console's origin.
INLINE_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp", "audio/", "video/")


def _size(n: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return ""


def _file_name(doc: dict) -> str:
    return next((a.get("file_name", "") for a in doc.get("attributes", []) if a.get("_") == "filename"), "")


def media_url(kind: str, media_id: int, size: str = "full") -> str:
    return reverse("admin:console_app_media", args=[kind, media_id, size])


def _stripped(stripped_b64: str) -> str:
    if not stripped_b64:
        return ""
    jpeg = stripped_to_jpeg(base64.b64decode(stripped_b64))
    if not jpeg:
        return ""
    return format_html(
        '<img alt="blurred preview" class="console-thumb" src="data:image/jpeg;base64,{}">',
        base64.b64encode(jpeg).decode(),
    )


def preview_size(sizes: list[dict]) -> dict | None:
    fitting = [s for s in sizes if max(s.get("w", 0), s.get("h", 0)) <= PREVIEW_MAX]
    return (fitting or sizes[:1] or [None])[-1]


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
    if media.get("webpage") is not None:
        w = media["webpage"]
        state = "pending" if w.get("pending") else ("no preview" if w.get("empty") else w.get("title") or "")
        return f"link preview {w.get('url', '')}: {state}"
    value = value_summary(media)
    if value:
        return value
    if media.get("photo"):
        big = (media["photo"].get("sizes") or [{}])[-1]
        return f"photo {big.get('w', 0)}x{big.get('h', 0)}, {_size(big.get('size', 0))}"
    doc = media.get("document") or {}
    if not doc:
        return str(media.get("kind") or "media")
    name = _file_name(doc)
    label = f"{media.get('kind', 'document')} {doc.get('mime_type', '')}, {_size(doc.get('size', 0))}"
    return f"{label} ({name})" if name else label


def media_mark(media: dict | None) -> str:
    """A short mark for a list row: "[photo]", "[voice]", "[document report.pdf]"."""
    if not media:
        return ""
    if media.get("photo"):
        return "[photo]"
    doc = media.get("document") or {}
    kind = media.get("kind") or "document"
    if kind in ("voice", "music", "video", "round", "gif"):
        # a recording is known by its length, not by the name its app gave the file
        seconds = next(
            (
                int(a.get("duration") or 0)
                for a in doc.get("attributes", [])
                if a.get("_") in ("audio", "video")
            ),
            0,
        )
        return f"[{kind} {seconds // 60}:{seconds % 60:02d}]" if seconds else f"[{kind}]"
    name = _file_name(doc)
    return f"[{kind} {name}]" if name else f"[{kind}]"


def _photo_preview(photo: dict) -> str:
    sizes = photo.get("sizes") or []
    small = preview_size(sizes)
    if small is None or not photo.get("id"):
        return _stripped(photo.get("stripped", ""))
    return format_html(
        '<a href="{}" target="_blank" class="console-media-open">'
        '<img alt="photo" class="console-preview" src="{}" width="{}" height="{}"></a>'
        '<br><a href="{}" target="_blank">open the full image ({}x{})</a>',
        media_url("photo", photo["id"]),
        media_url("photo", photo["id"], small["type"]),
        small.get("w", 0),
        small.get("h", 0),
        media_url("photo", photo["id"]),
        sizes[-1].get("w", 0),
        sizes[-1].get("h", 0),
    )


def _document_preview(doc: dict, kind: str) -> str:
    if not doc.get("id"):
        return ""
    url = media_url("document", doc["id"])
    mime = doc.get("mime_type") or ""
    parts = []
    thumb = preview_size(doc.get("thumbs") or [])
    if thumb is not None:
        parts.append(
            format_html(
                '<img alt="thumbnail" class="console-preview" src="{}">',
                media_url("document", doc["id"], thumb["type"]),
            )
        )
    elif doc.get("stripped"):
        parts.append(_stripped(doc["stripped"]))
    if kind in ("voice", "music") or mime.startswith("audio/"):
        parts.append(format_html('<audio controls preload="none" src="{}"></audio>', url))
    elif kind in ("video", "round", "gif") or mime.startswith("video/"):
        parts.append(format_html('<video controls preload="none" width="320" src="{}"></video>', url))
    elif mime in INLINE_TYPES[:4]:
        parts.append(format_html('<a href="{}" target="_blank">open the image</a>', url))
    parts.append(format_html('<a href="{}?download=1" class="console-download">download</a>', url))
    return format_html("<br>".join(["{}"] * len(parts)), *parts)


def media_html(media: dict | None) -> str:
    if not media:
        return "—"
    if media.get("photo"):
        return format_html("{}<br>{}", media_summary(media), _photo_preview(media["photo"]))
    doc = media.get("document") or {}
    return format_html("{}<br>{}", media_summary(media), _document_preview(doc, media.get("kind") or ""))


def photo_html(photo: dict | None) -> str:
    if not photo:
        return "—"
    return media_html({"photo": photo})


def media_file(request, kind: str, media_id: int, size: str):
    """One stored file for staff: a photo size ("full" is the largest), a document or
    one of its thumbnails. Wrapped in ``admin_view`` (logged-in staff only)."""
    from django.core.exceptions import PermissionDenied

    from media_app import storage
    from media_app.models import Document, Photo

    staff = request.user
    if not (staff.has_perm("console_app.view_message") or staff.has_perm("channels_app.view_channel")):
        raise PermissionDenied
    size = size[:8]
    if kind == "photo":
        row = Photo.objects.filter(id=media_id).only("sizes").first()
        if row is None or not row.sizes:
            raise Http404("no such photo")
        pick = row.sizes[-1] if size == "full" else next((s for s in row.sizes if s["type"] == size), None)
        if pick is None:
            raise Http404("no such size")
        sha, mime, name, inline = pick["sha256"], "image/jpeg", f"photo-{media_id}-{pick['type']}.jpg", True
    elif kind == "document":
        row = Document.objects.filter(id=media_id).only("sha256", "mime_type", "thumbs", "attributes").first()
        if row is None:
            raise Http404("no such document")
        if size == "full":
            sha, mime = row.sha256, row.mime_type or "application/octet-stream"
            name = _file_name({"attributes": row.attributes}) or f"document-{media_id}"
            inline = mime.startswith(INLINE_TYPES)
        else:
            pick = next((s for s in row.thumbs if s["type"] == size), None)
            if pick is None:
                raise Http404("no such thumbnail")
            sha, mime, name, inline = pick["sha256"], "image/jpeg", f"thumb-{media_id}.jpg", True
    else:
        raise Http404("unknown media kind")
    if request.GET.get("download"):
        inline = False
    try:
        blob = storage.open_blob(sha)
    except (FileNotFoundError, OSError) as exc:
        raise Http404("the file is not in the media storage") from exc
    response = FileResponse(
        blob,
        as_attachment=not inline,
        filename=name,
        content_type=mime if inline else "application/octet-stream",
    )
    response["X-Content-Type-Options"] = "nosniff"
    if not inline:
        response["Content-Security-Policy"] = "default-src 'none'; sandbox"
    response["Cache-Control"] = "private, max-age=3600"
    return response
