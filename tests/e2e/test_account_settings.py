"""Account settings with unmodified clients: mute (notification settings) across
devices, blocking, privacy."""

from __future__ import annotations

import time

import pytest

from tests.e2e.test_channels import (
    collect,
    input_user,
    logged_in,
    second_session,
    wait_for,
)

pytestmark = pytest.mark.django_db(transaction=True)

FOREVER = 2**31 - 1


def ts(value) -> int | None:
    """Telethon turns ``mute_until`` into a datetime."""
    return int(value.timestamp()) if hasattr(value, "timestamp") else value


async def test_mute_megagroup_on_one_device_shows_on_the_other(edge_server, edge_db, clients):
    from telethon import events, functions, types

    alice, a1, phone, code = await logged_in(edge_server, "Alice", clients)
    a2 = await second_session(edge_server, phone, code, clients)
    bob, b, _, _ = await logged_in(edge_server, "Bob", clients)
    created = await a1(functions.channels.CreateChannelRequest(title="Muted", about="", megagroup=True))
    channel = created.chats[0]
    await a1(functions.channels.InviteToChannelRequest(channel, [input_user(alice, bob)]))
    seen: list = []
    a2.add_event_handler(collect(seen), events.Raw(types.UpdateNotifySettings))

    mute = types.InputPeerNotifySettings(mute_until=FOREVER, show_previews=False)
    assert await a1(functions.account.UpdateNotifySettingsRequest(peer=channel, settings=mute))
    await wait_for(lambda: any(isinstance(u.peer, types.NotifyPeer) for u in seen))
    live = [u for u in seen if isinstance(u.peer, types.NotifyPeer)][-1]
    assert live.peer.peer.channel_id == channel.id and ts(live.notify_settings.mute_until) == FOREVER

    # The other device sees it in the channel's settings, its full info and its dialog.
    got = await a2(functions.account.GetNotifySettingsRequest(peer=channel))
    assert ts(got.mute_until) == FOREVER and got.show_previews is False
    full = await a2(functions.channels.GetFullChannelRequest(channel))
    assert ts(full.full_chat.notify_settings.mute_until) == FOREVER

    # A muted dialog still counts unread messages.
    group_for_bob = (await b.get_dialogs())[0].entity
    for i in range(3):
        await b.send_message(group_for_bob, f"msg {i}")
    dialogs = await a2(
        functions.messages.GetPeerDialogsRequest(
            peers=[types.InputDialogPeer(await a2.get_input_entity(channel))]
        )
    )
    dialog = dialogs.dialogs[0]
    assert ts(dialog.notify_settings.mute_until) == FOREVER and dialog.unread_count >= 3

    # Exceptions list the channel; unmuting clears it.
    exceptions = await a1(functions.account.GetNotifyExceptionsRequest())
    assert [u.peer.peer.channel_id for u in exceptions.updates] == [channel.id]
    assert [c.id for c in exceptions.chats] == [channel.id]
    await a1(
        functions.account.UpdateNotifySettingsRequest(peer=channel, settings=types.InputPeerNotifySettings())
    )
    assert (await a2(functions.account.GetNotifySettingsRequest(peer=channel))).mute_until is None
    assert (await a1(functions.account.GetNotifyExceptionsRequest())).updates == []


