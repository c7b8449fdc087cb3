"""The session rules as a client sees them: what comes back for each message it sends."""

from __future__ import annotations

import asyncio
import struct
import time
import zlib
from dataclasses import dataclass

import pytest

from mtproto.dispatch import ClientInfo
from mtproto.session import SaltSchedule, SessionManager, wire
from mtproto.session.clock import MsgIdClock, check_client_msg_id
from tl.errors import RpcError

KEY_ID = 0x1122334455667788
SESSION_ID = 0x0BADF00D


@dataclass
class FakeKey:
    auth_key_id: int = KEY_ID
    perm_auth_key_id: int | None = None


class FakeLink:
    def __init__(self) -> None:
        self.sent: list = []
        self.closed = False
        self.no_updates = False
        self.peer_ip = "198.51.100.4"
        self.flushes: list[float] = []
        self.disconnect_in: float | None = None

    def enqueue(self, session, msg) -> None:
        self.sent.append(msg)

    def flush_later(self, session, delay: float) -> None:
        self.flushes.append(delay)

    def disconnect_after(self, delay: float) -> None:
        self.disconnect_in = delay

    def close(self) -> None:
        self.closed = True

    def bodies(self) -> list[tuple[int, bytes]]:
        return [(wire.constructor_of(m.body), m.body) for m in self.sent]

    def of(self, cid: int) -> list[bytes]:
        return [b for c, b in self.bodies() if c == cid]


class Obj:
    """A decoded request of the fake codec: the query bytes and the layer it came in."""

    TL_NAME = "test.echo"

    def __init__(self, data: bytes, layer: int) -> None:
        self.data = data
        self.layer = layer


class FakeCodec:
    primary = 229

    def decode(self, data: bytes, layer: int):
        if data[:4] == b"\xde\xad\xbe\xef":
            raise ValueError("unknown constructor")
        return Obj(data, layer)

    def encode(self, obj, layer: int) -> bytes:
        return struct.pack("<Ii", 0xAAAAAAAA, layer) + obj.data

    def resolve_layer(self, layer: int) -> int:
        return min(layer, 229)


class Dispatcher:
    def __init__(self) -> None:
        self.calls: list = []
        self.inits: list[ClientInfo] = []
        self.closed: list = []
        self.gate: asyncio.Event | None = None

    async def dispatch(self, ctx, request):
        self.calls.append((ctx, request))
        if request.data.startswith(b"slow"):
            assert self.gate is not None
            await self.gate.wait()
        if request.data.startswith(b"fail"):
            raise RpcError(400, "PEER_ID_INVALID")
        if request.data.startswith(b"boom"):
            raise KeyError("bug")
        if request.data.startswith(b"big!"):
            return Obj(b"x" * 4000, 0)
        return request

    async def connection_initialized(self, ctx, info):
        self.inits.append(info)

    async def session_closed(self, session):
        self.closed.append(session)


class Client:
    """Client-side msg_id/seqno numbering, like a well-behaved library."""

    def __init__(self) -> None:
        self.last = 0
        self.seq = 0

    def msg_id(self, offset: float = 0.0) -> int:
        mid = int((time.time() + offset) * 2**32) & ~3
        if mid <= self.last:
            mid = self.last + 4
        self.last = mid
        return mid

    def seqno(self, content: bool) -> int:
        if content:
            self.seq += 1
            return self.seq * 2 - 1
        return self.seq * 2


SECRET = b"s" * 32


@pytest.fixture
def dispatcher():
    return Dispatcher()


@pytest.fixture
def manager(dispatcher):
    return SessionManager(dispatcher, FakeCodec(), SaltSchedule(SECRET))


@pytest.fixture
def env(manager):
    session = manager.get_or_create(FakeKey(), SESSION_ID)
    link = FakeLink()
    return session, link, Client(), manager.salts.current(KEY_ID)


def ping(ping_id: int) -> bytes:
    return struct.pack("<Iq", wire.PING, ping_id)


def request(payload: bytes) -> bytes:
    return payload


def with_layer(layer: int, query: bytes) -> bytes:
    return struct.pack("<Ii", wire.INVOKE_WITH_LAYER, layer) + query


def init_connection(query: bytes, api_id: int = 4, lang: str = "en") -> bytes:
    fields = [struct.pack("<IIi", wire.INIT_CONNECTION, 2, api_id)]
    fields += [wire.w_string(s) for s in ("PC", "Linux", "1.0", lang, "", lang)]
    # params: jsonObject{"tz": jsonNumber}
    params = struct.pack("<IIi", wire.JSON_OBJECT, wire.VECTOR, 1)
    params += struct.pack("<I", wire.JSON_OBJECT_VALUE) + wire.w_string("tz")
    params += struct.pack("<Id", wire.JSON_NUMBER, 3.0)
    return b"".join(fields) + params + query


