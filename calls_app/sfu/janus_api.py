"""A client of Janus' HTTP API (sessions, plugin handles, requests, events).

Nothing here is kept between calls except one control handle per node and process, for
the plugins' synchronous requests (create/mute/kick/list/destroy). A participant's own
session lives in Janus until it leaves; its id is written in the participant's
``display`` so that any listener process can end it.
"""

from __future__ import annotations

import asyncio
import secrets

import aiohttp
from django.conf import settings


class JanusError(Exception):
    def __init__(self, code: int, reason: str):
        super().__init__(f"{code}: {reason}")
        self.code = code
        self.reason = reason


class JanusUnreachable(Exception):
    pass


# Janus' error codes the adapter reacts to.
SESSION_NOT_FOUND = 458
HANDLE_NOT_FOUND = 459


def _timeout(extra: float = 0) -> aiohttp.ClientTimeout:
    return aiohttp.ClientTimeout(total=settings.SFU_TIMEOUT + extra)


async def _post(url: str, body: dict) -> dict:
    body = {**body, "transaction": secrets.token_hex(8)}
    try:
        async with aiohttp.ClientSession(timeout=_timeout()) as http, http.post(url, json=body) as r:
            data = await r.json(content_type=None)
    except (TimeoutError, aiohttp.ClientError, ValueError) as e:
        raise JanusUnreachable(f"{url}: {e!r}") from e
    if data.get("janus") == "error":
        err = data.get("error") or {}
        raise JanusError(int(err.get("code", 0)), str(err.get("reason", "")))
    return data


async def create_session(base: str) -> int:
    return (await _post(base, {"janus": "create"}))["data"]["id"]


async def destroy_session(base: str, session: int) -> None:
    await _post(f"{base}/{session}", {"janus": "destroy"})


async def attach(base: str, session: int, plugin: str) -> int:
    return (await _post(f"{base}/{session}", {"janus": "attach", "plugin": plugin}))["data"]["id"]


def _plugin_error(data: dict) -> None:
    pd = (data.get("plugindata") or {}).get("data") or {}
    if "error_code" in pd:
        raise JanusError(int(pd["error_code"]), str(pd.get("error", "")))


async def request(base: str, session: int, handle: int, body: dict) -> dict:
    """A plugin's synchronous request: its answer's ``plugindata.data``."""
    data = await _post(f"{base}/{session}/{handle}", {"janus": "message", "body": body})
    _plugin_error(data)
    return (data.get("plugindata") or {}).get("data") or {}


async def request_async(
    base: str, session: int, handle: int, body: dict, jsep: dict | None = None
) -> tuple[dict, dict | None]:
    """A plugin's asynchronous request (maybe carrying an SDP): its event and the event's JSEP."""
    message = {"janus": "message", "body": body}
    if jsep is not None:
        message["jsep"] = jsep
    data = await _post(f"{base}/{session}/{handle}", message)
    if data.get("janus") == "success":  # answered synchronously
        _plugin_error(data)
        return (data.get("plugindata") or {}).get("data") or {}, data.get("jsep")
    loop = asyncio.get_running_loop()
    deadline = loop.time() + settings.SFU_TIMEOUT
    try:
        async with aiohttp.ClientSession(timeout=_timeout(5)) as http:
            while loop.time() < deadline:
                params = {"maxev": "10", "rid": secrets.token_hex(4)}
                async with http.get(f"{base}/{session}", params=params) as r:
                    events = await r.json(content_type=None)
                for ev in events if isinstance(events, list) else [events]:
                    if ev.get("sender") != handle or ev.get("janus") != "event":
                        continue
                    _plugin_error(ev)
                    return (ev.get("plugindata") or {}).get("data") or {}, ev.get("jsep")
    except (TimeoutError, aiohttp.ClientError, ValueError) as e:
        raise JanusUnreachable(f"{base}: {e!r}") from e
    raise JanusUnreachable(f"{base}: no answer to {body.get('request')} in {settings.SFU_TIMEOUT}s")


class Control:
    """One session and plugin handle per node for synchronous requests, made on first use
    and made again if Janus forgot it (restarted)."""

    def __init__(self, plugin: str):
        self.plugin = plugin
        # No lock: two first requests racing make two control sessions, both usable.
        self._handles: dict[str, tuple[int, int]] = {}

    async def request(self, base: str, body: dict) -> dict:
        for attempt in (0, 1):
            if base not in self._handles:
                session = await create_session(base)
                self._handles[base] = (session, await attach(base, session, self.plugin))
            session, handle = self._handles[base]
            try:
                return await request(base, session, handle, body)
            except JanusError as e:
                if attempt or e.code not in (SESSION_NOT_FOUND, HANDLE_NOT_FOUND):
                    raise
                self._handles.pop(base, None)
        raise AssertionError("unreachable")
