"""Byte-level codec for the MTProto service layer.

The service constructors (acks, containers, pings, salts, ...) are few, fixed and on
the hot path of every packet, so the session layer reads and writes them directly
instead of going through the generated TL classes. API objects (requests, results,
updates) are left to ``tl.layers``.
"""

from __future__ import annotations

import struct
import zlib

# Constructor ids (mtproto.tl; the hand-parsed ones are in its comments).
MSG_CONTAINER = 0x73F1F8DC
GZIP_PACKED = 0x3072CFA1
RPC_RESULT = 0xF35C6D01
RPC_ERROR = 0x2144CA19
MSGS_ACK = 0x62D6B459
BAD_MSG_NOTIFICATION = 0xA7EFF811
BAD_SERVER_SALT = 0xEDAB447B
MSGS_STATE_REQ = 0xDA69FB52
MSGS_STATE_INFO = 0x04DEB57D
MSGS_ALL_INFO = 0x8CC0D131
MSG_DETAILED_INFO = 0x276D3EC6
MSG_NEW_DETAILED_INFO = 0x809DB6DF
MSG_RESEND_REQ = 0x7D861A08
RPC_DROP_ANSWER = 0x58E4A740
RPC_ANSWER_UNKNOWN = 0x5E2AD36E
RPC_ANSWER_DROPPED_RUNNING = 0xCD78E586
RPC_ANSWER_DROPPED = 0xA43AD8B7
GET_FUTURE_SALTS = 0xB921BD04
FUTURE_SALT = 0x0949D9DC
FUTURE_SALTS = 0xAE500895
PING = 0x7ABE77EC
PING_DELAY_DISCONNECT = 0xF3427B8C
PONG = 0x347773C5
DESTROY_SESSION = 0xE7512126
DESTROY_SESSION_OK = 0xE22045FC
DESTROY_SESSION_NONE = 0x62D350C9
DESTROY_AUTH_KEY = 0xD1435160
DESTROY_AUTH_KEY_OK = 0xF660E1D4
DESTROY_AUTH_KEY_NONE = 0x0A9F2259
DESTROY_AUTH_KEY_FAIL = 0xEA109B13
NEW_SESSION_CREATED = 0x9EC20908
HTTP_WAIT = 0x9299359F
VECTOR = 0x1CB5C415
BOOL_TRUE = 0x997275B5
BOOL_FALSE = 0xBC799737

# API wrappers that mtproto unwraps before the application sees a request.
INVOKE_WITH_LAYER = 0xDA9B0D0D
INIT_CONNECTION = 0xC1CD5EA9
INVOKE_AFTER_MSG = 0xCB9F372D
INVOKE_AFTER_MSGS = 0x3DC4B4F0
INVOKE_WITHOUT_UPDATES = 0xBF9459B7
INVOKE_WITH_TAKEOUT = 0xACA9FD2E
INPUT_CLIENT_PROXY = 0x75588B3F
JSON_NULL = 0x3F6D7B68
JSON_BOOL = 0xC7345E6A
JSON_NUMBER = 0x2BE0DFA4
JSON_STRING = 0xB71E767A
JSON_ARRAY = 0xF7444763
JSON_OBJECT = 0x99C1D49D
JSON_OBJECT_VALUE = 0xC0DE1BD9
AUTH_BIND_TEMP_AUTH_KEY = 0xCDD42A05

# Inflated gzip_packed bodies larger than this are refused (a zip bomb costs nothing
# to send).
MAX_INFLATED = 16 * 1024 * 1024
# msgs_ack and friends may carry at most this many ids (the protocol's own limit).
MAX_IDS = 8192


class WireError(ValueError):
    """Malformed service-layer bytes."""


class Cursor:
    __slots__ = ("data", "pos")

    def __init__(self, data: bytes, pos: int = 0) -> None:
        self.data = data
        self.pos = pos

    def take(self, n: int) -> bytes:
        end = self.pos + n
        if n < 0 or end > len(self.data):
            raise WireError("truncated")
        chunk = self.data[self.pos : end]
        self.pos = end
        return chunk

    def int(self) -> int:
        return struct.unpack_from("<i", self.take(4))[0]

    def uint(self) -> int:
        return struct.unpack_from("<I", self.take(4))[0]

    def long(self) -> int:
        return struct.unpack_from("<q", self.take(8))[0]

    def double(self) -> float:
        return struct.unpack_from("<d", self.take(8))[0]

    def bytes(self) -> bytes:
        first = self.take(1)[0]
        if first == 254:
            n = int.from_bytes(self.take(3), "little")
            head = 4
        elif first == 255:
            raise WireError("bad bytes prefix")
        else:
            n = first
            head = 1
        data = self.take(n)
        self.take((-(head + n)) % 4)
        return data

    def string(self) -> str:
        return self.bytes().decode("utf-8", errors="replace")

    def vector_long(self) -> list[int]:
        if self.uint() != VECTOR:
            raise WireError("vector expected")
        n = self.int()
        if n < 0 or n > MAX_IDS or n * 8 > len(self.data) - self.pos:
            raise WireError("bad vector length")
        return list(struct.unpack_from(f"<{n}q", self.take(8 * n)))

    def rest(self) -> bytes:
        chunk = self.data[self.pos :]
        self.pos = len(self.data)
        return chunk