async def settle():
    for _ in range(5):
        await asyncio.sleep(0)


def rpc_results(link: FakeLink) -> dict[int, bytes]:
    out = {}
    for body in link.of(wire.RPC_RESULT):
        (req,) = struct.unpack_from("<q", body, 4)
        out[req] = body[12:]
    return out


def bad_codes(link: FakeLink) -> list[int]:
    return [struct.unpack_from("<qii", b, 4)[2] for b in link.of(wire.BAD_MSG_NOTIFICATION)]


# --- msg_id and seqno ----------------------------------------------------------------


def test_server_msg_ids_increase_with_parity_by_kind():
    c = MsgIdClock()
    ids = [c.next(response=bool(i % 2)) for i in range(1000)]
    assert ids == sorted(set(ids))
    assert all(m % 4 == (1 if i % 2 else 3) for i, m in enumerate(ids))
    assert abs((ids[0] >> 32) - time.time()) < 2


def test_client_msg_id_window():
    now = time.time()
    good = int(now * 2**32) & ~3
    assert check_client_msg_id(good, now) == 0
    assert check_client_msg_id(good | 1, now) == 18
    assert check_client_msg_id(int((now - 301) * 2**32) & ~3, now) == 16
    assert check_client_msg_id(int((now + 31) * 2**32) & ~3, now) == 17
    assert check_client_msg_id(int((now + 29) * 2**32) & ~3, now) == 0


async def test_first_message_announces_new_session_then_pong(env):
    session, link, client, salt = env
    mid = client.msg_id()
    session.handle_packet(link, salt, mid, client.seqno(True), ping(77))
    kinds = [c for c, _ in link.bodies()]
    assert kinds == [wire.NEW_SESSION_CREATED, wire.PONG]
    first_msg_id, _unique, server_salt = struct.unpack_from("<qqq", link.sent[0].body, 4)
    assert first_msg_id == mid and server_salt == salt
    assert struct.unpack_from("<qq", link.sent[1].body, 4) == (mid, 77)
    assert link.sent[1].msg_id % 4 == 1 and link.sent[0].msg_id % 4 == 3
    # A second message does not announce again.
    session.handle_packet(link, salt, client.msg_id(), client.seqno(True), ping(78))
    assert len(link.of(wire.NEW_SESSION_CREATED)) == 1


async def test_new_session_created_names_the_first_message_inside_a_container(env):
    session, link, client, salt = env
    first, second = client.msg_id(), client.msg_id()
    container = wire.pack_container(
        [(first, client.seqno(True), ping(1)), (second, client.seqno(True), ping(2))]
    )
    session.handle_packet(link, salt, client.msg_id(), client.seqno(False), container)
    (body,) = link.of(wire.NEW_SESSION_CREATED)
    assert struct.unpack_from("<q", body, 4)[0] == first


async def test_bad_msg_notifications(env):
    session, link, client, salt = env
    session.handle_packet(link, salt, client.msg_id(-400), 1, ping(1))
    session.handle_packet(link, salt, client.msg_id(100) | 0, 1, ping(1))
    session.handle_packet(link, salt, client.msg_id() | 2, 1, ping(1))
    assert bad_codes(link) == [16, 17, 18]
    assert link.of(wire.PONG) == []


async def test_seqno_parity_and_order(env):
    session, link, client, salt = env
    # An API request (content-related) with an even seqno.
    session.handle_packet(link, salt, client.msg_id(), 2, b"req1")
    # A container (never content-related) with an odd seqno.
    container = wire.pack_container([(client.msg_id(), 4, wire.msgs_ack([1]))])
    session.handle_packet(link, salt, client.msg_id(), 3, container)
    assert bad_codes(link) == [35, 34]
    session.handle_packet(link, salt, client.msg_id(), 9, b"req2")
    session.handle_packet(link, salt, client.msg_id(), 5, b"req3")  # newer msg, lower seqno
    assert bad_codes(link)[-1] == 32
    await settle()
    assert len(rpc_results(link)) == 1


