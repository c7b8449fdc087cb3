"""The RPC dispatcher: handler lookup, the authorization check, the error policy."""

from __future__ import annotations

import logging
from types import SimpleNamespace

import pytest

from edge_app import registry
from edge_app.dispatcher import EdgeDispatcher
from mtproto.dispatch import ClientInfo, RequestContext
from tl import errors


class Req:
    def __init__(self, name: str) -> None:
        self.TL_NAME = name


def ctx(perm: int = 10) -> RequestContext:
    session = SimpleNamespace(user_id=None)
    return RequestContext(
        auth_key_id=perm,
        perm_auth_key_id=perm,
        session_id=1,
        msg_id=4,
        layer=229,
        client=None,
        session=session,
    )


@pytest.fixture
def handlers(monkeypatch):
    calls = []

    async def public(c, req):
        calls.append(("public", c.app.get("user_id")))
        return "pong"

    async def private(c, req):
        calls.append(("private", c.app["user_id"]))
        return "secret"

    async def typed(c, req):
        raise errors.ChannelPrivateError()

    async def buggy(c, req):
        raise ZeroDivisionError

    for name, fn, auth in [
        ("test.public", public, False),
        ("test.private", private, True),
        ("test.typed", typed, False),
        ("test.buggy", buggy, False),
    ]:
        monkeypatch.setitem(registry._handlers, name, registry.Registration(name, fn, auth))
    monkeypatch.setattr(registry, "_authorized", {})
    monkeypatch.setattr(registry, "_authorizer", None)
    return calls


async def test_public_method_runs_without_login(handlers):
    assert await EdgeDispatcher().dispatch(ctx(), Req("test.public")) == "pong"
    assert handlers == [("public", None)]


async def test_private_method_needs_an_authorization(handlers):
    with pytest.raises(errors.AuthKeyUnregisteredError) as err:
        await EdgeDispatcher().dispatch(ctx(), Req("test.private"))
    assert (err.value.code, err.value.message) == (401, "AUTH_KEY_UNREGISTERED")
    assert handlers == []


async def test_authorizer_answer_is_used_cached_and_forgotten(handlers, monkeypatch):
    asked = []

    async def authorizer(c):
        asked.append(c.perm_auth_key_id)
        return 777 if c.perm_auth_key_id == 10 else None

    registry.set_authorizer(authorizer)
    monkeypatch.setattr("edge_app.push.publish_soon", lambda kind, payload: None)
    d = EdgeDispatcher()
    c = ctx()
    assert await d.dispatch(c, Req("test.private")) == "secret"
    assert c.session.user_id == 777 and c.app["user_id"] == 777
    await d.dispatch(ctx(), Req("test.private"))
    assert asked == [10]  # cached per permanent key
    with pytest.raises(errors.AuthKeyUnregisteredError):
        await d.dispatch(ctx(perm=11), Req("test.private"))
    registry.forget_authorization(10)
    await d.dispatch(ctx(), Req("test.private"))
    assert asked == [10, 11, 10]


async def test_typed_error_passes_through(handlers):
    with pytest.raises(errors.ChannelPrivateError):
        await EdgeDispatcher().dispatch(ctx(), Req("test.typed"))


async def test_unexpected_exception_is_logged_and_internal(handlers, caplog):
    with caplog.at_level(logging.ERROR, "telesrv.edge.rpc"), pytest.raises(errors.InternalError) as err:
        await EdgeDispatcher().dispatch(ctx(), Req("test.buggy"))
    assert (err.value.code, err.value.message) == (500, "INTERNAL")
    assert "test.buggy failed" in caplog.text and "ZeroDivisionError" in caplog.text


async def test_unregistered_method_is_an_error_logged_once(handlers, caplog):
    d = EdgeDispatcher()
    with caplog.at_level(logging.WARNING, "telesrv.edge.rpc"):
        for _ in range(3):
            with pytest.raises(errors.RpcError) as err:
                await d.dispatch(ctx(), Req("test.nothing"))
            assert (err.value.code, err.value.message) == (400, "METHOD_INVALID")
    assert caplog.text.count("test.nothing") == 1


async def test_connection_initialized_records_the_client():
    recorded = []

    class Store:
        async def record_client(self, auth_key_id, info, layer, ip):
            recorded.append((auth_key_id, info.device_model, layer, ip))

    info = ClientInfo(api_id=1, device_model="Desktop")
    c = ctx()
    c.layer, c.ip = 224, "192.0.2.1"
    await EdgeDispatcher(Store()).connection_initialized(c, info)
    assert recorded == [(10, "Desktop", 224, "192.0.2.1")]


