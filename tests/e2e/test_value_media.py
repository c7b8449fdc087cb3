"""Dice, contacts, geo points, venues and live locations with unmodified Telethon in a
private chat, a megagroup and a broadcast channel (send answer, push, history, search
filters, getMessages, forwards), and voice notes that show "listened" to their sender
once the recipient plays them."""

from __future__ import annotations

import io
import os
import random

import pytest

from accounts_app.access import user_access_hash
from tests.e2e.test_channels import collect, input_user, logged_in, wait_for

pytestmark = pytest.mark.django_db(transaction=True)


def _peer_user(viewer, target):
    from telethon import types

    return types.InputPeerUser(target.id, user_access_hash(viewer.id, target.id))


async def _send(client, peer, media, message=""):
    from telethon import functions, types

    answer = await client(
        functions.messages.SendMediaRequest(
            peer=peer, media=media, message=message, random_id=random.getrandbits(62) + 1
        )
    )
    return next(
        u.message
        for u in answer.updates
        if isinstance(u, types.UpdateNewMessage | types.UpdateNewChannelMessage)
    )


def _geo(lat=52.52, long=13.405):
    from telethon import types

    return types.InputGeoPoint(lat=lat, long=long)


async def _all_kinds(a, peer, alice_id_for_contact_phone):
    from telethon import types

    dice = await _send(a, peer, types.InputMediaDice(emoticon="🎲"))
    assert isinstance(dice.media, types.MessageMediaDice) and 1 <= dice.media.value <= 6
    slot = await _send(a, peer, types.InputMediaDice(emoticon="🎰"))
    assert 1 <= slot.media.value <= 64
    contact = await _send(
        a, peer, types.InputMediaContact(phone_number=alice_id_for_contact_phone, first_name="Bob", last_name="B",
                                         vcard="BEGIN:VCARD\nVERSION:3.0\nFN:Bob B\nEND:VCARD")
    )  # fmt: skip
    assert isinstance(contact.media, types.MessageMediaContact) and contact.media.vcard.startswith(
        "BEGIN:VCARD"
    )
    geo = await _send(a, peer, types.InputMediaGeoPoint(geo_point=_geo()))
    assert isinstance(geo.media, types.MessageMediaGeo) and abs(geo.media.geo.lat - 52.52) < 1e-9
    venue = await _send(
        a, peer, types.InputMediaVenue(geo_point=_geo(48.8584, 2.2945), title="Eiffel Tower", address="Champ de Mars",
                                       provider="foursquare", venue_id="4adcda", venue_type="arts_entertainment/default")
    )  # fmt: skip
    assert isinstance(venue.media, types.MessageMediaVenue) and venue.media.title == "Eiffel Tower"
    live = await _send(
        a,
        peer,
        types.InputMediaGeoLive(geo_point=_geo(), period=900, heading=90, proximity_notification_radius=200),
    )
    assert isinstance(live.media, types.MessageMediaGeoLive)
    assert (live.media.period, live.media.heading, live.media.proximity_notification_radius) == (900, 90, 200)
    return dice, contact, geo, venue, live