@pytest.mark.parametrize("seqno", [1, 2, 3, 4])
@pytest.mark.parametrize(
    "body",
    [
        wire.msgs_ack([12345]),
        struct.pack("<I", wire.MSGS_STATE_REQ) + wire.w_vector_long([12345]),
        struct.pack("<I", wire.MSG_RESEND_REQ) + wire.w_vector_long([12345]),
        struct.pack("<Iq", wire.PING, 7),
        struct.pack("<Iqi", wire.PING_DELAY_DISCONNECT, 7, 75),
    ],
    ids=["msgs_ack", "msgs_state_req", "msg_resend_req", "ping", "ping_delay_disconnect"],
)
async def test_service_messages_are_accepted_whatever_their_seqno_parity(env, body, seqno):
    # mtcute numbers its msgs_ack (and state/resend requests) as content-related; it
    # drops its whole session on a bad_msg_notification, and Telegram sends none here.
    session, link, client, salt = env
    session.handle_packet(link, salt, client.msg_id(), seqno, body)
    inner = wire.pack_container([(client.msg_id(), seqno + 10, body)])
    session.handle_packet(link, salt, client.msg_id(), 20, inner)
    assert bad_codes(link) == []


async def test_bad_msg_notification_is_logged_at_debug_with_its_reason(env, caplog):
    session, link, client, salt = env
    with caplog.at_level("DEBUG", logger="telesrv.mtproto.session"):
        session.handle_packet(link, salt, client.msg_id(), 2, b"req1")
    assert bad_codes(link) == [35]
    (record,) = [r for r in caplog.records if "bad_msg_notification" in r.getMessage()]
    assert record.levelname == "DEBUG"
    text = record.getMessage()
    assert "35" in text and "odd seqno expected" in text and "seqno 2" in text


async def test_lost_request_resent_with_its_old_msg_id_is_accepted(env, dispatcher):
    session, link, client, salt = env
    lost_id = client.msg_id()  # sent on a connection that died before delivering it
    lost_seq = client.seqno(True)
    session.handle_packet(link, salt, client.msg_id(), client.seqno(True), b"late")
    resent_seq = client.seqno(True)  # Telegram Desktop keeps msg_id, takes a new seqno
    session.handle_packet(link, salt, lost_id, resent_seq, b"lost")
    await settle()
    assert lost_seq < resent_seq and bad_codes(link) == []
    assert sorted(r.data for _, r in dispatcher.calls) == [b"late", b"lost"]


async def test_bad_salt_answers_with_the_current_salt(env, manager):
    session, link, client, salt = env
    mid = client.msg_id()
    session.handle_packet(link, salt ^ 1, mid, 1, ping(5))
    (body,) = link.of(wire.BAD_SERVER_SALT)
    bad_id, bad_seq, code, new_salt = struct.unpack_from("<qiiq", body, 4)
    assert (bad_id, bad_seq, code, new_salt) == (mid, 1, 48, salt)
    assert link.of(wire.PONG) == [] and link.of(wire.NEW_SESSION_CREATED) == []


async def test_initial_salt_of_a_new_key_is_accepted(manager):
    manager.remember_initial_salt(5, 12345)
    session = manager.get_or_create(FakeKey(auth_key_id=5), 1)
    link = FakeLink()
    session.handle_packet(link, 12345, Client().msg_id(), 1, ping(1))
    assert link.of(wire.PONG) and not link.of(wire.BAD_SERVER_SALT)
    # Only for the key it came with, and only while the key is new.
    other = manager.get_or_create(FakeKey(auth_key_id=6), 1)
    other.handle_packet(link, 12345, Client().msg_id(), 1, ping(1))
    assert len(link.of(wire.BAD_SERVER_SALT)) == 1
    manager.initial_salts[5] = (12345, time.time() - 7200)
    session.handle_packet(link, 12345, Client().msg_id(), 1, ping(1))
    assert len(link.of(wire.BAD_SERVER_SALT)) == 2


def test_salts_rotate_and_previous_stays_valid():
    salts = SaltSchedule(SECRET, window=100)
    now = 10_050.0
    cur = salts.current(1, now)
    assert salts.is_valid(1, cur, now)
    assert salts.is_valid(1, cur, now + 100)  # grace window
    assert not salts.is_valid(1, cur, now + 200)
    assert salts.current(2, now) != cur  # per key
    future = salts.future(1, 3, now)
    assert next(f[2] for f in future) == cur
    assert [f[0] for f in future] == [10_000, 10_100, 10_200]
    assert len(salts.future(1, 1000, now)) == 64


async def test_get_future_salts(env):
    session, link, client, salt = env
    mid = client.msg_id()
    session.handle_packet(link, salt, mid, client.seqno(True), struct.pack("<Ii", wire.GET_FUTURE_SALTS, 3))
    (body,) = link.of(wire.FUTURE_SALTS)
    req, _now, n = struct.unpack_from("<qii", body, 4)
    assert (req, n) == (mid, 3)
    first = struct.unpack_from("<iiq", body, 20)
    assert first[2] == salt


