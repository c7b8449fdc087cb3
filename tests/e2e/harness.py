"""Helpers for driving the real listener: a subprocess runner, client factories for
Telethon and Kurigram, and a raw MTProto client for protocol-level tests and benchmarks.

Nothing here imports Django at module level: the raw client is also used by
``bench/`` and by the mtproto unit tests.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import struct
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from mtproto import crypto, transport
from mtproto.crypto.kdf import Direction
from mtproto.session import wire

ROOT = Path(__file__).resolve().parents[2]
API_ID = 611335
API_HASH = "d524b414d21f4d37f08684c1df41ac9c"  # any 32 hex chars: the server does not check


TEST_SECRET_KEY = "telesrv-test-and-bench-servers-key-not-a-secret-0123456789"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(
    port: int, proc: subprocess.Popen | None = None, timeout: float = 60.0, host: str = "127.0.0.1"
) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}")
        with contextlib.suppress(OSError), socket.create_connection((host, port), timeout=0.5):
            return
        time.sleep(0.1)
    raise TimeoutError(f"nothing listens on port {port}")


@dataclass
class EdgeServer:
    """A running ``manage.py runmtproto`` subprocess."""

    host: str
    port: int
    rsa_key_path: Path
    proc: subprocess.Popen
    log_path: Path
    env: dict = field(default_factory=dict)

    @property
    def public_pem(self) -> bytes:
        return crypto.RsaKey.load(self.rsa_key_path).public_pem()

    def alive(self) -> bool:
        return self.proc.poll() is None

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@contextlib.contextmanager
def admin_process(env: dict[str, str], log_path: Path):
    """daphne serving the admin process (what ``manage.py serve`` runs) with ``env``,
    its output in ``log_path``; yields its base URL and stops it afterwards."""
    port = free_port()
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "daphne",
                "-b",
                "127.0.0.1",
                "-p",
                str(port),
                "telesrv_project.asgi:application",
            ],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        wait_for_port(port, proc)
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def start_edge(
    env_overrides: dict[str, str],
    rsa_key_path: Path,
    log_path: Path,
    port: int | None = None,
    host: str = "127.0.0.1",
) -> EdgeServer:
    """Start ``manage.py runmtproto`` on ``host:port`` (a free port by default) and wait
    until it accepts."""
    port = port or free_port()
    env = dict(os.environ)
    # The test process may relax Django's async checks for itself; the server must not.
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    env.update(env_overrides)
    env["TELESRV_RSA_KEY"] = str(rsa_key_path)
    env["TELESRV_MTPROTO_PORT"] = str(port)
    env["TELESRV_MTPROTO_PUBLIC_PORT"] = str(port)
    # DEBUG is off by default and a server refuses the development secret key then: the
    # tests and bench/ scripts run their servers with a throwaway key of their own.
    env.setdefault("TELESRV_SECRET_KEY", TEST_SECRET_KEY)
    # Its /healthz, /readyz and /metrics port (tests/e2e/test_operations.py scrapes it).
    if "TELESRV_MTPROTO_HEALTH_PORT" not in env_overrides:
        env["TELESRV_MTPROTO_HEALTH_PORT"] = str(free_port())
    env.setdefault("TELESRV_TEST_PHONE_NUMBERS", "1")
    env.setdefault("TELESRV_LOG_LOGIN_CODES", "1")  # tests read real codes from the server log
    log_file = open(log_path, "ab")  # noqa: SIM115 - handed to the child (appended: restarts)
    proc = subprocess.Popen(
        [sys.executable, "manage.py", "runmtproto", "--host", host, "--port", str(port)],
        cwd=ROOT,
        env=env,
        stdout=log_file,
        stderr=subprocess.STDOUT,
    )
    log_file.close()
    server = EdgeServer(host, port, rsa_key_path, proc, log_path, env)
    try:
        wait_for_port(port, proc, host=host)
    except Exception:
        server.stop()
        raise RuntimeError(f"runmtproto did not start:\n{server.log()}") from None
    return server


# --- real client libraries ----------------------------------------------------------


TELETHON_CONNECTIONS = {
    "full": "ConnectionTcpFull",
    "abridged": "ConnectionTcpAbridged",
    "intermediate": "ConnectionTcpIntermediate",
    "obfuscated": "ConnectionTcpObfuscated",
}


def telethon_trust(pem: bytes) -> None:
    """Put the server's key into Telethon's key table (in this process)."""
    from telethon.crypto import rsa as telethon_rsa

    telethon_rsa.add_key(pem.decode(), old=False)


def make_telethon(
    server: EdgeServer,
    transport_name: str = "full",
    session=None,
    receive_updates: bool = False,
    local_addr: tuple[str, int] | None = None,
):
    """A not yet connected ``TelegramClient`` pointing at ``server``. Without
    ``receive_updates`` Telethon wraps every call in invokeWithoutUpdates, so the server
    pushes nothing to it."""
    from telethon import TelegramClient, connection
    from telethon.sessions import MemorySession

    telethon_trust(server.public_pem)
    session = session if session is not None else MemorySession()
    session.set_dc(2, server.host, server.port)
    return TelegramClient(
        session,
        API_ID,
        API_HASH,
        connection=getattr(connection, TELETHON_CONNECTIONS[transport_name]),
        receive_updates=receive_updates,
        connection_retries=1,
        retry_delay=0,
        timeout=10,
        request_retries=1,
        auto_reconnect=False,
        local_addr=local_addr,
    )


def kurigram_trust(server: EdgeServer) -> None:
    """Put the server's key into Kurigram's key table (in this process)."""
    from pyrogram.crypto import rsa as pyro_rsa

    key = crypto.RsaKey.load(server.rsa_key_path)
    fp = key.fingerprint
    if fp >= 2**63:
        fp -= 2**64
    pyro_rsa.server_public_keys[fp] = pyro_rsa.PublicKey(key.n, key.e)


KURIGRAM_PROTOCOLS = {
    "abridged": "TCPAbridged",
    "intermediate": "TCPIntermediate",
    "full": "TCPFull",
    "obfuscated": "TCPAbridgedO",
    "obfuscated_intermediate": "TCPIntermediateO",
}


def make_kurigram(server: EdgeServer, transport_name: str = "abridged", name: str = "e2e", **kwargs):
    """A not yet connected Kurigram ``Client`` whose every connection goes to ``server``.

    Kurigram stores Telegram's DC2 address in new sessions; the connection factory
    ignores whatever address it is given and dials the test server instead.
    """
    from pyrogram import Client
    from pyrogram.connection import Connection
    from pyrogram.connection import transport as pyro_transport

    kurigram_trust(server)
    host, port = server.host, server.port

    class LocalConnection(Connection):
        def __init__(self, **kw):  # Kurigram passes everything by keyword
            kw["server_address"], kw["port"] = host, port
            super().__init__(**kw)

    kwargs.setdefault("no_updates", True)  # pass no_updates=False for a client that gets pushes
    return Client(
        name,
        api_id=API_ID,
        api_hash=API_HASH,
        in_memory=True,
        connection_factory=LocalConnection,
        protocol_factory=getattr(pyro_transport, KURIGRAM_PROTOCOLS[transport_name]),
        **kwargs,
    )


_phone_counter = [0]


def fresh_phone(dc_id: int = 2) -> tuple[str, str]:
    """A fresh test phone number (99966XYYYY, X = the DC) and its login code (XXXXX)."""
    _phone_counter[0] += 1
    suffix = (os.getpid() * 37 + _phone_counter[0] + int(time.time())) % 10000
    return f"99966{dc_id}{suffix:04d}", str(dc_id) * 5


async def login_telethon(client, phone: str | None = None, first_name: str = "Test", last_name: str = ""):
    """Log a connected Telethon client in with a test phone number (signing up if the
    number is new); returns the ``User`` it is logged in as."""
    from telethon.errors import PhoneNumberUnoccupiedError

    if phone is None:
        phone, code = fresh_phone()
    else:
        code = phone[5] * 5
    sent = await client.send_code_request(phone)
    try:
        return await client.sign_in(phone, code=code, phone_code_hash=sent.phone_code_hash)
    except PhoneNumberUnoccupiedError:
        # Telethon refuses sign_up() for third-party apps; the raw request is the same thing.
        from telethon import functions

        result = await client(
            functions.auth.SignUpRequest(
                phone_number=phone,
                phone_code_hash=sent.phone_code_hash,
                first_name=first_name,
                last_name=last_name,
            )
        )
        return await client._on_login(result.user)


# --- raw client ----------------------------------------------------------------------


class RawClient:
    """A minimal MTProto client over an existing auth key: enough to send chosen bytes,
    service messages and pings, and to read the server's answers message by message."""

    def __init__(
        self,
        host: str,
        port: int,
        auth_key: bytes,
        *,
        kind: str = "intermediate",
        obfuscated: bool = False,
        session_id: int | None = None,
        websocket: bool = False,
        preamble: bytes = b"",
        local_host: str | None = None,
    ) -> None:
        self.websocket = websocket
        # Bytes sent before anything else (a PROXY protocol header), and the address to
        # connect from.
        self.preamble = preamble
        self.local_host = local_host
        self._ws = None
        self.host = host
        self.port = port
        self.auth_key = auth_key
        self.auth_key_id = crypto.auth_key_id_of(auth_key)
        self.kind = kind
        self.obfuscated = obfuscated
        self.session_id = session_id if session_id is not None else struct.unpack("<q", os.urandom(8))[0]
        self.salt = 0
        self._last_id = 0
        self._seq = 0
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._stream = None
        self._packets: list = []

    async def connect(self) -> RawClient:
        local_addr = (self.local_host, 0) if self.local_host else None
        self._reader, self._writer = await asyncio.open_connection(
            self.host, self.port, local_addr=local_addr
        )
        if self.preamble:
            self._writer.write(self.preamble)
        self._stream = transport.ClientStream(self.kind, obfuscated=self.obfuscated)
        if self.websocket:
            self._ws = WebSocketLink(self._reader, self._writer)
            await self._ws.handshake(f"ws://{self.host}:{self.port}/apiws")
        return self

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()

    def new_msg_id(self, offset: float = 0.0) -> int:
        mid = int((time.time() + offset) * 2**32) & ~3
        if mid <= self._last_id:
            mid = self._last_id + 4
        self._last_id = mid
        return mid

    def seqno(self, content: bool) -> int:
        if content:
            self._seq += 1
            return self._seq * 2 - 1
        return self._seq * 2

    def encrypt(self, body: bytes, msg_id: int, seqno: int) -> bytes:
        plain = crypto.pack_plaintext(self.salt, self.session_id, msg_id, seqno, body)
        return crypto.encrypt_message(
            self.auth_key, plain, Direction.CLIENT_TO_SERVER, auth_key_id=self.auth_key_id
        )

    def send_packet(self, payload: bytes, quick_ack: bool = False) -> None:
        assert self._writer is not None and self._stream is not None
        self.send_bytes(self._stream.encode(payload, quick_ack))

    def send_bytes(self, data: bytes) -> None:
        """Raw transport bytes (in one binary message over WebSocket)."""
        assert self._writer is not None
        if self._ws is not None:
            self._ws.send(data)
        else:
            self._writer.write(data)

    def send(self, body: bytes, *, content: bool = True, msg_id: int | None = None, seqno: int | None = None):
        msg_id = self.new_msg_id() if msg_id is None else msg_id
        seqno = self.seqno(content) if seqno is None else seqno
        self.send_packet(self.encrypt(body, msg_id, seqno))
        return msg_id

    async def plain_call(self, body: bytes, timeout: float = 10.0) -> bytes:
        """One unencrypted round trip (the key exchange): send ``body``, return the answer's."""
        self.send_packet(struct.pack("<qqi", 0, self.new_msg_id(), len(body)) + body)
        packet = await self.read_packet(timeout)
        code = transport.transport_error_code(packet.payload)
        if code is not None:
            raise TransportErrorReceived(code)
        (length,) = struct.unpack_from("<i", packet.payload, 16)
        return packet.payload[20 : 20 + length]

    def use_key(self, auth_key: bytes, salt: int = 0) -> None:
        """Switch to another auth key on the same connection (after creating one)."""
        self.auth_key = auth_key
        self.auth_key_id = crypto.auth_key_id_of(auth_key)
        self.salt = salt

    async def read_packet(self, timeout: float | None = 5.0):
        """The next packet; ``timeout`` None waits without a timer (the benchmarks'
        readers, which a timer per read cost a tenth of their CPU)."""
        assert self._reader is not None and self._stream is not None
        while not self._packets:
            read = self._reader.read(65536)
            data = await (read if timeout is None else asyncio.wait_for(read, timeout))
            if not data:
                raise ConnectionResetError("server closed the connection")
            if self._ws is not None:
                data = self._ws.receive(data)
            self._packets.extend(self._stream.feed(data))
        return self._packets.pop(0)

    async def recv(self, timeout: float | None = 5.0) -> list[tuple[int, int, bytes]]:
        """The messages of the next encrypted packet, containers flattened."""
        packet = await self.read_packet(timeout)
        payload = packet.payload
        code = transport.transport_error_code(payload)
        if code is not None:
            raise TransportErrorReceived(code)
        msg = crypto.decrypt_message(
            self.auth_key, payload, Direction.SERVER_TO_CLIENT, auth_key_id=self.auth_key_id
        )
        if wire.constructor_of(msg.body) == wire.MSG_CONTAINER:
            return wire.unpack_container(msg.body)
        return [(msg.msg_id, msg.seq_no, msg.body)]

    async def expect(self, constructor: int, timeout: float = 5.0) -> bytes:
        """Read until a message of ``constructor`` arrives (following salt changes)."""
        deadline = time.monotonic() + timeout
        while True:
            for _msg_id, _seq, body in await self.recv(max(0.01, deadline - time.monotonic())):
                cid = wire.constructor_of(body)
                if cid == wire.BAD_SERVER_SALT:
                    self.salt = struct.unpack_from("<q", body, 20)[0]
                if cid == wire.NEW_SESSION_CREATED:
                    self.salt = struct.unpack_from("<q", body, 20)[0]
                if cid == constructor:
                    return body

    async def handshake(self) -> None:
        """Learn the salt: one ping, answered by bad_server_salt, then by pong."""
        self.send(struct.pack("<Iq", wire.PING, 1))
        body = await self.expect(wire.BAD_SERVER_SALT)
        self.salt = struct.unpack_from("<q", body, 20)[0]
        await self.ping()

    async def ping(self, ping_id: int | None = None, timeout: float = 5.0) -> None:
        ping_id = ping_id if ping_id is not None else struct.unpack("<q", os.urandom(8))[0]
        self.send(struct.pack("<Iq", wire.PING, ping_id))
        while True:
            body = await self.expect(wire.PONG, timeout)
            if struct.unpack_from("<q", body, 12)[0] == ping_id:
                return


