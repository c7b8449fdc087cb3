"""The built web client, served by the admin process at /web/ (docs/webclient.md):
the app's files with their MIME types, hashed assets cached for a year and everything
else revalidated; /web/telesrv.json, where the app learns this deployment's WebSocket
URL and RSA key; /web/source.tar.gz, the exact source it was built from (GPL-3)."""

from __future__ import annotations

import json
import mimetypes
import re
from pathlib import Path

from django.http import FileResponse, Http404, HttpResponse, HttpResponseRedirect
from django.views.decorators.http import require_GET

from webclient_app import builder, pointing

# Types mimetypes may not know, or knows differently on some systems.
TYPES = {
    ".js": "text/javascript",
    ".mjs": "text/javascript",
    ".css": "text/css",
    ".html": "text/html; charset=utf-8",
    ".json": "application/json",
    ".webmanifest": "application/manifest+json",
    ".wasm": "application/wasm",
    ".svg": "image/svg+xml",
    ".woff2": "font/woff2",
    ".woff": "font/woff",
    ".ttf": "font/ttf",
    ".tgs": "application/x-tgsticker",
    ".map": "application/json",
}
# vite names what it bundles name-<8+ char hash>.ext: those never change under one name.
HASHED = re.compile(r"-[A-Za-z0-9_-]{8,}\.[a-z0-9]+$")
IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"
SOURCE_LINK = '</web/source.tar.gz>; rel="source"'
NOT_BUILT = "The web client is not built yet. Run: manage.py webclient build --src DIR (docs/webclient.md)\n"


def _served() -> Path:
    found = builder.current()
    if found is None:
        raise Http404(NOT_BUILT)
    return found


def _not_built() -> HttpResponse:
    return HttpResponse(NOT_BUILT, status=404, content_type="text/plain; charset=utf-8")


@require_GET
def app_file(request, name: str = ""):
    try:
        build = _served()
    except Http404:
        return _not_built()
    if name == pointing.CONFIG_FILE:
        response = HttpResponse(json.dumps(pointing.deployment_config()), content_type="application/json")
        response["Cache-Control"] = REVALIDATE
        return response
    if name == "source.tar.gz":
        response = FileResponse((build / "source.tar.gz").open("rb"), content_type="application/gzip")
        response["Content-Disposition"] = f'attachment; filename="webclient-source-{build.name}.tar.gz"'
        response["Cache-Control"] = REVALIDATE
        return response
    root = (build / "app").resolve()
    path = (root / (name or "index.html")).resolve()
    if not path.is_relative_to(root):
        raise Http404("outside the app")
    if path.is_dir():
        if not name.endswith("/") and name:
            return HttpResponseRedirect(request.path + "/")
        path = path / "index.html"
    if not path.is_file():
        raise Http404(name)
    kind = TYPES.get(path.suffix) or mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    response = FileResponse(path.open("rb"), content_type=kind)
    response["Cache-Control"] = IMMUTABLE if HASHED.search(path.name) else REVALIDATE
    response["X-Content-Type-Options"] = "nosniff"
    if path.name == "index.html":
        response["Link"] = SOURCE_LINK
    return response
