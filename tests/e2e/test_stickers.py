"""Stickers with unmodified clients: Telethon users make a static and an animated set,
another user installs one by short name, sends its stickers into a supergroup and a
private chat, faves one, saves a GIF, while a second session of that user sees each
change live; getAllStickers' hash; bad files and other users' sets refused with
Telegram's errors and nothing written; Kurigram sends a sticker by file id."""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import secrets

import pytest

from tests.e2e.test_channels import (
    collect,
    input_user,
    logged_in,
    make_live_kurigram,
    make_live_telethon,
    new_user,
)
from tests.e2e.test_channels import wait_for as _wait_for

pytestmark = pytest.mark.django_db(transaction=True)


def webp(w: int = 512, h: int = 512, color=(200, 30, 30, 255), fmt: str = "WEBP") -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGBA", (w, h), color).save(out, fmt)
    return out.getvalue()


def tgs(side: int = 512, fr: int = 60, frames: int = 60) -> bytes:
    lottie = {
        "tgs": 1, "v": "5.5.2", "fr": fr, "ip": 0, "op": frames, "w": side, "h": side, "nm": "dot", "ddd": 0,
        "assets": [], "layers": [{"ddd": 0, "ind": 1, "ty": 4, "nm": "dot", "ip": 0, "op": frames, "st": 0,
                                  "ks": {}, "shapes": []}],
    }  # fmt: skip
    return gzip.compress(json.dumps(lottie).encode())


def gif() -> bytes:
    from PIL import Image

    out = io.BytesIO()
    frames = [Image.new("RGB", (64, 64), (i * 40, 0, 0)) for i in range(3)]
    frames[0].save(out, "GIF", save_all=True, append_images=frames[1:], duration=100, loop=0)
    return out.getvalue()


@contextlib.contextmanager
def telegram_error(name: str):
    """The call fails with exactly this Telegram error."""
    from telethon import errors
    from telethon.errors.rpcerrorlist import rpc_errors_dict

    with pytest.raises(errors.RPCError) as caught:
        yield
    known = rpc_errors_dict.get(name)
    if known is not None:
        assert isinstance(caught.value, known), repr(caught.value)
    else:
        assert caught.value.message == name, repr(caught.value)


def short(prefix: str) -> str:
    return f"{prefix}_{secrets.token_hex(4)}"


async def upload(client, data: bytes, name: str, mime: str):
    """An uploaded document (messages.uploadMedia), as a sticker maker does."""
    from telethon import functions, types

    f = await client.upload_file(data, file_name=name)
    media = await client(
        functions.messages.UploadMediaRequest(
            peer=types.InputPeerSelf(),
            media=types.InputMediaUploadedDocument(
                file=f, mime_type=mime, attributes=[types.DocumentAttributeFilename(name)]
            ),
        )
    )
    return media.document


def as_input(doc):
    from telethon import types

    return types.InputDocument(id=doc.id, access_hash=doc.access_hash, file_reference=doc.file_reference)


def item(doc, emoji: str, keywords: str = ""):
    from telethon import types

    return types.InputStickerSetItem(document=as_input(doc), emoji=emoji, keywords=keywords or None)


async def create_set(client, title: str, name: str, items, **kw):
    from telethon import functions, types

    return await client(
        functions.stickers.CreateStickerSetRequest(
            user_id=types.InputUserSelf(), title=title, short_name=name, stickers=items, **kw
        )
    )


def wait_for(predicate, timeout: float = 15.0):
    return _wait_for(predicate, timeout)


def kinds(updates: list) -> list[str]:
    return [type(u).__name__ for u in updates]