async def test_kind_and_user_notify_settings_and_reset(edge_server, edge_db, clients):
    from telethon import errors, functions, types

    alice, a1, _, _ = await logged_in(edge_server, "Alice", clients)
    bob, _, _, _ = await logged_in(edge_server, "Bob", clients)
    # Defaults for a kind: notify, previews on.
    users_default = await a1(functions.account.GetNotifySettingsRequest(peer=types.InputNotifyUsers()))
    assert ts(users_default.mute_until) == 0 and users_default.show_previews is True
    until = int(time.time()) + 3600
    await a1(
        functions.account.UpdateNotifySettingsRequest(
            peer=types.InputNotifyBroadcasts(),
            settings=types.InputPeerNotifySettings(mute_until=until, sound=types.NotificationSoundNone()),
        )
    )
    broadcasts = await a1(functions.account.GetNotifySettingsRequest(peer=types.InputNotifyBroadcasts()))
    assert ts(broadcasts.mute_until) == until and isinstance(
        broadcasts.other_sound, types.NotificationSoundNone
    )
    # A private chat muted: UserFull and the dialog show it.
    bob_peer = types.InputPeerUser(bob.id, input_user(alice, bob).access_hash)
    await a1.send_message(bob_peer, "hi")
    await a1(
        functions.account.UpdateNotifySettingsRequest(
            peer=types.InputNotifyPeer(bob_peer), settings=types.InputPeerNotifySettings(mute_until=FOREVER)
        )
    )
    full = await a1(functions.users.GetFullUserRequest(input_user(alice, bob)))
    assert ts(full.full_user.notify_settings.mute_until) == FOREVER
    dialogs = await a1(functions.messages.GetPeerDialogsRequest(peers=[types.InputDialogPeer(bob_peer)]))
    assert ts(dialogs.dialogs[0].notify_settings.mute_until) == FOREVER
    only_users = await a1(functions.account.GetNotifyExceptionsRequest(peer=types.InputNotifyUsers()))
    assert [u.peer.peer.user_id for u in only_users.updates] == [bob.id]
    assert bob.id in [u.id for u in only_users.users]
    # A peer the client may not address is refused.
    with pytest.raises(errors.PeerIdInvalidError):
        await a1(
            functions.account.GetNotifySettingsRequest(
                peer=types.InputNotifyPeer(types.InputPeerUser(bob.id, 1))
            )
        )
    # Reset: everything back to defaults.
    assert await a1(functions.account.ResetNotifySettingsRequest())
    broadcasts = await a1(functions.account.GetNotifySettingsRequest(peer=types.InputNotifyBroadcasts()))
    assert ts(broadcasts.mute_until) == 0
    assert (await a1(functions.account.GetNotifyExceptionsRequest())).updates == []


def _peer(viewer, target):
    from telethon import types

    return types.InputPeerUser(target.id, input_user(viewer, target).access_hash)


async def test_block_refuses_private_messages_and_hides_last_seen(edge_server, edge_db, clients):
    from telethon import errors, events, functions, types

    alice, a1, phone, code = await logged_in(edge_server, "Alice", clients)
    a2 = await second_session(edge_server, phone, code, clients)
    bob, b, _, _ = await logged_in(edge_server, "Bob", clients)
    await a1(functions.account.UpdateStatusRequest(offline=False))
    await b.send_message(_peer(bob, alice), "before the block")
    seen: list = []
    a2.add_event_handler(collect(seen), events.Raw(types.UpdatePeerBlocked))

    assert await a1(functions.contacts.BlockRequest(id=_peer(alice, bob)))
    await wait_for(lambda: any(u.blocked and u.peer_id.user_id == bob.id for u in seen))
    with pytest.raises(errors.UserIsBlockedError):
        await b.send_message(_peer(bob, alice), "after the block")
    with pytest.raises(errors.YouBlockedUserError):
        await a1.send_message(_peer(alice, bob), "to someone I blocked")
    # Bob no longer sees when Alice was online; Alice's profile of Bob says blocked.
    (alice_for_bob,) = await b(functions.users.GetUsersRequest([input_user(bob, alice)]))
    assert alice_for_bob.status is None
    full = await a2(functions.users.GetFullUserRequest(input_user(alice, bob)))
    assert full.full_user.blocked is True
    blocked = await a2(functions.contacts.GetBlockedRequest(offset=0, limit=10))
    assert [p.peer_id.user_id for p in blocked.blocked] == [bob.id] and bob.id in [
        u.id for u in blocked.users
    ]

    # Paging: two more blocked users, pages of two.
    for name in ("Carol", "Dave"):
        other, _, _, _ = await logged_in(edge_server, name, clients)
        await a1(functions.contacts.BlockRequest(id=_peer(alice, other)))
    first = await a1(functions.contacts.GetBlockedRequest(offset=0, limit=2))
    assert isinstance(first, types.contacts.BlockedSlice) and first.count == 3 and len(first.blocked) == 2
    rest = await a1(functions.contacts.GetBlockedRequest(offset=2, limit=2))
    assert [p.peer_id.user_id for p in rest.blocked] == [bob.id]

    assert await a1(functions.contacts.UnblockRequest(id=_peer(alice, bob)))
    await wait_for(lambda: any(not u.blocked and u.peer_id.user_id == bob.id for u in seen))
    sent = await b.send_message(_peer(bob, alice), "after the unblock")
    assert sent.message == "after the unblock"
    (alice_for_bob,) = await b(functions.users.GetUsersRequest([input_user(bob, alice)]))
    assert isinstance(alice_for_bob.status, types.UserStatusOnline | types.UserStatusOffline)


