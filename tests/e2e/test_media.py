"""Media with unmodified clients: photos, documents, voice notes and albums in a
megagroup, a broadcast channel and a private chat; downloads by other members (bytes
identical, photo sizes decoded), offline catch-up carrying media, and a non-member
refused a private channel's file."""

from __future__ import annotations

import asyncio
import io
import os

import pytest

from tests.e2e.test_channels import collect, input_user, logged_in, wait_for

pytestmark = pytest.mark.django_db(transaction=True)


def png(w: int, h: int, color=(10, 120, 200)) -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (w, h), color).save(out, "PNG")
    return out.getvalue()


def named(data: bytes, name: str) -> io.BytesIO:
    f = io.BytesIO(data)
    f.name = name
    return f


async def _megagroup(a, alice, members, *, broadcast=False, title="Media"):
    from telethon import functions

    created = await a(functions.channels.CreateChannelRequest(title=title, about="", megagroup=not broadcast,
                                                             broadcast=broadcast))  # fmt: skip
    channel = created.chats[0]
    if members:
        await a(functions.channels.InviteToChannelRequest(channel, [input_user(alice, m) for m in members]))
    return channel


async def test_megagroup_photo_document_voice_album(edge_server, edge_db, clients):
    from PIL import Image
    from telethon import events, types

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bob, b, _, _ = await logged_in(edge_server, "Bob", clients)
    channel = await _megagroup(a, alice, [bob])
    got: list = []
    b.add_event_handler(collect(got, "message"), events.NewMessage())
    await b.get_dialogs()

    photo_msg = await a.send_file(channel, named(png(1500, 1000), "p.png"), caption="a photo")
    assert isinstance(photo_msg.media, types.MessageMediaPhoto) and photo_msg.message == "a photo"
    sizes = photo_msg.media.photo.sizes
    assert [s.type for s in sizes if isinstance(s, types.PhotoSize)] == ["s", "m", "x", "y", "w"]
    assert isinstance(sizes[0], types.PhotoStrippedSize)
    big = sizes[-1]
    assert (big.w, big.h) == (1500, 1000)

    blob = os.urandom(700 * 1024 + 123)
    doc_msg = await a.send_file(channel, named(blob, "data.bin"), force_document=True)
    assert doc_msg.file.name == "data.bin" and doc_msg.file.size == len(blob)

    voice_msg = await a.send_file(channel, named(b"OggS" + os.urandom(5000), "v.ogg"), voice_note=True)
    assert voice_msg.media.voice

    album = await a.send_file(channel, [named(png(400 + i, 300), f"a{i}.png") for i in range(3)])
    assert len(album) == 3 and len({m.grouped_id for m in album}) == 1 and album[0].grouped_id

    await wait_for(lambda: len(got) >= 6)
    by_id = {m.id: m for m in got}
    # Bob downloads what Alice sent: identical bytes, a decodable largest size.
    data = await b.download_media(by_id[doc_msg.id], file=bytes)
    assert data == blob
    jpeg = await b.download_media(by_id[photo_msg.id], file=bytes)
    img = Image.open(io.BytesIO(jpeg))
    assert img.size == (1500, 1000)
    m_size = next(s for s in by_id[photo_msg.id].photo.sizes if getattr(s, "type", "") == "m")
    thumb = await b.download_media(by_id[photo_msg.id], file=bytes, thumb=m_size)
    assert Image.open(io.BytesIO(thumb)).size == (320, 213)
    assert await b.download_media(by_id[voice_msg.id], file=bytes)
    # History carries the media too.
    hist = await b.get_messages(channel, limit=10)
    assert sum(1 for m in hist if m.photo) == 4 and sum(1 for m in hist if m.document) == 2
    # A forward carries the media: Bob keeps the document in Saved Messages, and it
    # stays downloadable there (the same stored bytes).
    fwd = await b.forward_messages("me", by_id[doc_msg.id])
    assert fwd.document.id == doc_msg.document.id and fwd.fwd_from is not None
    assert await b.download_media(fwd, file=bytes) == blob