async def test_make_install_send_fave_gif_with_a_second_session_live(edge_server, edge_db, clients):
    from telethon import events, functions, types

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bob, b, bob_phone, bob_code = await logged_in(edge_server, "Bob", clients)
    b2 = make_live_telethon(edge_server)
    clients.append(b2)
    await b2.connect()
    sent = await b2.send_code_request(bob_phone)
    await b2.sign_in(bob_phone, code=bob_code, phone_code_hash=sent.phone_code_hash)
    seen: list = []
    b2.add_event_handler(collect(seen), events.Raw())
    await b2.get_dialogs()

    # Alice makes a static set (two WEBP stickers) and an animated one (a TGS).
    static_name, animated_name = short("static"), short("animated")
    red, blue = (
        await upload(a, webp(), "red.webp", "image/webp"),
        await upload(a, webp(512, 300, (0, 0, 255, 255), "PNG"), "blue.png", "image/png"),
    )
    made = await create_set(a, "Static", static_name, [item(red, "😀", "smile,happy"), item(blue, "🐱")])
    assert made.set.count == 2 and made.set.creator and made.set.short_name == static_name
    assert [p.emoticon for p in made.packs] == ["😀", "🐱"]
    attr = next(x for x in made.documents[0].attributes if isinstance(x, types.DocumentAttributeSticker))
    assert attr.alt == "😀" and attr.stickerset.id == made.set.id
    assert made.documents[0].mime_type == "image/webp" and made.documents[0].thumbs
    assert made.keywords[0].keyword == ["smile", "happy"]
    anim_doc = await upload(a, tgs(), "dot.tgs", "application/x-tgsticker")
    animated = await create_set(a, "Animated", animated_name, [item(anim_doc, "🔴")])
    assert animated.documents[0].mime_type == "application/x-tgsticker"
    mine = await a(functions.messages.GetAllStickersRequest(hash=0))
    assert [s.id for s in mine.sets] == [animated.set.id, made.set.id]  # the owner has them installed

    # Bob finds the static set by its short name and installs it; his other session hears it.
    by_name = await b(
        functions.messages.GetStickerSetRequest(types.InputStickerSetShortName(static_name), hash=0)
    )
    assert [d.id for d in by_name.documents] == [d.id for d in made.documents] and not by_name.set.creator
    same = await b(functions.messages.GetStickerSetRequest(types.InputStickerSetShortName(static_name),
                                                          hash=by_name.set.hash))  # fmt: skip
    assert isinstance(same, types.messages.StickerSetNotModified)
    result = await b(functions.messages.InstallStickerSetRequest(
        types.InputStickerSetID(made.set.id, made.set.access_hash), archived=False))  # fmt: skip
    assert isinstance(result, types.messages.StickerSetInstallResultSuccess)
    await wait_for(lambda: any(isinstance(u, types.UpdateNewStickerSet) for u in seen))
    new_set = next(u for u in seen if isinstance(u, types.UpdateNewStickerSet))
    assert new_set.stickerset.set.id == made.set.id and len(new_set.stickerset.documents) == 2

    # getAllStickers with the client's own hash: notModified only while nothing changed.
    listed = await b(functions.messages.GetAllStickersRequest(hash=0))
    assert [s.id for s in listed.sets] == [made.set.id] and listed.sets[0].installed_date
    assert isinstance(await b(functions.messages.GetAllStickersRequest(hash=listed.hash)),
                      types.messages.AllStickersNotModified)  # fmt: skip
    await b(
        functions.messages.InstallStickerSetRequest(
            types.InputStickerSetShortName(animated_name), archived=False
        )
    )
    grown = await b(functions.messages.GetAllStickersRequest(hash=listed.hash))
    assert [s.id for s in grown.sets] == [animated.set.id, made.set.id] and grown.hash != listed.hash
    green = await upload(a, webp(color=(0, 255, 0, 255)), "green.webp", "image/webp")
    added = await a(functions.stickers.AddStickerToSetRequest(
        types.InputStickerSetShortName(static_name), item(green, "🟢")))  # fmt: skip
    assert added.set.count == 3
    edited = await b(functions.messages.GetAllStickersRequest(hash=grown.hash))
    assert (
        isinstance(edited, types.messages.AllStickers) and edited.hash != grown.hash
    )  # the set's hash moved
    assert isinstance(await b(functions.messages.GetAllStickersRequest(hash=edited.hash)),
                      types.messages.AllStickersNotModified)  # fmt: skip
    await b(functions.messages.ReorderStickerSetsRequest(order=[made.set.id, animated.set.id]))
    await wait_for(lambda: any(isinstance(u, types.UpdateStickerSetsOrder) for u in seen))
    order = next(u for u in seen if isinstance(u, types.UpdateStickerSetsOrder))
    assert order.order == [made.set.id, animated.set.id]
    by_emoji = await b(functions.messages.GetStickersRequest(emoticon="😀", hash=0))
    assert [d.id for d in by_emoji.stickers] == [made.documents[0].id]

    # Bob sends a sticker into a supergroup and into his private chat with Alice.
    created = await a(functions.channels.CreateChannelRequest(title="Stickers", about="", megagroup=True))
    channel = created.chats[0]
    await a(functions.channels.InviteToChannelRequest(channel, [input_user(alice, bob)]))
    got: list = []
    a.add_event_handler(collect(got, "message"), events.NewMessage())
    await a.get_dialogs()
    b_channel = (await b(functions.channels.GetChannelsRequest([types.InputChannel(channel.id, channel.access_hash)]))).chats[0]  # fmt: skip
    sticker = by_name.documents[0]
    in_group = await b.send_file(b_channel, sticker)
    assert in_group.sticker is not None and in_group.media.document.id == sticker.id
    to_alice = types.InputPeerUser(alice.id, input_user(bob, alice).access_hash)
    in_private = await b.send_file(to_alice, by_name.documents[1])
    assert in_private.sticker is not None
    await wait_for(lambda: len(got) >= 2)
    assert {m.media.document.id for m in got} == {sticker.id, by_name.documents[1].id}
    assert all(m.sticker is not None for m in got)
    await wait_for(lambda: any(isinstance(u, types.UpdateRecentStickers) for u in seen))
    recent = await b(functions.messages.GetRecentStickersRequest(hash=0))
    assert [d.id for d in recent.stickers] == [by_name.documents[1].id, sticker.id]

    # Faved: the other session hears it; the list's hash answers notModified.
    await b(functions.messages.FaveStickerRequest(id=as_input(sticker), unfave=False))
    await wait_for(lambda: any(isinstance(u, types.UpdateFavedStickers) for u in seen))
    faved = await b2(functions.messages.GetFavedStickersRequest(hash=0))
    assert [d.id for d in faved.stickers] == [sticker.id] and faved.packs[0].emoticon == "😀"
    assert isinstance(await b2(functions.messages.GetFavedStickersRequest(hash=faved.hash)),
                      types.messages.FavedStickersNotModified)  # fmt: skip

    # A GIF Bob sent is saved; the other session hears it and lists it.
    f = await b.upload_file(gif(), file_name="loop.gif")
    gif_msg = await b.send_file(to_alice, types.InputMediaUploadedDocument(
        file=f, mime_type="image/gif", attributes=[types.DocumentAttributeFilename("loop.gif"),
                                                   types.DocumentAttributeAnimated()]))  # fmt: skip
    await b(functions.messages.SaveGifRequest(id=as_input(gif_msg.media.document), unsave=False))
    await wait_for(lambda: any(isinstance(u, types.UpdateSavedGifs) for u in seen))
    gifs = await b2(functions.messages.GetSavedGifsRequest(hash=0))
    assert [d.id for d in gifs.gifs] == [gif_msg.media.document.id]
    with telegram_error("GIF_ID_INVALID"):
        await b(functions.messages.SaveGifRequest(id=types.InputDocument(1, 2, b""), unsave=False))

    # The group's sticker set shows in channelFull; the default right blocks stickers and GIFs.
    await a(functions.channels.SetStickersRequest(
        channel, types.InputStickerSetID(made.set.id, made.set.access_hash)))  # fmt: skip
    log = await a(functions.channels.GetAdminLogRequest(channel, q="", max_id=0, min_id=0, limit=10))
    change = next(
        e.action for e in log.events if isinstance(e.action, types.ChannelAdminLogEventActionChangeStickerSet)
    )
    assert change.new_stickerset.id == made.set.id and isinstance(
        change.prev_stickerset, types.InputStickerSetEmpty
    )
    full = await b(functions.channels.GetFullChannelRequest(b_channel))
    assert full.full_chat.stickerset.id == made.set.id and not full.full_chat.can_set_stickers
    assert (await a(functions.channels.GetFullChannelRequest(channel))).full_chat.can_set_stickers
    with telegram_error("STICKERSET_INVALID"):
        await a(functions.channels.SetEmojiStickersRequest(
            channel, types.InputStickerSetID(made.set.id, made.set.access_hash)))  # fmt: skip
    await a(functions.messages.EditChatDefaultBannedRightsRequest(
        peer=channel, banned_rights=types.ChatBannedRights(until_date=0, send_stickers=True, send_gifs=True)))  # fmt: skip
    with telegram_error("CHAT_SEND_STICKERS_FORBIDDEN"):
        await b.send_file(b_channel, sticker)
    with telegram_error("CHAT_SEND_GIFS_FORBIDDEN"):
        await b.send_file(b_channel, gif_msg.media.document)

    # Uninstalling reaches the other session; the deleted set leaves Bob's panel.
    await b(functions.messages.UninstallStickerSetRequest(types.InputStickerSetShortName(animated_name)))
    await wait_for(lambda: any(isinstance(u, types.UpdateStickerSets) for u in seen))
    await a(functions.stickers.DeleteStickerSetRequest(types.InputStickerSetShortName(static_name)))
    left = await b2(functions.messages.GetAllStickersRequest(hash=0))
    assert left.sets == []
    with telegram_error("STICKERSET_INVALID"):
        await b(functions.messages.GetStickerSetRequest(types.InputStickerSetShortName(static_name), hash=0))
    # The messages keep their stickers.
    again = await a.get_messages(channel, ids=in_group.id)
    assert again.media.document.id == sticker.id


