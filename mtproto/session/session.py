"""One MTProto session: (auth_key_id, session_id), living across connections.

A session checks what the client sends (msg_id, seqno, salt, duplicates), answers the
service messages, runs API requests concurrently and sends their results, and keeps the
content-related messages it sent until the client acknowledges them so that they can be
re-sent on the session's next connection.
"""

from __future__ import annotations

import asyncio
import logging
import os
import struct
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from mtproto.dispatch import ClientInfo, RequestContext
from mtproto.session import clock, wire
from mtproto.session.wire import WireError
from mtproto.session.wrappers import Unwrapped, unwrap

if TYPE_CHECKING:
    from mtproto.session.manager import SessionManager

log = logging.getLogger("telesrv.mtproto.session")

# Unacknowledged messages kept per session for re-sending (count and bytes).
MAX_OUTBOX = 1024
MAX_OUTBOX_BYTES = 8 * 1024 * 1024
# Client msg_ids remembered per session for duplicate detection and msgs_state_req.
MAX_RECEIVED = 4096
# Results larger than this are sent gzip_packed when that makes them smaller.
GZIP_THRESHOLD = 512
# A re-sent message keeps its msg_id only while clients still accept its age.
RESEND_SAME_ID_AGE = 240.0
# How long an API request may wait for its acknowledgement before one is sent alone.
ACK_DELAY = 0.2
# Requests running at once per session; more get 420 FLOOD-style backpressure.
MAX_PENDING = 512
# A request still running after this many seconds is answered -503 Timeout (what
# Telegram answers then) and cancelled: an accepted request is always answered, even when
# something under it waits forever. Longer than every bounded wait a request may do
# (a pooled database connection, 15 s; re-running it while PostgreSQL is away, 20 s).
REQUEST_DEADLINE = 50.0

# updatesTooLong: sent instead of a partial burst when queued pushes were dropped.
UPDATES_TOO_LONG = struct.pack("<I", 0xE317AF7E)

# Client messages that never need an acknowledgement (seqno must be even).
NOT_CONTENT = frozenset({wire.MSGS_ACK, wire.MSG_CONTAINER})
# Service messages whose seqno parity is not checked. Clients disagree about them
# (Telethon numbers ping as content-related, Pyrogram does not; mtcute numbers msgs_ack,
# msgs_state_req and msg_resend_req as content-related) and Telegram accepts them either
# way; mtcute drops its whole session on a bad_msg_notification about one.
EITHER = frozenset(
    {
        wire.MSGS_ACK,
        wire.PING,
        wire.PING_DELAY_DISCONNECT,
        wire.HTTP_WAIT,
        wire.MSGS_STATE_INFO,
        wire.MSGS_ALL_INFO,
        wire.MSG_DETAILED_INFO,
        wire.MSG_NEW_DETAILED_INFO,
        wire.MSG_RESEND_REQ,
        wire.MSGS_STATE_REQ,
    }
)

# Service functions a client may send inside an API wrapper.
WRAPPABLE_SERVICE_CALLS = frozenset(
    {
        wire.PING,
        wire.PING_DELAY_DISCONNECT,
        wire.GET_FUTURE_SALTS,
        wire.DESTROY_SESSION,
        wire.RPC_DROP_ANSWER,
        wire.DESTROY_AUTH_KEY,
    }
)

# The upload.* file methods (saveFilePart, saveBigFilePart, getFile, getWebFile,
# getCdnFile, reuploadCdnFile, getCdnFileHashes, getFileHashes). A session that has only
# made these is a client's file connection: it gets no pushed updates, as on Telegram.
# Web K hands updates from every connection to one processor, so a live push reaching its
# download or upload session before the send's answer (which pairs random_id with the
# message) showed each own megagroup message twice.
FILE_CALLS = frozenset(
    {0xB304A621, 0xDE7B673D, 0xBE5335BE, 0x24E6818D, 0x395F69DA, 0x9B2754A8, 0x91DC3F31, 0x9156982A}
)

