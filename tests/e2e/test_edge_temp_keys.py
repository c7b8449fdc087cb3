"""The Telegram Desktop way in: a permanent key, then a temporary key created on a
fresh connection, bound with auth.bindTempAuthKey, and used for the API at layer 225."""

from __future__ import annotations

import os
import time

from edge_app.models import AuthKeyClient, AuthKeyRecord
from mtproto import crypto
from mtproto.exchange import encrypt_bind_message
from mtproto.session import wire
from tests.e2e import harness
from tests.mtproto.test_exchange import SimulatedClient
from tl import functions, layers, mt, types


def init_connection(query) -> bytes:
    return functions.InvokeWithLayer(
        layer=225,
        query=functions.InitConnection(
            api_id=harness.API_ID,
            device_model="Desktop",
            system_version="Linux",
            app_version="6.0 x64",
            system_lang_code="en-US",
            lang_pack="tdesktop",
            lang_code="en",
            query=query,
        ),
    )


async def test_temporary_key_bound_to_the_permanent_one(edge_server, telethon_client, edge_db):
    perm_client = await telethon_client("abridged")
    perm_key = perm_client.session.auth_key.key
    perm_id = crypto.auth_key_id_of(perm_key)
    await perm_client.disconnect()

    raw = await harness.RawClient(
        edge_server.host, edge_server.port, os.urandom(256), kind="intermediate", obfuscated=True
    ).connect()
    maker = SimulatedClient(crypto.RsaKey.load(edge_server.rsa_key_path), os.urandom, temp_expires_in=86400)
    answer = await raw.plain_call(maker.req_pq())
    answer = await raw.plain_call(maker.req_dh_params(answer))
    maker.check_dh_gen_ok(await raw.plain_call(maker.set_client_dh_params(answer)))
    # The first encrypted message uses the salt the exchange derived.
    raw.use_key(maker.auth_key, crypto.initial_server_salt(maker.new_nonce, maker.server_nonce))
    temp_id = raw.auth_key_id

    expires_at = int(time.time()) + 3600
    bind_msg_id = raw.new_msg_id()
    inner = mt.BindAuthKeyInner(
        nonce=4242,
        temp_auth_key_id=temp_id,
        perm_auth_key_id=perm_id,
        temp_session_id=raw.session_id,
        expires_at=expires_at,
    )
    bind = functions.auth.BindTempAuthKey(
        perm_auth_key_id=perm_id,
        nonce=4242,
        expires_at=expires_at,
        encrypted_message=encrypt_bind_message(perm_key, inner, bind_msg_id),
    )
    raw.send(bind.to_bytes(), msg_id=bind_msg_id)
    body = await raw.expect(wire.RPC_RESULT)
    assert body[12:] == wire.bool_true(), body[12:]

    raw.send(layers.encode(init_connection(functions.help.GetConfig()), 225))
    body = await raw.expect(wire.RPC_RESULT)
    result = body[12:]
    if wire.constructor_of(result) == wire.GZIP_PACKED:
        result = wire.gunzip(result)
    config = layers.decode(result, 225)
    assert isinstance(config, types.Config) and config.this_dc == 2
    raw.close()

    temp = await AuthKeyRecord.objects.aget(auth_key_id=temp_id)
    assert temp.perm_auth_key_id == perm_id
    assert temp.expires_at is not None and temp.expires_at.timestamp() <= expires_at
    client = await AuthKeyClient.objects.aget(auth_key_id=temp_id)
    assert (client.layer, client.device_model, client.lang_pack) == (225, "Desktop", "tdesktop")


async def test_binding_to_an_unknown_permanent_key_is_refused(edge_server, edge_db):
    raw = await harness.RawClient(edge_server.host, edge_server.port, os.urandom(256)).connect()
    maker = SimulatedClient(crypto.RsaKey.load(edge_server.rsa_key_path), os.urandom, temp_expires_in=600)
    answer = await raw.plain_call(maker.req_pq())
    answer = await raw.plain_call(maker.req_dh_params(answer))
    maker.check_dh_gen_ok(await raw.plain_call(maker.set_client_dh_params(answer)))
    raw.use_key(maker.auth_key, crypto.initial_server_salt(maker.new_nonce, maker.server_nonce))
    ghost = os.urandom(256)
    mid = raw.new_msg_id()
    inner = mt.BindAuthKeyInner(
        nonce=1,
        temp_auth_key_id=raw.auth_key_id,
        perm_auth_key_id=crypto.auth_key_id_of(ghost),
        temp_session_id=raw.session_id,
        expires_at=int(time.time()) + 60,
    )
    request = functions.auth.BindTempAuthKey(
        perm_auth_key_id=crypto.auth_key_id_of(ghost),
        nonce=1,
        expires_at=int(time.time()) + 60,
        encrypted_message=encrypt_bind_message(ghost, inner, mid),
    )
    raw.send(request.to_bytes(), msg_id=mid)
    body = await raw.expect(wire.RPC_RESULT)
    assert body[12:] == wire.rpc_error(400, "ENCRYPTED_MESSAGE_INVALID")
    raw.close()