async def test_bad_files_and_foreign_sets_are_refused_and_write_nothing(edge_server, edge_db, clients):
    from telethon import functions, types

    from media_app.models import Document
    from stickers_app.models import SetSticker, StickerSet

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    _bob, b, _, _ = await logged_in(edge_server, "Bob", clients)
    name = short("bad")

    async def refused(error: str, items, **kw):
        docs_before = await Document.objects.filter(owner_id=alice.id).acount()
        with telegram_error(error):
            await create_set(a, "Bad", name, items, **kw)
        assert not await StickerSet.objects.filter(owner_id=alice.id).aexists()
        assert await Document.objects.filter(owner_id=alice.id).acount() == docs_before

    good = await upload(a, webp(), "ok.webp", "image/webp")
    small = await upload(a, webp(300, 300, fmt="PNG"), "small.png", "image/png")
    await refused("STICKER_PNG_DIMENSIONS", [item(good, "😀"), item(small, "😀")])
    not_png = await upload(a, b"\x89PNG this is not one" * 10, "x.png", "image/png")
    await refused("STICKER_PNG_NOPNG", [item(not_png, "😀")])
    slow = await upload(a, tgs(fr=25), "slow.tgs", "application/x-tgsticker")
    await refused("STICKER_TGS_NOTGS", [item(slow, "😀")])
    long = await upload(a, tgs(frames=600), "long.tgs", "application/x-tgsticker")
    await refused("STICKER_TGS_NOTGS", [item(long, "😀")])
    plain = await upload(a, b"{}", "plain.tgs", "application/x-tgsticker")
    await refused("STICKER_TGS_NOTGS", [item(plain, "😀")])
    not_webm = await upload(a, b"\x1a\x45\xdf\xa3" + b"\x00" * 50, "v.webm", "video/webm")
    await refused("STICKER_VIDEO_NOWEBM", [item(not_webm, "😀")])
    await refused("STICKER_EMOJI_INVALID", [item(good, "abc")])
    await refused("STICKERS_EMPTY", [])
    emoji_doc = await upload(a, webp(), "e.webp", "image/webp")
    await refused("STICKER_PNG_DIMENSIONS", [item(emoji_doc, "😀")], emojis=True)  # custom emoji are 100 px
    with telegram_error("PACK_SHORT_NAME_INVALID"):
        await create_set(a, "Bad", "1bad__name", [item(good, "😀")])
    with telegram_error("PACK_TITLE_INVALID"):
        await create_set(a, "x" * 65, name, [item(good, "😀")])

    made = await create_set(a, "Mine", name, [item(good, "😀")])
    with telegram_error("PACK_SHORT_NAME_OCCUPIED"):
        await create_set(a, "Again", name.upper(), [item(good, "😀")])
    with telegram_error("SHORT_NAME_OCCUPIED"):
        await a(functions.stickers.CheckShortNameRequest(name))
    assert await a(functions.stickers.CheckShortNameRequest(short("free"))) is True
    suggested = await a(functions.stickers.SuggestShortNameRequest(title="My Cats 2"))
    assert suggested.short_name.startswith("My_Cats_2")

    # Bob cannot edit Alice's set or its stickers.
    ref = types.InputStickerSetID(made.set.id, made.set.access_hash)
    bob_doc = await upload(b, webp(), "b.webp", "image/webp")
    for request, error in (
        (functions.stickers.AddStickerToSetRequest(ref, item(bob_doc, "😀")), "STICKERSET_INVALID"),
        (functions.stickers.RenameStickerSetRequest(ref, "Taken"), "STICKERSET_INVALID"),
        (functions.stickers.DeleteStickerSetRequest(ref), "STICKERSET_INVALID"),
        (functions.stickers.RemoveStickerFromSetRequest(as_input(made.documents[0])), "STICKER_INVALID"),
        (functions.stickers.ChangeStickerPositionRequest(as_input(made.documents[0]), 0), "STICKER_INVALID"),
        (functions.stickers.ChangeStickerRequest(as_input(made.documents[0]), emoji="🙃"), "STICKER_INVALID"),
    ):
        with telegram_error(error):
            await b(request)
    row = await StickerSet.objects.aget(id=made.set.id)
    assert (row.title, row.hash, await SetSticker.objects.filter(set_id=row.id).acount()) == (
        "Mine",
        made.set.hash,
        1,
    )
    with telegram_error("STICKERSET_INVALID"):
        await b(functions.messages.GetStickerSetRequest(types.InputStickerSetID(made.set.id, 1), hash=0))

    # The owner's edits work: emoji and keywords, position, rename, thumbnail.
    second = await upload(a, webp(color=(1, 2, 3, 255)), "s.webp", "image/webp")
    grown = await a(functions.stickers.AddStickerToSetRequest(ref, item(second, "🐶")))
    moved = await a(functions.stickers.ChangeStickerPositionRequest(as_input(grown.documents[1]), 0))
    assert [d.id for d in moved.documents] == [grown.documents[1].id, grown.documents[0].id]
    changed = await a(
        functions.stickers.ChangeStickerRequest(as_input(grown.documents[1]), emoji="🐕", keywords="dog")
    )
    assert changed.packs[0].emoticon == "🐕" and changed.keywords[0].keyword == ["dog"]
    alt = next(
        x for x in changed.documents[0].attributes if isinstance(x, types.DocumentAttributeSticker)
    ).alt
    assert alt == "🐕"
    renamed = await a(functions.stickers.RenameStickerSetRequest(ref, "Renamed"))
    assert renamed.set.title == "Renamed" and renamed.set.hash != made.set.hash
    thumb = await upload(a, webp(100, 100), "t.webp", "image/webp")
    with telegram_error("STICKER_THUMB_PNG_NOPNG"):
        await a(functions.stickers.SetStickerSetThumbRequest(ref, thumb=as_input(good)))
    thumbed = await a(functions.stickers.SetStickerSetThumbRequest(ref, thumb=as_input(thumb)))
    assert thumbed.set.thumbs[0].w == 100 and thumbed.set.thumb_version == 1
    location = types.InputStickerSetThumb(stickerset=ref, thumb_version=thumbed.set.thumb_version)
    got = await b(functions.upload.GetFileRequest(location=location, offset=0, limit=1024 * 1024))
    assert got.bytes == webp(100, 100)  # anyone may download a set's thumbnail
    removed = await a(functions.stickers.RemoveStickerFromSetRequest(as_input(grown.documents[0])))
    assert [d.id for d in removed.documents] == [grown.documents[1].id]


