"""Link previews with unmodified clients: a link to a page served on this machine shows
its title, description and image (pending first, then updateWebPage /
updateChannelWebPage), getWebPagePreview and inputMediaWebPage, no_webpage, and a URL
to a private address refused without storing anything."""

from __future__ import annotations

import io
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.e2e.test_channels import collect, input_user, logged_in, make_live_kurigram, wait_for
from webpages_app.models import WebPage

pytestmark = pytest.mark.django_db(transaction=True)


def _png() -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (640, 360), (200, 40, 40)).save(buf, "PNG")
    return buf.getvalue()


PAGE = """<!doctype html><html><head><title>Plain title</title>
<meta property="og:title" content="The Preview Title">
<meta property="og:description" content="What the page is about &amp; more">
<meta property="og:site_name" content="Local Site">
<meta property="og:image" content="/cover.png">
</head><body>body text</body></html>"""


@pytest.fixture
def site():
    """A web site on 127.0.0.1 (the tests' TELESRV_LINK_PREVIEW_ALLOW); its request log."""
    image = _png()
    hits: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            hits.append(self.path)
            if self.path.startswith("/cover.png"):
                body, ctype = image, "image/png"
            elif self.path.startswith("/moved"):
                self.send_response(302)
                self.send_header("Location", "/page?via=redirect")
                self.end_headers()
                return
            elif self.path.startswith("/page"):
                body, ctype = PAGE.encode(), "text/html; charset=utf-8"
            else:
                self.send_response(404)
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", hits
    server.shutdown()
    server.server_close()


def _peer(viewer, target):
    from telethon import types

    from accounts_app.access import user_access_hash

    return types.InputPeerUser(target.id, user_access_hash(viewer.id, target.id))


async def test_private_link_preview_pending_then_full_with_image(edge_server, edge_db, clients, site):
    from telethon import events, functions, types

    base, hits = site
    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bob, b, _, _ = await logged_in(edge_server, "Bob", clients)
    raw_b = []
    b.add_event_handler(collect(raw_b), events.Raw())
    await b.get_dialogs()

    url = f"{base}/page?n=1"
    sent = await a.send_message(_peer(alice, bob), f"look at {url} please")
    assert isinstance(sent.media, types.MessageMediaWebPage)
    assert isinstance(sent.media.webpage, types.WebPagePending | types.WebPage)

    # Bob hears of the page when it is ready; his history shows it whole.
    await wait_for(lambda: any(isinstance(u, types.UpdateWebPage) for u in raw_b), timeout=15)
    page = next(u.webpage for u in raw_b if isinstance(u, types.UpdateWebPage))
    assert page.title == "The Preview Title" and page.site_name == "Local Site"
    history = await b(functions.messages.GetHistoryRequest(_peer(bob, alice), 0, 0, 0, 5, 0, 0, 0))
    web = history.messages[0].media.webpage
    assert isinstance(web, types.WebPage) and web.id == page.id
    assert web.title == "The Preview Title" and web.description == "What the page is about & more"
    assert web.url == url and web.display_url.startswith("127.0.0.1:")
    assert isinstance(web.photo, types.Photo)
    data = await b.download_media(history.messages[0], file=bytes)
    assert data[:3] == b"\xff\xd8\xff"  # the image, re-encoded by the media store

    # The cache: the same link again is the ready page at once, fetched no more.
    page_hits = sum(h.startswith("/page") for h in hits)
    again = await a.send_message(_peer(alice, bob), url)
    assert isinstance(again.media.webpage, types.WebPage) and again.media.webpage.id == page.id
    assert sum(h.startswith("/page") for h in hits) == page_hits

    # no_webpage: no preview at all.
    plain = await a.send_message(_peer(alice, bob), url, link_preview=False)
    assert plain.media is None

    # An edit's text decides its preview: a link gets one, no link none.
    linked = await a.edit_message(_peer(alice, bob), plain.id, f"now with {url}")
    assert isinstance(linked.media.webpage, types.WebPage) and linked.media.webpage.id == page.id
    unlinked = await a.edit_message(_peer(alice, bob), plain.id, "no link any more")
    assert unlinked.media is None
    seen = await b(functions.messages.GetHistoryRequest(_peer(bob, alice), 0, 0, 0, 1, 0, 0, 0))
    assert seen.messages[0].message == "no link any more" and seen.messages[0].media is None

    # getWebPagePreview follows a redirect (checked again) and reads the page.
    preview = await a(functions.messages.GetWebPagePreviewRequest(message=f"{base}/moved"))
    assert isinstance(preview.media, types.MessageMediaWebPage)
    assert preview.media.webpage.title == "The Preview Title"
    got = await a(functions.messages.GetWebPageRequest(url=url, hash=0))
    assert got.webpage.id == page.id
    same = await a(functions.messages.GetWebPageRequest(url=url, hash=got.webpage.hash))
    assert isinstance(same.webpage, types.WebPageNotModified)