async def test_kurigram_blocks_and_unblocks(edge_server, edge_db, clients):
    from tests.e2e.test_channels import make_live_kurigram, new_user

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bob, b_phone, b_code = await new_user("Bob")
    bob_client = make_live_kurigram(edge_server, "bobblock")
    await bob_client.connect()
    try:
        sent = await bob_client.send_code(b_phone)
        await bob_client.sign_in(b_phone, sent.phone_code_hash, b_code)
        await a.send_message(_peer(alice, bob), "hi Bob")
        assert await bob_client.block_user(alice.id)
        from telethon import errors

        with pytest.raises(errors.UserIsBlockedError):
            await a.send_message(_peer(alice, bob), "again")
        assert await bob_client.unblock_user(alice.id)
        await a.send_message(_peer(alice, bob), "after unblock")
    finally:
        await bob_client.disconnect()


async def test_privacy_chat_invites_last_seen_phone_and_forwards(edge_server, edge_db, clients):
    from telethon import errors, events, functions, types

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bob, b1, b_phone, b_code = await logged_in(edge_server, "Bob", clients)
    b2 = await second_session(edge_server, b_phone, b_code, clients)
    carol, c, _, _ = await logged_in(edge_server, "Carol", clients)
    seen: list = []
    b2.add_event_handler(collect(seen), events.Raw(types.UpdatePrivacy))

    # Bob: only his contacts may add him to chats (he has none).
    rules = await b1(
        functions.account.SetPrivacyRequest(
            key=types.InputPrivacyKeyChatInvite(), rules=[types.InputPrivacyValueAllowContacts()]
        )
    )
    assert [type(r) for r in rules.rules] == [types.PrivacyValueAllowContacts]
    await wait_for(lambda: any(isinstance(u.key, types.PrivacyKeyChatInvite) for u in seen))
    got = await b2(functions.account.GetPrivacyRequest(key=types.InputPrivacyKeyChatInvite()))
    assert [type(r) for r in got.rules] == [types.PrivacyValueAllowContacts]

    group = (
        await a(functions.channels.CreateChannelRequest(title="Invites", about="", megagroup=True))
    ).chats[0]
    with pytest.raises(errors.UserPrivacyRestrictedError):
        await a(functions.channels.InviteToChannelRequest(group, [input_user(alice, bob)]))
    invited = await a(
        functions.channels.InviteToChannelRequest(group, [input_user(alice, bob), input_user(alice, carol)])
    )
    assert [m.user_id for m in invited.missing_invitees] == [bob.id]
    # An exception for Alice lets her add him.
    await b1(
        functions.account.SetPrivacyRequest(
            key=types.InputPrivacyKeyChatInvite(),
            rules=[
                types.InputPrivacyValueAllowUsers([input_user(bob, alice)]),
                types.InputPrivacyValueDisallowAll(),
            ],
        )
    )
    got = await b1(functions.account.GetPrivacyRequest(key=types.InputPrivacyKeyChatInvite()))
    assert got.rules[0].users == [alice.id] and alice.id in [u.id for u in got.users]
    invited = await a(functions.channels.InviteToChannelRequest(group, [input_user(alice, bob)]))
    assert invited.missing_invitees == []

    # Last seen hidden from everyone but Carol; the phone number shown to Alice only.
    await b1(functions.account.UpdateStatusRequest(offline=False))
    await b1(
        functions.account.SetPrivacyRequest(
            key=types.InputPrivacyKeyStatusTimestamp(),
            rules=[
                types.InputPrivacyValueAllowUsers([input_user(bob, carol)]),
                types.InputPrivacyValueDisallowAll(),
            ],
        )
    )
    await b1(
        functions.account.SetPrivacyRequest(
            key=types.InputPrivacyKeyPhoneNumber(),
            rules=[types.InputPrivacyValueAllowUsers([input_user(bob, alice)])],
        )
    )
    (bob_for_alice,) = await a(functions.users.GetUsersRequest([input_user(alice, bob)]))
    (bob_for_carol,) = await c(functions.users.GetUsersRequest([input_user(carol, bob)]))
    assert isinstance(bob_for_alice.status, types.UserStatusRecently)
    assert isinstance(bob_for_carol.status, types.UserStatusOnline)
    assert bob_for_alice.phone == b_phone and bob_for_carol.phone is None

    # The bio for contacts only (Carol is one), voice messages from nobody.
    await b1(functions.account.UpdateProfileRequest(about="bio of Bob"))
    await b1(functions.contacts.AddContactRequest(input_user(bob, carol), "Carol", "", ""))
    await b1(
        functions.account.SetPrivacyRequest(
            key=types.InputPrivacyKeyAbout(), rules=[types.InputPrivacyValueAllowContacts()]
        )
    )
    await b1(
        functions.account.SetPrivacyRequest(
            key=types.InputPrivacyKeyVoiceMessages(), rules=[types.InputPrivacyValueDisallowAll()]
        )
    )
    full_for_alice = (await a(functions.users.GetFullUserRequest(input_user(alice, bob)))).full_user
    full_for_carol = (await c(functions.users.GetFullUserRequest(input_user(carol, bob)))).full_user
    assert full_for_alice.about is None and full_for_carol.about == "bio of Bob"
    assert full_for_alice.voice_messages_forbidden and full_for_carol.voice_messages_forbidden

    # Forwards: Bob's messages forwarded by others carry his name only.
    await b1(
        functions.account.SetPrivacyRequest(
            key=types.InputPrivacyKeyForwards(), rules=[types.InputPrivacyValueDisallowAll()]
        )
    )
    sent = await b1.send_message(_peer(bob, alice), "forward me")
    alice_copy = (await a.get_messages(_peer(alice, bob), limit=1))[0]
    assert alice_copy.message == "forward me"
    await a(
        functions.messages.ForwardMessagesRequest(
            from_peer=_peer(alice, bob),
            id=[alice_copy.id],
            to_peer=_peer(alice, carol),
            random_id=[sent.id + 77],
        )
    )
    got = (await c.get_messages(_peer(carol, alice), limit=1))[0]
    assert got.fwd_from is not None and got.fwd_from.from_id is None and got.fwd_from.from_name == "Bob"


