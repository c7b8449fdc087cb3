"""The listener behind a real HAProxy with ``send-proxy-v2`` (docs/operations.md): a
Telethon client connecting through the balancer from 127.0.0.5 is seen as 127.0.0.5 by
account.getAuthorizations, while the listener only ever talks to the balancer at
127.0.0.1; a PROXY header from any other peer is refused and counted."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from mtproto.session import wire
from mtproto.transport.proxy_protocol import V2_SIGNATURE
from tests.e2e import harness
from tests.e2e.test_operations import get, health_url, sample

pytestmark = pytest.mark.django_db(transaction=True)

CLIENT_ADDRESS = "127.0.0.5"  # the client's source address: the balancer itself is 127.0.0.1


def haproxy_binary() -> str:
    """HAProxy from Debian (the Makefile's `haproxy` target installs it); installed here
    when missing and possible, else the test is skipped saying why."""
    found = shutil.which("haproxy") or (
        "/usr/sbin/haproxy" if os.access("/usr/sbin/haproxy", os.X_OK) else None
    )
    if found:
        return found
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        pytest.skip("haproxy is not installed and cannot be here (needs root and apt-get): `make haproxy`")
    install = subprocess.run(
        ["apt-get", "install", "-y", "haproxy"], capture_output=True, text=True, timeout=600, check=False
    )
    if install.returncode != 0 or not os.access("/usr/sbin/haproxy", os.X_OK):
        pytest.skip(f"haproxy could not be installed: {install.stderr.strip()[-300:]}")
    return "/usr/sbin/haproxy"


def haproxy_config(front_port: int, listener_port: int) -> str:
    return f"""\
global
    maxconn 200

defaults
    mode tcp
    timeout connect 5s
    timeout client 10m
    timeout server 10m

frontend mtproto
    bind 127.0.0.1:{front_port}
    default_backend listeners

backend listeners
    server l1 127.0.0.1:{listener_port} send-proxy-v2
"""


@pytest.fixture
def behind_haproxy(edge_env, edge_rsa_key, tmp_path: Path):
    """A listener trusting 127.0.0.1 and an HAProxy in front of it: (listener, balancer),
    the balancer as an EdgeServer whose port is HAProxy's."""
    binary = haproxy_binary()
    listener = harness.start_edge(
        {**edge_env, "TELESRV_MTPROTO_TRUSTED_PROXIES": "127.0.0.1"},
        edge_rsa_key,
        tmp_path / "runmtproto.log",
    )
    front_port = harness.free_port()
    config = tmp_path / "haproxy.cfg"
    config.write_text(haproxy_config(front_port, listener.port))
    check = subprocess.run([binary, "-c", "-f", str(config)], capture_output=True, text=True, check=False)
    assert check.returncode == 0, check.stdout + check.stderr
    log = open(tmp_path / "haproxy.log", "wb")  # noqa: SIM115 - handed to the child
    # -db: stay in the foreground, so the test owns the process and its exit.
    proc = subprocess.Popen([binary, "-db", "-f", str(config)], stdout=log, stderr=subprocess.STDOUT)
    log.close()
    try:
        harness.wait_for_port(front_port, proc, timeout=20)
        yield listener, dataclasses.replace(listener, port=front_port)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        listener.stop()


async def test_authorizations_show_the_address_haproxy_saw(behind_haproxy):
    from telethon import functions

    _, balancer = behind_haproxy
    client = harness.make_telethon(balancer, "abridged", local_addr=(CLIENT_ADDRESS, 0))
    try:
        await client.connect()
        await harness.login_telethon(client)
        result = await client(functions.account.GetAuthorizationsRequest())
        current = [a for a in result.authorizations if a.current]
        assert len(current) == 1 and current[0].ip == CLIENT_ADDRESS, result.authorizations
    finally:
        await client.disconnect()


async def refusals(listener, reason: str) -> float:
    status, text = await asyncio.to_thread(get, health_url(listener, "/metrics"))
    assert status == 200
    return sample(text, "telesrv_refusals_total", reason=reason) or 0


async def test_a_proxy_header_from_elsewhere_is_refused_and_counted(behind_haproxy):
    listener, _ = behind_haproxy
    # Other processes on this machine may reach a port the test picked, so the counters
    # are compared before and after, and the log names each refused connection.
    before = {
        reason: await refusals(listener, reason) for reason in ("proxy_untrusted", "proxy_header_missing")
    }
    # Straight to the listener from an address it does not trust, claiming to be 192.0.2.7.
    header = (
        V2_SIGNATURE + b"\x21\x11\x00\x0c" + bytes([192, 0, 2, 7, 127, 0, 0, 1]) + struct.pack(">HH", 1, 2)
    )
    reader, writer = await asyncio.open_connection("127.0.0.1", listener.port, local_addr=(CLIENT_ADDRESS, 0))
    untrusted = writer.get_extra_info("sockname")
    writer.write(header + b"\xef")
    assert await asyncio.wait_for(reader.read(), 10) == b""
    writer.close()
    # From the trusted balancer's address, a connection without a header (a client that
    # bypasses the balancer on its machine) is refused as well.
    reader, writer = await asyncio.open_connection("127.0.0.1", listener.port)
    bypassing = writer.get_extra_info("sockname")
    writer.write(b"\xef" + bytes(40))
    assert await asyncio.wait_for(reader.read(), 10) == b""
    writer.close()
    assert await refusals(listener, "proxy_untrusted") >= before["proxy_untrusted"] + 1
    assert await refusals(listener, "proxy_header_missing") >= before["proxy_header_missing"] + 1
    log = listener.log()
    assert f"{untrusted!r}: transport error: a PROXY header from a peer that is not a trusted balancer" in log
    assert f"{bypassing!r}: no PROXY header" in log


async def test_websocket_clients_come_through_the_balancer_as_themselves(behind_haproxy, telethon_client):
    listener, balancer = behind_haproxy
    # An auth key made through the balancer, then used by a web client (MTProto over
    # WebSocket, on the same port) from 127.0.0.5.
    creator = await telethon_client("full", server=balancer)
    key = creator.session.auth_key.key
    await creator.disconnect()
    web = await harness.RawClient(
        "127.0.0.1", balancer.port, key, obfuscated=True, websocket=True, local_host=CLIENT_ADDRESS
    ).connect()
    await web.handshake()
    await web.ping()
    web.close()
    # A key the listener does not know: its log line names the web client, not HAProxy.
    stranger = await harness.RawClient(
        "127.0.0.1", balancer.port, os.urandom(256), websocket=True, local_host=CLIENT_ADDRESS
    ).connect()
    source = stranger._writer.get_extra_info("sockname")
    stranger.send(struct.pack("<Iq", wire.PING, 1))
    with pytest.raises(harness.TransportErrorReceived):
        await stranger.recv(10)
    stranger.close()
    assert f"{source!r}: unknown auth key" in listener.log()