async def test_broadcast_and_private_media_reach_an_offline_member(edge_server, edge_db, clients):
    from telethon import functions, types

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bob, b, _, _ = await logged_in(edge_server, "Bob", clients)
    channel = await _megagroup(a, alice, [bob], broadcast=True, title="News")
    state = await b(functions.updates.GetStateRequest())
    b_channel = (
        await b(functions.channels.GetChannelsRequest([types.InputChannel(channel.id, channel.access_hash)]))
    ).chats[0]
    full = await b(functions.channels.GetFullChannelRequest(b_channel))
    pts = full.full_chat.pts
    await b.disconnect()  # offline while Alice posts

    blob = os.urandom(1500 * 1024)  # three 512 KB parts
    post = await a.send_file(channel, named(png(900, 600), "p.png"), caption="post")
    doc = await a.send_file(channel, named(blob, "report.pdf"), force_document=True)
    bob_peer = types.InputPeerUser(bob.id, input_user(alice, bob).access_hash)
    private = await a.send_file(bob_peer, named(png(200, 150), "me.png"), caption="for you")
    album = await a.send_file(channel, [named(png(300, 300 + i), f"b{i}.png") for i in range(3)])
    private_album = await a.send_file(bob_peer, [named(png(300, 300 + i), f"c{i}.png") for i in range(3)])
    assert len({m.grouped_id for m in album}) == 1 and len({m.grouped_id for m in private_album}) == 1
    saved = await a.send_file("me", named(b"notes", "notes.txt"), force_document=True)
    assert saved.document and (await a.download_media(saved, file=bytes)) == b"notes"

    await b.connect()
    diff = await b(functions.updates.GetChannelDifferenceRequest(
        b_channel, types.ChannelMessagesFilterEmpty(), pts, 100, force=True))  # fmt: skip
    media = {m.id: m.media for m in diff.new_messages}
    assert isinstance(media[post.id], types.MessageMediaPhoto)
    assert media[doc.id].document.size == len(blob)
    got = await b(functions.updates.GetDifferenceRequest(pts=state.pts, date=state.date, qts=0))
    mine = [m for m in got.new_messages if m.message == "for you"]
    assert mine and isinstance(mine[0].media, types.MessageMediaPhoto)
    grouped = [m for m in got.new_messages if getattr(m, "grouped_id", None)]
    assert len(grouped) == 3 and len({m.grouped_id for m in grouped}) == 1
    assert sum(1 for m in diff.new_messages if getattr(m, "grouped_id", None)) == 3
    # Downloads from the snapshot: the broadcast's document, byte for byte.
    msgs = await b.get_messages(b_channel, ids=[doc.id])
    assert await b.download_media(msgs[0], file=bytes) == blob
    assert private.photo.id == mine[0].media.photo.id


async def test_non_member_cannot_download_a_private_channel_file(edge_server, edge_db, clients):
    from telethon import errors, functions, types

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    _, c, _, _ = await logged_in(edge_server, "Carol", clients)
    channel = await _megagroup(a, alice, [])
    sent = await a.send_file(channel, named(b"secret" * 1000, "s.txt"), force_document=True)
    d = sent.document
    loc = types.InputDocumentFileLocation(d.id, d.access_hash, d.file_reference, "")
    with pytest.raises(errors.LocationInvalidError):
        await c(functions.upload.GetFileRequest(loc, 0, 4096))
    # Bad windows are refused before any lookup.
    for offset, limit, error in ((100, 4096, errors.OffsetInvalidError), (0, 5000, errors.LimitInvalidError),
                                 (1024 * 1024 - 4096, 8192, errors.LimitInvalidError)):  # fmt: skip
        with pytest.raises(error):
            await a(functions.upload.GetFileRequest(loc, offset, limit))
    ok = await a(functions.upload.GetFileRequest(loc, 1024, 2048, precise=True))
    assert ok.bytes == (b"secret" * 1000)[1024:3072]
    # A non-image as a photo.
    with pytest.raises(errors.RPCError) as not_image:
        await a.send_file(channel, named(b"not an image at all", "x.jpg"), force_document=False)
    assert "IMAGE_PROCESS_FAILED" in repr(not_image.value) or isinstance(
        not_image.value, errors.ImageProcessFailedError
    )


