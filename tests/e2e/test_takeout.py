"""Data export with Telethon's ``takeout()``: a supergroup's history exported with its
photo downloaded, channels.getLeftChannels and getSplitRanges inside the export, and
the export session refused once finished or to another user."""

from __future__ import annotations

import pytest

from accounts_app.models import TakeoutSession
from tests.e2e.test_channels import logged_in
from tests.e2e.test_media import named, png

pytestmark = pytest.mark.django_db(transaction=True)


async def test_telethon_takeout_exports_a_supergroup_with_a_photo(edge_server, edge_db, clients):
    from telethon import errors, functions, types

    alice, a, _phone, _code = await logged_in(edge_server, "Alice", clients)
    _bob, b, _p, _c = await logged_in(edge_server, "Bob", clients)
    group = (
        await a(functions.channels.CreateChannelRequest(title="Export me", about="", megagroup=True))
    ).chats[0]
    for i in range(5):
        await a.send_message(group, f"text {i}")
    image = png(320, 200)
    photo_msg = await a.send_file(group, named(image, "p.png"), caption="the photo")
    left = (await a(functions.channels.CreateChannelRequest(title="Gone", about="", broadcast=True))).chats[0]
    await a(functions.channels.LeaveChannelRequest(left))

    with pytest.raises(errors.TakeoutRequiredError):
        await a(functions.channels.GetLeftChannelsRequest(offset=0))

    async with a.takeout(megagroups=True, channels=True, files=True, max_file_size=10 * 1024 * 1024) as t:
        takeout_id = a.session.takeout_id
        exported = [m async for m in t.iter_messages(group)]
        texts = [m.message for m in exported if m.message]
        assert texts[:1] == ["the photo"] and set(texts) >= {f"text {i}" for i in range(5)}
        photo = next(m for m in exported if m.id == photo_msg.id)
        data = await t.download_media(photo, bytes)
        assert isinstance(data, bytes) and len(data) > 100
        gone = await t(functions.channels.GetLeftChannelsRequest(offset=0))
        assert [c.id for c in gone.chats] == [left.id]
        ranges = await t(functions.messages.GetSplitRangesRequest())
        assert ranges and ranges[0].min_id <= 1
        # the export session is Alice's: Bob cannot use it
        with pytest.raises(errors.TakeoutInvalidError):
            await b(functions.InvokeWithTakeoutRequest(takeout_id, functions.updates.GetStateRequest()))

    row = await TakeoutSession.objects.aget(id=takeout_id)
    assert row.finished is not None and row.success and row.user_id == alice.id
    assert row.scopes["message_megagroups"] and row.scopes["files"]
    with pytest.raises(errors.TakeoutInvalidError):
        await a(functions.InvokeWithTakeoutRequest(takeout_id, functions.updates.GetStateRequest()))
    assert isinstance(await a(functions.updates.GetStateRequest()), types.updates.State)
