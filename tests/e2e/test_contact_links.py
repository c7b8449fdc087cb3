"""Finding people by phone and by link with Telethon: contacts.resolvePhone and
importContacts honour the "find me by my number" rule, importContacts' users can be
messaged at once, contact tokens resolve to their user and nothing else."""

from __future__ import annotations

import pytest

from tests.e2e.test_channels import logged_in

pytestmark = pytest.mark.django_db(transaction=True)


async def test_phone_lookups_follow_the_privacy_rule_and_tokens_resolve(edge_server, edge_db, clients):
    from telethon import errors, functions, types

    _alice, a, _phone, _code = await logged_in(edge_server, "Alice", clients)
    bob, b, bob_phone, _c = await logged_in(edge_server, "Bob", clients)

    found = await a(functions.contacts.ResolvePhoneRequest(phone="+" + bob_phone))
    assert found.peer.user_id == bob.id and [u.id for u in found.users] == [bob.id]
    with pytest.raises(errors.PhoneNotOccupiedError):
        await a(functions.contacts.ResolvePhoneRequest(phone="+1999000000000"))

    # importContacts: the users found can be messaged at once with the answer's hash
    imported = await a(functions.contacts.ImportContactsRequest([
        types.InputPhoneContact(client_id=7, phone=bob_phone, first_name="Bobby", last_name=""),
        types.InputPhoneContact(client_id=8, phone="19990000001", first_name="Nobody", last_name=""),
    ]))  # fmt: skip
    assert [(c.user_id, c.client_id) for c in imported.imported] == [(bob.id, 7)]
    (bob_user,) = imported.users
    assert bob_user.contact
    sent = await a.send_message(types.InputPeerUser(bob.id, bob_user.access_hash), "found you")
    assert sent.id > 0

    # Bob: only contacts may find him by his number (Alice is not one of his)
    await b(functions.account.SetPrivacyRequest(
        key=types.InputPrivacyKeyAddedByPhone(), rules=[types.InputPrivacyValueAllowContacts()]
    ))  # fmt: skip
    _carol, c, _cp, _cc = await logged_in(edge_server, "Carol", clients)
    with pytest.raises(errors.PhoneNotOccupiedError):
        await c(functions.contacts.ResolvePhoneRequest(phone=bob_phone))
    none = await c(functions.contacts.ImportContactsRequest([
        types.InputPhoneContact(client_id=1, phone=bob_phone, first_name="B", last_name="")
    ]))  # fmt: skip
    assert none.imported == [] and none.users == []

    # contact links
    exported = await b(functions.contacts.ExportContactTokenRequest())
    assert exported.url.startswith("tg://contact?token=")
    token = exported.url.split("token=", 1)[1]
    user = await c(functions.contacts.ImportContactTokenRequest(token=token))
    assert user.id == bob.id and user.access_hash
    with pytest.raises(errors.RPCError, match="IMPORT_TOKEN_INVALID"):
        await c(functions.contacts.ImportContactTokenRequest(token=token[:-2] + "xx"))
