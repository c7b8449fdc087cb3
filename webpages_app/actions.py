"""Link previews: the URL a message links to, the page cache (one ``webpages`` row per
URL), fetching and parsing a page with its image stored as a public photo, and the
messages that wait for a page that is still pending (``webpage_refs``).

A message's preview is media ``{"kind": "webpage", "webpage": page, ...}`` where
``page`` is the page dict (pending, empty or ready) as the message was last filled in;
when a pending page is ready the messages waiting for it are filled in (the chat
kinds' ``do_fill_web_page``) and their viewers told by the caller.
"""

from __future__ import annotations

import logging
import re
import secrets
import time
import zlib
from urllib.parse import urlsplit, urlunsplit

from django.conf import settings

from channels_app.actions import media as channel_media
from channels_app.actions.common import jsonb
from media_app import actions as media_actions
from message_core import db
from message_core.clock import now
from private_app import actions as private_actions

from . import fetch, parse

log = logging.getLogger("telesrv.webpages")

URL_MAX = 2048
IMAGE_BYTES_FACTOR = 5  # an image may be this many times the page cap
PENDING_RETRY_SECONDS = 3  # a pending page nobody fetches is claimed by the background job after this

COLUMNS = "id, url, state, data, date, fetched"

_URL_RE = re.compile(r"(?i)\bhttps?://[^\s<>\"'`]+|\bwww\.[a-z0-9-]+(?:\.[a-z0-9-]+)+[^\s<>\"'`]*")
_TRAILING = ".,;:!?)]}>'\""


def enabled() -> bool:
    return bool(settings.LINK_PREVIEWS)


def allow_list() -> fetch.AllowList:
    return fetch.AllowList.parse(settings.LINK_PREVIEW_ALLOW)


def _utf16_slice(text: str, offset: int, length: int) -> str:
    data = text.encode("utf-16-le")
    return data[offset * 2 : (offset + length) * 2].decode("utf-16-le", errors="ignore")


def normalize_url(url: str) -> str | None:
    """The URL as cached: scheme and host lowercased, no fragment; None when it is not
    a web link."""
    url = url.strip().rstrip(_TRAILING)
    if url.lower().startswith("www."):
        url = "http://" + url
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc or len(url) > URL_MAX:
        return None
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), parts.path or "/", parts.query, ""))


def first_url(text: str, entities: list[dict] | None) -> str | None:
    """The link a message's preview shows: the first url / text_url entity, else the
    first link in the text."""
    for e in sorted(entities or [], key=lambda e: e.get("offset", 0)):
        if e.get("type") == "textUrl" and e.get("url"):
            u = normalize_url(e["url"])
        elif e.get("type") == "url":
            raw = _utf16_slice(text, e.get("offset", 0), e.get("length", 0))
            u = normalize_url(raw if "://" in raw else "http://" + raw)  # a bare domain is a web link
        else:
            continue
        if u:
            return u
    for m in _URL_RE.finditer(text or ""):
        u = normalize_url(m.group(0))
        if u:
            return u
    return None


def display_url(url: str) -> str:
    parts = urlsplit(url)
    host = parts.netloc.removeprefix("www.")
    path = parts.path if parts.path != "/" else ""
    return (host + path + (("?" + parts.query) if parts.query else ""))[:256]


def page_dict(row: dict) -> dict:
    """The page as messages and answers show it."""
    page = {"id": row["id"], "url": row["url"], "date": row["date"]}
    if row["state"] == "pending":
        page["pending"] = True
    elif row["state"] == "empty":
        page["empty"] = True
    else:
        page.update(row["data"])
        page["display_url"] = page.get("display_url") or display_url(row["url"])
        page["hash"] = zlib.crc32(repr(sorted(row["data"].items())).encode()) & 0x7FFFFFFF
    return page


def media_of(
    page: dict, *, force_large: bool = False, force_small: bool = False, manual: bool = False,
    invert_media: bool = False,
) -> dict:  # fmt: skip
    m = {"kind": "webpage", "webpage": page}
    if force_large:
        m["force_large_media"] = True
    if force_small:
        m["force_small_media"] = True
    if manual:
        m["manual"] = True
    if invert_media:
        m["invert_media"] = True
    return m


async def _load(url: str) -> dict | None:
    return await db.fetchone(f"SELECT {COLUMNS} FROM webpages WHERE url = %s", (url,))


