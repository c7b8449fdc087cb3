"""The MTProto listener: TCP connections -> transports -> key exchange or sessions.

Per connection: the transport is detected from the first bytes; unencrypted messages
(auth_key_id 0) drive the key exchange; encrypted ones are decrypted with the auth key
they name and handed to their session. A session outlives its connections, and its
answers go out on whichever of its connections is alive.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import hashlib
import logging
import os
import struct
import time
from typing import Any

from mtproto import crypto, transport
from mtproto.exchange import KeyExchange, verify_bind_message
from mtproto.session import SaltSchedule, Session, SessionManager, TLCodec, wire
from mtproto.session.codec import Codec
from mtproto.session.session import OutMessage

log = logging.getLogger("telesrv.mtproto.server")

# A packet carries at most this many messages (one container) and this many bytes.
MAX_BATCH = 1000
MAX_BATCH_BYTES = 512 * 1024
# A connection that sends nothing for this long is closed.
IDLE_TIMEOUT = 600.0
# Bytes written but not yet taken by the client, past which the connection is dropped.
MAX_WRITE_BUFFER = 16 * 1024 * 1024
SWEEP_INTERVAL = 60.0
# ping_delay_disconnect closes a connection that has sent nothing for max(delay, floor)
# seconds. The floor is Telegram's recommended delay: mtcute asks for 7 s while requests
# are in flight and then pings only every 60-65 s, so a shorter one closes every
# connection it has just stopped using.
PING_DISCONNECT_FLOOR = 75.0
# A packet that has started must be complete within this many seconds.
FRAME_DEADLINE = 30.0
# Connections at once from one address.
MAX_CONNECTIONS_PER_IP = 1000
# A refused address and reason are logged at most once in this many seconds.
REFUSAL_LOG_SECONDS = 10.0
# One key-exchange step must be answered within this many seconds, else the connection is
# closed. Clients give a step about 5 s (mtcute 0.30: 5 s, then it starts the exchange
# over on the same connection): an answer later than that is taken for the answer to the
# client's next step, and each retry can leave one more permanent key behind. Closed
# instead, the client starts over on a fresh connection.
EXCHANGE_STEP_DEADLINE = 4.0
# A trusted balancer sends its PROXY header as it connects; one that has not within this
# many seconds is cut (it would otherwise hold a connection no limit counts yet).
PROXY_HEADER_TIMEOUT = 5.0


def _key_bytes(key: Any) -> bytes:
    return key.key


def _expired(key: Any, now: float) -> bool:
    expires = getattr(key, "expires_at", None)
    if not expires:
        return False
    if hasattr(expires, "timestamp"):
        expires = expires.timestamp()
    return expires <= now


class Connection:
    """One client connection; the :class:`mtproto.session.Link` its sessions use."""

    def __init__(self, server: MTProtoServer, stream: transport.Transport) -> None:
        self.server = server
        self.transport = stream
        self.closed = False
        self.no_updates = False
        self.subscribed = False  # has carried a request that takes updates
        peer = stream.peer
        self.peer_ip = str(peer[0]) if isinstance(peer, tuple) and peer else ""
        self.auth_key: Any = None
        self.sessions: set[Session] = set()
        self._exchange: Any = None
        self._out: list[tuple[Session, OutMessage]] = []
        self._ack_sessions: set[Session] = set()
        self._flush_scheduled = False
        self._disconnect_timer: asyncio.TimerHandle | None = None
        self._disconnect_delay = 0.0
        self._loop = asyncio.get_running_loop()
        self._last_read = self._loop.time()

    # --- Link ---------------------------------------------------------------------------

    def enqueue(self, session: Session, msg: OutMessage) -> None:
        if self.closed:
            return
        self._out.append((session, msg))
        self._schedule_flush()

    def flush_later(self, session: Session, delay: float) -> None:
        if delay <= 0:
            self._ack_sessions.add(session)
            self._schedule_flush()
        else:
            self._loop.call_later(delay, self.flush_later, session, 0)

    def disconnect_after(self, delay: float) -> None:
        """ping_delay_disconnect: close once the client has been silent that long (any
        packet it sends counts, not only the next ping)."""
        self._disconnect_delay = max(float(delay), PING_DISCONNECT_FLOOR)
        if self._disconnect_timer is None:
            self._disconnect_timer = self._loop.call_later(self._disconnect_delay, self._check_ping_deadline)

    def _check_ping_deadline(self) -> None:
        self._disconnect_timer = None
        if self.closed:
            return
        left = self._last_read + self._disconnect_delay - self._loop.time()
        if left <= 0:
            log.debug(
                "%s: silent for %.0f s after ping_delay_disconnect; closing",
                self.transport.peer,
                self._disconnect_delay,
            )
            self.close()
        else:
            self._disconnect_timer = self._loop.call_later(left, self._check_ping_deadline)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.transport.close()

    # --- writing ------------------------------------------------------------------------

    def _schedule_flush(self) -> None:
        if not self._flush_scheduled:
            self._flush_scheduled = True
            # Everything queued during this loop iteration goes out as one packet.
            self._loop.call_soon(self._flush)

    def _flush(self) -> None:
        self._flush_scheduled = False
        if self.closed:
            self._out.clear()
            return
        by_session: dict[Session, list[OutMessage]] = {}
        for session, msg in self._out:
            by_session.setdefault(session, []).append(msg)
        self._out = []
        for session in self._ack_sessions:
            by_session.setdefault(session, [])
        self._ack_sessions.clear()
        for session, msgs in by_session.items():
            if session.destroyed and not msgs:
                continue
            acks = session.take_acks()
            if acks is not None:
                msgs.insert(0, session.make_message(acks, response=False, content=False))
            try:
                self._write(session, msgs)
            except Exception:
                log.exception("%s: cannot write to %r", self.transport.peer, session)
                self.close()
                return
        if self._buffered() > MAX_WRITE_BUFFER:
            # A client that does not read is not going to catch up; its sessions keep
            # what it has not acknowledged for the next connection.
            log.info("%s: not reading (%d bytes queued); closing", self.transport.peer, self._buffered())
            self.close()

    def _buffered(self) -> int:
        try:
            return self.transport._writer.transport.get_write_buffer_size()
        except AttributeError:
            return 0

    def _write(self, session: Session, msgs: list[OutMessage]) -> None:
        batch: list[OutMessage] = []
        size = 0
        for msg in msgs:
            if batch and (len(batch) >= MAX_BATCH or size + len(msg.body) > MAX_BATCH_BYTES):
                self._write_batch(session, batch)
                batch, size = [], 0
            batch.append(msg)
            size += len(msg.body) + 16
        if batch:
            self._write_batch(session, batch)

    def _write_batch(self, session: Session, batch: list[OutMessage]) -> None:
        if len(batch) == 1:
            msg = batch[0]
        else:
            body = wire.pack_container([(m.msg_id, m.seqno, m.body) for m in batch])
            msg = session.make_message(body, response=False, content=False)
        key = session.auth_key
        plain = crypto.pack_plaintext(
            session.current_salt(), session.session_id, msg.msg_id, msg.seqno, msg.body
        )
        self.transport.write_packet(
            crypto.encrypt_message(_key_bytes(key), plain, auth_key_id=session.auth_key_id)
        )

    # --- reading ------------------------------------------------------------------------

    def _check_idle(self) -> None:
        idle = self._loop.time() - self._last_read
        if idle >= IDLE_TIMEOUT:
            log.info("%s: idle for %.0f s; closing", self.transport.peer, idle)
            self.close()
        elif not self.closed:
            self._watchdog = self._loop.call_later(IDLE_TIMEOUT - idle, self._check_idle)

    async def run(self) -> None:
        peer = self.transport.peer
        # One timer per connection, not one per read: wait_for() on every packet costs
        # a task and a timer each time.
        self._last_read = self._loop.time()
        self._watchdog = self._loop.call_later(IDLE_TIMEOUT, self._check_idle)
        try:
            while not self.closed:
                packet = await self.transport.read_packet()
                self._last_read = self._loop.time()
                await self._handle(packet)
                await self.transport.drain()
        except (transport.TransportClosed, ConnectionError):
            pass
        except transport.TransportError as exc:
            self.server.refuse(_refusal_kind(exc))
            log.info("%s: transport error: %s", peer, exc)
        except Exception:
            log.exception("%s: connection failed", peer)
        finally:
            if getattr(self.transport, "gone_while_writing", False):
                self.server.gone_while_writing += 1
            self.close()
            self._watchdog.cancel()
            if self._disconnect_timer is not None:
                self._disconnect_timer.cancel()
            for session in self.sessions:
                session.detach(self)
            self.sessions.clear()
            self.server._forget(self)
            with contextlib.suppress(Exception):
                await self.transport.wait_closed()

    async def _handle(self, packet: Any) -> None:
        data = packet.payload
        if len(data) < 8:
            raise transport.BadFrame(f"{len(data)}-byte packet")
        (auth_key_id,) = struct.unpack_from("<q", data)
        if auth_key_id == 0:
            await self._handle_plain(data)
        else:
            await self._handle_encrypted(data, auth_key_id, packet.quick_ack)

    async def _handle_plain(self, data: bytes) -> None:
        # auth_key_id(8)=0, message_id(8), length(4), body
        if len(data) < 20:
            raise transport.BadFrame("short unencrypted message")
        (length,) = struct.unpack_from("<i", data, 16)
        body = data[20 : 20 + length]
        if length < 4 or len(body) != length:
            raise transport.BadFrame("bad unencrypted message length")
        if self._exchange is None:
            self._exchange = self.server.new_exchange()
        made = len(self._exchange.results)
        try:
            answer = await asyncio.wait_for(self._exchange.handle(body), self.server.exchange_step_deadline)
        except TimeoutError:
            self.server.refuse("exchange_timeout")
            log.warning(
                "%s: a key exchange step took over %.0f s; closing so the client starts over",
                self.transport.peer,
                self.server.exchange_step_deadline,
            )
            self.close()
            return
        if answer is None:
            self.close()
            return
        if len(self._exchange.results) > made:
            result = self._exchange.result
            self.server.sessions.remember_initial_salt(result.auth_key.auth_key_id, result.server_salt)
        msg_id = self.server.sessions.clock.next(response=True)
        self.transport.write_packet(struct.pack("<qqi", 0, msg_id, len(answer)) + answer)

    async def _handle_encrypted(self, data: bytes, auth_key_id: int, quick_ack: bool) -> None:
        key = self.auth_key
        if key is None or key.auth_key_id != auth_key_id:
            key = await self.server.lookup_key(auth_key_id)
            stored_layer = getattr(key, "layer", 0)
            if stored_layer and auth_key_id not in self.server.sessions.key_layers:
                codec = self.server.sessions.codec
                self.server.sessions.remember_layer(auth_key_id, codec.resolve_layer(stored_layer))
        if key is None or _expired(key, time.time()):
            log.info("%s: unknown auth key %#x", self.transport.peer, auth_key_id & (2**64 - 1))
            self.transport.write_transport_error(transport.ERROR_AUTH_KEY_NOT_FOUND)
            await self.transport.drain()
            self.close()
            return
        try:
            msg = crypto.decrypt_message(_key_bytes(key), data, auth_key_id=auth_key_id)
        except crypto.CryptoError as exc:
            # A message that fails the checks is dropped, and with it the connection:
            # nothing else it sends can be trusted to be in sync.
            log.info("%s: dropping bad encrypted message: %s", self.transport.peer, exc)
            self.close()
            return
        self.auth_key = key
        if quick_ack:
            self.transport.write_quick_ack(msg.quick_ack_token)
        session = self.server.sessions.get_or_create(key, msg.session_id)
        self.sessions.add(session)
        session.handle_packet(self, msg.salt, msg.msg_id, msg.seq_no, msg.body)


class MTProtoServer:
    """The listener. ``dispatcher`` implements :class:`mtproto.dispatch.Dispatcher`,
    ``key_store`` :class:`mtproto.keys.AuthKeyStore`."""

    def __init__(
        self,
        dispatcher: Any,
        key_store: Any,
        rsa_private_key: Any,
        *,
        codec: Codec | None = None,
        salt_secret: bytes | None = None,
        dc_id: int = 2,
        max_connections: int = 20000,
        max_connections_per_ip: int = MAX_CONNECTIONS_PER_IP,
        frame_deadline: float = FRAME_DEADLINE,
        max_frame_bytes: int = transport.MAX_PACKET,
        exchange_step_deadline: float = EXCHANGE_STEP_DEADLINE,
        trusted_proxies: str | transport.TrustedProxies = "",
        proxy_header_timeout: float = PROXY_HEADER_TIMEOUT,
    ) -> None:
        self.exchange_step_deadline = exchange_step_deadline
        self.dispatcher = dispatcher
        self.keys = key_store
        self.rsa_key = rsa_private_key
        self.dc_id = dc_id
        self.max_connections = max_connections
        self.max_connections_per_ip = max_connections_per_ip
        self.frame_deadline = frame_deadline
        self.max_frame_bytes = max_frame_bytes
        # Balancers whose connections start with a PROXY header naming the real client
        # (which the per-address limit, logs and authorizations then see).
        self.trusted_proxies = (
            trusted_proxies
            if isinstance(trusted_proxies, transport.TrustedProxies)
            else transport.TrustedProxies(trusted_proxies)
        )
        self.proxy_header_timeout = proxy_header_timeout
        # Connections refused or cut, by reason ("connections", "connections_per_ip",
        # "frame_deadline", "frame_too_large", "bad_frame", and for PROXY headers
        # "proxy_untrusted", "proxy_header_missing", "proxy_header_bad",
        # "proxy_header_timeout"): for a metrics exporter.
        self.refusals: collections.Counter[str] = collections.Counter()
        # (reason, address) -> (when its refusal was last logged, refusals since).
        self._refusals_logged: dict[tuple[str, str], tuple[float, int]] = {}
        # Connections whose peer went away while an answer was being written.
        self.gone_while_writing = 0
        if salt_secret is None:
            # Replay protection across restarts: the processed msg_ids of a session live
            # in this process only, so a packet captured before a restart would run again
            # afterwards. A random part per process gives it salts no earlier packet can
            # carry: such a packet gets bad_server_salt and is not executed (a client
            # re-sends with the new salt - one extra round trip after a restart or a
            # switch of edge process).
            salt_secret = hashlib.sha256(
                b"telesrv salts" + _rsa_material(rsa_private_key) + os.urandom(32)
            ).digest()
        self.sessions = SessionManager(
            dispatcher,
            codec or TLCodec(),
            SaltSchedule(salt_secret),
            on_bind_temp_auth_key=self._bind_temp_auth_key,
            on_destroy_auth_key=self._destroy_auth_key,
        )
        self._connections: set[Connection] = set()
        self._per_ip: collections.Counter[str] = collections.Counter()
        self._server: asyncio.AbstractServer | None = None
        self._sweeper: asyncio.Task | None = None

    # --- running ------------------------------------------------------------------------

    async def start(
        self, host: str = "127.0.0.1", port: int = 0, *, reuse_port: bool = False, serve: bool = True
    ) -> int:
        """Listen; return the bound port. ``reuse_port``: one of several processes
        listening on the same port (SO_REUSEPORT). ``serve=False`` binds the port but
        accepts nobody until :meth:`begin_serving` (a process finishing its start-up)."""
        self._server = await asyncio.start_server(
            self._on_connect,
            host,
            port,
            reuse_address=True,
            reuse_port=reuse_port or None,
            start_serving=serve,
        )
        self._sweeper = asyncio.get_running_loop().create_task(self._sweep())
        return self._server.sockets[0].getsockname()[1]

    async def begin_serving(self) -> None:
        assert self._server is not None
        await self._server.start_serving()

    async def serve_forever(self) -> None:
        assert self._server is not None
        async with self._server:
            await self._server.serve_forever()

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        if self._sweeper is not None:
            self._sweeper.cancel()
        for conn in list(self._connections):
            conn.close()
        await self.sessions.close()

    async def _sweep(self) -> None:
        while True:
            await asyncio.sleep(SWEEP_INTERVAL)
            try:
                self.sessions.sweep()
            except Exception:
                log.exception("session sweep failed")

    def refuse(self, kind: str, peer: Any = None) -> None:
        """Count a refusal; with ``peer``, log it naming the client's address (at most
        one line per address and reason every REFUSAL_LOG_SECONDS: a flood of refused
        connections must not become a flood of log lines)."""
        self.refusals[kind] += 1
        if peer is None:
            return
        ip = _address(peer)
        now = time.monotonic()
        key = (kind, ip)
        last = self._refusals_logged.get(key)
        if last is not None and now - last[0] < REFUSAL_LOG_SECONDS:
            self._refusals_logged[key] = (last[0], last[1] + 1)
            return
        if len(self._refusals_logged) > 10_000:
            self._refusals_logged.clear()
        self._refusals_logged[key] = (now, 0)
        more = f" ({last[1]} more since the last line)" if last is not None and last[1] else ""
        log.info("%s: connection refused (%s)%s", peer, kind, more)

    def _forget(self, conn: Connection) -> None:
        if conn in self._connections:
            self._connections.discard(conn)
            self._per_ip[conn.peer_ip] -= 1
            if self._per_ip[conn.peer_ip] <= 0:
                del self._per_ip[conn.peer_ip]

    async def _on_connect(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        stream = transport.Transport(
            reader, writer, max_packet=self.max_frame_bytes, frame_deadline=self.frame_deadline
        )
        if self.trusted_proxies and _address(stream.peer) in self.trusted_proxies:
            # Before the limits: they count the client the header names, not the balancer.
            try:
                await stream.accept_proxy_header(self.proxy_header_timeout)
            except transport.TransportClosed:
                return
            except transport.TransportError as exc:
                self.refuse(_refusal_kind(exc))
                log.info("%s: %s", stream.peer, exc)
                return
            log.debug("%s: through the balancer %s", stream.peer, stream.proxied_by)
        if len(self._connections) >= self.max_connections:
            self.refuse("connections", stream.peer)
            await self._refuse(stream)
            return
        conn = Connection(self, stream)
        if self.max_connections_per_ip and self._per_ip[conn.peer_ip] >= self.max_connections_per_ip:
            self.refuse("connections_per_ip", stream.peer)
            await self._refuse(stream)
            return
        self._connections.add(conn)
        self._per_ip[conn.peer_ip] += 1
        # Cancelled at shutdown: the connection cleans up in run(); letting the
        # cancellation out only makes asyncio's stream callback log it.
        with contextlib.suppress(asyncio.CancelledError):
            await conn.run()

    async def _refuse(self, stream: transport.Transport) -> None:
        """Over the connection limit: answer the first packet with -429 (the transport
        is only known once the client has spoken), then hang up."""
        try:
            await asyncio.wait_for(stream.read_packet(), 5)
            stream.write_transport_error(transport.ERROR_FLOOD)
            await stream.drain()
        except Exception:
            pass
        finally:
            stream.close()

    # --- what the app and the sessions use ----------------------------------------------

    def sessions_of_user(self, user_id: int) -> list[Session]:
        return self.sessions.sessions_of_user(user_id)

    def online_user_ids(self) -> list[int]:
        """Users with a live session on this edge (public: push code intersects it with
        channel membership instead of reading the session manager's index)."""
        return self.sessions.online_user_ids()

    def sessions_of_perm_key(self, perm_auth_key_id: int) -> list[Session]:
        return self.sessions.sessions_of_perm_key(perm_auth_key_id)

    async def lookup_key(self, auth_key_id: int) -> Any:
        return await self.keys.get(auth_key_id)

    def new_exchange(self) -> KeyExchange:
        return KeyExchange(self.rsa_key, self.keys, dc_id=self.dc_id)

    async def _bind_temp_auth_key(self, session: Session, msg_id: int, request: Any) -> bytes:
        if not getattr(session.auth_key, "expires_at", None):
            return wire.rpc_error(400, "TEMP_AUTH_KEY_EMPTY")
        perm = await self.keys.get(request.perm_auth_key_id)
        if perm is None or getattr(perm, "expires_at", None):
            # What Telegram answers for a permanent key it does not have: Telegram
            # Desktop takes it to mean "create a new permanent key".
            return wire.rpc_error(400, "ENCRYPTED_MESSAGE_INVALID")
        try:
            verify_bind_message(
                perm_auth_key=_key_bytes(perm),
                encrypted_message=request.encrypted_message,
                nonce=request.nonce,
                temp_auth_key_id=session.auth_key_id,
                perm_auth_key_id=request.perm_auth_key_id,
                temp_session_id=session.session_id,
                expires_at=request.expires_at,
                msg_id=msg_id,
            )
        except Exception as exc:
            log.info("%r: bad bind message: %s", session, exc)
            return wire.rpc_error(400, "ENCRYPTED_MESSAGE_INVALID")
        await self.keys.bind(session.auth_key_id, request.perm_auth_key_id, request.expires_at)
        for other in self.sessions.sessions_of_key(session.auth_key_id):
            other.perm_auth_key_id = request.perm_auth_key_id
            other.user_id = None  # re-resolved through the permanent key's authorization
        return wire.bool_true()

    def drop_auth_key(self, auth_key_id: int) -> None:
        """A key was deleted elsewhere: forget it, its sessions and its connections."""
        forget = getattr(self.keys, "forget", None)
        if forget is not None:
            forget(auth_key_id)
        self.sessions.drop_key(auth_key_id)
        for conn in list(self._connections):
            if conn.auth_key is not None and conn.auth_key.auth_key_id == auth_key_id:
                conn.close()

    async def _destroy_auth_key(self, session: Session) -> bytes:
        try:
            await self.keys.delete(session.auth_key_id)
        except Exception:
            log.exception("%r: destroy_auth_key failed", session)
            return struct.pack("<I", wire.DESTROY_AUTH_KEY_FAIL)
        for conn in list(self._connections):
            if conn.auth_key is not None and conn.auth_key.auth_key_id == session.auth_key_id:
                # After the answer is written: the key is gone for good.
                asyncio.get_running_loop().call_later(0.05, conn.close)
        return struct.pack("<I", wire.DESTROY_AUTH_KEY_OK)


def _address(peer: Any) -> str:
    return str(peer[0]) if isinstance(peer, tuple) and peer else ""


def _refusal_kind(exc: Exception) -> str:
    if isinstance(exc, transport.BadProxyHeader):
        return exc.refusal
    if isinstance(exc, transport.FrameTimeout):
        return "frame_deadline"
    if isinstance(exc, transport.FrameTooLarge):
        return "frame_too_large"
    return "bad_frame"


def _rsa_material(key: Any) -> bytes:
    for attr in ("d", "n"):
        value = getattr(key, attr, None)
        if isinstance(value, int):
            return value.to_bytes(256, "big", signed=False)
    return repr(key).encode()
