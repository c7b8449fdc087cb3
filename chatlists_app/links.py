"""What folder links look like: ``https://t.me/addlist/<slug>`` on the host of chat
invite links (as Telegram's clients parse them), and their link previews."""

from __future__ import annotations

from channels_app.tl_convert import INVITE_LINK_PREFIX


def link_base() -> str:
    """``https://t.me/+`` (or ``.../joinchat/``) gives ``https://t.me/``."""
    base = INVITE_LINK_PREFIX.rstrip("+")
    base = base.removesuffix("joinchat/")
    return base if base.endswith("/") else base + "/"


def link_url(slug: str) -> str:
    return f"{link_base()}addlist/{slug}"


def slug_of(link: str) -> str:
    """The slug of ``https://t.me/addlist/SLUG``, ``tg://addlist?slug=SLUG`` or ``SLUG``."""
    link = (link or "").strip().rstrip("/")
    if "slug=" in link:
        link = link.split("slug=", 1)[1].split("&", 1)[0]
    return link.rsplit("/", 1)[-1]


def link_slug(url: str) -> str | None:
    """The slug when ``url`` is one of this server's folder links, else None."""
    prefix = link_base() + "addlist/"
    plain = url.split("#", 1)[0].split("?", 1)[0]
    for candidate in (prefix, prefix.replace("https://", "http://", 1)):
        if plain.lower().startswith(candidate.lower()):
            return slug_of(plain[len(candidate) :]) or None
    return None
