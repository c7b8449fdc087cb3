"""The Bot API's HTTP server (aiohttp): ``/bot<token>/<method>`` over GET, POST form,
JSON and multipart, answered as ``{"ok": true, "result": ...}`` or the Bot API's error
object; ``/healthz``, ``/readyz``, ``/metrics``."""

from __future__ import annotations

import asyncio
import logging
import time

import orjson
from aiohttp import web
from prometheus_client import Counter, Histogram

from edge_app import health, metrics
from tl.errors import RpcError

from . import (
    chat_names,
    files,
    methods,
    methods_chat,
    methods_media,
    methods_polls,
    methods_values,
    methods_webapps,
    tokens,
)
from .errors import BotApiError, NotFound, TooLarge, from_rpc
from .params import Params

log = logging.getLogger("telesrv.botapi")
# Each registers its methods in methods.METHODS through @method when imported.
METHOD_MODULES = (methods, methods_chat, methods_media, methods_polls, methods_values, methods_webapps)

BODY_MAX = 50 * 1024 * 1024  # Telegram's upload limit of the Bot API
CALLS = Counter(
    "telesrv_botapi_calls", "Bot API calls answered, by method and error code", ["method", "code"]
)
SECONDS = Histogram(
    "telesrv_botapi_duration_seconds",
    "Time to answer one Bot API call (long polls included)",
    ["method"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0),
)


def _json(body: dict, status: int = 200) -> web.Response:
    return web.Response(body=orjson.dumps(body), status=status, content_type="application/json")


async def _bot_of(token: str) -> int:
    return await tokens.bot_of(token)


async def _params(request: web.Request) -> Params:
    values: dict = dict(request.query)
    if request.method == "POST" and request.can_read_body:
        ctype = request.content_type
        if ctype == "application/json":
            raw = await request.read()
            if raw.strip():
                try:
                    body = orjson.loads(raw)
                except orjson.JSONDecodeError:
                    raise BotApiError("can't parse JSON encoded request") from None
                if not isinstance(body, dict):
                    raise BotApiError("can't parse JSON encoded request: expected an Object")
                values.update(body)
        elif ctype in ("application/x-www-form-urlencoded", "multipart/form-data"):
            form = await request.post()
            for key, value in form.items():
                values[key] = value if isinstance(value, web.FileField) else str(value)
    return Params(values)


async def handle_method(request: web.Request) -> web.Response:
    name = request.match_info["method"]
    fn = methods.METHODS.get(name.lower())
    label = name if fn else "unknown"
    started = time.monotonic()
    try:
        bot_id = await _bot_of(request.match_info["token"])
        if fn is None:
            raise NotFound()
        params = await _params(request)
        await chat_names.resolve_public_chats(params, bot_id)
        result = await fn(methods.BotRef(bot_id), params)
        response = _json({"ok": True, "result": result})
    except web.HTTPRequestEntityTooLarge:
        response = _json(TooLarge().body(), 413)
    except BotApiError as exc:
        response = _json(exc.body(), exc.code)
    except RpcError as exc:
        err = from_rpc(exc)
        response = _json(err.body(), err.code)
    except Exception:
        log.exception("Bot API method %s failed", name)
        response = _json({"ok": False, "error_code": 500, "description": "Internal Server Error"}, 500)
    CALLS.labels(label, str(response.status)).inc()
    SECONDS.labels(label).observe(time.monotonic() - started)
    return response


async def handle_file(request: web.Request) -> web.Response:
    try:
        bot_id = await _bot_of(request.match_info["token"])
        data, ctype = await files.download(bot_id, request.match_info["path"])
    except BotApiError as exc:
        return _json(
            NotFound().body() if exc.code == 400 else exc.body(), 404 if exc.code == 400 else exc.code
        )
    return web.Response(body=data, content_type=ctype)


async def handle_not_found(request: web.Request) -> web.Response:
    return _json(NotFound().body(), 404)


async def healthz(request: web.Request) -> web.Response:
    return web.Response(text="ok\n")


async def readyz(request: web.Request) -> web.Response:
    ready, checks = await asyncio.to_thread(health.readiness_in_worker_thread)
    return web.Response(body=health.readiness_body(ready, checks), status=200 if ready else 503,
                        content_type="application/json")  # fmt: skip


async def metrics_page(request: web.Request) -> web.Response:
    return web.Response(body=metrics.exposition(process="botapi"), content_type="text/plain")


def make_app() -> web.Application:
    app = web.Application(client_max_size=BODY_MAX)
    app.router.add_route("*", "/bot{token}/{method}", handle_method)
    app.router.add_get("/file/bot{token}/{path:.+}", handle_file)
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/readyz", readyz)
    app.router.add_get("/metrics", metrics_page)
    app.router.add_route("*", "/{tail:.*}", handle_not_found)
    return app