async def test_custom_emoji_video_masks_and_search(edge_server, edge_db, clients):
    from telethon import functions, types

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bob, b, _, _ = await logged_in(edge_server, "Bob", clients)
    name = short("emoji")
    e1 = await upload(a, webp(100, 100), "e1.webp", "image/webp")
    made = await create_set(a, "Company emoji", name, [item(e1, "⭐")], emojis=True, text_color=True)
    assert made.set.emojis and made.set.text_color
    attr = next(x for x in made.documents[0].attributes if isinstance(x, types.DocumentAttributeCustomEmoji))
    assert attr.alt == "⭐" and attr.stickerset.id == made.set.id
    docs = await b(
        functions.messages.GetCustomEmojiDocumentsRequest(document_id=[made.documents[0].id, 12345])
    )
    assert [d.id for d in docs] == [made.documents[0].id]
    found = await b(functions.messages.SearchEmojiStickerSetsRequest(q="company", hash=0))
    assert [s.set.id for s in found.sets] == [made.set.id]
    assert (await b(functions.messages.SearchStickerSetsRequest(q="company", hash=0))).sets == []
    await b(functions.messages.InstallStickerSetRequest(types.InputStickerSetShortName(name), archived=False))
    assert [s.id for s in (await b(functions.messages.GetEmojiStickersRequest(hash=0))).sets] == [made.set.id]
    assert (await b(functions.messages.GetAllStickersRequest(hash=0))).sets == []
    listed = await b(functions.messages.SearchCustomEmojiRequest(emoticon="⭐", hash=0))
    assert listed.document_id == [made.documents[0].id]
    archived = await b(functions.messages.ToggleStickerSetsRequest(
        stickersets=[types.InputStickerSetShortName(name)], archive=True))  # fmt: skip
    assert archived is True
    page = await b(functions.messages.GetArchivedStickersRequest(offset_id=0, limit=10, emojis=True))
    assert page.count == 1 and page.sets[0].set.archived
    # A message with a custom emoji: the receiver resolves its document.
    to_bob = types.InputPeerUser(bob.id, input_user(alice, bob).access_hash)
    await a(functions.messages.SendMessageRequest(
        peer=to_bob, message="⭐ launch", random_id=secrets.randbits(63),
        entities=[types.MessageEntityCustomEmoji(offset=0, length=1, document_id=made.documents[0].id)]))  # fmt: skip
    received = (
        await b.get_messages(types.InputPeerUser(alice.id, input_user(bob, alice).access_hash), limit=1)
    )[0]
    entity = received.entities[0]
    assert isinstance(entity, types.MessageEntityCustomEmoji) and entity.document_id == made.documents[0].id
    # A video set: a WEBM with one VP9 track, checked on its header.
    from tests.stickers_app.test_formats import webm

    video = await create_set(
        a, "Video", short("video"), [item(await upload(a, webm(), "v.webm", "video/webm"), "🎬")]
    )
    vdoc = video.documents[0]
    assert vdoc.mime_type == "video/webm"
    assert any(isinstance(x, types.DocumentAttributeVideo) and x.w == 512 for x in vdoc.attributes)
    # Masks put on an uploaded photo: the photo says so and lists their set.
    masks = await create_set(a, "Masks", short("masks"), [item(await upload(a, webp(), "m.webp", "image/webp"), "🎭")],
                             masks=True)  # fmt: skip
    assert masks.set.masks
    f = await a.upload_file(webp(640, 480, fmt="PNG"), file_name="face.png")
    shot = await a(functions.messages.UploadMediaRequest(peer=types.InputPeerSelf(), media=types.InputMediaUploadedPhoto(
        file=f, stickers=[as_input(masks.documents[0])])))  # fmt: skip
    assert shot.photo.has_stickers
    photo = types.InputPhoto(shot.photo.id, shot.photo.access_hash, shot.photo.file_reference)
    attached = await a(
        functions.messages.GetAttachedStickersRequest(media=types.InputStickeredMediaPhoto(photo))
    )
    assert [c.set.id for c in attached] == [masks.set.id]
    # The built-in sets Telegram Desktop asks for answer as (empty) sets, then notModified.
    anim = await b(functions.messages.GetStickerSetRequest(types.InputStickerSetAnimatedEmoji(), hash=0))
    assert anim.documents == [] and anim.set.count == 0
    assert isinstance(await b(functions.messages.GetStickerSetRequest(types.InputStickerSetAnimatedEmoji(),
                                                                      hash=anim.set.hash)),
                      types.messages.StickerSetNotModified)  # fmt: skip