async def test_kurigram_sends_and_downloads_media(edge_server, edge_db, clients, tmp_path):
    from tests.e2e.test_channels import make_live_kurigram, new_user

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bob, phone, code = await new_user("Bob")
    k = make_live_kurigram(edge_server, "bob_media")
    await k.connect()
    try:
        sent_code = await k.send_code(phone)
        await k.sign_in(phone, sent_code.phone_code_hash, code)
        await a.send_message(_peer(alice, bob), "send me files")
        [d async for d in k.get_dialogs()]  # Kurigram learns Alice's access hash here
        path = tmp_path / "k.png"
        path.write_bytes(png(640, 480))
        photo = await k.send_photo(alice.id, str(path), caption="from kurigram")
        assert photo.photo.width == 640 and photo.caption == "from kurigram"
        blob = os.urandom(200_000)
        doc_path = tmp_path / "k.bin"
        doc_path.write_bytes(blob)
        doc = await k.send_document(alice.id, str(doc_path))
        got = await k.download_media(doc, in_memory=True)
        assert bytes(got.getbuffer()) == blob
        msgs = await a.get_messages(_peer(alice, bob), limit=3)
        assert await a.download_media(next(m for m in msgs if m.document), file=bytes) == blob
        assert next(m for m in msgs if m.photo).photo.sizes[-1].w == 640
    finally:
        await k.disconnect()


def _peer(viewer, target):
    from telethon import types

    return types.InputPeerUser(target.id, input_user(viewer, target).access_hash)


async def test_chat_photo_and_profile_photo(edge_server, edge_db, clients):
    from PIL import Image
    from telethon import errors, functions, types

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bob, b, _, _ = await logged_in(edge_server, "Bob", clients)
    channel = await _megagroup(a, alice, [bob], title="Avatars")
    uploaded = await a.upload_file(named(png(800, 800, (0, 200, 0)), "chat.png"))
    done = await a(functions.channels.EditPhotoRequest(channel, types.InputChatUploadedPhoto(file=uploaded)))
    service = next(u.message for u in done.updates if isinstance(u, types.UpdateNewChannelMessage))
    assert isinstance(service.action, types.MessageActionChatEditPhoto)

    b_channel = (
        await b(functions.channels.GetChannelsRequest([types.InputChannel(channel.id, channel.access_hash)]))
    ).chats[0]
    assert isinstance(b_channel.photo, types.ChatPhoto) and b_channel.photo.stripped_thumb
    full = await b(functions.channels.GetFullChannelRequest(b_channel))
    assert isinstance(full.full_chat.chat_photo, types.Photo)
    big = await b.download_profile_photo(b_channel, file=bytes)
    assert Image.open(io.BytesIO(big)).size == (800, 800)
    small = await b.download_profile_photo(b_channel, file=bytes, download_big=False)
    assert Image.open(io.BytesIO(small)).size == (320, 320)
    with pytest.raises(errors.ChatAdminRequiredError):
        await b(functions.channels.EditPhotoRequest(b_channel, types.InputChatPhotoEmpty()))
    await a(functions.channels.EditPhotoRequest(channel, types.InputChatPhotoEmpty()))
    b_channel = (
        await b(functions.channels.GetChannelsRequest([types.InputChannel(channel.id, channel.access_hash)]))
    ).chats[0]
    assert isinstance(b_channel.photo, types.ChatPhotoEmpty)

    # Profile photos: set, seen by others on the user, downloadable, listed, deleted.
    mine = await a(functions.photos.UploadProfilePhotoRequest(
        file=await a.upload_file(named(png(500, 400, (250, 250, 0)), "me.png"))))  # fmt: skip
    assert isinstance(mine.photo, types.Photo)
    seen = (await b(functions.users.GetUsersRequest([input_user(bob, alice)])))[0]
    assert isinstance(seen.photo, types.UserProfilePhoto) and seen.photo.photo_id == mine.photo.id
    face = await b.download_profile_photo(seen, file=bytes)
    assert Image.open(io.BytesIO(face)).size == (500, 400)
    full_user = await b(functions.users.GetFullUserRequest(input_user(bob, alice)))
    assert full_user.full_user.profile_photo.id == mine.photo.id
    listed = await b(functions.photos.GetUserPhotosRequest(input_user(bob, alice), 0, 0, 10))
    assert [p.id for p in listed.photos] == [mine.photo.id]
    gone = await a(functions.photos.DeletePhotosRequest([
        types.InputPhoto(mine.photo.id, mine.photo.access_hash, mine.photo.file_reference)]))  # fmt: skip
    assert gone == [mine.photo.id]
    await asyncio.sleep(5.2)  # other sessions' user cache (5 s)
    seen = (await b(functions.users.GetUsersRequest([input_user(bob, alice)])))[0]
    assert isinstance(seen.photo, types.UserProfilePhotoEmpty)


