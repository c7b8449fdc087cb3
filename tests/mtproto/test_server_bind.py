"""auth.bindTempAuthKey as Telegram Desktop does it: a temporary key, bound to a
permanent one with a bind message encrypted under the permanent key."""

from __future__ import annotations

import os
import struct
import time

import pytest

from mtproto import crypto
from mtproto.exchange import encrypt_bind_message
from mtproto.keys import AuthKey, MemoryAuthKeyStore
from mtproto.server import MTProtoServer
from mtproto.session import wire
from tests.e2e.harness import RawClient
from tl import functions, mt


class Dispatcher:
    def __init__(self) -> None:
        self.seen: list[str] = []

    async def dispatch(self, ctx, request):
        self.seen.append(request.TL_NAME)
        return wire.bool_true()

    async def connection_initialized(self, ctx, info):
        pass

    async def session_closed(self, session):
        pass


@pytest.fixture
async def setup():
    store = MemoryAuthKeyStore()
    perm = AuthKey.create(os.urandom(256))
    temp = AuthKey.create(os.urandom(256), expires_at=int(time.time()) + 3600)
    await store.put(perm)
    await store.put(temp)
    server = MTProtoServer(Dispatcher(), store, crypto.RsaKey.generate(), salt_secret=b"b" * 32)
    port = await server.start("127.0.0.1", 0)
    client = await RawClient("127.0.0.1", port, temp.key).connect()
    await client.handshake()
    yield server, store, perm, temp, client
    client.close()
    await server.close()


def bind_request(client, perm, temp, msg_id, *, expires_at, nonce=991, session_id=None):
    inner = mt.BindAuthKeyInner(
        nonce=nonce,
        temp_auth_key_id=temp.auth_key_id,
        perm_auth_key_id=perm.auth_key_id,
        temp_session_id=client.session_id if session_id is None else session_id,
        expires_at=expires_at,
    )
    return functions.auth.BindTempAuthKey(
        perm_auth_key_id=perm.auth_key_id,
        nonce=nonce,
        expires_at=expires_at,
        encrypted_message=encrypt_bind_message(perm.key, inner, msg_id),
    ).to_bytes()


async def test_bind_links_the_temporary_key(setup):
    server, store, perm, temp, client = setup
    expires = int(time.time()) + 1800
    mid = client.new_msg_id()
    client.send(bind_request(client, perm, temp, mid, expires_at=expires), msg_id=mid)
    body = await client.expect(wire.RPC_RESULT)
    assert body[12:] == wire.bool_true()
    assert store.keys[temp.auth_key_id].perm_auth_key_id == perm.auth_key_id
    assert store.keys[temp.auth_key_id].expires_at == expires
    (session,) = server.sessions.sessions_of_key(temp.auth_key_id)
    assert session.perm_auth_key_id == perm.auth_key_id
    assert server.sessions_of_perm_key(perm.auth_key_id) == [session]


async def test_bind_message_for_another_session_is_refused(setup):
    _server, store, perm, temp, client = setup
    mid = client.new_msg_id()
    request = bind_request(client, perm, temp, mid, expires_at=int(time.time()) + 60, session_id=123)
    client.send(request, msg_id=mid)
    body = await client.expect(wire.RPC_RESULT)
    assert body[12:] == wire.rpc_error(400, "ENCRYPTED_MESSAGE_INVALID")
    assert store.keys[temp.auth_key_id].perm_auth_key_id is None


async def test_bind_with_wrong_msg_id_is_refused(setup):
    _server, _store, perm, temp, client = setup
    mid = client.new_msg_id()
    request = bind_request(client, perm, temp, mid - 4, expires_at=int(time.time()) + 60)
    client.send(request, msg_id=mid)
    body = await client.expect(wire.RPC_RESULT)
    assert body[12:] == wire.rpc_error(400, "ENCRYPTED_MESSAGE_INVALID")


async def test_unknown_permanent_key(setup):
    _server, _store, _perm, temp, client = setup
    stranger = AuthKey.create(os.urandom(256))
    mid = client.new_msg_id()
    client.send(bind_request(client, stranger, temp, mid, expires_at=int(time.time()) + 60), msg_id=mid)
    body = await client.expect(wire.RPC_RESULT)
    assert body[12:] == wire.rpc_error(400, "ENCRYPTED_MESSAGE_INVALID")


async def test_unbound_temporary_key_gets_auth_key_perm_empty_until_bound(setup):
    server, _store, perm, temp, client = setup
    get_config = functions.help.GetConfig().to_bytes()
    mid = client.send(get_config)
    body = await client.expect(wire.RPC_RESULT)
    assert struct.unpack_from("<q", body, 4)[0] == mid
    assert body[12:] == wire.rpc_error(401, "AUTH_KEY_PERM_EMPTY")
    mid = client.new_msg_id()
    client.send(bind_request(client, perm, temp, mid, expires_at=int(time.time()) + 600), msg_id=mid)
    assert (await client.expect(wire.RPC_RESULT))[12:] == wire.bool_true()
    mid = client.send(get_config)
    body = await client.expect(wire.RPC_RESULT)
    assert struct.unpack_from("<q", body, 4)[0] == mid and body[12:] == wire.bool_true()
    assert server.dispatcher.seen == ["help.getConfig"]  # bindTempAuthKey stayed inside mtproto