async def test_kurigram_sends_a_sticker_by_file_id(edge_server, edge_db, clients):
    from telethon import types

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bob, phone, code = await new_user("Bob")
    name = short("kuri")
    doc = await upload(a, webp(), "k.webp", "image/webp")
    made = await create_set(a, "Kuri", name, [item(doc, "👍")])
    to_bob = types.InputPeerUser(bob.id, input_user(alice, bob).access_hash)
    await a.send_file(to_bob, made.documents[0])
    k = make_live_kurigram(edge_server, "bob_stickers")
    await k.connect()
    try:
        sent_code = await k.send_code(phone)
        await k.sign_in(phone, sent_code.phone_code_hash, code)
        [d async for d in k.get_dialogs()]
        received = [m async for m in k.get_chat_history(alice.id, limit=1)].pop()
        assert received.sticker is not None and received.sticker.set_name == name
        assert received.sticker.emoji == "👍"
        sent = await k.send_sticker(alice.id, received.sticker.file_id)
        assert sent.sticker is not None and sent.sticker.file_unique_id == received.sticker.file_unique_id
    finally:
        await k.disconnect()
    last = (await a.get_messages(to_bob, limit=1))[0]
    assert last.sender_id == bob.id and last.media.document.id == made.documents[0].id


async def test_emoji_keywords_groups_and_default_statuses_from_the_servers_sets(
    edge_server, edge_db, clients
):
    """Telegram Desktop's emoji start-up calls: keywords of the sets' custom emoji (then
    an exact difference after an edit, then nothing), a featured custom emoji set as an
    emoji category whose icon resolves, the operator's default statuses, notModified for
    an unchanged hash."""
    from telethon import functions, types

    from stickers_app.models import StickerSet

    _, a, _, _ = await logged_in(edge_server, "Alice", clients)
    _, b, _, _ = await logged_in(edge_server, "Bob", clients)
    assert await b(functions.messages.GetEmojiKeywordsLanguagesRequest(lang_codes=["en"])) == []
    empty = await b(functions.messages.GetEmojiGroupsRequest(hash=0))
    assert isinstance(empty, types.messages.EmojiGroups) and (empty.hash, empty.groups) == (0, [])

    name = short("kw")
    e1 = await upload(a, webp(100, 100), "e1.webp", "image/webp")
    e2 = await upload(a, webp(100, 100, color=(1, 200, 1, 255)), "e2.webp", "image/webp")
    made = await create_set(
        a, "Weather", name, [item(e1, "⭐", "star, Night"), item(e2, "☀️", "sun")], emojis=True
    )
    langs = await b(functions.messages.GetEmojiKeywordsLanguagesRequest(lang_codes=["en", "de"]))
    assert [x.lang_code for x in langs] == ["en", "de"]
    full = await b(functions.messages.GetEmojiKeywordsRequest(lang_code="de"))
    assert full.lang_code == "de" and full.from_version == 0 and full.version > 0
    assert sorted((k.keyword, k.emoticons) for k in full.keywords) == [
        ("night", ["⭐"]), ("star", ["⭐"]), ("sun", ["☀️"])
    ]  # fmt: skip

    # Alice renames a keyword: the difference says exactly that.
    await a(
        functions.stickers.ChangeStickerRequest(sticker=as_input(made.documents[0]), keywords="star, evening")
    )
    diff = await b(
        functions.messages.GetEmojiKeywordsDifferenceRequest(lang_code="de", from_version=full.version)
    )
    assert (diff.from_version, diff.version > full.version) == (full.version, True)
    assert sorted((type(k).__name__, k.keyword, k.emoticons) for k in diff.keywords) == [
        ("EmojiKeyword", "evening", ["⭐"]), ("EmojiKeywordDeleted", "night", ["⭐"])
    ]  # fmt: skip
    same = await b(
        functions.messages.GetEmojiKeywordsDifferenceRequest(lang_code="de", from_version=diff.version)
    )
    assert (same.version, same.keywords) == (diff.version, [])

    # Featured by the operator: the set is an emoji category; its icon resolves.
    await StickerSet.objects.filter(id=made.set.id).aupdate(featured_at=1)
    for request in (functions.messages.GetEmojiGroupsRequest, functions.messages.GetEmojiStatusGroupsRequest):
        got = await b(request(hash=0))
        assert [(g.title, g.icon_emoji_id, g.emoticons) for g in got.groups] == [
            ("Weather", made.documents[0].id, ["⭐", "☀️"])
        ]
        assert isinstance(await b(request(hash=got.hash)), types.messages.EmojiGroupsNotModified)
    icon = await b(
        functions.messages.GetCustomEmojiDocumentsRequest(document_id=[got.groups[0].icon_emoji_id])
    )
    assert [d.id for d in icon] == [made.documents[0].id]

    # The operator's stand-in for the default statuses set.
    assert (await b(functions.account.GetDefaultEmojiStatusesRequest(hash=0))).statuses == []
    await StickerSet.objects.filter(id=made.set.id).aupdate(special="emoji_default_statuses")
    statuses = await b(functions.account.GetDefaultEmojiStatusesRequest(hash=0))
    assert [s.document_id for s in statuses.statuses] == [d.id for d in made.documents]
    again = await b(functions.account.GetDefaultEmojiStatusesRequest(hash=statuses.hash))
    assert isinstance(again, types.account.EmojiStatusesNotModified)
