"""All live sessions of one edge process, by (auth_key_id, session_id) and by user."""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from mtproto.session import wire
from mtproto.session.clock import MsgIdClock
from mtproto.session.codec import Codec
from mtproto.session.salts import SaltSchedule
from mtproto.session.session import REQUEST_DEADLINE, Session

log = logging.getLogger("telesrv.mtproto.session")

# Sessions without a connection are kept this long (their unacked messages with them).
IDLE_TTL = 15 * 60
# Sessions per auth key; past this the longest idle one is dropped.
MAX_SESSIONS_PER_KEY = 64
# Initial salts of keys created by this process, remembered for their first window.
MAX_INITIAL_SALTS = 10000
# Last announced layer per auth key, for sessions that have not announced one yet.
MAX_KEY_LAYERS = 200_000

BindHandler = Callable[[Session, int, Any], Awaitable[Any]]
DestroyKeyHandler = Callable[[Session], Awaitable[bytes]]


class SessionManager:
    def __init__(
        self,
        dispatcher: Any,
        codec: Codec,
        salts: SaltSchedule,
        *,
        on_bind_temp_auth_key: BindHandler | None = None,
        on_destroy_auth_key: DestroyKeyHandler | None = None,
        idle_ttl: float = IDLE_TTL,
        request_deadline: float = REQUEST_DEADLINE,
    ) -> None:
        self.dispatcher = dispatcher
        self.codec = codec
        self.salts = salts
        self.clock = MsgIdClock()
        self.idle_ttl = idle_ttl
        self.request_deadline = request_deadline
        self.overdue_requests = 0  # answered -503 Timeout at their deadline (a metric)
        self.on_bind_temp_auth_key = on_bind_temp_auth_key
        self.on_destroy_auth_key = on_destroy_auth_key
        # Called with a user id when its first live session appears here and when its
        # last one goes (the app announces where users are: targeted delivery).
        self.on_user_online: Callable[[int], None] | None = None
        self.on_user_offline: Callable[[int], None] | None = None
        self._sessions: dict[tuple[int, int], Session] = {}
        self._by_key: dict[int, set[int]] = {}
        self._by_user: dict[int, set[Session]] = {}
        self._tasks: set[asyncio.Task] = set()
        self.initial_salts: OrderedDict[int, tuple[int, float]] = OrderedDict()
        self.key_layers: OrderedDict[int, int] = OrderedDict()

    def remember_initial_salt(self, auth_key_id: int, salt: int) -> None:
        """The key exchange's salt (new_nonce xor server_nonce) of a key just created:
        clients use it for their first messages."""
        self.initial_salts[auth_key_id] = (salt, time.time())
        while len(self.initial_salts) > MAX_INITIAL_SALTS:
            self.initial_salts.popitem(last=False)

    def remember_layer(self, auth_key_id: int, layer: int) -> None:
        self.key_layers[auth_key_id] = layer
        self.key_layers.move_to_end(auth_key_id)
        while len(self.key_layers) > MAX_KEY_LAYERS:
            self.key_layers.popitem(last=False)

    # --- lookup -------------------------------------------------------------------------

    def get(self, auth_key_id: int, session_id: int) -> Session | None:
        return self._sessions.get((auth_key_id, session_id))

    def get_or_create(self, auth_key: Any, session_id: int) -> Session:
        key = (auth_key.auth_key_id, session_id)
        session = self._sessions.get(key)
        if session is None:
            ids = self._by_key.setdefault(auth_key.auth_key_id, set())
            if len(ids) >= MAX_SESSIONS_PER_KEY:
                self._evict_one(auth_key.auth_key_id)
            session = Session(self, auth_key, session_id)
            self._sessions[key] = session
            ids.add(session_id)
        return session

    def sessions_of_user(self, user_id: int) -> list[Session]:
        return [s for s in self._by_user.get(user_id, ()) if not s.destroyed]

    def online_user_ids(self) -> list[int]:
        """Users with at least one live (authorized, not destroyed) session here: what
        per-process fan-out intersects with a channel's members."""
        return [u for u, group in self._by_user.items() if any(not s.destroyed for s in group)]

    def sessions_of_perm_key(self, perm_auth_key_id: int) -> list[Session]:
        """Sessions of a permanent key and of the temporary keys bound to it."""
        return [s for s in self._sessions.values() if s.perm_auth_key_id == perm_auth_key_id]

    def sessions_of_key(self, auth_key_id: int) -> list[Session]:
        return [self._sessions[(auth_key_id, sid)] for sid in self._by_key.get(auth_key_id, ())]

    def __len__(self) -> int:
        return len(self._sessions)

    def _reindex_user(self, session: Session, old: int | None, new: int | None) -> None:
        if old is not None:
            group = self._by_user.get(old)
            if group is not None:
                group.discard(session)
                if not group:
                    del self._by_user[old]
                    if self.on_user_offline is not None:
                        self.on_user_offline(old)
        if new is not None and not session.destroyed:
            group = self._by_user.get(new)
            if group is None:
                group = self._by_user[new] = set()
                if self.on_user_online is not None:
                    self.on_user_online(new)
            group.add(session)

    # --- lifetime -----------------------------------------------------------------------

    def drop(self, session: Session) -> None:
        if session.destroyed:
            return
        session.destroyed = True
        session.cancel_requests()
        self._sessions.pop((session.auth_key_id, session.session_id), None)
        ids = self._by_key.get(session.auth_key_id)
        if ids is not None:
            ids.discard(session.session_id)
            if not ids:
                del self._by_key[session.auth_key_id]
        self._reindex_user(session, session.user_id, None)

    def destroy(self, auth_key_id: int, session_id: int) -> bool:
        """destroy_session: forget another session of the same key."""
        session = self.get(auth_key_id, session_id)
        if session is None:
            return False
        for link in list(session.links):
            session.detach(link)
        self.drop(session)
        return True

    def drop_key(self, auth_key_id: int) -> list[Session]:
        sessions = self.sessions_of_key(auth_key_id)
        for session in sessions:
            self.drop(session)
        return sessions

    def _evict_one(self, auth_key_id: int) -> None:
        sessions = self.sessions_of_key(auth_key_id)
        idle = [s for s in sessions if s.idle_since is not None] or sessions
        self.drop(min(idle, key=lambda s: s.idle_since or 0.0))

    def _session_idle(self, session: Session) -> None:
        self.start(self.dispatcher.session_closed(session))

    def sweep(self, now: float | None = None) -> int:
        """Drop sessions idle for longer than the TTL; return how many went."""
        now = time.monotonic() if now is None else now
        stale = [
            s
            for s in self._sessions.values()
            if s.idle_since is not None and now - s.idle_since > self.idle_ttl
        ]
        for session in stale:
            self.drop(session)
        return len(stale)

    # --- hooks the server provides ------------------------------------------------------

    async def bind_temp_auth_key(self, session: Session, msg_id: int, request: Any) -> Any:
        if self.on_bind_temp_auth_key is None:
            return wire.rpc_error(400, "ENCRYPTED_MESSAGE_INVALID")
        return await self.on_bind_temp_auth_key(session, msg_id, request)

    async def destroy_auth_key(self, session: Session, link: Any, msg_id: int) -> None:
        if self.on_destroy_auth_key is None:
            answer = wire.DESTROY_AUTH_KEY_FAIL.to_bytes(4, "little")
        else:
            answer = await self.on_destroy_auth_key(session)
        session.send(answer, response=True, content=False, link=link)
        if answer[:4] == wire.DESTROY_AUTH_KEY_OK.to_bytes(4, "little"):
            self.drop_key(session.auth_key_id)

    # --- tasks --------------------------------------------------------------------------

    def start(self, coro: Coroutine) -> asyncio.Task:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._task_done)
        return task

    def _task_done(self, task: asyncio.Task) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("session task failed", exc_info=task.exception())

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
