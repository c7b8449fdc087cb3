"""Operating the listener: its health port answers /healthz and /readyz, and /metrics
counts what real clients did (connections by transport, RPC calls by method, auth keys,
sessions, pushes, pts, the PostgreSQL pools, Redis latency)."""

from __future__ import annotations

import asyncio
import json
import re
import urllib.error
import urllib.request

import pytest

from tests.e2e.test_channels import input_user, logged_in, wait_for

pytestmark = pytest.mark.django_db(transaction=True)


def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def health_url(server, path: str) -> str:
    return f"http://127.0.0.1:{server.env['TELESRV_MTPROTO_HEALTH_PORT']}{path}"


def sample(text: str, name: str, **labels: str) -> float | None:
    """The value of one sample of the exposition text, or None."""
    for line in text.splitlines():
        if not line.startswith(name):
            continue
        m = re.match(r"^([a-zA-Z_:][\w:]*)(\{(.*)\})? (\S+)$", line)
        if not m or m.group(1) != name:
            continue
        have = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(3) or ""))
        if all(have.get(k) == v for k, v in labels.items()):
            return float(m.group(4))
    return None


@pytest.fixture
async def clients(edge_server):
    made: list = []
    yield made
    for c in made:
        await c.disconnect()


async def test_listener_health_and_readiness(edge_server):
    status, body = await asyncio.to_thread(get, health_url(edge_server, "/healthz"))
    assert (status, body) == (200, "ok\n")
    status, body = await asyncio.to_thread(get, health_url(edge_server, "/readyz"))
    assert status == 200
    assert json.loads(body) == {
        "ready": True,
        "checks": {"postgresql": "ok", "migrations": "ok", "redis": "ok"},
    }
    status, _ = await asyncio.to_thread(get, health_url(edge_server, "/nope"))
    assert status == 404
    # Start-up says where it listens, not how many objects the collector was spared.
    assert "MTProto listener on" in edge_server.log()
    assert "startup objects moved out of the collector" not in edge_server.log()


async def test_metrics_count_what_clients_did(edge_server, clients):
    from telethon import events, functions

    before_status, before = await asyncio.to_thread(get, health_url(edge_server, "/metrics"))
    assert before_status == 200
    keys_before = sample(before, "telesrv_auth_keys_created_total", kind="permanent") or 0
    pts_before = sample(before, "telesrv_pts_allocated_total") or 0

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bob, b, _, _ = await logged_in(edge_server, "Bob", clients)
    created = await a(functions.messages.CreateChatRequest(users=[input_user(alice, bob)], title="Metrics"))
    channel = created.updates.chats[1]
    got: list = []

    async def on_message(event):
        got.append(event)

    b.add_event_handler(on_message, events.NewMessage())
    await b.get_dialogs()
    await a.send_message(channel, "counted")
    await wait_for(lambda: any(getattr(e, "raw_text", "") == "counted" for e in got), timeout=15)
    await asyncio.to_thread(get, health_url(edge_server, "/readyz"))  # one Redis PING observed
    from telethon import types
    from telethon.errors import RPCError

    with pytest.raises(RPCError) as refused_call:
        await a(functions.channels.GetFullChannelRequest(types.InputChannel(1, 1)))
    assert refused_call.value.code == 400

    status, text = await asyncio.to_thread(get, health_url(edge_server, "/metrics"))
    assert status == 200
    # RPC calls by method (success: error=""), with a latency histogram
    assert sample(text, "telesrv_rpc_calls_total", method="messages.sendMessage", error="") >= 1
    assert sample(text, "telesrv_rpc_duration_seconds_count", method="messages.getDialogs", error="") >= 1
    assert sample(
        text, "telesrv_rpc_duration_seconds_bucket", method="messages.sendMessage", error="", le="+Inf"
    )
    # an error is a label of its own
    assert (
        sample(text, "telesrv_rpc_calls_total", method="channels.getFullChannel", error="CHANNEL_INVALID")
        >= 1
    )
    # connections by transport and live sessions
    assert sample(text, "telesrv_connections", transport="abridged") >= 2
    assert sample(text, "telesrv_sessions") >= 2
    assert sample(text, "telesrv_auth_keys_created_total", kind="permanent") >= keys_before + 2
    assert sample(text, "telesrv_pts_allocated_total") >= pts_before + 2
    assert sample(text, "telesrv_pushes_sent_total") >= 1
    assert sample(text, "telesrv_pg_pool_connections", pool="auth_keys") >= 1
    assert sample(text, "telesrv_pg_pool_connections", pool="messages") >= 1
    assert sample(text, "telesrv_redis_latency_seconds_count") >= 1
    assert "telesrv_pts_noop_fills_total" in text
    # The refusal counters docs/operations.md's alerts watch, 0 until something happens,
    # and the release.
    for reason in ("frame_deadline", "connections_per_ip", "bad_frame", "db_retry", "flood_wait"):
        assert sample(text, "telesrv_refusals_total", reason=reason) is not None, reason
    assert sample(text, "telesrv_requests_overdue_total") == 0
    from django.conf import settings

    assert sample(text, "telesrv_build_info", version=settings.TELESRV_VERSION) == 1
    from mtproto import crypto

    fingerprint = crypto.RsaKey.load(edge_server.rsa_key_path).fingerprint
    assert sample(text, "telesrv_server_key_info", fingerprint=f"{fingerprint & (2**64 - 1):016x}") == 1


async def test_a_refused_connection_is_counted_in_metrics(edge_server):
    """A client sending a broken frame is cut and counted (bad_frame), where an alert
    rule can see it."""
    _, before = await asyncio.to_thread(get, health_url(edge_server, "/metrics"))
    reader, writer = await asyncio.open_connection(edge_server.host, edge_server.port)
    writer.write(b"\xef\x00")  # abridged, then an empty packet
    await writer.drain()
    assert await asyncio.wait_for(reader.read(), 10) == b""  # hung up on
    writer.close()
    _, after = await asyncio.to_thread(get, health_url(edge_server, "/metrics"))
    was = sample(before, "telesrv_refusals_total", reason="bad_frame")
    assert sample(after, "telesrv_refusals_total", reason="bad_frame") == was + 1