async def get_or_create(url: str) -> dict:
    """The cached row of ``url``, created pending when the URL is new (or its page is
    older than LINK_PREVIEW_TTL: fetched again)."""
    row = await _load(url)
    if row is not None and not (
        row["state"] != "pending" and row["fetched"] < now() - settings.LINK_PREVIEW_TTL
    ):
        return row
    if row is not None:
        stale = await db.fetchone(
            f"UPDATE webpages SET state = 'pending', date = %s WHERE id = %s AND state <> 'pending' RETURNING {COLUMNS}",
            (now(), row["id"]),
        )
        return stale or await _load(url)
    created = await db.fetchone(
        "INSERT INTO webpages (id, url, state, data, date, fetched) VALUES (%s, %s, 'pending', '{}'::jsonb, %s, 0)"
        f" ON CONFLICT (url) DO NOTHING RETURNING {COLUMNS}",
        (secrets.randbits(62) + 1, url, now()),
    )
    return created or await _load(url)


def check_fetchable(url: str) -> None:
    """Refuse (fetch.Refused) a URL the rules never fetch, before anything is stored."""
    fetch.check_url(url, allow_list())


async def claim(page_id: int) -> dict | None:
    """This worker fetches the page (None: it is not pending, or another one is)."""
    lease = settings.LINK_PREVIEW_TIMEOUT * 2 + 5
    return await db.fetchone(
        "UPDATE webpages SET claimed_until = now() + make_interval(secs => %s) WHERE id = %s AND state = 'pending'"
        f" AND (claimed_until IS NULL OR claimed_until < now()) RETURNING {COLUMNS}",
        (lease, page_id),
    )


async def claim_stale(limit: int = 10) -> list[dict]:
    """Pending pages no one is fetching (their fetcher died): this worker's now."""
    lease = settings.LINK_PREVIEW_TIMEOUT * 2 + 5
    return await db.fetchall(
        "UPDATE webpages SET claimed_until = now() + make_interval(secs => %s) WHERE id IN (SELECT id FROM webpages"
        " WHERE state = 'pending' AND date < %s AND (claimed_until IS NULL OR claimed_until < now())"
        f" ORDER BY date LIMIT %s FOR UPDATE SKIP LOCKED) RETURNING {COLUMNS}",
        (lease, now() - PENDING_RETRY_SECONDS, limit),
    )


async def _image(url: str, allow: fetch.AllowList, budget: float) -> dict | None:
    try:
        got = await fetch.fetch(
            url, allow, max_bytes=settings.LINK_PREVIEW_MAX_BYTES * IMAGE_BYTES_FACTOR, timeout=budget,
            accept="image/*",
        )  # fmt: skip
    except (fetch.Refused, fetch.FetchFailed) as exc:
        log.info("preview image %s not fetched: %s", url, exc)
        return None
    return await media_actions.do_store_public_photo(got.body)


_local_readers: list = []


def register_local_reader(reader) -> None:
    """``await reader(url) -> dict | None``: the page of a link this server answers for
    itself (an app above this one: its own t.me links), never fetched; None: not one."""
    _local_readers.append(reader)


async def read_page(url: str) -> dict | None:
    """Fetch and parse the page (its image stored as a photo); None: no preview."""
    for reader in _local_readers:
        data = await reader(url)
        if data is not None:
            return {**data, "display_url": display_url(url)} if data else None
    allow = allow_list()
    timeout = settings.LINK_PREVIEW_TIMEOUT
    started = time.monotonic()
    try:
        got = await fetch.fetch(
            url, allow, max_bytes=settings.LINK_PREVIEW_MAX_BYTES, timeout=timeout,
            accept="text/html,application/xhtml+xml,image/*;q=0.8",
        )  # fmt: skip
    except (fetch.Refused, fetch.FetchFailed) as exc:
        log.info("preview of %s not fetched: %s", url, exc)
        return None
    ctype = got.content_type.split(";")[0].strip().lower()
    if ctype.startswith("image/"):
        photo = await media_actions.do_store_public_photo(got.body)
        return {"type": "photo", "photo": photo, "display_url": display_url(url)} if photo else None
    if ctype not in ("text/html", "application/xhtml+xml", ""):
        return None
    meta = parse.parse_page(got.body, got.content_type, got.url)
    data = {k: meta[k] for k in ("title", "description", "site_name", "type") if meta.get(k)}
    left = timeout - (time.monotonic() - started)  # the page and its image share one time cap
    if meta.get("image") and left > 0.2:
        photo = await _image(meta["image"], allow, left)
        if photo:
            data["photo"] = photo
            if meta.get("large_image"):
                data["large_media"] = True
    if not data.get("title") and not data.get("description") and not data.get("photo"):
        return None
    data["display_url"] = display_url(url)
    return data


