"""The Bot API's media, poll, reaction and chat-management methods driven by unmodified
python-telegram-bot and aiogram bots against ``manage.py runbotapi``, with Telethon
users checking what arrives: videos, voice notes, audio, animations, stickers and albums
as real media, a quiz a member votes in, a reaction, invite links and join requests, the
chat photo; and the flood limit shared with the MTProto path."""

from __future__ import annotations

import asyncio
import io

import pytest

from tests.e2e.test_botapi import call
from tests.e2e.test_bots import _new_bot
from tests.e2e.test_channels import collect, logged_in, wait_for

pytestmark = pytest.mark.django_db(transaction=True)

CLIP = b"\x00\x00\x00\x18ftypmp42" + bytes(range(256)) * 8  # not decoded by the server
OGG = b"OggS" + bytes(300)
MP3 = b"ID3" + bytes(500)


def _image(fmt: str = "PNG", color=(200, 30, 30), size=(64, 48)) -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", size, color).save(out, fmt)
    return out.getvalue()


async def test_python_telegram_bot_sends_every_media_kind_albums_edits_and_copies(
    edge_server, botapi_server, edge_db, clients
):
    from telegram import Bot, InputMediaDocument, InputMediaPhoto, InputMediaVideo
    from telegram.error import BadRequest
    from telethon import events

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bot_id, username, token = await _new_bot(alice.id, "Media")
    seen = []
    a.add_event_handler(collect(seen, "message"), events.NewMessage(incoming=True, from_users=[bot_id]))
    await a.send_message(username, "/start")
    first = await a.send_message(username, "first")
    second = await a.send_message(username, "second")

    bot = Bot(token, base_url=f"{botapi_server.base}/bot", base_file_url=f"{botapi_server.base}/file/bot")
    async with bot:
        video = await bot.send_video(
            alice.id, CLIP, filename="clip.mp4", duration=3, width=320, height=240, supports_streaming=True,
            caption="<i>clip</i>", parse_mode="HTML",
        )  # fmt: skip
        assert (video.video.duration, video.video.width, video.video.height) == (3, 320, 240)
        assert video.video.mime_type == "video/mp4" and video.video.file_size == len(CLIP)
        assert video.caption == "clip" and video.caption_entities[0].type == "italic"
        voice = await bot.send_voice(alice.id, OGG, duration=2, filename="note.ogg")
        assert voice.voice.duration == 2 and voice.voice.mime_type == "audio/ogg"
        audio = await bot.send_audio(
            alice.id, MP3, filename="song.mp3", performer="Band", title="Song", duration=5
        )
        assert (audio.audio.performer, audio.audio.title, audio.audio.duration) == ("Band", "Song", 5)
        gif = await bot.send_animation(alice.id, CLIP, filename="loop.mp4", width=100, height=80)
        assert gif.animation.width == 100 and gif.document is not None
        round_ = await bot.send_video_note(alice.id, CLIP, length=240, duration=4, filename="r.mp4")
        assert (round_.video_note.length, round_.video_note.duration) == (240, 4)
        sticker = await bot.send_sticker(alice.id, _image("WEBP", size=(512, 512)), emoji="😀")
        assert sticker.sticker.emoji == "😀" and (sticker.sticker.width, sticker.sticker.height) == (512, 512)
        assert not sticker.sticker.is_animated and not sticker.sticker.is_video
        with pytest.raises(BadRequest, match=r"(?i)wrong file type of the sticker"):
            await bot.send_sticker(alice.id, b"plain text, not a sticker")

        # Alice sees each as the media kind it is.
        await wait_for(lambda: len(seen) >= 6, 20)
        by_text = {m.id: m for m in seen}
        shown = [by_text[x.message_id] for x in (video, voice, audio, gif, sticker)]
        assert shown[0].video is not None and shown[0].raw_text == "clip"
        assert shown[0].video.attributes[0].w == 320 and shown[0].file.duration == 3
        assert shown[1].voice is not None and shown[1].file.duration == 2
        assert (
            shown[2].audio is not None and shown[2].file.performer == "Band" and shown[2].file.title == "Song"
        )
        assert shown[3].gif is not None
        assert shown[4].sticker is not None and shown[4].file.emoji == "😀"
        (roundel,) = await a.get_messages(username, ids=[round_.message_id])
        assert roundel.video_note is not None and roundel.file.duration == 4

        # Dice, a location, a venue and a contact, as Alice sees them.
        dice = await bot.send_dice(alice.id, emoji="🎯")
        assert dice.dice.emoji == "🎯" and 1 <= dice.dice.value <= 6
        place = await bot.send_location(alice.id, 52.5, 13.4, horizontal_accuracy=50)
        assert (place.location.latitude, place.location.longitude, place.location.horizontal_accuracy) == (
            52.5,
            13.4,
            50,
        )
        venue = await bot.send_venue(alice.id, 48.85, 2.35, "Cafe", "1 Rue", foursquare_id="4b5")
        assert (
            venue.venue.title == "Cafe"
            and venue.venue.foursquare_id == "4b5"
            and venue.location.latitude == 48.85
        )
        card = await bot.send_contact(alice.id, "+15550001111", "Ann", last_name="Lee")
        assert (card.contact.phone_number, card.contact.first_name, card.contact.last_name) == (
            "+15550001111",
            "Ann",
            "Lee",
        )
        with pytest.raises(BadRequest, match=r"(?i)wrong emoji specified for dice"):
            await bot.send_dice(alice.id, emoji="🍕")
        with pytest.raises(BadRequest, match=r"(?i)wrong location specified"):
            await bot.send_location(alice.id, 95.0, 13.4)
        values = await a.get_messages(username, ids=[x.message_id for x in (dice, place, venue, card)])
        assert values[0].dice.emoticon == "🎯" and values[0].dice.value == dice.dice.value
        assert values[1].geo.lat == 52.5 and values[2].venue.title == "Cafe"
        assert values[3].contact.first_name == "Ann" and values[3].contact.phone_number == "+15550001111"

        # A file_id is reused (the same file); URLs are not fetched.
        again = await bot.send_video(alice.id, video.video.file_id)
        assert again.video.file_unique_id == video.video.file_unique_id
        with pytest.raises(BadRequest, match=r"(?i)wrong file identifier/http url specified"):
            await bot.send_voice(alice.id, "https://example.org/v.ogg")

        # An album: a photo and a video of one group, as Alice sees it.
        album = await bot.send_media_group(
            alice.id,
            [InputMediaPhoto(_image(), caption="<b>one</b>", parse_mode="HTML"),
             InputMediaVideo(CLIP, filename="two.mp4", caption="two", width=16, height=16)],
        )  # fmt: skip
        assert len(album) == 2 and album[0].media_group_id == album[1].media_group_id
        assert album[0].photo and album[0].caption == "one" and album[1].video.width == 16
        await wait_for(lambda: sum(1 for m in seen if m.grouped_id) >= 2, 20)
        grouped = [m for m in seen if m.grouped_id]
        assert grouped[0].grouped_id == grouped[1].grouped_id and grouped[0].photo and grouped[1].video
        with pytest.raises(BadRequest, match="2-10"):
            await bot.send_media_group(alice.id, [InputMediaPhoto(_image())])
        with pytest.raises(BadRequest, match="can't be mixed"):
            await bot.send_media_group(
                alice.id, [InputMediaPhoto(_image()), InputMediaDocument(b"doc", filename="a.txt")]
            )

        # The caption, then the media itself, change; Alice's copy follows.
        edited = await bot.edit_message_caption(alice.id, video.message_id, caption="new *caption*",
                                                parse_mode="Markdown")  # fmt: skip
        assert edited.caption == "new caption" and edited.caption_entities[0].type == "bold"
        replaced = await bot.edit_message_media(
            InputMediaPhoto(_image(color=(0, 200, 0)), caption="now a photo"), alice.id, video.message_id
        )
        assert replaced.photo and replaced.caption == "now a photo" and replaced.video is None
        (now,) = await a.get_messages(username, ids=[video.message_id])
        assert now.photo is not None and now.raw_text == "now a photo"
        plain = await bot.send_message(alice.id, "plain text")
        with pytest.raises(BadRequest, match=r"(?i)no media in the message"):
            await bot.edit_message_media(InputMediaPhoto(_image()), alice.id, plain.message_id)
        with pytest.raises(BadRequest, match=r"(?i)there is no caption in the message to edit"):
            await bot.edit_message_caption(alice.id, plain.message_id, caption="a text has none")
        with pytest.raises(BadRequest, match=r"(?i)message to edit not found"):
            await bot.edit_message_caption(alice.id, 99999, caption="gone")
        with pytest.raises(BadRequest, match=r"(?i)message can't be edited"):
            await bot.edit_message_text("not mine", alice.id, first.id)

        # What a user sends arrives as its kind, and its file_id serves the bot that got it.
        note = io.BytesIO(OGG)
        note.name = "hello.ogg"
        await a.send_file(username, note, voice_note=True, attributes=[])
        for _ in range(50):
            voices = [u.message for u in await bot.get_updates(timeout=1) if u.message and u.message.voice]
            if voices:
                break
        (heard,) = voices
        assert heard.voice.file_unique_id and heard.from_user.id == alice.id
        voice_file = await bot.get_file(heard.voice.file_id)
        assert "/voice/" in voice_file.file_path
        assert bytes(await voice_file.download_as_bytearray()) == OGG

        # Several forwarded and copied at once, in increasing order only.
        forwarded = await bot.forward_messages(alice.id, alice.id, [first.id, second.id])
        copied = await bot.copy_messages(alice.id, alice.id, [first.id, second.id])
        assert len(forwarded) == len(copied) == 2
        got = await a.get_messages(username, ids=[f.message_id for f in forwarded + copied])
        assert [m.raw_text for m in got] == ["first", "second", "first", "second"]
        assert got[0].fwd_from is not None and got[2].fwd_from is None
        with pytest.raises(BadRequest, match="increasing"):
            await bot.copy_messages(alice.id, alice.id, [second.id, first.id])


