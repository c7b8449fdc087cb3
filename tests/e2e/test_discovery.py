"""Appearance settings, search and chat folders with unmodified clients: what one member
sets another member's client reads back; Telethon's global search finds a word across
groups and a private chat and pages through it; Kurigram finds a public channel by a title
fragment; a folder saved on one session arrives live on the same user's second session."""

from __future__ import annotations

import asyncio

import pytest

from accounts_app.access import user_access_hash
from accounts_app.models import User
from tests.e2e import harness

pytestmark = pytest.mark.django_db(transaction=True)


async def test_settings_search_and_folders_with_real_clients(telethon_user, kurigram_client, edge_server):
    from telethon import events, functions, types

    owner, owner_me, owner_phone = await telethon_user("Olga", receive_updates=True)
    member, member_me, _ = await telethon_user("Max")
    to_member = types.InputPeerUser(member_me.id, user_access_hash(owner_me.id, member_me.id))

    # Appearance set by the owner, read back by the member's client.
    created = await owner(
        functions.channels.CreateChannelRequest(title="Garden Club", about="", megagroup=True)
    )
    group = created.chats[0]
    await owner(
        functions.channels.InviteToChannelRequest(
            group, [types.InputUser(member_me.id, to_member.access_hash)]
        )
    )
    await owner(functions.channels.UpdateColorRequest(channel=group, color=5, background_emoji_id=4242))
    await owner(
        functions.channels.UpdateEmojiStatusRequest(
            channel=group, emoji_status=types.EmojiStatus(document_id=77)
        )
    )
    await owner(functions.channels.UpdatePaidMessagesPriceRequest(channel=group, send_paid_messages_stars=30))
    seen = (
        await member(functions.channels.GetChannelsRequest([types.InputChannel(group.id, group.access_hash)]))
    ).chats[0]
    assert seen.color.color == 5 and seen.color.background_emoji_id == 4242
    assert seen.emoji_status.document_id == 77 and seen.send_paid_messages_stars == 30

    # A word across three groups and a private chat, paged two at a time by Telethon.
    for i in range(3):
        g = (
            await owner(functions.channels.CreateChannelRequest(title=f"g{i}", about="", megagroup=True))
        ).chats[0]
        await owner.send_message(g, f"harvest notes {i}")
    await owner.send_message(to_member, "harvest in private")
    await owner.send_message(group, "nothing to see")
    texts = [m.message async for m in owner.iter_messages(None, search="harvest", limit=None, wait_time=0)]
    assert sorted(texts) == ["harvest in private", "harvest notes 0", "harvest notes 1", "harvest notes 2"]
    page = await owner(functions.messages.SearchGlobalRequest(
        q="harvest", filter=types.InputMessagesFilterEmpty(), min_date=0, max_date=0, offset_rate=0,
        offset_peer=types.InputPeerEmpty(), offset_id=0, limit=2))  # fmt: skip
    assert isinstance(page, types.messages.MessagesSlice) and len(page.messages) == 2 and page.next_rate

    # A public channel found by a fragment of its title from Kurigram.
    pub = (await owner(functions.channels.CreateChannelRequest(title="Weekly Orchard News", about="",
                                                                broadcast=True))).chats[0]  # fmt: skip
    await owner(functions.channels.UpdateUsernameRequest(pub, "orchardweekly"))
    kuri = await kurigram_client()
    phone, code = harness.fresh_phone()
    await User.objects.acreate(phone=phone, first_name="Kuri")
    sent = await kuri.send_code(phone)
    await kuri.sign_in(phone, sent.phone_code_hash, code)
    from pyrogram.raw import functions as kf

    found = await kuri.invoke(kf.contacts.Search(q="orchard", limit=10))
    assert [c.title for c in found.chats] == ["Weekly Orchard News"]

    # A folder saved on one session arrives on the same user's second session.
    second = await harness_second_session(owner_phone, edge_server)
    arrived = asyncio.Event()
    got = []

    async def on_raw(update):
        if isinstance(update, types.UpdateDialogFilter):
            got.append(update)
            arrived.set()

    second.add_event_handler(on_raw, events.Raw)
    await second(functions.updates.GetStateRequest())
    folder = types.DialogFilter(
        id=2, title=types.TextWithEntities(text="Garden", entities=[]), pinned_peers=[],
        include_peers=[await owner.get_input_entity(group)], exclude_peers=[], groups=True,
    )  # fmt: skip
    assert await owner(functions.messages.UpdateDialogFilterRequest(id=2, filter=folder))
    await asyncio.wait_for(arrived.wait(), 10)
    assert got[0].filter.title.text == "Garden" and got[0].filter.groups
    listed = await second(functions.messages.GetDialogFiltersRequest())
    assert [getattr(f, "id", 0) for f in listed.filters] == [0, 2]
    await second.disconnect()


async def harness_second_session(phone: str, server):
    """Another logged-in Telethon session of the user with ``phone``, receiving updates."""
    from telethon import TelegramClient, connection
    from telethon.sessions import MemorySession

    harness.telethon_trust(server.public_pem)
    session = MemorySession()
    session.set_dc(2, server.host, server.port)
    client = TelegramClient(
        session, harness.API_ID, harness.API_HASH, connection=connection.ConnectionTcpAbridged,
        receive_updates=True, connection_retries=1, retry_delay=0, timeout=10, request_retries=1,
        auto_reconnect=False, catch_up=False,
    )  # fmt: skip
    await client.connect()
    await harness.login_telethon(client, phone)
    return client
