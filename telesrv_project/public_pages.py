"""The two pages the admin process serves to anyone: the favicon browsers ask for on
every console page (a 404 each time filled the log with ``Not Found: /favicon.ico``),
and /login-code, which tells a user whose login code was not sent to them how to get
it (the "log" delivery, ``accounts_app.tl_convert.sent_code_to_tl``; operators link it
from wherever they tell users how to sign in)."""

from __future__ import annotations

from django.http import HttpResponse
from django.utils.html import escape
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_GET

# A paper plane on a blue disc, as SVG (every browser the console supports takes an SVG
# favicon): no binary file to keep in the repository.
FAVICON_SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">'
    '<circle cx="16" cy="16" r="16" fill="#2a8bd6"/>'
    '<path d="M7 15.5 24 9l-3 15-5.5-4-3 3 .5-4.5L21 12l-10 6.2z" fill="#fff"/></svg>'
)


@require_GET
@cache_control(max_age=86400, public=True)
def favicon(request):
    return HttpResponse(FAVICON_SVG, content_type="image/svg+xml")


@require_GET
def login_code(request):
    from django.conf import settings

    contact = escape(getattr(settings, "LOGIN_CODE_CONTACT", "") or "the people who run this server")
    body = f"""<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Your login code</title>
<link rel="icon" href="/favicon.ico"></head>
<body style="font-family: sans-serif; max-width: 38em; margin: 3em auto; line-height: 1.5">
<h1>Your login code</h1>
<p>This server sends login codes to the Telegram app on your other logged-in devices
(from "Telegram") when you have one. Without one, the code is kept for the server's
operators, who hand it to you (the app's code screen may say it was sent by SMS).
Ask {contact} for the code of your phone
number, then type it into the app.</p>
<p>Codes expire after a few minutes; ask the app for a new one if yours has.</p>
</body></html>"""
    return HttpResponse(body, content_type="text/html; charset=utf-8")