async def test_aiogram_polls_reactions_invite_links_join_requests_and_chat_photo(
    edge_server, botapi_server, edge_db, clients
):
    from aiogram import Bot
    from aiogram.client.session.aiohttp import AiohttpSession
    from aiogram.client.telegram import TelegramAPIServer
    from aiogram.exceptions import TelegramBadRequest
    from aiogram.types import BufferedInputFile, ChatPermissions, InputPollOption, ReactionTypeEmoji
    from telethon import errors, functions, types

    from accounts_app.access import user_access_hash

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bob, b, _, _ = await logged_in(edge_server, "Bob", clients)
    bot_id, _, token = await _new_bot(alice.id, "Club")

    created = await a(functions.channels.CreateChannelRequest(title="Club", about="", megagroup=True))
    channel = created.chats[0]
    ic = types.InputChannel(channel.id, channel.access_hash)
    chat_id = -(10**12) - channel.id
    bot_user = types.InputUser(bot_id, user_access_hash(alice.id, bot_id))
    await a(functions.channels.InviteToChannelRequest(ic, [bot_user]))

    bot = Bot(token, session=AiohttpSession(api=TelegramAPIServer.from_base(botapi_server.base)))
    try:
        # A member without the right: the Bot API's words.
        with pytest.raises(TelegramBadRequest, match="not enough rights to manage chat invite links"):
            await bot.create_chat_invite_link(chat_id)
        rights = types.ChatAdminRights(
            invite_users=True, change_info=True, pin_messages=True, delete_messages=True, ban_users=True
        )
        await a(functions.channels.EditAdminRequest(ic, bot_user, rights, rank="bot"))

        # An invite link Bob joins by; revoked, it stops working.
        link = await bot.create_chat_invite_link(chat_id, name="Friends", member_limit=5)
        assert (
            link.name == "Friends" and link.member_limit == 5 and not link.is_primary and not link.is_revoked
        )
        assert link.creator.id == bot_id
        edited = await bot.edit_chat_invite_link(chat_id, link.invite_link, name="Pals", member_limit=3)
        assert edited.name == "Pals" and edited.member_limit == 3
        joined = await b(functions.messages.ImportChatInviteRequest(link.invite_link.rsplit("+", 1)[-1]))
        assert joined.updates.chats[0].id == channel.id
        assert (await bot.get_chat_member(chat_id, bob.id)).status == "member"
        await b(
            functions.channels.LeaveChannelRequest(
                types.InputChannel(channel.id, joined.updates.chats[0].access_hash)
            )
        )
        revoked = await bot.revoke_chat_invite_link(chat_id, link.invite_link)
        assert revoked.is_revoked
        with pytest.raises(errors.InviteHashExpiredError):
            await b(functions.messages.CheckChatInviteRequest(link.invite_link.rsplit("+", 1)[-1]))
        primary = await bot.export_chat_invite_link(chat_id)
        assert primary.startswith("https://") and primary != link.invite_link
        with pytest.raises(TelegramBadRequest, match="member limit"):
            await bot.create_chat_invite_link(chat_id, member_limit=2, creates_join_request=True)

        # A link that asks the admins: declined, then approved.
        asking = await bot.create_chat_invite_link(chat_id, creates_join_request=True)
        assert asking.creates_join_request
        asking_hash = asking.invite_link.rsplit("+", 1)[-1]
        with pytest.raises(errors.InviteRequestSentError):
            await b(functions.messages.ImportChatInviteRequest(asking_hash))
        assert await bot.decline_chat_join_request(chat_id, bob.id) is True
        with pytest.raises(TelegramBadRequest, match="HIDE_REQUESTER_MISSING"):
            await bot.approve_chat_join_request(chat_id, bob.id)
        with pytest.raises(errors.InviteRequestSentError):
            await b(functions.messages.ImportChatInviteRequest(asking_hash))
        assert await bot.approve_chat_join_request(chat_id, bob.id) is True
        member = await bot.get_chat_member(chat_id, bob.id)
        assert member.status == "member"
        # Every member kind parses in the framework's own types.
        admins = {m.user.id: m for m in await bot.get_chat_administrators(chat_id)}
        assert admins[alice.id].status == "creator" and admins[bot_id].status == "administrator"
        assert admins[bot_id].can_invite_users and not admins[bot_id].can_promote_members
        assert admins[bot_id].custom_title == "bot"
        await bot.restrict_chat_member(chat_id, bob.id, ChatPermissions(can_send_messages=True))
        limited = await bot.get_chat_member(chat_id, bob.id)
        assert limited.status == "restricted" and limited.can_send_messages and not limited.can_send_photos
        await bot.restrict_chat_member(chat_id, bob.id, ChatPermissions(
            can_send_messages=True, can_send_photos=True, can_send_polls=True, can_send_other_messages=True,
            can_send_audios=True, can_send_documents=True, can_send_videos=True, can_send_video_notes=True,
            can_send_voice_notes=True, can_add_web_page_previews=True, can_change_info=True, can_invite_users=True,
            can_pin_messages=True, can_manage_topics=True,
        ))  # fmt: skip

        # A quiz Bob answers; stopped, everyone sees it closed with the answer.
        bad = [InputPollOption(text="only")]
        with pytest.raises(TelegramBadRequest, match="at least 2 option"):
            await bot.send_poll(chat_id, "Q?", bad)
        with pytest.raises(TelegramBadRequest, match="more than 10 options"):
            await bot.send_poll(chat_id, "Q?", [str(i) for i in range(11)])
        quiz = await bot.send_poll(
            chat_id, "2 + 2?", [InputPollOption(text="3"), "4", InputPollOption(text="5")], type="quiz",
            correct_option_id=1, explanation="Arithmetic", is_anonymous=False,
        )  # fmt: skip
        assert quiz.poll.type == "quiz" and [o.text for o in quiz.poll.options] == ["3", "4", "5"]
        assert quiz.poll.correct_option_id == 1 and not quiz.poll.is_anonymous and not quiz.poll.is_closed
        peer_b = await b.get_input_entity(types.PeerChannel(channel.id))
        (shown,) = await b.get_messages(peer_b, ids=[quiz.message_id])
        assert shown.poll is not None and shown.poll.poll.quiz
        options = [o.option for o in shown.poll.poll.answers]
        await b(functions.messages.SendVoteRequest(peer_b, quiz.message_id, [options[1]]))
        stopped = await bot.stop_poll(chat_id, quiz.message_id)
        assert stopped.is_closed and stopped.total_voter_count == 1
        assert [o.voter_count for o in stopped.options] == [0, 1, 0] and stopped.explanation == "Arithmetic"
        (closed,) = await a.get_messages(types.PeerChannel(channel.id), ids=[quiz.message_id])
        assert closed.poll.poll.closed and closed.poll.results.total_voters == 1
        with pytest.raises(TelegramBadRequest, match="already been closed"):
            await bot.stop_poll(chat_id, quiz.message_id)
        # A public group is addressed by its @username too.
        public = f"club{channel.id}"
        await a(functions.channels.UpdateUsernameRequest(ic, public))
        regular = await bot.send_poll(f"@{public}", "Lunch?", ["Soup", "Salad"], allows_multiple_answers=True)
        assert (
            regular.poll.allows_multiple_answers and regular.poll.is_anonymous and regular.chat.id == chat_id
        )

        # A reaction on Bob's message, as Bob sees it.
        said = await b.send_message(peer_b, "I won")
        assert await bot.set_message_reaction(chat_id, said.id, [ReactionTypeEmoji(emoji="👍")], is_big=True)
        (reacted,) = await b.get_messages(peer_b, ids=[said.id])
        assert [(r.reaction.emoticon, r.count) for r in reacted.reactions.results] == [("👍", 1)]
        with pytest.raises(TelegramBadRequest, match="REACTIONS_TOO_MANY"):
            await bot.set_message_reaction(
                chat_id, said.id, [ReactionTypeEmoji(emoji="👍"), ReactionTypeEmoji(emoji="🔥")]
            )
        with pytest.raises(TelegramBadRequest, match="message to react not found"):
            await bot.set_message_reaction(chat_id, 99999, [ReactionTypeEmoji(emoji="👍")])
        forwarded = await bot.forward_message(chat_id, chat_id, said.id)
        assert forwarded.forward_origin.type == "user" and forwarded.forward_origin.sender_user.id == bob.id
        copied = await bot.copy_message(chat_id, chat_id, said.id)
        seen_by_bob = await b.get_messages(peer_b, ids=[forwarded.message_id, copied.message_id])
        assert [m.raw_text for m in seen_by_bob] == ["I won", "I won"]
        assert seen_by_bob[0].fwd_from is not None and seen_by_bob[1].fwd_from is None
        with pytest.raises(TelegramBadRequest, match="message to copy not found"):
            await bot.copy_message(chat_id, chat_id, 99999)
        protected = await bot.send_message(chat_id, "members only", protect_content=True)
        assert protected.has_protected_content
        (kept,) = await b.get_messages(peer_b, ids=[protected.message_id])
        assert kept.noforwards
        with pytest.raises(TelegramBadRequest, match="message can't be forwarded"):
            await bot.forward_message(chat_id, chat_id, protected.message_id)
        assert await bot.set_message_reaction(chat_id, said.id, [])
        (unreacted,) = await b.get_messages(peer_b, ids=[said.id])
        assert not unreacted.reactions or not unreacted.reactions.results

        # The chat photo, set from an upload and removed.
        assert await bot.set_chat_photo(chat_id, BufferedInputFile(_image(size=(160, 160)), "photo.png"))
        full = await a(functions.channels.GetFullChannelRequest(ic))
        assert isinstance(full.full_chat.chat_photo, types.Photo)
        assert isinstance(full.chats[0].photo, types.ChatPhoto)
        assert await bot.delete_chat_photo(chat_id)
        full = await a(functions.channels.GetFullChannelRequest(ic))
        assert isinstance(full.chats[0].photo, types.ChatPhotoEmpty)
    finally:
        await bot.session.close()