# --- requests ----------------------------------------------------------------------


async def test_rpc_result_error_and_internal(env, dispatcher):
    session, link, client, salt = env
    ok, fail, boom = client.msg_id(), client.msg_id(), client.msg_id()
    session.handle_packet(link, salt, ok, client.seqno(True), b"hello")
    session.handle_packet(link, salt, fail, client.seqno(True), b"fail")
    session.handle_packet(link, salt, boom, client.seqno(True), b"boom")
    await settle()
    results = rpc_results(link)
    assert results[ok] == struct.pack("<Ii", 0xAAAAAAAA, 229) + b"hello"
    assert results[fail] == wire.rpc_error(400, "PEER_ID_INVALID")
    assert results[boom] == wire.rpc_error(500, "INTERNAL")
    assert all(m.msg_id % 4 == 1 and m.seqno % 2 == 1 for m in link.sent if m.req_msg_id)


async def test_undecodable_request_gets_an_rpc_error(env):
    session, link, client, salt = env
    mid = client.msg_id()
    session.handle_packet(link, salt, mid, client.seqno(True), b"\xde\xad\xbe\xef")
    await settle()
    assert rpc_results(link)[mid] == wire.rpc_error(400, "INPUT_METHOD_INVALID")


async def test_wrappers_set_layer_and_client_info(env, dispatcher):
    session, link, client, salt = env
    mid = client.msg_id()
    body = with_layer(224, init_connection(b"getConfig"))
    session.handle_packet(link, salt, mid, client.seqno(True), body)
    await settle()
    ctx, req = dispatcher.calls[0]
    assert req.data == b"getConfig" and req.layer == 224
    assert ctx.layer == 224 and session.layer == 224
    assert dispatcher.inits[0].api_id == 4 and dispatcher.inits[0].device_model == "PC"
    assert ctx.client.lang_code == "en" and ctx.ip == "198.51.100.4"
    assert rpc_results(link)[mid][4:8] == struct.pack("<i", 224)  # result encoded for 224
    # The same client info again is not reported twice; a change is.
    session.handle_packet(link, salt, client.msg_id(), client.seqno(True), init_connection(b"xxxx"))
    session.handle_packet(
        link, salt, client.msg_id(), client.seqno(True), init_connection(b"yyyy", lang="de")
    )
    await settle()
    assert [i.lang_code for i in dispatcher.inits] == ["en", "de"]


async def test_requests_run_concurrently_and_invoke_after_msg_orders(env, dispatcher):
    session, link, client, salt = env
    dispatcher.gate = asyncio.Event()
    slow, fast, after = client.msg_id(), client.msg_id(), client.msg_id()
    session.handle_packet(link, salt, slow, client.seqno(True), b"slow")
    session.handle_packet(link, salt, fast, client.seqno(True), b"fast")
    session.handle_packet(
        link, salt, after, client.seqno(True), struct.pack("<Iq", wire.INVOKE_AFTER_MSG, slow) + b"then"
    )
    await settle()
    assert list(rpc_results(link)) == [fast]  # not blocked by the slow one
    dispatcher.gate.set()
    await settle()
    assert list(rpc_results(link)) == [fast, slow, after]


async def test_large_results_are_gzip_packed(env):
    session, link, client, salt = env
    mid = client.msg_id()
    session.handle_packet(link, salt, mid, client.seqno(True), b"big!")
    await settle()
    result = rpc_results(link)[mid]
    assert wire.constructor_of(result) == wire.GZIP_PACKED
    assert len(result) < 500
    assert wire.gunzip(result).endswith(b"x" * 4000)


async def test_gzip_packed_request_and_container(env, dispatcher):
    session, link, client, salt = env
    inner_id, ping_id = client.msg_id(), client.msg_id()
    comp = zlib.compressobj(wbits=31)
    gz = struct.pack("<I", wire.GZIP_PACKED) + wire.w_bytes(comp.compress(b"zipped") + comp.flush())
    container = wire.pack_container(
        [(inner_id, client.seqno(True), gz), (ping_id, client.seqno(True), ping(9))]
    )
    session.handle_packet(link, salt, client.msg_id(), client.seqno(False), container)
    await settle()
    assert dispatcher.calls[0][1].data == b"zipped"
    assert inner_id in rpc_results(link)
    assert struct.unpack_from("<qq", link.of(wire.PONG)[0], 4) == (ping_id, 9)


