"""The rules of what link previews may fetch, checked before any connection: schemes,
ports, private / loopback / link-local addresses, the operator's allow list, names
that resolve inside, redirects; and the page parser."""

from __future__ import annotations

import ipaddress

import aiohttp
import pytest

from webpages_app import fetch, parse
from webpages_app.actions import first_url, normalize_url

NONE = fetch.AllowList.parse([])


@pytest.mark.parametrize(
    "url",
    [
        "ftp://example.com/",
        "file:///etc/passwd",
        "gopher://example.com/",
        "http://example.com:8080/",
        "https://example.com:22/",
        "http://user:pw@example.com/",
        "http://10.0.0.1/",
        "http://127.0.0.1/",
        "http://169.254.169.254/latest/meta-data/",
        "http://[::1]/",
        "http://[fe80::1]/",
        "http://192.168.1.1/",
        "http://0.0.0.0/",
        "http://224.0.0.1/",
        "http:///nohost",
    ],
)
def test_refused_by_default(url):
    with pytest.raises(fetch.Refused):
        fetch.check_url(url, NONE)


def test_public_http_and_https_on_their_ports_pass():
    assert fetch.check_url("https://example.com/a?b=c", NONE).port == 443
    assert fetch.check_url("http://example.com:80/", NONE).port == 80
    assert fetch.check_url("http://93.184.215.14/", NONE).host == "93.184.215.14"


def test_allow_list_entries():
    allow = fetch.AllowList.parse(["127.0.0.1", "intranet:8080", "10.1.0.0/16", " ", "[::1]"])
    # A bare host allows any port; host:port that port only; a CIDR any port.
    assert fetch.check_url("http://127.0.0.1:4567/", allow).port == 4567
    assert fetch.check_url("http://intranet:8080/", allow).host == "intranet"
    with pytest.raises(fetch.Refused):
        fetch.check_url("http://intranet:8081/", allow)
    assert fetch.check_url("http://10.1.2.3:9000/", allow).port == 9000
    with pytest.raises(fetch.Refused):
        fetch.check_url("http://10.2.0.1/", allow)
    assert fetch.check_url("http://[::1]:81/", allow).port == 81


async def test_names_resolving_inside_are_refused_before_connecting(monkeypatch):
    """A name is resolved and every address checked; one private address refuses it,
    and no connection is opened (the connector is never asked)."""
    asked = []

    async def lookup(host, port):
        asked.append(host)
        return {"inside.test": ["10.0.0.7"], "mixed.test": ["93.184.215.14", "127.0.0.1"]}.get(host, [])

    async def no_connection(*args, **kwargs):
        raise AssertionError("a connection was attempted")

    monkeypatch.setattr(aiohttp.TCPConnector, "connect", no_connection)
    for url in (
        "http://inside.test/",
        "https://mixed.test/x",
        "http://10.0.0.1/",
        "http://[::ffff:10.0.0.1]/",
    ):
        with pytest.raises(fetch.Refused):
            await fetch.fetch(url, NONE, max_bytes=1000, timeout=2, lookup=lookup)
    assert asked == ["inside.test", "mixed.test"]  # an address literal needs no lookup
    with pytest.raises(fetch.FetchFailed):
        await fetch.fetch("http://nowhere.test/", NONE, max_bytes=1000, timeout=2, lookup=lookup)


async def test_redirect_into_a_private_address_is_refused():
    """The first hop is allowed (the allow list), its redirect to a private address is
    checked again and refused."""
    from aiohttp import web

    async def moved(request):
        raise web.HTTPFound("http://10.0.0.1/secret")

    app = web.Application()
    app.router.add_get("/", moved)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]
    try:
        with pytest.raises(fetch.Refused):
            await fetch.fetch(
                f"http://127.0.0.1:{port}/", fetch.AllowList.parse(["127.0.0.1"]), max_bytes=10_000, timeout=5
            )
    finally:
        await runner.cleanup()


async def test_size_cap():
    from aiohttp import web

    async def big(request):
        return web.Response(body=b"x" * 50_000, content_type="text/html")

    app = web.Application()
    app.router.add_get("/", big)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]
    try:
        allow = fetch.AllowList.parse(["127.0.0.1"])
        with pytest.raises(fetch.FetchFailed):
            await fetch.fetch(f"http://127.0.0.1:{port}/", allow, max_bytes=10_000, timeout=5)
        got = await fetch.fetch(f"http://127.0.0.1:{port}/", allow, max_bytes=60_000, timeout=5)
        assert len(got.body) == 50_000
    finally:
        await runner.cleanup()


def test_check_address_rules():
    t = fetch.Target("http://x/", "http", "x", 80)
    fetch.check_address(t, ipaddress.ip_address("93.184.215.14"), NONE)
    for bad in ("10.0.0.1", "172.16.0.1", "100.64.0.1", "::1", "fc00::1", "169.254.1.1"):
        with pytest.raises(fetch.Refused):
            fetch.check_address(t, ipaddress.ip_address(bad), NONE)


def test_parse_open_graph_then_twitter_then_html():
    page = b"""<html><head><title> Plain  &amp; simple </title>
    <meta name="description" content="html description">
    <meta name="twitter:title" content="Twitter title">
    <meta name="twitter:image" content="img/t.png">
    <meta name="twitter:card" content="summary_large_image">
    </head><body><meta property="og:title" content="too late, in the body"></body></html>"""
    got = parse.parse_page(page, "text/html; charset=utf-8", "https://ex.org/a/b")
    assert got["title"] == "Twitter title"
    assert got["description"] == "html description"
    assert got["image"] == "https://ex.org/a/img/t.png" and got["large_image"]
    plain = parse.parse_page(b"<title> Plain  &amp; simple </title>", "text/html", "https://ex.org/")
    assert plain["title"] == "Plain & simple" and plain["image"] is None
    og = parse.parse_page(
        '<meta property="og:title" content="Ünïcode"><meta property="og:site_name" content="S">'.encode(
            "latin-1"
        ),
        "text/html; charset=latin-1",
        "https://ex.org/",
    )
    assert og["title"] == "Ünïcode" and og["site_name"] == "S"


def test_first_url_of_a_message():
    assert first_url("see https://Example.COM/x#frag, ok", []) == "https://example.com/x"
    assert first_url("www.example.org/path.", []) == "http://www.example.org/path"
    text = "a 😀 b example.net c"
    ents = [{"type": "url", "offset": 7, "length": 11}]
    assert first_url(text, ents) == "http://example.net/"  # UTF-16 offsets; a bare domain is a web link
    assert first_url("x", [{"type": "textUrl", "offset": 0, "length": 1, "url": "https://t.example/"}]) == (
        "https://t.example/"
    )
    assert first_url("no link here", []) is None
    assert normalize_url("javascript:alert(1)") is None
