"""The application side of ``mtproto.dispatch.Dispatcher``: TL name -> registered
handler, with the authorization check and the error policy of the RPC layer.

Two fault policies live here (docs/reliability.md): a request storm from one auth key
is answered FLOOD_WAIT_X (:mod:`edge_app.ratelimit`), and a request that lost its
PostgreSQL connection under it is run again, once the database answers, if running it
twice is harmless (:data:`RETRY_AFTER_DB_LOSS`) - so a message stored just before a
restart is not reported as failed.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import time
from typing import Any

from edge_app import metrics, presence, registry
from edge_app.ratelimit import RequestRateLimit
from mtproto.dispatch import ClientInfo, RequestContext
from tl import errors, layers

log = logging.getLogger("telesrv.edge.rpc")
# One line per RPC call at DEBUG: method, layer, user, duration, error. A logger of its
# own so operators can turn it on alone (TELESRV_LOG_LEVEL_RPC=DEBUG).
rpc_log = logging.getLogger("telesrv.rpc")

# Reads, and sends that a random_id makes idempotent (a second run answers with the
# message the first one stored).
RETRY_AFTER_DB_LOSS = frozenset(
    {
        "messages.sendMessage",
        "messages.sendMedia",
        "messages.sendMultiMedia",
        "messages.forwardMessages",
        "updates.getState",
        "updates.getDifference",
        "updates.getChannelDifference",
        "messages.getHistory",
        "messages.getMessages",
        "channels.getMessages",
        "messages.getDialogs",
        "messages.getPeerDialogs",
        "channels.getChannels",
        "channels.getFullChannel",
        "users.getUsers",
        "users.getFullUser",
        "contacts.resolveUsername",
        "help.getConfig",
        "help.getNearestDc",
    }
)
# How long such a request keeps trying while PostgreSQL is away.
DB_RETRY_SECONDS = 20.0
# FLOOD_WAIT answers are logged with the client's address at most once per address in
# this many seconds (with the count of those not logged), as the listener's refused
# connections are: a request storm must not become a log storm.
FLOOD_LOG_SECONDS = 10.0


def db_connection_lost(exc: BaseException) -> bool:
    """The error (or one it was raised from) says the database connection broke or
    could not be had - not that a statement was wrong."""
    import django.db
    import psycopg

    lost = (
        psycopg.OperationalError,
        psycopg.InterfaceError,
        django.db.OperationalError,
        django.db.InterfaceError,
    )
    from edge_app.db_backend.liveness import is_read_only_error

    if is_read_only_error(exc):  # a write reached a demoted primary: nothing was written
        return True
    seen = 0
    while exc is not None and seen < 8:
        if isinstance(exc, lost):
            return True
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return False


class EdgeDispatcher:
    def __init__(self, key_store: Any = None, *, rate: float = 0.0, burst: float = 0.0) -> None:
        self.key_store = key_store
        self._unknown_logged: set[str] = set()
        self.rate_limit = RequestRateLimit(rate, burst)
        # Refusals and recoveries by kind ("flood_wait", "db_retry"): plain counters a
        # metrics exporter can read.
        self.counters: collections.Counter[str] = collections.Counter()
        # address -> (when its last FLOOD_WAIT line was written, answers since not logged)
        self._floods_logged: dict[str, tuple[float, int]] = {}

    async def _with_db_retry(self, name: str, call, *, retry: bool):
        """``await call()``, run again while the database is away if ``retry``."""
        deadline = time.monotonic() + DB_RETRY_SECONDS
        delay = 0.2
        while True:
            try:
                return await call()
            except errors.RpcError:
                raise
            except Exception as exc:
                if not retry or not db_connection_lost(exc):
                    raise
                if time.monotonic() + delay > deadline:
                    raise
                self.counters["db_retry"] += 1
                log.warning("%s lost its database connection (%s); retrying", name, exc)
                await asyncio.sleep(delay)
                delay = min(delay * 2, 2.0)

    async def dispatch(self, ctx: RequestContext, request: Any) -> Any:
        name = getattr(request, "TL_NAME", None) or type(request).__name__
        start = time.perf_counter()
        error: BaseException | None = None
        try:
            return await self._dispatch(ctx, request, name)
        except BaseException as exc:
            error = exc
            raise
        finally:
            seconds = time.perf_counter() - start
            label = metrics.error_label(error)
            metrics.observe_rpc(name, label, seconds)
            if rpc_log.isEnabledFor(logging.DEBUG):
                rpc_log.debug(
                    "%s layer=%d user=%s %.1fms%s",
                    name,
                    ctx.layer,
                    ctx.app.get("user_id") or getattr(ctx.session, "user_id", None) or "-",
                    seconds * 1000,
                    f" error={label}" if label else "",
                )

    def _log_flood_wait(self, ctx: RequestContext, name: str, wait: int) -> None:
        """One INFO line naming the client's address (behind a trusted PROXY-protocol
        balancer, the one its header named) and app, so operators can trace a request
        storm; at most one per address every FLOOD_LOG_SECONDS."""
        ip = ctx.ip or "an unknown address"
        now = time.monotonic()
        last = self._floods_logged.get(ip)
        if last is not None and now - last[0] < FLOOD_LOG_SECONDS:
            self._floods_logged[ip] = (last[0], last[1] + 1)
            return
        if len(self._floods_logged) > 10_000:
            self._floods_logged.clear()
        self._floods_logged[ip] = (now, 0)
        client = ctx.client
        app = " ".join(p for p in (client.lang_pack, client.app_version) if p) if client else ""
        more = f" ({last[1]} more since the last line)" if last is not None and last[1] else ""
        log.info(
            "FLOOD_WAIT_%d answered to %s on key %016x from %s%s%s",
            wait,
            name,
            ctx.perm_auth_key_id & 0xFFFFFFFFFFFFFFFF,
            ip,
            f" ({app})" if app else "",
            more,
        )

    async def _dispatch(self, ctx: RequestContext, request: Any, name: str) -> Any:
        registration = registry.lookup(name)
        if registration is None:
            if name not in self._unknown_logged and len(self._unknown_logged) < 10_000:
                self._unknown_logged.add(name)
                log.warning("no handler for %s (answered METHOD_INVALID)", name)
            raise errors.MethodInvalidError()
        wait = self.rate_limit.take(ctx.perm_auth_key_id)
        if wait:
            self.counters["flood_wait"] += 1
            self._log_flood_wait(ctx, name, wait)
            raise errors.FloodWaitError(seconds=wait)
        try:
            if registration.auth:
                user_id = await self._with_db_retry(name, lambda: registry.authorize(ctx), retry=True)
                if user_id is None:
                    raise errors.AuthKeyUnregisteredError()
                ctx.app["user_id"] = user_id
                if ctx.session is not None and ctx.session.user_id != user_id:
                    ctx.session.user_id = user_id
                if presence.pending(user_id):
                    # Not answered before this listener's lease for the user is written:
                    # events published after the answer must be routed here.
                    await presence.settled(user_id)
                if registry._gates:
                    await registry.check_gates(name, user_id)
            if ctx.takeout_id is not None:
                await registry.check_takeout(ctx, name)
            result = await self._with_db_retry(
                name, lambda: registration.handler(ctx, request), retry=name in RETRY_AFTER_DB_LOSS
            )
            result = layers.result_for_layer(result, request, ctx.layer)
            if isinstance(result, list):
                # Vector<T> results carry no constructor of their own: encode them
                # with the function's result type for the client's layer.
                return layers.encode_result(result, layers.result_type(request, ctx.layer), ctx.layer)
            return result
        except errors.RpcError:
            raise
        except Exception:
            log.exception("%s failed", name)
            raise errors.InternalError() from None

    async def connection_initialized(self, ctx: RequestContext, info: ClientInfo) -> None:
        if self.key_store is None:
            return
        try:
            await self.key_store.record_client(ctx.auth_key_id, info, ctx.layer, ctx.ip)
        except Exception:
            log.exception("cannot record the client of key %#x", ctx.auth_key_id)

    async def session_closed(self, session: Any) -> None:
        return None