async def test_duplicate_is_processed_once_and_replays_the_answer(env, dispatcher):
    session, link, client, salt = env
    mid, seq = client.msg_id(), client.seqno(True)
    session.handle_packet(link, salt, mid, seq, b"once")
    await settle()
    session.handle_packet(link, salt, mid, seq, b"once")
    await settle()
    assert len(dispatcher.calls) == 1
    answers = [m for m in link.sent if m.req_msg_id == mid]
    assert len(answers) == 2 and answers[0].msg_id == answers[1].msg_id


async def test_acks_and_resend_on_next_connection(env, dispatcher):
    session, link, client, salt = env
    a, b = client.msg_id(), client.msg_id()
    session.handle_packet(link, salt, a, client.seqno(True), b"aaaa")
    session.handle_packet(link, salt, b, client.seqno(True), b"bbbb")
    await settle()
    answer_a = next(m for m in link.sent if m.req_msg_id == a)
    # The client acknowledges only a; the connection drops.
    session.handle_packet(link, salt, client.msg_id(), client.seqno(False), wire.msgs_ack([answer_a.msg_id]))
    link.closed = True
    session.detach(link)
    await settle()
    assert dispatcher.closed == [session]
    second = FakeLink()
    session.handle_packet(second, salt, client.msg_id(), client.seqno(True), ping(3))
    resent = [m for m in second.sent if m.req_msg_id]
    assert [m.req_msg_id for m in resent] == [b]
    # new_session_created was never acked either, so it comes again too.
    assert second.of(wire.NEW_SESSION_CREATED)


async def test_results_go_to_the_live_connection(env, dispatcher):
    session, link, client, salt = env
    dispatcher.gate = asyncio.Event()
    mid = client.msg_id()
    session.handle_packet(link, salt, mid, client.seqno(True), b"slow")
    link.closed = True
    session.detach(link)
    other = FakeLink()
    session.handle_packet(other, salt, client.msg_id(), client.seqno(True), ping(1))
    dispatcher.gate.set()
    await settle()
    assert mid in rpc_results(other) and mid not in rpc_results(link)


async def test_pending_requests_are_acknowledged_later(env, dispatcher):
    session, link, client, salt = env
    dispatcher.gate = asyncio.Event()
    mid = client.msg_id()
    session.handle_packet(link, salt, mid, client.seqno(True), b"slow")
    assert link.flushes  # an ack flush is scheduled
    ack = session.take_acks()
    assert ack == wire.msgs_ack([mid])
    dispatcher.gate.set()
    await settle()
    assert session.take_acks() is None


async def test_fast_request_is_acknowledged_by_its_result(env):
    session, link, client, salt = env
    session.handle_packet(link, salt, client.msg_id(), client.seqno(True), b"quick")
    await settle()
    assert session.take_acks() is None


async def test_rpc_drop_answer(env, dispatcher):
    session, link, client, salt = env
    dispatcher.gate = asyncio.Event()
    running, done = client.msg_id(), client.msg_id()
    session.handle_packet(link, salt, running, client.seqno(True), b"slow")
    session.handle_packet(link, salt, done, client.seqno(True), b"fast")
    await settle()
    answer = next(m for m in link.sent if m.req_msg_id == done)
    drops = []
    for target in (running, done, 12345):
        mid = client.msg_id()
        drops.append(mid)
        session.handle_packet(
            link, salt, mid, client.seqno(True), struct.pack("<Iq", wire.RPC_DROP_ANSWER, target)
        )
    await settle()
    results = rpc_results(link)
    assert results[drops[0]] == wire.rpc_answer_dropped_running()
    assert results[drops[1]] == wire.rpc_answer_dropped(answer.msg_id, answer.seqno, len(answer.body))
    assert results[drops[2]] == wire.rpc_answer_unknown()
    dispatcher.gate.set()
    await settle()
    assert running not in results and running not in rpc_results(link)


async def test_msgs_state_req(env, dispatcher):
    session, link, client, salt = env
    req = client.msg_id()
    session.handle_packet(link, salt, req, client.seqno(True), b"xxxx")
    await settle()
    unseen = client.msg_id()
    too_high = int((time.time() + 100) * 2**32) & ~3
    ancient = int((time.time() - 1000) * 2**32) & ~3
    q = client.msg_id()
    body = struct.pack("<I", wire.MSGS_STATE_REQ) + wire.w_vector_long([req, unseen, too_high, ancient])
    session.handle_packet(link, salt, q, client.seqno(True), body)
    (info,) = link.of(wire.MSGS_STATE_INFO)
    assert struct.unpack_from("<q", info, 4)[0] == q
    states = wire.Cursor(info, 12).bytes()
    assert states[0] & 7 == 4 and states[0] & 32 and states[0] & 64
    assert list(states[1:]) == [2, 3, 1]


