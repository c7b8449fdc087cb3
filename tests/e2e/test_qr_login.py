"""QR login with unmodified Telethon on both sides: one client waits in qr_login(), a
logged-in session of the user accepts the token, the new session appears in (and can
be removed from) the accepting device's authorizations."""

from __future__ import annotations

import asyncio

import pytest

from accounts_app.models import Authorization
from tests.e2e.test_channels import logged_in, make_live_telethon

pytestmark = pytest.mark.django_db(transaction=True)


async def _waiting_device(server, clients):
    client = make_live_telethon(server)
    clients.append(client)
    await client.connect()
    qr = await client.qr_login()
    return client, qr


async def test_telethon_qr_login_accepted_by_another_session(edge_server, edge_db, clients):
    from telethon import errors, functions, types

    alice, a, _phone, _code = await logged_in(edge_server, "Alice", clients)
    b, qr = await _waiting_device(edge_server, clients)
    assert qr.url.startswith("tg://login?token=") and len(qr.token) >= 16
    assert not await b.is_user_authorized()

    waiting = asyncio.create_task(qr.wait(timeout=15))
    await asyncio.sleep(0.3)
    accepted = await a(functions.auth.AcceptLoginTokenRequest(token=qr.token))
    assert accepted.hash != 0 and not accepted.current
    me = await waiting
    assert me.id == alice.id
    assert (await b.get_me()).id == alice.id

    # The accepting device sees the session; the token never works again.
    auths = (await a(functions.account.GetAuthorizationsRequest())).authorizations
    assert accepted.hash in {x.hash for x in auths}
    # the new session keeps its device's language (initConnection's lang_code)
    row = await Authorization.objects.aget(hash=accepted.hash)
    assert row.lang_code == "en" and row.user_id == alice.id
    with pytest.raises(errors.AuthTokenAlreadyAcceptedError):
        await a(functions.auth.AcceptLoginTokenRequest(token=qr.token))

    # ...and can terminate it.
    assert await a(functions.account.ResetAuthorizationRequest(hash=accepted.hash))
    with pytest.raises(errors.AuthKeyUnregisteredError):
        await b(functions.users.GetUsersRequest(id=[types.InputUserSelf()]))


async def test_tokens_expire_are_replaced_and_cannot_be_made_up(edge_server, edge_db, clients, settings):
    from telethon import errors, functions

    _alice, a, _phone, _code = await logged_in(edge_server, "Alice", clients)
    with pytest.raises(errors.AuthTokenInvalidError):
        await a(functions.auth.AcceptLoginTokenRequest(token=b"\x01" * 32))
    b, qr = await _waiting_device(edge_server, clients)
    first = qr.token
    await qr.recreate()  # a new QR code: the one on screen before stops working
    with pytest.raises(errors.AuthTokenInvalidError):
        await a(functions.auth.AcceptLoginTokenRequest(token=first))

    from django.utils import timezone

    from accounts_app.models import LoginToken

    await LoginToken.objects.filter(token=qr.token).aupdate(expires=timezone.now())
    with pytest.raises(errors.AuthTokenExpiredError):
        await a(functions.auth.AcceptLoginTokenRequest(token=qr.token))
    with pytest.raises(errors.AuthTokenExpiredError):
        await b(functions.auth.ImportLoginTokenRequest(token=qr.token))
    assert not await b.is_user_authorized()


async def test_qr_login_of_an_account_with_a_password(edge_server, edge_db, clients):
    from telethon import errors, functions

    alice, a, _phone, _code = await logged_in(edge_server, "Alice", clients)
    assert await a.edit_2fa(new_password="qr secret")
    b, qr = await _waiting_device(edge_server, clients)
    waiting = asyncio.create_task(qr.wait(timeout=15))
    await asyncio.sleep(0.3)
    accepted = await a(functions.auth.AcceptLoginTokenRequest(token=qr.token))
    assert accepted.password_pending
    with pytest.raises(errors.SessionPasswordNeededError):
        await waiting
    assert not await b.is_user_authorized()
    with pytest.raises(errors.PasswordHashInvalidError):
        await b.sign_in(password="wrong")
    assert (await b.sign_in(password="qr secret")).id == alice.id
    auths = (await a(functions.account.GetAuthorizationsRequest())).authorizations
    assert [x.password_pending for x in auths if x.hash == accepted.hash] == [False]