async def test_one_debug_line_per_rpc_and_counted_by_method_and_error(handlers, caplog):
    from edge_app import metrics

    before = metrics.RPC_CALLS.labels("test.typed", "CHANNEL_PRIVATE")._value.get()
    d = EdgeDispatcher()
    c = ctx()
    c.app["user_id"] = 42
    with caplog.at_level(logging.DEBUG, "telesrv.rpc"):
        await d.dispatch(c, Req("test.public"))
        with pytest.raises(errors.ChannelPrivateError):
            await d.dispatch(c, Req("test.typed"))
    lines = [r.getMessage() for r in caplog.records if r.name == "telesrv.rpc"]
    assert len(lines) == 2
    assert lines[0].startswith("test.public layer=229 user=42 ") and "error" not in lines[0]
    assert lines[1].startswith("test.typed layer=229 user=42 ") and lines[1].endswith("error=CHANNEL_PRIVATE")
    assert metrics.RPC_CALLS.labels("test.typed", "CHANNEL_PRIVATE")._value.get() == before + 1


def test_error_labels_fold_numbers():
    from edge_app import metrics

    assert metrics.error_label(errors.FloodWaitError(seconds=17)) == "FLOOD_WAIT_X"
    assert metrics.error_label(None) == ""


async def test_idempotent_request_is_run_again_after_losing_its_database(monkeypatch):
    import psycopg

    from edge_app import dispatcher as dispatcher_mod

    runs = []

    async def flaky(c, req):
        runs.append(1)
        if len(runs) == 1:
            raise psycopg.OperationalError("terminating connection due to administrator command")
        return "stored once"

    for name in ("messages.sendMessage", "test.write"):
        monkeypatch.setitem(registry._handlers, name, registry.Registration(name, flaky, False))
    d = EdgeDispatcher()
    assert await d.dispatch(ctx(), Req("messages.sendMessage")) == "stored once"
    assert len(runs) == 2 and d.counters["db_retry"] == 1
    # A request not known to be harmless twice is not run again.
    runs.clear()
    with pytest.raises(errors.InternalError):
        await d.dispatch(ctx(), Req("test.write"))
    assert len(runs) == 1
    # Nor is one whose statement was wrong rather than its connection lost.
    monkeypatch.setattr(dispatcher_mod, "DB_RETRY_SECONDS", 5)
    assert not dispatcher_mod.db_connection_lost(psycopg.errors.UniqueViolation("dup"))


async def test_request_storm_gets_flood_wait(handlers):
    d = EdgeDispatcher(rate=1, burst=2)
    assert [await d.dispatch(ctx(), Req("test.public")) for _ in range(2)] == ["pong", "pong"]
    with pytest.raises(errors.RpcError) as err:
        await d.dispatch(ctx(), Req("test.public"))
    assert err.value.code == 420 and err.value.message == "FLOOD_WAIT_1"
    assert d.counters["flood_wait"] == 1
    assert await d.dispatch(ctx(perm=11), Req("test.public")) == "pong"  # per auth key


async def test_flood_wait_is_logged_with_the_clients_address_once_per_interval(handlers, caplog, monkeypatch):
    import edge_app.dispatcher as dispatcher_mod

    clock = [1000.0]
    monkeypatch.setattr(dispatcher_mod.time, "monotonic", lambda: clock[0])
    d = EdgeDispatcher(rate=0.001, burst=1)
    storm = ctx(perm=0x1F2E)
    storm.ip = "203.0.113.5"
    storm.client = ClientInfo(lang_pack="tdesktop", app_version="5.1.7")
    await d.dispatch(storm, Req("test.public"))
    with caplog.at_level("INFO", logger="telesrv.edge.rpc"):
        for _ in range(5):  # one line, then four answers inside the interval
            with pytest.raises(errors.RpcError):
                await d.dispatch(storm, Req("test.public"))
        clock[0] += dispatcher_mod.FLOOD_LOG_SECONDS
        with pytest.raises(errors.RpcError):
            await d.dispatch(storm, Req("test.public"))
        other = ctx(perm=0x99)
        other.ip = "192.0.2.9"
        await d.dispatch(other, Req("test.public"))
        with pytest.raises(errors.RpcError):
            await d.dispatch(other, Req("test.public"))
    lines = [r.getMessage() for r in caplog.records if "FLOOD_WAIT" in r.getMessage()]
    assert d.counters["flood_wait"] == 7
    assert len(lines) == 3, lines
    assert lines[0].startswith("FLOOD_WAIT_")
    assert "test.public on key 0000000000001f2e from 203.0.113.5 (tdesktop 5.1.7)" in lines[0]
    assert lines[1].endswith("(4 more since the last line)")
    assert "from 192.0.2.9" in lines[2] and "more since" not in lines[2]
