"""Account settings set from one Telethon session and seen from the user's second
session (and by another user where privacy applies): default reaction, auto-download,
global privacy, account TTL, birthday, colours, personal channel; phone change and
help.getSupport; deleting an account with and without a password."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from django.utils import timezone

from accounts_app import account_deletion
from accounts_app.models import AccountSettings, User
from tests.e2e import harness
from tests.e2e.test_channels import (
    collect,
    input_user,
    logged_in,
    make_live_telethon,
    second_session,
    wait_for,
)

pytestmark = pytest.mark.django_db(transaction=True)


async def _connected(server, clients: list):
    client = make_live_telethon(server)
    clients.append(client)
    await client.connect()
    return client


async def test_settings_follow_the_account(edge_server, edge_db, clients):
    from telethon import errors, events, functions, types

    alice, a, phone, code = await logged_in(edge_server, "Alice", clients)
    bob, b, _p, _c = await logged_in(edge_server, "Bob", clients)
    a2 = await second_session(edge_server, phone, code, clients)
    config_updates, user_updates = [], []
    a2.add_event_handler(collect(config_updates), events.Raw(types.UpdateConfig))
    a2.add_event_handler(collect(user_updates), events.Raw(types.UpdateUser))
    await a2.get_dialogs()

    # default reaction: the other session is told to re-read its config
    assert (await a2(functions.help.GetConfigRequest())).reactions_default.emoticon == "👍"
    assert await a(functions.messages.SetDefaultReactionRequest(reaction=types.ReactionEmoji(emoticon="❤")))
    await wait_for(lambda: config_updates)
    assert (await a2(functions.help.GetConfigRequest())).reactions_default.emoticon == "❤"
    with pytest.raises(errors.ReactionInvalidError):
        await a(functions.messages.SetDefaultReactionRequest(reaction=types.ReactionEmoji(emoticon="nope")))

    # auto-download presets
    before = await a2(functions.account.GetAutoDownloadSettingsRequest())
    high = before.high
    high.photo_size_max, high.video_size_max = 2 * 1024 * 1024, 50 * 1024 * 1024
    assert await a(functions.account.SaveAutoDownloadSettingsRequest(settings=high, high=True))
    after = await a2(functions.account.GetAutoDownloadSettingsRequest())
    assert after.high.video_size_max == 50 * 1024 * 1024 and after.low == before.low

    # global privacy
    got = await a(functions.account.SetGlobalPrivacySettingsRequest(
        types.GlobalPrivacySettings(archive_and_mute_new_noncontact_peers=True, hide_read_marks=True)
    ))  # fmt: skip
    assert got.archive_and_mute_new_noncontact_peers and got.hide_read_marks
    seen = await a2(functions.account.GetGlobalPrivacySettingsRequest())
    assert (
        seen.archive_and_mute_new_noncontact_peers and seen.hide_read_marks and not seen.keep_archived_unmuted
    )

    # account TTL
    with pytest.raises(errors.TtlDaysInvalidError):
        await a(functions.account.SetAccountTTLRequest(types.AccountDaysTTL(days=7)))
    assert await a(functions.account.SetAccountTTLRequest(types.AccountDaysTTL(days=180)))
    assert (await a2(functions.account.GetAccountTTLRequest())).days == 180

    # birthday: the owner's other session is told; Bob sees it only once the rule allows
    with pytest.raises(errors.RPCError, match="BIRTHDAY_INVALID"):
        await a(functions.account.UpdateBirthdayRequest(types.Birthday(day=31, month=2)))
    assert await a(functions.account.UpdateBirthdayRequest(types.Birthday(day=29, month=2, year=2000)))
    await wait_for(lambda: user_updates)
    own = await a2(functions.users.GetFullUserRequest(types.InputUserSelf()))
    assert (own.full_user.birthday.day, own.full_user.birthday.month) == (29, 2)
    alice_for_bob = input_user(bob, alice)
    assert (
        await b(functions.users.GetFullUserRequest(alice_for_bob))
    ).full_user.birthday is None  # contacts only
    await a(functions.account.SetPrivacyRequest(
        key=types.InputPrivacyKeyBirthday(), rules=[types.InputPrivacyValueAllowAll()]
    ))  # fmt: skip
    assert (await b(functions.users.GetFullUserRequest(alice_for_bob))).full_user.birthday.year == 2000
    assert (await b(functions.contacts.GetBirthdaysRequest())).contacts == []  # not his contact
    await b(functions.contacts.AddContactRequest(alice_for_bob, "Alice", "", ""))
    birthdays = await b(functions.contacts.GetBirthdaysRequest())
    assert [(c.contact_id, c.birthday.day) for c in birthdays.contacts] == [(alice.id, 29)]
    assert [u.id for u in birthdays.users] == [alice.id]

    # colours: everyone sees them on the user
    with pytest.raises(errors.RPCError, match="COLOR_INVALID"):
        await a(functions.account.UpdateColorRequest(color=types.PeerColor(color=99)))
    assert await a(
        functions.account.UpdateColorRequest(color=types.PeerColor(color=3, background_emoji_id=5))
    )
    assert await a(functions.account.UpdateColorRequest(for_profile=True, color=types.PeerColor(color=9)))
    (me2,) = await a2(functions.users.GetUsersRequest([types.InputUserSelf()]))
    assert me2.color.color == 3 and me2.color.background_emoji_id == 5 and me2.profile_color.color == 9
    (alice_b,) = await b(functions.users.GetUsersRequest([alice_for_bob]))
    assert alice_b.color.color == 3

    # personal channel: a broadcast channel she owns, shown to Bob with the channel
    created = await a(functions.channels.CreateChannelRequest(title="Alice's", about="", broadcast=True))
    chan = created.chats[0]
    group = (await a(functions.channels.CreateChannelRequest(title="g", about="", megagroup=True))).chats[0]
    with pytest.raises(errors.RPCError, match="PERSONAL_CHANNEL_INVALID"):
        await a(
            functions.account.UpdatePersonalChannelRequest(types.InputChannel(group.id, group.access_hash))
        )
    await a.send_message(chan, "hello channel")
    assert await a(
        functions.account.UpdatePersonalChannelRequest(types.InputChannel(chan.id, chan.access_hash))
    )
    full = await b(functions.users.GetFullUserRequest(alice_for_bob))
    assert full.full_user.personal_channel_id == chan.id and full.full_user.personal_channel_message > 0
    assert [c.id for c in full.chats] == [chan.id]
    assert await a(functions.account.UpdatePersonalChannelRequest(types.InputChannelEmpty()))
    assert (await b(functions.users.GetFullUserRequest(alice_for_bob))).full_user.personal_channel_id is None

    # support: the built-in service account unless an operator configured one
    support = await a(functions.help.GetSupportRequest())
    assert support.user.id == 777000 and support.phone_number.startswith("+")


async def test_change_phone_with_a_code_to_the_new_number(edge_server, edge_db, clients):
    from telethon import errors, functions, types

    alice, a, _phone, _code = await logged_in(edge_server, "Alice", clients)
    _bob, _b, bob_phone, _bc = await logged_in(edge_server, "Bob", clients)
    with pytest.raises(errors.PhoneNumberOccupiedError):
        await a(functions.account.SendChangePhoneCodeRequest(bob_phone, types.CodeSettings()))
    new_phone, new_code = harness.fresh_phone()
    sent = await a(functions.account.SendChangePhoneCodeRequest(new_phone, types.CodeSettings()))
    with pytest.raises(errors.PhoneCodeInvalidError):
        await a(functions.account.ChangePhoneRequest(new_phone, sent.phone_code_hash, "13579"))
    me = await a(functions.account.ChangePhoneRequest(new_phone, sent.phone_code_hash, new_code))
    assert me.phone == new_phone.lstrip("+")
    assert (await User.objects.aget(id=alice.id)).phone == new_phone.lstrip("+")


async def test_delete_account_waits_for_accounts_with_a_password(edge_server, edge_db, clients):
    from telethon import errors, functions

    alice, a, _phone, _code = await logged_in(edge_server, "Alice", clients)
    assert await a.edit_2fa(new_password="pw")
    with pytest.raises(errors.TwoFaConfirmWaitError) as err:
        await a(functions.account.DeleteAccountRequest(reason="bye"))
    assert 604700 < err.value.seconds <= 604800
    assert not (await User.objects.aget(id=alice.id)).deleted
    settings_row = await AccountSettings.objects.aget(user_id=alice.id)
    assert settings_row.delete_at is not None

    # the self-destruct job carries the deletion out once it is due, exactly once
    await AccountSettings.objects.filter(user_id=alice.id).aupdate(delete_at=timezone.now())
    first = await sync_to_async(account_deletion.delete_expired_batch)()
    again = await sync_to_async(account_deletion.delete_expired_batch)()
    assert [d.user.id for d in first] == [alice.id] and again == []
    assert (await User.objects.aget(id=alice.id)).deleted

    bob, b, bob_phone, _bob_code = await logged_in(edge_server, "Bob", clients)
    assert await b(functions.account.DeleteAccountRequest(reason="bye"))
    assert (await User.objects.aget(id=bob.id)).deleted
    # the number is free again: it signs up as a new account
    again = await harness.login_telethon(await _connected(edge_server, clients), bob_phone, first_name="Bob2")
    assert again.id != bob.id and not (await User.objects.aget(id=again.id)).deleted


async def test_sessions_content_and_saved_contacts(edge_server, edge_db, clients):
    from telethon import errors, functions, types

    _alice, a, phone, code = await logged_in(edge_server, "Alice", clients)
    bob, _b, bob_phone, _bc = await logged_in(edge_server, "Bob", clients)
    a2 = await second_session(edge_server, phone, code, clients)

    assert await a(functions.account.SetContentSettingsRequest(sensitive_enabled=True))
    seen = await a2(functions.account.GetContentSettingsRequest())
    assert seen.sensitive_enabled and seen.sensitive_can_change

    with pytest.raises(errors.TtlDaysInvalidError):
        await a(functions.account.SetAuthorizationTTLRequest(authorization_ttl_days=1000))
    assert await a(functions.account.SetAuthorizationTTLRequest(authorization_ttl_days=30))
    auths = await a2(functions.account.GetAuthorizationsRequest())
    assert auths.authorization_ttl_days == 30
    other = next(x for x in auths.authorizations if not x.current)
    assert await a2(functions.account.ChangeAuthorizationSettingsRequest(hash=other.hash, confirmed=True))
    with pytest.raises(errors.HashInvalidError):
        await a2(functions.account.ChangeAuthorizationSettingsRequest(hash=12345, confirmed=True))

    await a(functions.contacts.ImportContactsRequest([
        types.InputPhoneContact(client_id=1, phone=bob_phone, first_name="Bobby", last_name="B")
    ]))  # fmt: skip
    saved = await a2(functions.contacts.GetSavedRequest())
    assert [(s.first_name, s.last_name) for s in saved] == [("Bobby", "B")]
    assert saved[0].phone in ("", bob_phone)  # Bob's phone rule decides
    assert bob.id


async def test_new_chats_from_non_contacts_are_archived_when_asked(edge_server, edge_db, clients):
    from telethon import functions, types

    alice, a, _phone, _code = await logged_in(edge_server, "Alice", clients)
    bob, b, _p, _c = await logged_in(edge_server, "Bob", clients)
    carol, c, _cp, _cc = await logged_in(edge_server, "Carol", clients)
    await a(functions.contacts.AddContactRequest(input_user(alice, carol), "Carol", "", ""))
    await a(functions.account.SetGlobalPrivacySettingsRequest(
        types.GlobalPrivacySettings(archive_and_mute_new_noncontact_peers=True)
    ))  # fmt: skip
    await b.send_message(input_user(bob, alice), "hi from a stranger")
    await c.send_message(input_user(carol, alice), "hi from a contact")
    peers = [types.InputDialogPeer(input_user(alice, bob)), types.InputDialogPeer(input_user(alice, carol))]
    dialogs = (await a(functions.messages.GetPeerDialogsRequest(peers))).dialogs
    folders = {d.peer.user_id: d.folder_id for d in dialogs}
    assert folders[bob.id] == 1 and not folders[carol.id]


async def test_hidden_read_marks_hide_read_dates_both_ways(edge_server, edge_db, clients):
    from telethon import errors, functions, types

    alice, a, _phone, _code = await logged_in(edge_server, "Alice", clients)
    bob, b, _p, _c = await logged_in(edge_server, "Bob", clients)
    sent = await a.send_message(input_user(alice, bob), "read me")
    await b.send_read_acknowledge(input_user(bob, alice), max_id=10**6)
    got = await a(functions.messages.GetOutboxReadDateRequest(peer=input_user(alice, bob), msg_id=sent.id))
    assert got.date
    await b(
        functions.account.SetGlobalPrivacySettingsRequest(types.GlobalPrivacySettings(hide_read_marks=True))
    )
    with pytest.raises(errors.UserPrivacyRestrictedError):
        await a(functions.messages.GetOutboxReadDateRequest(peer=input_user(alice, bob), msg_id=sent.id))
    assert (await a(functions.users.GetFullUserRequest(input_user(alice, bob)))).full_user.read_dates_private
    await b(functions.account.SetGlobalPrivacySettingsRequest(types.GlobalPrivacySettings()))
    await a(
        functions.account.SetGlobalPrivacySettingsRequest(types.GlobalPrivacySettings(hide_read_marks=True))
    )
    with pytest.raises(errors.RPCError) as err:
        await a(functions.messages.GetOutboxReadDateRequest(peer=input_user(alice, bob), msg_id=sent.id))
    assert err.value.code == 403 and err.value.message == "YOUR_PRIVACY_RESTRICTED"