class TransportErrorReceived(Exception):
    def __init__(self, code: int) -> None:
        super().__init__(f"transport error {code}")
        self.code = code


class WebSocketLink:
    """The client side of MTProto over WebSocket for :class:`RawClient` (the ``websockets``
    package's sans-I/O client protocol): transport bytes go out as binary messages, and
    the payloads of the binary messages received are the server's transport bytes."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.protocol = None
        self.closed_by_server: tuple[int, str] | None = None

    async def handshake(self, uri: str, subprotocols=("binary",), timeout: float = 5.0) -> None:
        from websockets.client import ClientProtocol
        from websockets.http11 import Response
        from websockets.typing import Subprotocol
        from websockets.uri import parse_uri

        self.protocol = ClientProtocol(parse_uri(uri), subprotocols=[Subprotocol(s) for s in subprotocols])
        request = self.protocol.connect()
        self.protocol.send_request(request)
        self._flush()
        while True:
            data = await asyncio.wait_for(self.reader.read(65536), timeout)
            if not data:
                raise ConnectionResetError("server closed the connection during the handshake")
            self.protocol.receive_data(data)
            for event in self.protocol.events_received():
                if isinstance(event, Response):
                    if event.status_code != 101:
                        raise ConnectionRefusedError(f"WebSocket upgrade refused: {event.status_code}")
                    self.subprotocol = self.protocol.subprotocol
                    return

    def _flush(self) -> None:
        for chunk in self.protocol.data_to_send():
            if chunk:
                self.writer.write(chunk)

    def send(self, data: bytes) -> None:
        self.protocol.send_binary(data)
        self._flush()

    def ping(self, data: bytes = b"hi") -> None:
        self.protocol.send_ping(data)
        self._flush()

    def receive(self, data: bytes) -> bytes:
        """Feed bytes read from the socket; return the binary payloads in them."""
        from websockets.frames import Close, Opcode

        self.protocol.receive_data(data)
        out = bytearray()
        for frame in self.protocol.events_received():
            if frame.opcode in (Opcode.BINARY, Opcode.CONT):
                out += frame.data
            elif frame.opcode is Opcode.CLOSE:
                close = Close.parse(frame.data) if frame.data else None
                self.closed_by_server = (close.code, close.reason) if close else (1005, "")
            elif frame.opcode is Opcode.PONG:
                self.pongs = [*getattr(self, "pongs", []), frame.data]
        self._flush()
        if self.closed_by_server is not None and not out:
            raise ConnectionResetError(f"server closed the WebSocket: {self.closed_by_server}")
        return bytes(out)
