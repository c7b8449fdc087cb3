"""Which messages get a preview, and what is stored for them."""

from __future__ import annotations

from messages_app.rpc.webpages import preview_for
from webpages_app import actions
from webpages_app.models import WebPage


async def test_turned_off_nothing_is_fetched_or_stored(chan, settings):
    settings.LINK_PREVIEWS = False
    settings.LINK_PREVIEW_ALLOW = ["127.0.0.1"]
    assert await preview_for("see http://127.0.0.1:9/x", [], no_webpage=False, invert_media=False) is None
    assert not await WebPage.objects.aexists()


async def test_a_new_link_is_one_row_once_sent_and_refused_ones_are_not_stored(chan, settings):
    settings.LINK_PREVIEWS = True
    settings.LINK_PREVIEW_ALLOW = ["127.0.0.1"]
    first = await preview_for("http://127.0.0.1:9/x", [], no_webpage=False, invert_media=True)
    assert first["webpage"]["pending"] and first["invert_media"]
    assert not await WebPage.objects.aexists()  # stored once a message shows it
    page_id = await actions.do_hold(first["webpage"], [])
    again = await preview_for("see HTTP://127.0.0.1:9/x#top", [], no_webpage=False, invert_media=False)
    assert again["webpage"]["id"] == first["webpage"]["id"] == page_id  # one row per URL
    assert await preview_for("http://127.0.0.1:9/x", [], no_webpage=True, invert_media=False) is None
    for refused in ("http://10.0.0.1/", "http://[::1]/", "ftp://127.0.0.1/", "http://192.168.0.1:8080/"):
        assert await preview_for(refused, [], no_webpage=False, invert_media=False) is None
    assert [w.url async for w in WebPage.objects.all()] == ["http://127.0.0.1:9/x"]
    # Nothing listens on port 9: fetched, the page is "no preview", kept as such.
    row = await actions.claim(first["webpage"]["id"])
    done = await actions.do_fetch(row)
    assert done["state"] == "empty"
    assert await preview_for("http://127.0.0.1:9/x", [], no_webpage=False, invert_media=False) is None
