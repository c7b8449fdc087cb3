"""The application side of ``mtproto.dispatch.Dispatcher``: TL name -> registered
handler, with the authorization check and the error policy of the RPC layer."""

from __future__ import annotations

import logging
import time
from typing import Any

from edge_app import metrics, registry
from mtproto.dispatch import ClientInfo, RequestContext
from tl import errors, layers

log = logging.getLogger("telesrv.edge.rpc")
# One line per RPC call at DEBUG: method, layer, user, duration, error. A logger of its
# own so operators can turn it on alone (TELESRV_LOG_LEVEL_RPC=DEBUG).
rpc_log = logging.getLogger("telesrv.rpc")


class EdgeDispatcher:
    def __init__(self, key_store: Any = None) -> None:
        self.key_store = key_store
        self._unknown_logged: set[str] = set()

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

    async def _dispatch(self, ctx: RequestContext, request: Any, name: str) -> Any:
        registration = registry.lookup(name)
        if registration is None:
            if name not in self._unknown_logged and len(self._unknown_logged) < 10_000:
                self._unknown_logged.add(name)
                log.warning("no handler for %s (answered METHOD_INVALID)", name)
            raise errors.MethodInvalidError()
        try:
            if registration.auth:
                user_id = await registry.authorize(ctx)
                if user_id is None:
                    raise errors.AuthKeyUnregisteredError()
                ctx.app["user_id"] = user_id
                if ctx.session is not None and ctx.session.user_id != user_id:
                    ctx.session.user_id = user_id
            result = layers.result_for_layer(await registration.handler(ctx, request), request, ctx.layer)
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