async def test_msg_resend_req(env):
    session, link, client, salt = env
    mid = client.msg_id()
    session.handle_packet(link, salt, mid, client.seqno(True), b"xxxx")
    await settle()
    answer = next(m for m in link.sent if m.req_msg_id == mid)
    body = struct.pack("<I", wire.MSG_RESEND_REQ) + wire.w_vector_long([answer.msg_id, 999])
    session.handle_packet(link, salt, client.msg_id(), client.seqno(True), body)
    assert [m.msg_id for m in link.sent].count(answer.msg_id) == 2


async def test_ping_delay_disconnect(env):
    session, link, client, salt = env
    body = struct.pack("<Iqi", wire.PING_DELAY_DISCONNECT, 42, 75)
    session.handle_packet(link, salt, client.msg_id(), client.seqno(True), body)
    assert link.disconnect_in == 75
    assert struct.unpack_from("<q", link.of(wire.PONG)[0], 12)[0] == 42


async def test_destroy_session(manager, env):
    session, link, client, salt = env
    other = manager.get_or_create(FakeKey(), 999)
    for target in (999, 999, SESSION_ID):
        body = struct.pack("<Iq", wire.DESTROY_SESSION, target)
        session.handle_packet(link, salt, client.msg_id(), client.seqno(True), body)
    oks = link.of(wire.DESTROY_SESSION_OK)
    nones = link.of(wire.DESTROY_SESSION_NONE)
    assert len(oks) == 1 and len(nones) == 2  # twice the same, and our own session
    assert other.destroyed and manager.get(KEY_ID, 999) is None


async def test_push_and_user_index(manager, env):
    session, link, client, salt = env
    session.handle_packet(link, salt, client.msg_id(), client.seqno(True), with_layer(227, b"xxxx"))
    await settle()
    session.user_id = 7
    assert manager.sessions_of_user(7) == [session]
    await session.push(Obj(b"upd", 0))
    pushed = link.sent[-1]
    assert pushed.body == struct.pack("<Ii", 0xAAAAAAAA, 227) + b"upd"
    assert pushed.msg_id % 4 == 3 and pushed.seqno % 2 == 1
    session.user_id = None
    assert manager.sessions_of_user(7) == []


async def test_online_user_ids(manager, env):
    session = env[0]
    assert manager.online_user_ids() == []
    session.user_id = 7
    other = manager.get_or_create(FakeKey(auth_key_id=99), 5)
    other.user_id = 8
    assert sorted(manager.online_user_ids()) == [7, 8]
    session.user_id = 9  # re-authorized as another user: reindexed
    assert sorted(manager.online_user_ids()) == [8, 9]
    manager.drop(other)
    assert manager.online_user_ids() == [9]
    session.user_id = None
    assert manager.online_user_ids() == []


async def test_new_session_of_a_key_starts_with_the_keys_layer(manager, env):
    session, link, client, salt = env
    session.handle_packet(link, salt, client.msg_id(), client.seqno(True), with_layer(224, b"xxxx"))
    await settle()
    later = manager.get_or_create(FakeKey(), 4242)
    assert later.layer == 224
    assert manager.get_or_create(FakeKey(auth_key_id=99), 1).layer == 229


async def test_invoke_without_updates_connection_gets_no_push(env):
    session, link, client, salt = env
    body = struct.pack("<I", wire.INVOKE_WITHOUT_UPDATES) + b"file"
    session.handle_packet(link, salt, client.msg_id(), client.seqno(True), body)
    await settle()
    before = len(link.sent)
    await session.push(Obj(b"upd", 0))
    assert len(link.sent) == before
    # Kept for the next connection that takes updates.
    fresh = FakeLink()
    session.attach(fresh)
    assert any(m.updates for m in fresh.sent)


async def test_a_file_session_gets_no_push_until_it_makes_another_request(env):
    """Web K's download and upload connections are sessions of the same key; a push
    reaching one before the send's answer showed the sender's own message twice."""
    from tl import functions

    session, link, client, salt = env
    get_file = struct.pack("<I", functions.upload.GetFile.CONSTRUCTOR_ID) + b"loc."
    save_part = struct.pack("<I", functions.upload.SaveFilePart.CONSTRUCTOR_ID) + b"part"
    for body in (with_layer(227, get_file), save_part):
        session.handle_packet(link, salt, client.msg_id(), client.seqno(True), body)
    await settle()
    await session.push(Obj(b"upd", 0))
    assert not any(m.updates for m in link.sent) and not any(m.updates for m in session._outbox.values())
    session.handle_packet(link, salt, client.msg_id(), client.seqno(True), b"norm")
    session.handle_packet(link, salt, client.msg_id(), client.seqno(True), get_file)
    await settle()
    await session.push(Obj(b"upd", 0))
    assert link.sent[-1].updates


