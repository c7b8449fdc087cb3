"""A page's preview from its HTML: Open Graph, then Twitter card, then plain HTML
meta (title, description), as link previews read them."""

from __future__ import annotations

import html
from html.parser import HTMLParser
from urllib.parse import urljoin

TITLE_MAX = 256
DESCRIPTION_MAX = 1024
SITE_NAME_MAX = 128


class _MetaParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.meta: dict[str, str] = {}
        self.title = ""
        self._in_title = False
        self.done = False

    def handle_starttag(self, tag, attrs):
        if self.done:
            return
        a = {k.lower(): (v or "") for k, v in attrs}
        if tag == "meta":
            key = (a.get("property") or a.get("name") or a.get("itemprop") or "").strip().lower()
            if key and "content" in a and key not in self.meta:
                self.meta[key] = a["content"].strip()
        elif tag == "title" and not self.title:
            self._in_title = True
        elif tag == "body":
            self.done = True  # what a preview reads is in the head

    def handle_endtag(self, tag):
        if tag == "title":
            self._in_title = False
        elif tag == "head":
            self.done = True

    def handle_data(self, data):
        if self._in_title:
            self.title += data


def _charset(content_type: str) -> str:
    for part in content_type.split(";")[1:]:
        k, _, v = part.strip().partition("=")
        if k.lower() == "charset" and v:
            return v.strip("\"'")
    return "utf-8"


def _clip(text: str | None, cap: int) -> str | None:
    text = " ".join(html.unescape(text or "").split())
    return text[:cap] if text else None


def parse_page(body: bytes, content_type: str, url: str) -> dict:
    """title, description, site_name, type and image (an absolute URL) of a page."""
    try:
        text = body.decode(_charset(content_type), errors="replace")
    except LookupError:
        text = body.decode("utf-8", errors="replace")
    p = _MetaParser()
    for start in range(0, len(text), 8192):
        p.feed(text[start : start + 8192])
        if p.done:
            break
    m = p.meta

    def first(*keys):
        return next((m[k] for k in keys if m.get(k)), None)

    image = first("og:image", "og:image:url", "og:image:secure_url", "twitter:image", "twitter:image:src")
    return {
        "title": _clip(first("og:title", "twitter:title") or p.title, TITLE_MAX),
        "description": _clip(first("og:description", "twitter:description", "description"), DESCRIPTION_MAX),
        "site_name": _clip(first("og:site_name", "application-name"), SITE_NAME_MAX),
        "type": _clip(first("og:type"), 32) or "article",
        "image": urljoin(url, image) if image else None,
        "large_image": m.get("twitter:card") == "summary_large_image",
    }