async def test_kurigram_sees_a_mute_set_on_telethon(edge_server, edge_db, clients):
    from pyrogram import raw
    from telethon import functions, types

    from tests.e2e.test_channels import make_live_kurigram

    _, a, phone, code = await logged_in(edge_server, "Alice", clients)
    channel = (
        await a(functions.channels.CreateChannelRequest(title="News", about="", broadcast=True))
    ).chats[0]
    await a(
        functions.account.UpdateNotifySettingsRequest(
            peer=channel, settings=types.InputPeerNotifySettings(mute_until=FOREVER, silent=True)
        )
    )
    kg = make_live_kurigram(edge_server, "mutecheck")
    await kg.connect()
    try:
        sent = await kg.send_code(phone)
        await kg.sign_in(phone, sent.phone_code_hash, code)
        peer = raw.types.InputPeerChannel(channel_id=channel.id, access_hash=channel.access_hash)
        got = await kg.invoke(
            raw.functions.account.GetNotifySettings(peer=raw.types.InputNotifyPeer(peer=peer))
        )
        assert got.mute_until == FOREVER and got.silent is True
        exceptions = await kg.invoke(
            raw.functions.account.GetNotifyExceptions(peer=raw.types.InputNotifyBroadcasts())
        )
        assert [u.peer.peer.channel_id for u in exceptions.updates] == [channel.id]
    finally:
        await kg.disconnect()
