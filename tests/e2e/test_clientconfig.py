"""``manage.py clientconfig``: every client family's snippet names this deployment's
key and address, and the Telethon and Kurigram snippets, run as printed, connect and
log in to the real server."""

from __future__ import annotations

import pytest

from edge_app import client_config, dc
from mtproto import crypto
from tests.e2e import harness

pytestmark = pytest.mark.django_db(transaction=True)


def _deployment(server) -> client_config.Deployment:
    key = crypto.RsaKey.load(server.rsa_key_path)
    return client_config.Deployment(
        key=key, dcs=[dc.Endpoint(2, server.host, server.port)], this_dc=2, ws_url="wss://example.org/apiws"
    )


def test_every_client_gets_the_key_and_the_address(edge_server):
    d = _deployment(edge_server)
    for client in client_config.CLIENTS:
        text = client_config.render(client, d)
        assert f"{d.fingerprint:016x}" in text or str(d.signed_fingerprint) in text, client
        assert f"{d.key.n:x}" in text or "MIIB" in text, client
        if client in ("webk", "weba"):
            assert "wss://example.org/apiws" in text
        else:
            assert edge_server.host in text, client
    # Telegram Desktop's IPv6 list points at the same listener, not at Telegram's.
    assert f'"::ffff:{edge_server.host}"' in client_config.render("tdesktop", d)


async def test_the_telethon_snippet_connects_and_logs_in(edge_server, edge_db):
    namespace = {"API_ID": harness.API_ID, "API_HASH": harness.API_HASH}
    exec(client_config.render("telethon", _deployment(edge_server)), namespace)
    client = namespace["client"]
    await client.connect()
    try:
        me = await harness.login_telethon(client, first_name="Configured")
        assert (await client.get_me()).id == me.id
    finally:
        await client.disconnect()


async def test_the_kurigram_snippet_connects_and_logs_in(edge_server, edge_db):
    from pyrogram import types
    from pyrogram.crypto import rsa

    namespace = {"API_ID": harness.API_ID, "API_HASH": harness.API_HASH}
    exec(client_config.render("pyrogram", _deployment(edge_server)), namespace)
    key = crypto.RsaKey.load(edge_server.rsa_key_path)
    fp = key.fingerprint - 2**64 if key.fingerprint >= 2**63 else key.fingerprint
    assert rsa.server_public_keys[fp].m == key.n
    app = namespace["app"]
    phone, code = harness.fresh_phone()
    await app.connect()
    try:
        sent = await app.send_code(phone)
        user = await app.sign_in(phone, sent.phone_code_hash, code)
        if not isinstance(user, types.User):  # terms of service: a new number signs up
            user = await app.sign_up(phone, sent.phone_code_hash, "Configured")
        assert isinstance(user, types.User) and user.id > 0
    finally:
        await app.disconnect()