async def test_flood_limit_shared_with_mtproto_and_close_ends_long_polls(
    edge_server, botapi_server, edge_db, clients
):
    from telethon import functions, types

    from accounts_app.access import user_access_hash
    from bots_app import flood

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bot_id, _, token = await _new_bot(alice.id, "Flood")
    base = botapi_server.base
    created = await a(functions.channels.CreateChannelRequest(title="Busy", about="", megagroup=True))
    channel = created.chats[0]
    ic = types.InputChannel(channel.id, channel.access_hash)
    await a(
        functions.channels.InviteToChannelRequest(
            ic, [types.InputUser(bot_id, user_access_hash(alice.id, bot_id))]
        )
    )
    chat_id = -(10**12) - channel.id

    # The bot's MTProto sends count in the same Redis budget (bots_app.flood, 20 a
    # minute into one group): spent there, the next Bot API send is refused.
    for _ in range(2):  # a minute boundary between the two may reset the window once
        await flood.check(bot_id, channel.id, flood.group_per_minute())
        status, body = await call(base, token, "sendMessage", chat_id=chat_id, text="one more")
        if status == 429:
            break
    assert status == 429, body
    assert body["description"].startswith("Too Many Requests: retry after ")
    assert 1 <= body["parameters"]["retry_after"] <= 60
    assert body["description"] == f"Too Many Requests: retry after {body['parameters']['retry_after']}"

    # The bot's joining is queued (new_chat_members, my_chat_member): confirm it first,
    # so the poll below has nothing to return and waits.
    _, pending = await call(base, token, "getUpdates")
    assert pending["result"], pending
    last = pending["result"][-1]["update_id"]
    # close (and logOut) end a waiting long poll at once; nothing queued is lost.
    poll = asyncio.create_task(call(base, token, "getUpdates", offset=last + 1, timeout=30))
    started = asyncio.get_running_loop().time()
    while not poll.done():  # the poll may reach the server after the first close
        await asyncio.sleep(0.3)
        assert (await call(base, token, "close"))[1] == {"ok": True, "result": True}
    assert asyncio.get_running_loop().time() - started < 10
    assert poll.result() == (200, {"ok": True, "result": []})
    assert (await call(base, token, "logOut"))[1] == {"ok": True, "result": True}
    assert (await call(base, token, "getMe"))[1]["result"]["id"] == bot_id