async def test_value_media_round_trip_in_every_chat_kind(edge_server, edge_db, clients):
    from telethon import errors, events, functions, types

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bob, b, bob_phone, _ = await logged_in(edge_server, "Bob", clients)
    got: list = []
    b.add_event_handler(collect(got, "message"), events.NewMessage())
    await b.get_dialogs()

    group = (
        await a(functions.channels.CreateChannelRequest(title="Places", about="", megagroup=True))
    ).chats[0]
    await a(functions.channels.InviteToChannelRequest(group, [input_user(alice, bob)]))
    news = (await a(functions.channels.CreateChannelRequest(title="News", about="", broadcast=True))).chats[0]
    for peer in (_peer_user(alice, bob), group, news):
        dice, contact, geo, venue, live = await _all_kinds(a, peer, "+" + bob_phone.lstrip("+"))
        # The contact names Bob's account, and the answer carries Bob's user.
        assert contact.media.user_id == bob.id
        # Live location: moved, then stopped (its period ends where it stopped).
        moved = await a(
            functions.messages.EditMessageRequest(
                peer=peer,
                id=live.id,
                media=types.InputMediaGeoLive(geo_point=_geo(52.53, 13.41), heading=180),
            )
        )
        m = next(
            u.message
            for u in moved.updates
            if isinstance(u, types.UpdateEditMessage | types.UpdateEditChannelMessage)
        )
        assert abs(m.media.geo.lat - 52.53) < 1e-9 and m.media.heading == 180 and m.media.period == 900
        stopped = await a(
            functions.messages.EditMessageRequest(peer=peer, id=live.id, media=types.InputMediaGeoLive(geo_point=types.InputGeoPointEmpty(), stopped=True))
        )  # fmt: skip
        m = next(
            u.message
            for u in stopped.updates
            if isinstance(u, types.UpdateEditMessage | types.UpdateEditChannelMessage)
        )
        assert m.media.period < 900
        with pytest.raises(errors.RPCError):  # a stopped live location cannot move again
            await a(
                functions.messages.EditMessageRequest(
                    peer=peer, id=live.id, media=types.InputMediaGeoLive(geo_point=_geo())
                )
            )
        with pytest.raises(errors.RPCError):
            await _send(a, peer, types.InputMediaDice(emoticon="🍕"))
        with pytest.raises(errors.RPCError):
            await _send(a, peer, types.InputMediaGeoPoint(geo_point=_geo(lat=123.0)))
        # History and search filters find each kind.
        for flt, expected in (
            (types.InputMessagesFilterGeo(), {geo.id, venue.id, live.id}),
            (types.InputMessagesFilterContacts(), {contact.id}),
        ):
            found = await a(functions.messages.SearchRequest(
                peer=peer, q="", filter=flt, min_date=None, max_date=None, offset_id=0, add_offset=0, limit=20,
                max_id=0, min_id=0, hash=0,
            ))  # fmt: skip
            assert {x.id for x in found.messages} == expected, flt
        counters = await a(
            functions.messages.GetSearchCountersRequest(
                peer=peer, filters=[types.InputMessagesFilterGeo(), types.InputMessagesFilterContacts()]
            )
        )
        assert [c.count for c in counters] == [3, 1]
        cal = await a(functions.messages.GetSearchResultsCalendarRequest(
            peer=peer, filter=types.InputMessagesFilterGeo(), offset_id=0, offset_date=None,
        ))  # fmt: skip
        assert cal.count == 3 and len(cal.periods) == 1 and cal.periods[0].count == 3
        assert (cal.periods[0].min_msg_id, cal.periods[0].max_msg_id) == (geo.id, live.id)
        assert [m.id for m in cal.messages] == [live.id] and cal.min_msg_id == geo.id
        pos = await a(functions.messages.GetSearchResultsPositionsRequest(
            peer=peer, filter=types.InputMessagesFilterGeo(), offset_id=live.id, limit=10,
        ))  # fmt: skip
        assert pos.count == 3 and [(x.msg_id, x.offset) for x in pos.positions] == [
            (venue.id, 1),
            (geo.id, 2),
        ]
        history = await a.get_messages(peer, ids=[dice.id, venue.id])
        assert (
            history[0].media.value == dice.media.value
            and history[1].media.venue_type == "arts_entertainment/default"
        )
    # Bob got the private ones and the group's live (pushes carry the media).
    await wait_for(lambda: sum(isinstance(m.media, types.MessageMediaDice) for m in got) >= 4)
    # A forward keeps the media (a dice keeps its value).
    fwd = await b(functions.messages.ForwardMessagesRequest(
        from_peer=_peer_user(bob, alice), id=[got[0].id], to_peer=types.InputPeerSelf(),
        random_id=[random.getrandbits(62)],
    ))  # fmt: skip
    copy = next(u.message for u in fwd.updates if isinstance(u, types.UpdateNewMessage))
    assert isinstance(copy.media, types.MessageMediaDice) and copy.media.value == got[0].media.value