def w_bytes(data: bytes) -> bytes:
    n = len(data)
    if n < 254:
        head = bytes([n])
    else:
        head = b"\xfe" + n.to_bytes(3, "little")
    pad = (-(len(head) + n)) % 4
    return head + data + b"\x00" * pad


def w_string(s: str) -> bytes:
    return w_bytes(s.encode("utf-8"))


def w_vector_long(ids: list[int]) -> bytes:
    return struct.pack(f"<Ii{len(ids)}q", VECTOR, len(ids), *ids)


def constructor_of(body: bytes) -> int:
    if len(body) < 4:
        raise WireError("empty body")
    return struct.unpack_from("<I", body)[0]


def gunzip(body: bytes) -> bytes:
    """The inner bytes of a gzip_packed body."""
    packed = Cursor(body, 4).bytes()
    inflater = zlib.decompressobj(wbits=47)  # gzip or zlib header
    try:
        out = inflater.decompress(packed, MAX_INFLATED + 1)
    except zlib.error as exc:
        raise WireError(f"bad gzip: {exc}") from None
    if len(out) > MAX_INFLATED or inflater.unconsumed_tail:
        raise WireError("gzip_packed too large")
    return out


def gzip_packed(data: bytes) -> bytes:
    compressor = zlib.compressobj(6, zlib.DEFLATED, 31)
    packed = compressor.compress(data) + compressor.flush()
    return struct.pack("<I", GZIP_PACKED) + w_bytes(packed)


def unpack_container(body: bytes) -> list[tuple[int, int, bytes]]:
    """(msg_id, seqno, body) of each message of a msg_container body."""
    cur = Cursor(body, 4)
    n = cur.int()
    if n < 0 or n > 1024:
        raise WireError("bad container length")
    out = []
    for _ in range(n):
        msg_id = cur.long()
        seqno = cur.int()
        length = cur.int()
        if length < 4 or length % 4:
            raise WireError("bad inner message length")
        out.append((msg_id, seqno, cur.take(length)))
    return out


def pack_container(messages: list[tuple[int, int, bytes]]) -> bytes:
    parts = [struct.pack("<Ii", MSG_CONTAINER, len(messages))]
    for msg_id, seqno, body in messages:
        parts.append(struct.pack("<qii", msg_id, seqno, len(body)))
        parts.append(body)
    return b"".join(parts)


def rpc_result(req_msg_id: int, result: bytes) -> bytes:
    return struct.pack("<Iq", RPC_RESULT, req_msg_id) + result


def rpc_error(code: int, message: str) -> bytes:
    return struct.pack("<Ii", RPC_ERROR, code) + w_string(message)


def msgs_ack(msg_ids: list[int]) -> bytes:
    return struct.pack("<I", MSGS_ACK) + w_vector_long(msg_ids)


def bad_msg_notification(msg_id: int, seqno: int, code: int) -> bytes:
    return struct.pack("<Iqii", BAD_MSG_NOTIFICATION, msg_id, seqno, code)


def bad_server_salt(msg_id: int, seqno: int, salt: int) -> bytes:
    return struct.pack("<Iqiiq", BAD_SERVER_SALT, msg_id, seqno, 48, salt)


def new_session_created(first_msg_id: int, unique_id: int, salt: int) -> bytes:
    return struct.pack("<Iqqq", NEW_SESSION_CREATED, first_msg_id, unique_id, salt)


def pong(msg_id: int, ping_id: int) -> bytes:
    return struct.pack("<Iqq", PONG, msg_id, ping_id)


def msgs_state_info(req_msg_id: int, info: bytes) -> bytes:
    return struct.pack("<Iq", MSGS_STATE_INFO, req_msg_id) + w_bytes(info)


def future_salts(req_msg_id: int, now: int, salts: list[tuple[int, int, int]]) -> bytes:
    parts = [struct.pack("<Iqii", FUTURE_SALTS, req_msg_id, now, len(salts))]
    # vector<future_salt> is bare: no vector id, bare elements.
    parts.extend(struct.pack("<iiq", since, until, salt) for since, until, salt in salts)
    return b"".join(parts)


def destroy_session_res(ok: bool, session_id: int) -> bytes:
    return struct.pack("<Iq", DESTROY_SESSION_OK if ok else DESTROY_SESSION_NONE, session_id)


def rpc_answer_unknown() -> bytes:
    return struct.pack("<I", RPC_ANSWER_UNKNOWN)


def rpc_answer_dropped_running() -> bytes:
    return struct.pack("<I", RPC_ANSWER_DROPPED_RUNNING)


def rpc_answer_dropped(msg_id: int, seqno: int, size: int) -> bytes:
    return struct.pack("<Iqii", RPC_ANSWER_DROPPED, msg_id, seqno, size)


def bool_true() -> bytes:
    return struct.pack("<I", BOOL_TRUE)


def message_header(salt: int, session_id: int, msg_id: int, seqno: int, length: int) -> bytes:
    return struct.pack("<qqqii", salt, session_id, msg_id, seqno, length)