async def test_input_media_web_page_and_private_address_refused(edge_server, edge_db, clients, site):
    from telethon import errors, functions, types

    base, _ = site
    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bob, _, _, _ = await logged_in(edge_server, "Bob", clients)
    peer = _peer(alice, bob)

    chosen = await a(functions.messages.SendMediaRequest(
        peer=peer, media=types.InputMediaWebPage(url=f"{base}/page?n=2", force_large_media=True),
        message="", invert_media=True,
    ))  # fmt: skip
    msg = next(u.message for u in chosen.updates if isinstance(u, types.UpdateNewMessage))
    assert msg.invert_media and msg.media.force_large_media and msg.media.manual
    assert msg.media.webpage.title == "The Preview Title"

    # A private address: refused before any connection, nothing stored or sent.
    before = await a(functions.messages.GetHistoryRequest(peer, 0, 0, 0, 5, 0, 0, 0))
    with pytest.raises(errors.WebpageCurlFailedError):
        await a(functions.messages.SendMediaRequest(
            peer=peer, media=types.InputMediaWebPage(url="http://10.0.0.1/admin"), message="x",
        ))  # fmt: skip
    preview = await a(functions.messages.GetWebPagePreviewRequest(message="see http://10.0.0.1/admin"))
    assert isinstance(preview.media, types.MessageMediaEmpty)
    text = await a.send_message(peer, "see http://10.0.0.1/admin")
    assert text.media is None
    after = await a(functions.messages.GetHistoryRequest(peer, 0, 0, 0, 5, 0, 0, 0))
    assert len(after.messages) == len(before.messages) + 1
    assert not await WebPage.objects.filter(url__contains="10.0.0.1").aexists()
    # A send refused for its peer stores no page for its link either.
    with pytest.raises(errors.RPCError):
        await a.send_message(types.InputPeerChannel(424242, 1), f"{base}/page?never=1")
    assert not await WebPage.objects.filter(url__contains="never=1").aexists()


async def test_channel_link_preview_reaches_members(edge_server, edge_db, clients, site):
    from telethon import events, functions, types

    base, _ = site
    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bob, b, _, _ = await logged_in(edge_server, "Bob", clients)
    created = await a(functions.messages.CreateChatRequest(users=[input_user(alice, bob)], title="Links"))
    channel = created.updates.chats[1]
    raw_b = []
    b.add_event_handler(collect(raw_b), events.Raw())
    await b.get_dialogs()
    chan = types.InputPeerChannel(channel.id, channel.access_hash)
    await a.send_message(chan, f"{base}/page?n=3")
    await wait_for(lambda: any(isinstance(u, types.UpdateChannelWebPage) for u in raw_b), timeout=15)
    upd = next(u for u in raw_b if isinstance(u, types.UpdateChannelWebPage))
    assert upd.channel_id == channel.id and upd.webpage.title == "The Preview Title"
    hist = await b(functions.messages.GetHistoryRequest(chan, 0, 0, 0, 1, 0, 0, 0))
    assert hist.messages[0].media.webpage.site_name == "Local Site"
    edited = await a.edit_message(chan, hist.messages[0].id, "the link is gone")
    assert edited.media is None
    text = await a.send_message(chan, "plain text")
    relinked = await a.edit_message(chan, text.id, f"{base}/page?n=3 again")
    assert relinked.media.webpage.id == upd.webpage.id


async def test_kurigram_sends_a_link_and_sees_its_preview(edge_server, edge_db, clients, site):
    from tests.e2e.test_channels import new_user

    base, _ = site
    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bob, phone, code = await new_user("Bob")
    k = make_live_kurigram(edge_server, "preview_bob")
    await k.connect()
    try:
        sent_code = await k.send_code(phone)
        await k.sign_in(phone, sent_code.phone_code_hash, code)
        await k.initialize()
        await a.send_message(_peer(alice, bob), "hi")  # Kurigram meets Alice in its dialogs
        assert [d.chat.id async for d in k.get_dialogs()] == [alice.id]
        url = f"{base}/page?n=4"
        await k.send_message(alice.id, f"from Kurigram: {url}")

        async def title():
            got = [m async for m in k.get_chat_history(alice.id, limit=1)]
            return got[0].web_page.title if got and got[0].web_page else None

        seen = []

        async def poll():
            seen.append(await title())
            return seen[-1] == "The Preview Title"

        import asyncio

        for _ in range(60):
            if await poll():
                break
            await asyncio.sleep(0.25)
        assert seen[-1] == "The Preview Title"
        got = [m async for m in k.get_chat_history(alice.id, limit=1)]
        assert got[0].web_page.site_name == "Local Site" and got[0].web_page.photo is not None
    finally:
        await k.stop() if k.is_initialized else await k.disconnect()
