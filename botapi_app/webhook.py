"""Webhooks: setWebhook / deleteWebhook / getWebhookInfo, and the sender that POSTs each
queued update to the bot's URL (with its secret token header), confirming it on a 2xx
answer and backing off after failures (1, 2, 4 ... 60 seconds), keeping the last error
for getWebhookInfo."""

from __future__ import annotations

import asyncio
import logging
import re
import time

import aiohttp
from django.db import transaction

from edge_app.orm_threads import in_thread

from . import queue
from .errors import BadRequest
from .models import BotApiState, BotUpdate

log = logging.getLogger("telesrv.botapi.webhook")

SECRET = re.compile(r"[A-Za-z0-9_-]{1,256}")
URL_MAX = 2048
BACKOFF_MAX = 60.0
SEND_TIMEOUT = 10.0
BATCH = 100
PURGE_EVERY = 600.0  # seconds between sweeps of updates past the 24-hour window


async def do_set_webhook(
    bot_id: int,
    url: str,
    *,
    secret_token: str = "",
    max_connections: int | None = 40,
    allowed_updates=None,
    drop_pending: bool = False,
) -> bool:
    url = url.strip()
    if url and (len(url) > URL_MAX or not re.match(r"^https?://[^/\s?#]+", url)):
        raise BadRequest("bad webhook: Failed to resolve host: Name or service not known")
    if secret_token and not SECRET.fullmatch(secret_token):
        raise BadRequest("secret token contains unallowed characters")
    if max_connections is None:
        max_connections = 40
    if not 1 <= max_connections <= 100:
        max_connections = max(1, min(100, max_connections))  # clamped, as Telegram does
    if allowed_updates is not None and not (
        isinstance(allowed_updates, list) and all(isinstance(a, str) for a in allowed_updates)
    ):
        raise BadRequest("can't parse allowed_updates JSON array")

    @in_thread
    def write() -> None:
        with transaction.atomic():
            st = BotApiState.objects.select_for_update().get_or_create(bot_id=bot_id)[0]
            st.webhook_url, st.secret_token, st.max_connections = (
                url,
                secret_token if url else "",
                max_connections,
            )
            if allowed_updates is not None:
                st.allowed_updates = allowed_updates
            st.failures, st.retry_at, st.last_error_date, st.last_error_message = 0, 0, 0, ""
            st.save()
            if drop_pending:
                BotUpdate.objects.filter(bot_id=bot_id).delete()

    await write()
    if url:
        queue.wake(bot_id)
    return True


async def info(bot_id: int) -> dict:
    st = await in_thread(queue.state)(bot_id)
    d = {
        "url": st.webhook_url,
        "has_custom_certificate": False,
        "pending_update_count": await queue.pending_count(bot_id),
    }
    if st.webhook_url:
        d["max_connections"] = st.max_connections
        if st.allowed_updates:
            d["allowed_updates"] = st.allowed_updates
        d["ip_address"] = "127.0.0.1"
    if st.last_error_date:
        d["last_error_date"] = st.last_error_date
        d["last_error_message"] = st.last_error_message
    return d


@in_thread
def _due() -> list[BotApiState]:
    return list(BotApiState.objects.exclude(webhook_url="").filter(retry_at__lte=time.time()))


@in_thread
def _pending(bot_id: int) -> list[dict]:
    st = queue.state(bot_id)
    wanted = queue._wanted(st.allowed_updates)
    rows = list(BotUpdate.objects.filter(bot_id=bot_id).order_by("id")[:BATCH])
    BotUpdate.objects.filter(id__in=[r.id for r in rows if r.kind not in wanted]).delete()
    return [{"update_id": r.id, r.kind: r.body} for r in rows if r.kind in wanted]


@in_thread
def _delivered(bot_id: int, update_id: int) -> None:
    BotUpdate.objects.filter(bot_id=bot_id, id=update_id).delete()
    BotApiState.objects.filter(bot_id=bot_id).update(failures=0, retry_at=0)


@in_thread
def _failed(bot_id: int, message: str) -> None:
    with transaction.atomic():
        st = BotApiState.objects.select_for_update().filter(bot_id=bot_id).first()
        if st is None:
            return
        st.failures += 1
        st.retry_at = time.time() + min(BACKOFF_MAX, 2 ** (st.failures - 1))
        st.last_error_date, st.last_error_message = int(time.time()), message[:256]
        st.save(update_fields=["failures", "retry_at", "last_error_date", "last_error_message"])


def _error_text(exc: Exception) -> str:
    """A failed delivery in getWebhookInfo's words, as Telegram's server puts them."""
    if isinstance(exc, TimeoutError | aiohttp.ServerTimeoutError):
        return "Read timeout expired"
    if isinstance(exc, aiohttp.ClientConnectorError):
        if isinstance(exc.os_error, ConnectionRefusedError):
            return "Connection refused"
        return "Failed to resolve host: Name or service not known"
    return f"Connection failed: {type(exc).__name__}"


async def _deliver(session: aiohttp.ClientSession, st: BotApiState) -> None:
    for update in await _pending(st.bot_id):
        headers = {"X-Telegram-Bot-Api-Secret-Token": st.secret_token} if st.secret_token else {}
        try:
            async with session.post(st.webhook_url, json=update, headers=headers, allow_redirects=False) as r:
                if not 200 <= r.status < 300:
                    await _failed(st.bot_id, f"Wrong response from the webhook: {r.status} {r.reason}")
                    return
        except (aiohttp.ClientError, TimeoutError) as exc:
            await _failed(st.bot_id, _error_text(exc))
            return
        await _delivered(st.bot_id, update["update_id"])


async def run_sender(tick: float = 0.5) -> None:
    """The Bot API process's webhook sender: every ``tick``, each bot with a webhook
    whose back-off has passed gets its pending updates, in order, one request each."""
    timeout = aiohttp.ClientTimeout(total=SEND_TIMEOUT)
    purged_at = 0.0
    # One delivery task per bot at a time: a slow or dead receiver holds only its own
    # bot's queue (deliveries stay in order, one request at a time, within any
    # max_connections), never the other bots'.
    running: dict[int, asyncio.Task] = {}
    async with aiohttp.ClientSession(timeout=timeout) as session:
        try:
            while True:
                try:
                    if time.monotonic() - purged_at > PURGE_EVERY:
                        purged_at = time.monotonic()
                        await queue.purge_expired()
                    for st in await _due():
                        if st.bot_id not in running:
                            task = asyncio.create_task(_deliver_logged(session, st))
                            running[st.bot_id] = task
                            task.add_done_callback(lambda _t, b=st.bot_id: running.pop(b, None))
                except asyncio.CancelledError:
                    raise
                except Exception:
                    log.exception("webhook round failed")
                await asyncio.sleep(tick)
        finally:
            for task in list(running.values()):
                task.cancel()
            await asyncio.gather(*running.values(), return_exceptions=True)


async def _deliver_logged(session: aiohttp.ClientSession, st: BotApiState) -> None:
    try:
        await _deliver(session, st)
    except Exception:
        log.exception("webhook delivery to bot %d failed", st.bot_id)