def test_file_calls_are_the_upload_methods():
    from mtproto.session.session import FILE_CALLS
    from tl import functions

    names = ("SaveFilePart", "SaveBigFilePart", "GetFile", "GetWebFile", "GetCdnFile", "ReuploadCdnFile")
    names += ("GetCdnFileHashes", "GetFileHashes")
    assert {getattr(functions.upload, n).CONSTRUCTOR_ID for n in names} == FILE_CALLS


async def test_one_wrapped_request_does_not_unsubscribe_a_connection(env):
    session, link, client, salt = env
    session.handle_packet(link, salt, client.msg_id(), client.seqno(True), b"norm")
    wrapped = struct.pack("<I", wire.INVOKE_WITHOUT_UPDATES) + b"file"
    session.handle_packet(link, salt, client.msg_id(), client.seqno(True), wrapped)
    await settle()
    await session.push(Obj(b"upd", 0))
    assert link.sent[-1].updates


async def test_outbox_is_bounded(env, monkeypatch):
    from mtproto.session import session as session_mod

    monkeypatch.setattr(session_mod, "MAX_OUTBOX", 10)
    session, _link, _client, _salt = env
    for _ in range(50):
        await session.push(Obj(b"u", 0))
    assert len(session._outbox) == 10


async def test_reconnect_resends_queued_pushes_in_order(env, monkeypatch):
    from mtproto.session import session as session_mod

    session, link, client, salt = env
    session.handle_packet(link, salt, client.msg_id(), client.seqno(True), ping(1))
    link.closed = True
    session.detach(link)
    for i in range(6):
        await session.push(Obj(bytes([i]), 0))
    # the first three are old enough to need fresh msg_ids: so do the ones after them
    for m in list(session._outbox.values())[:3]:
        m.created -= session_mod.RESEND_SAME_ID_AGE + 1
    second = FakeLink()
    session.handle_packet(second, salt, client.msg_id(), client.seqno(True), ping(2))
    pushed = [m for m in second.sent if m.updates]
    assert [m.body[-1] for m in pushed] == [0, 1, 2, 3, 4, 5]
    assert [m.msg_id for m in pushed] == sorted(m.msg_id for m in pushed)


async def test_overflowed_pushes_become_updates_too_long(env, monkeypatch):
    from mtproto.session import session as session_mod

    monkeypatch.setattr(session_mod, "MAX_OUTBOX", 10)
    session, link, client, salt = env
    session.handle_packet(link, salt, client.msg_id(), client.seqno(True), ping(1))
    link.closed = True
    session.detach(link)
    for _ in range(30):
        await session.push(Obj(b"u", 0))
    second = FakeLink()
    session.handle_packet(second, salt, client.msg_id(), client.seqno(True), ping(2))
    pushed = [m.body for m in second.sent if m.updates]
    # no partial burst: one updatesTooLong, and the client runs getDifference
    assert pushed == [session_mod.UPDATES_TOO_LONG]
    assert not any(m.updates and m.body != session_mod.UPDATES_TOO_LONG for m in session._outbox.values())


def test_idle_sessions_are_swept(manager):
    s = manager.get_or_create(FakeKey(), 1)
    assert manager.sweep(time.monotonic() + 10) == 0
    assert manager.sweep(time.monotonic() + manager.idle_ttl + 1) == 1
    assert s.destroyed and len(manager) == 0


async def test_init_connection_with_proxy_and_nested_params(env, dispatcher):
    session, link, client, salt = env
    fields = [struct.pack("<IIi", wire.INIT_CONNECTION, 3, 9)]
    fields += [wire.w_string(s) for s in ("Phone", "Android 14", "11.0", "de", "android", "de")]
    proxy = (
        struct.pack("<I", wire.INPUT_CLIENT_PROXY) + wire.w_string("proxy.example") + struct.pack("<i", 443)
    )
    inner = struct.pack("<IIi", wire.JSON_ARRAY, wire.VECTOR, 2)
    inner += struct.pack("<I", wire.JSON_NULL) + struct.pack("<II", wire.JSON_BOOL, 0x997275B5)
    params = struct.pack("<IIi", wire.JSON_OBJECT, wire.VECTOR, 1)
    params += struct.pack("<I", wire.JSON_OBJECT_VALUE) + wire.w_string("list") + inner
    body = b"".join(fields) + proxy + params + b"qqqq"
    mid = client.msg_id()
    session.handle_packet(link, salt, mid, client.seqno(True), with_layer(229, body))
    await settle()
    assert dispatcher.inits[0].system_version == "Android 14"
    assert dispatcher.calls[0][1].data == b"qqqq"