async def do_fetch(row: dict) -> dict:
    """Fetch a claimed pending page and store what it gives (ready or empty)."""
    data = await read_page(row["url"])
    state = "ready" if data else "empty"
    return await db.fetchone(
        "UPDATE webpages SET state = %s, data = %s::jsonb, fetched = %s, date = %s, claimed_until = NULL"
        f" WHERE id = %s RETURNING {COLUMNS}",
        (state, jsonb(data or {}), now(), now(), row["id"]),
    )


async def do_preview(url: str, *, wait: bool) -> dict | None:
    """The page of ``url``: from the cache, else fetched now (``wait``) or pending. A
    pending page of a URL not cached yet is stored only once the message showing it is
    sent (``do_hold``): a send that fails stores nothing. None: the URL gives no preview
    (nothing is stored for a URL the rules refuse)."""
    if not enabled():
        return None
    try:
        check_fetchable(url)
    except fetch.Refused:
        return None
    if not wait:
        row = await _load(url)
        if row is None:
            return {"id": secrets.randbits(62) + 1, "url": url, "date": now(), "pending": True}
    else:
        row = await get_or_create(url)
    if row["state"] == "pending" and wait:
        claimed = await claim(row["id"])
        if claimed is not None:
            row = await do_fetch(claimed)
    if row["state"] == "empty":
        return None
    return page_dict(row)


async def do_hold(page: dict, refs: list[tuple[str, int, int, int]]) -> int:
    """Messages (kind, chat_id, peer_id, msg_id) were sent with ``page`` pending: the
    page is stored (if no one stored its URL meanwhile) and they wait for it. The id of
    the URL's row (the messages are filled in by URL, whichever id they show)."""
    await db.fetchone(
        "INSERT INTO webpages (id, url, state, data, date, fetched) VALUES (%s, %s, 'pending', '{}'::jsonb, %s, 0)"
        " ON CONFLICT (url) DO NOTHING RETURNING id",
        (page["id"], page["url"], page["date"]),
    )
    row = await _load(page["url"])
    await do_add_refs(row["id"], refs)
    return row["id"]


async def do_add_refs(page_id: int, refs: list[tuple[str, int, int, int]]) -> None:
    """Messages (kind, chat_id, peer_id, msg_id) sent with the page pending."""
    if refs:
        await db.fetchall(
            "INSERT INTO webpage_refs (webpage_id, peer_kind, chat_id, peer_id, msg_id)"
            " SELECT %s, * FROM unnest(%s::text[], %s::bigint[], %s::bigint[], %s::bigint[]) RETURNING id",
            (page_id, [r[0] for r in refs], [r[1] for r in refs], [r[2] for r in refs], [r[3] for r in refs]),
        )


async def take_refs(page_id: int) -> list[dict]:
    return await db.fetchall(
        "DELETE FROM webpage_refs WHERE webpage_id = %s RETURNING peer_kind, chat_id, peer_id, msg_id",
        (page_id,),
    )


async def state_of(page_id: int) -> dict | None:
    return await db.fetchone(f"SELECT {COLUMNS} FROM webpages WHERE id = %s", (page_id,))


async def do_fill_messages(row: dict) -> list[dict]:
    """The page is no longer pending: the messages waiting for it show it now. Returns
    what changed: [{"kind", "chat_id", "peer_id"}] (one per chat) for the caller to
    tell their viewers."""
    refs = await take_refs(row["id"])
    page = page_dict(row)
    chats: dict[tuple, dict] = {}
    for r in refs:
        chats.setdefault((r["peer_kind"], r["chat_id"], r["peer_id"]), {"ids": []})["ids"].append(r["msg_id"])
    out = []
    for (kind, chat_id, peer_id), v in chats.items():
        if kind == "c":
            await channel_media.do_fill_web_page(chat_id, v["ids"], page)
        else:
            await private_actions.do_fill_web_page(v["ids"], page)
        out.append({"kind": kind, "chat_id": chat_id, "peer_id": peer_id})
    return out
