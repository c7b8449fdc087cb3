"""TL shapes of link previews: the answers of getWebPagePreview / getWebPage and the
private chats' updateWebPage."""

from __future__ import annotations

from media_app.tl_convert import web_page_media_to_tl, web_page_to_tl
from tl import types


def preview_to_tl(media: dict | None):
    m = web_page_media_to_tl(media) if media else types.MessageMediaEmpty()
    return types.messages.WebPagePreview(media=m, chats=[], users=[])


def web_page_answer_to_tl(url: str, page: dict | None, client_hash: int):
    if page is None:
        webpage = types.WebPageEmpty(id=0, url=url)
    elif client_hash and not page.get("pending") and page.get("hash") == client_hash:
        webpage = types.WebPageNotModified()
    else:
        webpage = web_page_to_tl(page)
    return types.messages.WebPage(webpage=webpage, chats=[], users=[])


def private_web_page_updates_to_tl(page: dict, pts: int, date: int):
    """A link preview in the viewer's private chats is ready: no pts of its own."""
    update = types.UpdateWebPage(webpage=web_page_to_tl(page), pts=pts, pts_count=0)
    return types.Updates(updates=[update], users=[], chats=[], date=date, seq=0)