async def test_search_filters_counters_and_edit_media(edge_server, edge_db, clients):
    from telethon import errors, functions, types

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bob, b, _, _ = await logged_in(edge_server, "Bob", clients)
    channel = await _megagroup(a, alice, [bob], title="Search")
    bob_peer = _peer(alice, bob)
    for peer in (channel, bob_peer):
        await a.send_file(peer, named(png(300, 200), "p.png"))
        await a.send_file(peer, named(png(310, 200), "q.png"))
        await a.send_file(peer, named(b"OggS" + os.urandom(300), "v.ogg"), voice_note=True)
        await a.send_file(peer, named(b"%PDF-1.4 tiny", "t.pdf"), force_document=True)
        await a.send_message(
            peer, "see https://example.org", formatting_entities=[types.MessageEntityUrl(4, 19)]
        )
        await a.send_message(peer, "plain")
        photos = await a.get_messages(peer, limit=10, filter=types.InputMessagesFilterPhotos())
        assert len(photos) == 2 and all(m.photo for m in photos)
        voices = await a.get_messages(peer, limit=10, filter=types.InputMessagesFilterVoice())
        assert len(voices) == 1 and voices[0].voice
        docs = await a.get_messages(peer, limit=10, filter=types.InputMessagesFilterDocument())
        assert [m.file.name for m in docs] == ["t.pdf"]
        counters = await a(functions.messages.GetSearchCountersRequest(peer=peer, filters=[
            types.InputMessagesFilterPhotos(), types.InputMessagesFilterPhotoVideo(),
            types.InputMessagesFilterVoice(), types.InputMessagesFilterDocument(), types.InputMessagesFilterUrl(),
            types.InputMessagesFilterGif()]))  # fmt: skip
        assert [c.count for c in counters] == [2, 2, 1, 1, 1, 0]

    # editMessage: a new caption, then a new photo in place of the old one.
    sent = await a.send_file(channel, named(png(200, 200), "e.png"), caption="before")
    edited = await a.edit_message(channel, sent.id, "after")
    assert edited.message == "after" and edited.photo.id == sent.photo.id
    replaced = await a.edit_message(channel, sent.id, "new picture", file=named(png(640, 320), "n.png"))
    assert replaced.photo.id != sent.photo.id and replaced.photo.sizes[-1].w == 640
    got = (await b.get_messages(channel, ids=[sent.id]))[0]
    assert got.photo.id == replaced.photo.id and got.message == "new picture"
    mine = await a.send_file(bob_peer, named(b"v1", "v.txt"), force_document=True, caption="doc")
    await a.edit_message(bob_peer, mine.id, "doc v2", file=named(b"v2 bytes", "v.txt"), force_document=True)
    theirs = (await b.get_messages(_peer(bob, alice), limit=1))[0]
    assert theirs.message == "doc v2" and await b.download_media(theirs, file=bytes) == b"v2 bytes"
    with pytest.raises(errors.MessageNotModifiedError):
        await a.edit_message(bob_peer, mine.id, "doc v2")
