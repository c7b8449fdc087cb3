"""Auth keys in PostgreSQL: what the listener relies on across restarts and processes."""

from __future__ import annotations

import os
import time

import pytest

from edge_app.keystore import PostgresAuthKeyStore
from edge_app.models import AuthKeyClient, AuthKeyRecord
from mtproto.dispatch import ClientInfo
from mtproto.keys import AuthKey

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
async def close_orm_connections():
    """The async ORM works in a helper thread; close its connection so the test database
    can be dropped at the end."""
    yield
    from asgiref.sync import sync_to_async
    from django.db import connections

    await sync_to_async(connections.close_all)()


@pytest.fixture
async def store():
    s = await PostgresAuthKeyStore.open(max_size=2)
    yield s
    await s.close()


async def fresh_store() -> PostgresAuthKeyStore:
    """Another process's view: no cache."""
    return await PostgresAuthKeyStore.open(max_size=1)


async def test_put_get_survives_a_new_process(store):
    key = AuthKey.create(os.urandom(256))
    await store.put(key)
    other = await fresh_store()
    try:
        got = await other.get(key.auth_key_id)
    finally:
        await other.close()
    assert got.key == key.key and got.auth_key_id == key.auth_key_id
    assert got.expires_at is None and abs(got.created - key.created) <= 1
    row = await AuthKeyRecord.objects.aget(auth_key_id=key.auth_key_id)
    assert bytes(row.key) == key.key
    assert await store.get(12345) is None


async def test_temporary_key_binding_and_expiry(store):
    perm = AuthKey.create(os.urandom(256))
    temp = AuthKey.create(os.urandom(256), expires_at=int(time.time()) + 3600)
    await store.put(perm)
    await store.put(temp)
    await store.bind(temp.auth_key_id, perm.auth_key_id, int(time.time()) + 600)
    other = await fresh_store()
    try:
        got = await other.get(temp.auth_key_id)
        assert got.perm_auth_key_id == perm.auth_key_id
        assert got.expires_at <= int(time.time()) + 600  # never past what the client asked
        with pytest.raises(KeyError):
            await other.bind(perm.auth_key_id, temp.auth_key_id, int(time.time()) + 60)  # not a temp key
    finally:
        await other.close()
    short = AuthKey.create(os.urandom(256), expires_at=int(time.time()) - 1)
    await store.put(short)
    assert await store.get(short.auth_key_id) is None  # expired keys are unknown keys
    assert await store.expire() >= 1
    assert not await AuthKeyRecord.objects.filter(auth_key_id=short.auth_key_id).aexists()


async def test_delete_takes_bound_temporary_keys_along(store):
    perm = AuthKey.create(os.urandom(256))
    temp = AuthKey.create(os.urandom(256), expires_at=int(time.time()) + 3600)
    await store.put(perm)
    await store.put(temp)
    await store.bind(temp.auth_key_id, perm.auth_key_id, int(time.time()) + 3600)
    await store.delete(perm.auth_key_id)
    assert await store.get(perm.auth_key_id) is None
    assert await store.get(temp.auth_key_id) is None
    assert not await AuthKeyRecord.objects.filter(
        auth_key_id__in=[perm.auth_key_id, temp.auth_key_id]
    ).aexists()


async def test_record_client_upserts(store):
    key = AuthKey.create(os.urandom(256))
    await store.put(key)
    await store.record_client(key.auth_key_id, ClientInfo(api_id=5, device_model="PC", lang_code="en"), 224)
    await store.record_client(key.auth_key_id, ClientInfo(api_id=5, device_model="PC", lang_code="de"), 229)
    row = await AuthKeyClient.objects.aget(auth_key_id=key.auth_key_id)
    assert (row.api_id, row.device_model, row.lang_code, row.layer) == (5, "PC", "de", 229)
    assert row.last_seen >= row.first_seen
