"""Link previews of any peer: the preview a text message gets (``preview_for`` before
the send, ``after_send`` once it has ids), messages.sendMedia with inputMediaWebPage
(``web_page_media``), messages.getWebPagePreview and messages.getWebPage. The pages,
their fetching and their cache are ``webpages_app``'s."""

from __future__ import annotations

from edge_app.registry import rpc
from message_core import limits
from message_core.context import resolve_input_user, viewer
from message_core.tl_convert import entities_from_tl
from tl import functions, types
from tl.errors import MessageTooLongError, UrlInvalidError, WebpageCurlFailedError
from webpages_app import actions, worker
from webpages_app import tl_convert as web_tl

URL_MAX = actions.URL_MAX


def check_text(message: str) -> None:
    """A text too long is refused before its link is looked at (nothing is fetched)."""
    if len(message) > limits.MESSAGE_MAX:
        raise MessageTooLongError()


async def preview_for(text: str, entities: list[dict] | None, *, no_webpage: bool, invert_media: bool,
                      wait: bool = False) -> dict | None:  # fmt: skip
    """The preview media of a text message (None: it gets none). A page not cached yet
    is pending: the message is filled in when it is fetched (``after_send``)."""
    if no_webpage or not actions.enabled():
        return None
    url = actions.first_url(text, entities)
    if url is None:
        return None
    page = await (worker.preview_now(url) if wait else actions.do_preview(url, wait=False))
    return actions.media_of(page, invert_media=invert_media) if page else None


async def web_page_media(req: functions.messages.SendMedia) -> dict | None:
    """inputMediaWebPage: the page is fetched now (the client chose it). A URL that
    gives no preview is WEBPAGE_CURL_FAILED, or no preview when it is ``optional``."""
    m: types.InputMediaWebPage = req.media
    if not actions.enabled():
        return None  # the operator turned previews off: the link goes as text
    url = actions.normalize_url(m.url or "")
    page = await worker.preview_now(url) if url else None
    if page is None or page.get("pending"):
        if m.optional:
            return None
        raise WebpageCurlFailedError()
    return actions.media_of(
        page, force_large=bool(m.force_large_media), force_small=bool(m.force_small_media), manual=True,
        invert_media=bool(req.invert_media),
    )  # fmt: skip


async def after_send(media: dict | None, refs: list[tuple[str, int, int, int]]) -> None:
    """Messages just sent with a pending page wait for it; its fetch starts."""
    if not media or media.get("kind") != "webpage" or not media["webpage"].get("pending"):
        return
    worker.start(await actions.do_hold(media["webpage"], refs))


def channel_refs(change) -> list[tuple[str, int, int, int]]:
    cid = change.channel["id"]
    return [("c", cid, 0, e.message["id"]) for e in change.events if e.message]


def private_refs(me: int, peer_id: int, change) -> list[tuple[str, int, int, int]]:
    return [("p", me, peer_id, m["message_pk"]) for m in change.messages if m.get("message_pk")]


@rpc(functions.messages.GetWebPagePreview)
async def get_web_page_preview(ctx, req: functions.messages.GetWebPagePreview):
    """The preview the text would get, fetched now (bounded by the fetch timeout)."""
    me = viewer(ctx)
    if len(req.message) > limits.MESSAGE_MAX:
        raise MessageTooLongError()
    entities = entities_from_tl(req.entities, resolve_input_user(me))
    media = await preview_for(req.message, entities, no_webpage=False, invert_media=False, wait=True)
    return web_tl.preview_to_tl(media)


@rpc(functions.messages.GetWebPage)
async def get_web_page(ctx, req: functions.messages.GetWebPage):
    viewer(ctx)
    if not req.url or len(req.url) > URL_MAX:
        raise UrlInvalidError()
    url = actions.normalize_url(req.url)
    page = await worker.preview_now(url) if url else None
    return web_tl.web_page_answer_to_tl(req.url, page, req.hash)