async def test_malformed_wrappers_get_input_request_invalid(env, dispatcher):
    session, link, client, salt = env
    too_deep = struct.pack("<I", wire.INVOKE_WITHOUT_UPDATES) * 20 + b"qqqq"
    truncated = struct.pack("<IIi", wire.INIT_CONNECTION, 0, 1) + b"\x05ab"
    ids = []
    for body in (too_deep, truncated):
        ids.append(client.msg_id())
        session.handle_packet(link, salt, ids[-1], client.seqno(True), body)
    await settle()
    results = rpc_results(link)
    assert [results[i] for i in ids] == [wire.rpc_error(400, "INPUT_REQUEST_INVALID")] * 2
    assert dispatcher.calls == []


async def test_oversized_gzip_is_refused(env, monkeypatch):
    monkeypatch.setattr(wire, "MAX_INFLATED", 1000)
    session, link, client, salt = env
    comp = zlib.compressobj(wbits=31)
    bomb = struct.pack("<I", wire.GZIP_PACKED) + wire.w_bytes(comp.compress(b"\0" * 100_000) + comp.flush())
    mid = client.msg_id()
    session.handle_packet(link, salt, mid, client.seqno(True), bomb)
    assert bad_codes(link) == [64]


async def test_request_resent_in_a_new_container_after_the_window_is_not_run_again(
    env, dispatcher, monkeypatch
):
    from mtproto.session import clock as clock_mod

    session, link, client, salt = env
    mid, seq = client.msg_id(), client.seqno(True)
    session.handle_packet(link, salt, mid, seq, b"once")
    await settle()
    # 301 s later the client reconnects and re-sends it, same msg_id, in a fresh container.
    real = clock_mod.check_client_msg_id
    monkeypatch.setattr(clock_mod, "check_client_msg_id", lambda m, now=None: real(m, time.time() + 301))
    container = wire.pack_container([(mid, seq, b"once")])
    session.handle_packet(link, salt, int((time.time() + 301) * 2**32) & ~3, client.seqno(False), container)
    await settle()
    assert len(dispatcher.calls) == 1
    assert 16 not in bad_codes(link)


def test_sessions_per_key_are_capped(manager):
    from mtproto.session import manager as manager_mod

    first = manager.get_or_create(FakeKey(), 0)
    for sid in range(1, manager_mod.MAX_SESSIONS_PER_KEY + 10):
        manager.get_or_create(FakeKey(), sid)
    assert len(manager.sessions_of_key(KEY_ID)) == manager_mod.MAX_SESSIONS_PER_KEY
    assert first.destroyed  # the longest idle one went first


async def test_service_calls_inside_wrappers_are_answered_directly(env, dispatcher):
    session, link, client, salt = env
    mid = client.msg_id()
    body = struct.pack("<I", wire.INVOKE_WITHOUT_UPDATES) + struct.pack("<Ii", wire.GET_FUTURE_SALTS, 2)
    session.handle_packet(link, salt, mid, client.seqno(True), with_layer(224, body))
    (salts,) = link.of(wire.FUTURE_SALTS)
    assert struct.unpack_from("<qii", salts, 4)[::2] == (mid, 2)
    assert dispatcher.calls == [] and session.layer == 224


async def test_a_request_that_never_finishes_is_answered_timeout_and_cancelled(dispatcher, caplog):
    """An accepted request is always answered: one stuck (here on an event nobody sets)
    gets -503 Timeout at the deadline, is cancelled, and the log says where it was."""
    manager = SessionManager(dispatcher, FakeCodec(), SaltSchedule(SECRET), request_deadline=0.2)
    session = manager.get_or_create(FakeKey(), SESSION_ID)
    link, client, salt = FakeLink(), Client(), manager.salts.current(KEY_ID)
    dispatcher.gate = asyncio.Event()
    stuck, quick = client.msg_id(), client.msg_id()
    session.handle_packet(link, salt, stuck, client.seqno(True), b"slow")
    session.handle_packet(link, salt, quick, client.seqno(True), b"fast")
    await settle()
    assert list(rpc_results(link)) == [quick]
    await asyncio.sleep(0.4)
    assert rpc_results(link)[stuck] == wire.rpc_error(-503, "Timeout")
    assert manager.overdue_requests == 1 and not session._pending
    assert "still running after" in caplog.text and "in dispatch" in caplog.text
    # Once only: the cancelled request sends nothing more.
    dispatcher.gate.set()
    await settle()
    assert [m.req_msg_id for m in link.sent if m.req_msg_id] == [quick, stuck]