# msgs_state_info status values and flags.
STATE_UNKNOWN = 1
STATE_NOT_RECEIVED = 2
STATE_TOO_HIGH = 3
STATE_RECEIVED = 4
FLAG_ACKED = 8
FLAG_NO_ACK_NEEDED = 16
FLAG_RPC = 32
FLAG_ANSWERED = 64


@dataclass(slots=True)
class OutMessage:
    msg_id: int
    seqno: int
    body: bytes
    created: float
    req_msg_id: int = 0  # the request an rpc_result answers
    updates: bool = False  # pushed updates: not sent on invokeWithoutUpdates connections


class Link(Protocol):
    """What a session needs from a connection (``mtproto.server`` implements it)."""

    closed: bool
    no_updates: bool
    peer_ip: str

    def enqueue(self, session: Session, msg: OutMessage) -> None: ...

    def flush_later(self, session: Session, delay: float) -> None: ...

    def disconnect_after(self, delay: float) -> None: ...

    def close(self) -> None: ...


class Session:
    def __init__(
        self,
        manager: SessionManager,
        auth_key: Any,
        session_id: int,
    ) -> None:
        self.manager = manager
        self.auth_key = auth_key
        self.auth_key_id: int = auth_key.auth_key_id
        self.perm_auth_key_id: int = getattr(auth_key, "perm_auth_key_id", None) or self.auth_key_id
        self.session_id = session_id
        # A new session of a known key speaks the layer the key's client last announced
        # until it says otherwise (pushes may reach it before its first request).
        self.layer: int = manager.key_layers.get(self.auth_key_id, manager.codec.primary)
        self.client: ClientInfo | None = None
        self._user_id: int | None = None
        self.links: list[Link] = []
        self.idle_since: float | None = time.monotonic()
        self.destroyed = False
        self.unique_id = struct.unpack("<q", os.urandom(8))[0]
        self._announced = False
        self._seq = 0  # content-related messages sent so far
        self._received: OrderedDict[int, int] = OrderedDict()  # msg_id -> state flags
        self._low_water = 0  # highest msg_id forgotten from _received
        self._last_msg_id = 0
        self._last_seqno = -1
        self._outbox: OrderedDict[int, OutMessage] = OrderedDict()
        self._outbox_bytes = 0
        self._updates_dropped = False  # the outbox overflowed and lost pushed updates
        self._answer_of: OrderedDict[int, int] = OrderedDict()  # req msg_id -> answer msg_id
        self._pending: dict[int, asyncio.Task] = {}
        self._overdue: set[int] = set()  # answered -503 at their deadline, then cancelled
        self._after_answer: dict[int, list] = {}  # req msg_id -> callbacks
        self._acks: list[int] = []
        # Only file requests so far (FILE_CALLS): no pushes. None until the first request.
        self.file_only: bool | None = None

    # --- identity -------------------------------------------------------------------

    @property
    def user_id(self) -> int | None:
        return self._user_id

    @user_id.setter
    def user_id(self, value: int | None) -> None:
        if value != self._user_id:
            self.manager._reindex_user(self, self._user_id, value)
            self._user_id = value

    @property
    def unbound_temporary(self) -> bool:
        """A temporary key not (yet) bound to a permanent one: good for nothing but
        auth.bindTempAuthKey."""
        return bool(getattr(self.auth_key, "expires_at", None)) and self.perm_auth_key_id == self.auth_key_id

    def __repr__(self) -> str:
        return f"<Session key={self.auth_key_id:#x} id={self.session_id:#x} user={self._user_id}>"

    # --- connections ----------------------------------------------------------------

    def attach(self, link: Link) -> None:
        """``link`` carried a message of this session: it is now the preferred one."""
        if self.links and self.links[-1] is link:
            return
        fresh = link not in self.links
        if not fresh:
            self.links.remove(link)
        self.links.append(link)
        self.idle_since = None
        if fresh and self._outbox:
            self._resend_all(link)

    def detach(self, link: Link) -> None:
        if link in self.links:
            self.links.remove(link)
            if not self.links:
                self.idle_since = time.monotonic()
                self.manager._session_idle(self)

    def _pick_link(self, updates: bool) -> Link | None:
        for link in reversed(self.links):
            if not link.closed and not (updates and link.no_updates):
                return link
        return None

    # --- sending ----------------------------------------------------------------------

    def current_salt(self) -> int:
        return self.manager.salts.current(self.auth_key_id)

    def _next_seqno(self, content: bool) -> int:
        if content:
            self._seq += 1
            return self._seq * 2 - 1
        return self._seq * 2

    def make_message(self, body: bytes, *, response: bool, content: bool) -> OutMessage:
        return OutMessage(self.manager.clock.next(response), self._next_seqno(content), body, time.time())

    def send(
        self,
        body: bytes,
        *,
        response: bool,
        content: bool,
        link: Link | None = None,
        req_msg_id: int = 0,
        updates: bool = False,
        keep: bool | None = None,
    ) -> OutMessage:
        """Send one message; content-related ones are kept for re-sending until acked
        unless ``keep`` is False (answers the client simply asks for again)."""
        msg = self.make_message(body, response=response, content=content)
        msg.req_msg_id = req_msg_id
        msg.updates = updates
        if content if keep is None else keep:
            self._remember(msg)
        target = link if link is not None and not link.closed else self._pick_link(updates)
        if target is not None:
            target.enqueue(self, msg)
        return msg

    def _remember(self, msg: OutMessage) -> None:
        self._outbox[msg.msg_id] = msg
        self._outbox_bytes += len(msg.body)
        while len(self._outbox) > MAX_OUTBOX or self._outbox_bytes > MAX_OUTBOX_BYTES:
            _, old = self._outbox.popitem(last=False)
            self._outbox_bytes -= len(old.body)
            self._updates_dropped = self._updates_dropped or old.updates
        if msg.req_msg_id:
            self._answer_of[msg.req_msg_id] = msg.msg_id
            while len(self._answer_of) > MAX_OUTBOX:
                self._answer_of.popitem(last=False)

    def _forget(self, msg_id: int) -> OutMessage | None:
        msg = self._outbox.pop(msg_id, None)
        if msg is not None:
            self._outbox_bytes -= len(msg.body)
        return msg

    def _resend(self, link: Link, msg: OutMessage, *, reissue: bool = False) -> OutMessage:
        if reissue or time.time() - msg.created > RESEND_SAME_ID_AGE:
            # Clients drop messages whose msg_id is older than 300 s: re-issue it.
            self._forget(msg.msg_id)
            fresh = self.make_message(msg.body, response=bool(msg.req_msg_id), content=True)
            fresh.req_msg_id = msg.req_msg_id
            fresh.updates = msg.updates
            self._remember(fresh)
            msg = fresh
        if not (msg.updates and link.no_updates):
            link.enqueue(self, msg)
        return msg

    def _resend_all(self, link: Link) -> None:
        """Everything unacknowledged, in the order it was first sent. Once one message
        needs a fresh msg_id, the ones after it get one too, so msg_ids keep that order.
        If pushed updates were dropped (the outbox overflowed while the client was
        away), the remaining pushes would be a partial burst: they are replaced by one
        updatesTooLong, which makes the client run getDifference."""
        pending = list(self._outbox.values())
        too_long = self._updates_dropped
        if too_long:
            self._updates_dropped = False
            for msg in pending:
                if msg.updates:
                    self._forget(msg.msg_id)
            pending = [m for m in pending if not m.updates]
        reissue = False
        for msg in pending:
            reissue = reissue or time.time() - msg.created > RESEND_SAME_ID_AGE
            self._resend(link, msg, reissue=reissue)
        if too_long:
            target = None if link.no_updates else link
            self.send(UPDATES_TOO_LONG, response=False, content=True, link=target, updates=True)

    def take_acks(self) -> bytes | None:
        """A msgs_ack body for what still waits for an acknowledgement, if anything."""
        if not self._acks:
            return None
        ids, self._acks = self._acks[: wire.MAX_IDS], self._acks[wire.MAX_IDS :]
        return wire.msgs_ack(ids)

    def _encode(self, obj: Any) -> bytes:
        data = obj if isinstance(obj, bytes | bytearray) else self.manager.codec.encode(obj, self.layer)
        if len(data) > GZIP_THRESHOLD:
            packed = wire.gzip_packed(bytes(data))
            if len(packed) < len(data):
                return packed
        return bytes(data)

    async def push(self, obj: Any) -> None:
        """Send an ``Updates`` object (primary layer) encoded for this session's layer."""
        if self.destroyed or self.file_only:
            return
        self.send(self._encode(obj), response=False, content=True, updates=True)

    # --- receiving --------------------------------------------------------------------

    def handle_packet(self, link: Link, salt: int, msg_id: int, seqno: int, body: bytes) -> None:
        """One decrypted message from ``link`` (its outer msg_id, seqno and body)."""
        self.attach(link)
        if msg_id in self._received:
            self._duplicate(link, msg_id)
            return
        code = clock.check_client_msg_id(msg_id)
        if code:
            self._bad_msg(link, msg_id, seqno, code)
            return
        initial, created = self.manager.initial_salts.get(self.auth_key_id, (None, None))
        if not self.manager.salts.is_valid(self.auth_key_id, salt, initial=initial, key_created=created):
            log.debug(
                "%r: bad_server_salt (code 48) for msg_id %d: salt %#x is not valid", self, msg_id, salt
            )
            body_out = wire.bad_server_salt(msg_id, seqno, self.current_salt())
            self.send(body_out, response=True, content=False, link=link)
            return
        if not self._announced:
            self._announced = True
            body_out = wire.new_session_created(
                self._first_msg_id(msg_id, body), self.unique_id, self.current_salt()
            )
            self.send(body_out, response=False, content=True, link=link)
        try:
            self._handle_message(link, msg_id, seqno, body, in_container=False)
        except WireError as exc:
            log.info("%r: malformed message %d: %s", self, msg_id, exc)
            self._bad_msg(link, msg_id, seqno, clock.BAD_CONTAINER)
        if self._acks:
            link.flush_later(self, 0 if len(self._acks) >= 16 else ACK_DELAY)

    @staticmethod
    def _first_msg_id(msg_id: int, body: bytes) -> int:
        """The first message of the session: inside a container, its first message (a
        client re-sends whatever it sent before first_msg_id)."""
        try:
            if wire.constructor_of(body) == wire.MSG_CONTAINER:
                return min([m for m, _, _ in wire.unpack_container(body)] or [msg_id])
        except WireError:
            pass
        return msg_id

    def _bad_msg(self, link: Link, msg_id: int, seqno: int, code: int) -> None:
        log.debug(
            "%r: bad_msg_notification %d (%s) for msg_id %d seqno %d",
            self,
            code,
            clock.BAD_MSG_REASONS.get(code, "?"),
            msg_id,
            seqno,
        )
        self.send(wire.bad_msg_notification(msg_id, seqno, code), response=True, content=False, link=link)

    def _duplicate(self, link: Link, msg_id: int) -> None:
        # Processed once already (a client re-sent it after a reconnect, or a replay):
        # never again, but a kept answer goes out once more.
        if self._received[msg_id] & FLAG_ANSWERED:
            answer = self._answer_of.get(msg_id)
            if answer is not None and answer in self._outbox:
                self._resend(link, self._outbox[answer])

    def _handle_message(self, link: Link, msg_id: int, seqno: int, body: bytes, in_container: bool) -> None:
        # Duplicates first: a request re-sent with its old msg_id inside a new container
        # may by now be older than the time window, and must not run a second time.
        if msg_id in self._received:
            self._duplicate(link, msg_id)
            return
        if in_container:
            code = clock.check_client_msg_id(msg_id)
            if code:
                self._bad_msg(link, msg_id, seqno, code)
                return
        if msg_id <= self._low_water:
            self._bad_msg(link, msg_id, seqno, clock.MSG_ID_TOO_OLD)
            return
        cid = wire.constructor_of(body)
        if cid == wire.MSG_CONTAINER:
            if in_container or seqno % 2:
                self._bad_msg(
                    link, msg_id, seqno, clock.BAD_CONTAINER if in_container else clock.SEQNO_EXPECTED_EVEN
                )
                return
            inner = wire.unpack_container(body)
            self._record(msg_id, STATE_RECEIVED | FLAG_NO_ACK_NEEDED)
            for inner_id, inner_seqno, inner_body in inner:
                if inner_id == msg_id:
                    self._bad_msg(link, inner_id, inner_seqno, clock.CONTAINER_ID_REUSED)
                    continue
                self._handle_message(link, inner_id, inner_seqno, inner_body, in_container=True)
            return
        if cid == wire.GZIP_PACKED:
            body = wire.gunzip(body)
            cid = wire.constructor_of(body)
        content = cid not in NOT_CONTENT
        if cid not in EITHER:
            if content and seqno % 2 == 0:
                self._bad_msg(link, msg_id, seqno, clock.SEQNO_EXPECTED_ODD)
                return
            if not content and seqno % 2 == 1:
                self._bad_msg(link, msg_id, seqno, clock.SEQNO_EXPECTED_EVEN)
                return
        # A newer message may not carry a lower seqno (code 32). The converse (33) is
        # not enforced: after a reconnect Telegram Desktop re-sends a lost request with
        # its old msg_id and a fresh seqno, and answers 32/33 by dropping its session.
        if msg_id > self._last_msg_id:
            if seqno < self._last_seqno:
                self._bad_msg(link, msg_id, seqno, clock.SEQNO_TOO_LOW)
                return
            self._last_msg_id, self._last_seqno = msg_id, seqno
        self._record(msg_id, STATE_RECEIVED | (0 if content else FLAG_NO_ACK_NEEDED))
        self._handle_body(link, msg_id, seqno, cid, body)

    def _record(self, msg_id: int, state: int) -> None:
        self._received[msg_id] = state
        if len(self._received) > MAX_RECEIVED:
            # Forget the oldest first; ids below the watermark then get code 20.
            oldest, _ = self._received.popitem(last=False)
            self._low_water = max(self._low_water, oldest)

    def _mark(self, msg_id: int, flags: int) -> None:
        if msg_id in self._received:
            self._received[msg_id] |= flags

    def _handle_body(self, link: Link, msg_id: int, seqno: int, cid: int, body: bytes) -> None:
        cur = wire.Cursor(body, 4)
        if cid == wire.MSGS_ACK:
            for acked in cur.vector_long():
                self._forget(acked)
        elif cid in (wire.PING, wire.PING_DELAY_DISCONNECT):
            ping_id = cur.long()
            if cid == wire.PING_DELAY_DISCONNECT:
                link.disconnect_after(max(0, cur.int()))
            self.send(wire.pong(msg_id, ping_id), response=True, content=True, link=link, keep=False)
            self._mark(msg_id, FLAG_ANSWERED | FLAG_ACKED)
        elif cid == wire.MSGS_STATE_REQ:
            ids = cur.vector_long()
            info = bytes(self._state_of(i) for i in ids)
            self.send(wire.msgs_state_info(msg_id, info), response=True, content=False, link=link)
        elif cid == wire.MSG_RESEND_REQ:
            for wanted in cur.vector_long():
                msg = self._outbox.get(wanted)
                if msg is not None:
                    self._resend(link, msg)
        elif cid == wire.GET_FUTURE_SALTS:
            salts = self.manager.salts.future(self.auth_key_id, cur.int())
            body_out = wire.future_salts(msg_id, int(time.time()), salts)
            self.send(body_out, response=True, content=True, link=link, keep=False)
        elif cid == wire.RPC_DROP_ANSWER:
            self.send(
                wire.rpc_result(msg_id, self._drop_answer(cur.long())),
                response=True,
                content=True,
                link=link,
                req_msg_id=msg_id,
            )
        elif cid == wire.DESTROY_SESSION:
            target = cur.long()
            ok = target != self.session_id and self.manager.destroy(self.auth_key_id, target)
            self.send(wire.destroy_session_res(ok, target), response=True, content=True, link=link)
        elif cid == wire.DESTROY_AUTH_KEY:
            self.manager.start(self.manager.destroy_auth_key(self, link, msg_id))
        elif cid in (
            wire.HTTP_WAIT,
            wire.MSGS_STATE_INFO,
            wire.MSGS_ALL_INFO,
            wire.MSG_DETAILED_INFO,
            wire.MSG_NEW_DETAILED_INFO,
        ):
            return  # informational, or HTTP-only
        else:
            self._start_request(link, msg_id, seqno, body)

    def _state_of(self, msg_id: int) -> int:
        state = self._received.get(msg_id)
        if state is not None:
            return state
        if msg_id <= self._low_water or clock.check_client_msg_id(msg_id) == clock.MSG_ID_TOO_LOW:
            return STATE_UNKNOWN
        if msg_id > int((time.time() + clock.FUTURE_WINDOW) * 4294967296.0):
            return STATE_TOO_HIGH
        return STATE_NOT_RECEIVED

    def _drop_answer(self, req_msg_id: int) -> bytes:
        task = self._pending.get(req_msg_id)
        if task is not None:
            task.cancel()
            return wire.rpc_answer_dropped_running()
        answer = self._answer_of.get(req_msg_id)
        msg = self._forget(answer) if answer is not None else None
        if msg is not None:
            return wire.rpc_answer_dropped(msg.msg_id, msg.seqno, len(msg.body))
        return wire.rpc_answer_unknown()

    # --- API requests -----------------------------------------------------------------

    def _start_request(self, link: Link, msg_id: int, seqno: int, body: bytes) -> None:
        self._mark(msg_id, FLAG_RPC)
        if len(self._pending) >= MAX_PENDING:
            self._answer(msg_id, wire.rpc_error(420, "FLOOD_WAIT_1"))
            return
        try:
            call = unwrap(body)
        except WireError:
            self._answer(msg_id, wire.rpc_error(400, "INPUT_REQUEST_INVALID"))
            return
        if call.layer is not None:
            self.layer = self.manager.codec.resolve_layer(call.layer)
            self.manager.remember_layer(self.auth_key_id, self.layer)
        if len(call.query) >= 4 and wire.constructor_of(call.query) in WRAPPABLE_SERVICE_CALLS:
            # Telethon wraps ping, get_future_salts, destroy_session... in
            # invokeWithoutUpdates: answered as if they came bare.
            self._handle_body(link, msg_id, seqno, wire.constructor_of(call.query), call.query)
            return
        file_call = len(call.query) >= 4 and wire.constructor_of(call.query) in FILE_CALLS
        self.file_only = file_call and self.file_only is not False
        # A connection is subscribed to updates by any request not wrapped in
        # invokeWithoutUpdates; one wrapped request does not unsubscribe it.
        if not call.no_updates:
            link.no_updates = False
            link.subscribed = True
        elif not getattr(link, "subscribed", False):
            link.no_updates = True
        self._acks.append(msg_id)
        task = self.manager.start(self._run_request(msg_id, call, getattr(link, "peer_ip", "")))
        self._pending[msg_id] = task
        deadline = self.manager.request_deadline
        if deadline:
            watchdog = asyncio.get_running_loop().call_later(deadline, self._request_overdue, msg_id, task)
            task.add_done_callback(lambda _t: watchdog.cancel())

    def _request_overdue(self, msg_id: int, task: asyncio.Task) -> None:
        """The request outlived its deadline: answer it, say where it was stuck (the
        stack is what finds the cause), and cancel it."""
        if task.done() or self._pending.get(msg_id) is not task:
            return
        where = _awaiting(task.get_coro())
        log.warning(
            "%r: request %d still running after %.0f s: answered -503 Timeout and cancelled; it was at:\n%s",
            self,
            msg_id,
            self.manager.request_deadline,
            where,
        )
        self.manager.overdue_requests += 1
        self._overdue.add(msg_id)
        self._answer(msg_id, wire.rpc_error(-503, "Timeout"))
        task.cancel()

    async def _run_request(self, msg_id: int, call: Unwrapped, ip: str = "") -> None:
        try:
            data = await self._execute(msg_id, call, ip)
        except asyncio.CancelledError:
            # rpc_drop_answer, destroy_session or shutdown: nothing to send; past its
            # deadline: answered already.
            self._overdue.discard(msg_id)
            self._answered(msg_id)
            return
        finally:
            self._pending.pop(msg_id, None)
        if msg_id in self._overdue:  # finished as it was being cancelled
            self._overdue.discard(msg_id)
            self._answered(msg_id)
            return
        self._answer(msg_id, data)
        self._answered(msg_id)

    def after_answer(self, msg_id: int, callback) -> None:
        """Run ``callback()`` once the answer to request ``msg_id`` was queued (or the
        request was dropped): pushes the answer must precede wait for it."""
        self._after_answer.setdefault(msg_id, []).append(callback)

    def _answered(self, msg_id: int) -> None:
        for callback in self._after_answer.pop(msg_id, ()):
            try:
                callback()
            except Exception:
                log.exception("%r: after-answer callback failed", self)

    def _answer(self, msg_id: int, data: bytes) -> None:
        if self.destroyed:
            return
        if msg_id in self._acks:
            self._acks.remove(msg_id)  # the result acknowledges the request
        self._mark(msg_id, FLAG_ANSWERED | FLAG_ACKED)
        self.send(wire.rpc_result(msg_id, data), response=True, content=True, req_msg_id=msg_id)

    async def _execute(self, msg_id: int, call: Unwrapped, ip: str = "") -> bytes:
        for after in call.after_msg_ids[:64]:
            earlier = self._pending.get(after)
            if earlier is not None:
                await asyncio.wait([earlier])
        manager = self.manager
        ctx = RequestContext(
            auth_key_id=self.auth_key_id,
            perm_auth_key_id=self.perm_auth_key_id,
            session_id=self.session_id,
            msg_id=msg_id,
            layer=self.layer,
            client=self.client,
            session=self,
            no_updates=call.no_updates,
            takeout_id=call.takeout_id,
            ip=ip,
        )
        try:
            if call.client is not None and call.client != self.client:
                self.client = ctx.client = call.client
                await manager.dispatcher.connection_initialized(ctx, call.client)
            try:
                request = manager.codec.decode(call.query, self.layer)
            except Exception as exc:  # the codec's DecodeError, or worse
                log.info("%r: undecodable request %s: %s", self, call.query[:4].hex(), exc)
                return wire.rpc_error(400, "INPUT_METHOD_INVALID")
            if getattr(request, "TL_NAME", None) == "auth.bindTempAuthKey":
                result = await manager.bind_temp_auth_key(self, msg_id, request)
            elif self.unbound_temporary:
                # Telegram Desktop answers this by creating and binding a new temporary key.
                return wire.rpc_error(401, "AUTH_KEY_PERM_EMPTY")
            else:
                result = await manager.dispatcher.dispatch(ctx, request)
            return self._encode(result)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            error = rpc_error_of(exc)
            if error is not None:
                return wire.rpc_error(*error)
            log.exception("%r: request %d failed", self, msg_id)
            return wire.rpc_error(500, "INTERNAL")

    def cancel_requests(self) -> None:
        for task in list(self._pending.values()):
            task.cancel()
        self._pending.clear()


def _awaiting(coro: Any, depth: int = 40) -> str:
    """The chain of awaits a suspended coroutine is stuck in, outermost first (a task's
    own stack shows only its outermost frame)."""
    lines = []
    while coro is not None and depth:
        frame = getattr(coro, "cr_frame", None) or getattr(coro, "gi_frame", None)
        if frame is not None:
            lines.append(f"  {frame.f_code.co_filename}:{frame.f_lineno} in {frame.f_code.co_name}")
        coro = getattr(coro, "cr_await", None) or getattr(coro, "gi_yieldfrom", None)
        depth -= 1
    return "\n".join(lines) or "  ?"


def rpc_error_of(exc: BaseException) -> tuple[int, str] | None:
    """(code, message) if ``exc`` is a typed RPC error (``tl.errors.RpcError``)."""
    from tl.errors import RpcError

    if isinstance(exc, RpcError):
        return exc.code, exc.message
    return None