def _voice():
    f = io.BytesIO(b"OggS" + os.urandom(3000))
    f.name = "v.ogg"
    return f


async def test_voice_note_listened_private_and_group(edge_server, edge_db, clients):
    from telethon import events, functions, types

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bob, b, _, _ = await logged_in(edge_server, "Bob", clients)
    read_a: list = []
    a.add_event_handler(collect(read_a), events.Raw(types.UpdateReadMessagesContents))
    read_group_a: list = []
    a.add_event_handler(collect(read_group_a), events.Raw(types.UpdateChannelReadMessagesContents))
    got: list = []
    b.add_event_handler(collect(got, "message"), events.NewMessage())
    await a.get_dialogs()
    await b.get_dialogs()

    sent = await a.send_file(_peer_user(alice, bob), _voice(), voice_note=True)
    assert sent.media_unread  # not listened yet
    await wait_for(lambda: got)
    theirs = got[-1]
    assert theirs.media_unread and theirs.media.voice
    affected = await b(functions.messages.ReadMessageContentsRequest(id=[theirs.id]))
    assert affected.pts_count == 1
    # Alice sees it listened: pushed, and in her history.
    await wait_for(lambda: any(sent.id in u.messages for u in read_a))
    mine = (await a.get_messages(_peer_user(alice, bob), ids=[sent.id]))[0]
    assert not mine.media_unread
    again = await b(functions.messages.ReadMessageContentsRequest(id=[theirs.id]))
    assert again.pts_count == 0  # nothing left to read

    group = (await a(functions.channels.CreateChannelRequest(title="Talk", about="", megagroup=True))).chats[
        0
    ]
    await a(functions.channels.InviteToChannelRequest(group, [input_user(alice, bob)]))
    note = await a.send_file(group, _voice(), voice_note=True)
    await wait_for(lambda: any(m.id == note.id and m.media_unread for m in got))
    shown = (await b(functions.channels.GetMessagesRequest(channel=group, id=[note.id]))).messages[0]
    assert shown.media_unread
    voices = await b(functions.messages.SearchRequest(
        peer=group, q="", filter=types.InputMessagesFilterRoundVoice(), min_date=None, max_date=None, offset_id=0,
        add_offset=0, limit=10, max_id=0, min_id=0, hash=0,
    ))  # fmt: skip
    assert [m.id for m in voices.messages] == [note.id]
    assert await b(functions.channels.ReadMessageContentsRequest(channel=group, id=[note.id]))
    shown = (await b(functions.channels.GetMessagesRequest(channel=group, id=[note.id]))).messages[0]
    assert not shown.media_unread
    await wait_for(lambda: any(note.id in u.messages for u in read_group_a))
    mine = (await a(functions.channels.GetMessagesRequest(channel=group, id=[note.id]))).messages[0]
    assert not mine.media_unread

    # A mention (a reply to Bob) is unread until Bob reads its contents.
    own = await b.send_message(group, "question")
    reply = await a.send_message(group, "answer", reply_to=own.id)
    shown = (await b(functions.channels.GetMessagesRequest(channel=group, id=[reply.id]))).messages[0]
    assert shown.mentioned and shown.media_unread
    assert await b(functions.channels.ReadMessageContentsRequest(channel=group, id=[reply.id]))
    shown = (await b(functions.channels.GetMessagesRequest(channel=group, id=[reply.id]))).messages[0]
    assert shown.mentioned and not shown.media_unread
    dialogs = await b(
        functions.messages.GetPeerDialogsRequest(
            peers=[types.InputDialogPeer(await b.get_input_entity(group))]
        )
    )
    assert dialogs.dialogs[0].unread_mentions_count == 0
