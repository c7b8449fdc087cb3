"""The RPC context both chat kinds' handlers share: who is asking, from which session,
and the users and chats an answer carries.

Chats are rendered by the chat kind that owns them: ``channels_app`` installs its
renderer at start-up (``set_chats_renderer``), so code below it, such as private chats
showing a forward from a channel, can name channels without importing that app.
"""

from __future__ import annotations

import random
import time
from collections.abc import Awaitable, Callable
from contextvars import ContextVar

from accounts_app.access import check_input_user
from accounts_app.render_changes import on_user_render_change
from accounts_app.tl_convert import users_to_tl_on, with_unknown_users
from message_core import db

# (auth_key_id, session_id) of the session whose request is running: it gets the
# change in its RPC answer, so pushes skip it. Set by ``viewer``.
origin: ContextVar[tuple[int, int] | None] = ContextVar("push_origin", default=None)
# The running request itself (mtproto RequestContext): pushes that must follow its
# answer are held until the session sent it (channels_app.push).
origin_request: ContextVar = ContextVar("push_origin_request", default=None)


def viewer(ctx) -> int:
    """The logged-in user; also marks this session as the origin of any push."""
    origin.set((ctx.auth_key_id, ctx.session_id))
    origin_request.set(ctx)
    return ctx.app["user_id"]


def answer_without_updates() -> None:
    """This request answers messages.affectedMessages / affectedHistory, whose channel
    pts a client like Telethon cannot apply: the acting session then gets the channel
    update pushed like the user's other sessions (as from Telegram), and a client that
    applied the answer's pts drops the push as already seen. Call after ``viewer``."""
    origin.set(None)
    origin_request.set(None)


def own_session(ctx) -> tuple[int, int]:
    return (ctx.auth_key_id, ctx.session_id)


ChatsRenderer = Callable[..., Awaitable[list]]
_chats_renderer: ChatsRenderer | None = None


def set_chats_renderer(renderer: ChatsRenderer) -> None:
    global _chats_renderer
    _chats_renderer = renderer


async def chats_for(viewer_id: int, channel_ids, known=None) -> list:
    """TL chats for ``channel_ids`` as ``viewer_id`` sees them (the installed renderer)."""
    if not channel_ids:
        return []
    if _chats_renderer is None:
        raise RuntimeError("no chats renderer installed (channels_app not ready)")
    return await _chats_renderer(viewer_id, channel_ids, known)


# (viewer, user) -> (expiry, TL user). Every message response and every push carries
# the sender; rendering it through accounts (a query per viewer) would dominate a busy
# group, and a profile a few seconds stale in a push is harmless. Misses are read on
# this loop's pool, not by the ORM in a thread (see accounts_app.user_views). Lifetimes
# are spread over USER_CACHE_SECONDS..2x: the entries a busy group fills at once would
# otherwise all expire at once, and every viewer's render miss in the same moment (a
# stall of every send every few seconds, seen in bench/loadgen's latency timeline).
USER_CACHE_SECONDS = 5.0
USER_CACHE_MAX = 100_000
_user_cache: dict[tuple[int, int], tuple[float, object]] = {}


async def users_for(viewer_id: int, user_ids) -> list:
    ids = sorted({int(u) for u in user_ids if u})
    if not ids:
        return []
    now = time.monotonic()
    out, missing = {}, []
    for uid in ids:
        hit = _user_cache.get((viewer_id, uid))
        if hit is not None and hit[0] > now:
            out[uid] = hit[1]
        else:
            missing.append(uid)
    if missing:
        if len(_user_cache) > USER_CACHE_MAX:
            _user_cache.clear()
        async with db.connection() as conn:
            rendered = await users_to_tl_on(conn, missing, viewer_id)
        for user in rendered:
            out[user.id] = user
            _user_cache[(viewer_id, user.id)] = (now + USER_CACHE_SECONDS * (1 + random.random()), user)
    if len(out) == len(ids):
        return [out[u] for u in ids]  # every one rendered: no userEmpty to add
    return with_unknown_users(ids, [out[u] for u in ids if u in out])


@on_user_render_change
def _forget(user_ids: set[int]) -> None:
    """Drop these users from this process's cache (they render differently now).
    Called from pool threads too: list() copies the keys in one step under the GIL,
    where iterating the dict itself could meet the event loop's inserts."""
    for key in [k for k in list(_user_cache) if k[1] in user_ids]:
        _user_cache.pop(key, None)


def resolve_input_user(viewer_id: int):
    """``fn(input_user) -> user_id`` through accounts (raises USER_ID_INVALID)."""
    return lambda input_user: check_input_user(viewer_id, input_user)
