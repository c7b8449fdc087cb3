"""The account side with Kurigram's own high-level methods as a user's second device:
settings set with Kurigram are seen from the user's Telethon session and the other way
round; Kurigram reads Saved Messages sublists through its raw API."""

from __future__ import annotations

import pytest

from tests.e2e.test_channels import input_user, logged_in, make_live_kurigram

pytestmark = pytest.mark.django_db(transaction=True)


async def test_kurigram_and_telethon_share_the_account_settings(edge_server, edge_db, clients):
    from pyrogram import raw
    from telethon import functions, types

    alice, a, phone, code = await logged_in(edge_server, "Alice", clients)
    bob, b, _p, _c = await logged_in(edge_server, "Bob", clients)
    kg = make_live_kurigram(edge_server, "alice_kg")
    await kg.connect()
    try:
        sent = await kg.send_code(phone)
        await kg.sign_in(phone, sent.phone_code_hash, code)

        # Kurigram sets, Telethon reads
        assert await kg.set_account_ttl(90)
        assert (await a(functions.account.GetAccountTTLRequest())).days == 90
        assert await kg.update_birthday(day=3, month=7)
        full = await a(functions.users.GetFullUserRequest(types.InputUserSelf()))
        assert (full.full_user.birthday.day, full.full_user.birthday.month) == (3, 7)
        settings = await kg.set_global_privacy_settings(archive_and_mute_new_chats=True)
        assert settings.archive_and_mute_new_chats
        seen = await a(functions.account.GetGlobalPrivacySettingsRequest())
        assert seen.archive_and_mute_new_noncontact_peers

        # Telethon sets, Kurigram reads
        assert await a(functions.account.SetAccountTTLRequest(types.AccountDaysTTL(days=365)))
        assert await kg.get_account_ttl() == 365

        # Saved Messages sublists through Kurigram's raw API
        await b.send_message(input_user(bob, alice), "to be saved")
        (msg,) = (
            await a(functions.messages.GetHistoryRequest(input_user(alice, bob), 0, 0, 0, 1, 0, 0, 0))
        ).messages
        await a(
            functions.messages.ForwardMessagesRequest(
                from_peer=input_user(alice, bob), id=[msg.id], to_peer="me"
            )
        )
        saved = await kg.invoke(raw.functions.messages.GetSavedDialogs(
            offset_date=0, offset_id=0, offset_peer=raw.types.InputPeerEmpty(), limit=20, hash=0
        ))  # fmt: skip
        assert [d.peer.user_id for d in saved.dialogs] == [bob.id]
        assert [u.id for u in saved.users if u.id == bob.id] == [bob.id]
    finally:
        await kg.disconnect()
