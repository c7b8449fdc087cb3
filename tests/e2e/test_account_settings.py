"""Account settings with unmodified clients: mute (notification settings) across
devices, blocking, privacy."""

from __future__ import annotations

import time

import pytest

from tests.e2e.test_channels import collect, input_user, logged_in, make_live_telethon, wait_for

pytestmark = pytest.mark.django_db(transaction=True)

FOREVER = 2**31 - 1


def ts(value) -> int | None:
    """Telethon turns ``mute_until`` into a datetime."""
    return int(value.timestamp()) if hasattr(value, "timestamp") else value


async def second_device(server, phone: str, code: str, clients: list):
    client = make_live_telethon(server)
    clients.append(client)
    await client.connect()
    sent = await client.send_code_request(phone)
    await client.sign_in(phone, code=code, phone_code_hash=sent.phone_code_hash)
    return client


async def test_mute_megagroup_on_one_device_shows_on_the_other(edge_server, edge_db, clients):
    from telethon import events, functions, types

    alice, a1, phone, code = await logged_in(edge_server, "Alice", clients)
    a2 = await second_device(edge_server, phone, code, clients)
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
