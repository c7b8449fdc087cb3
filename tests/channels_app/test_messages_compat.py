"""The explicit messages.* compatibility answers (messages_app.rpc.compat): each
answers its result type (encoded for the primary layer and TDesktop's), checks the peer
like the real methods, caps its input, and finds real data where there is some."""

from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from django.utils import timezone

from accounts_app.access import user_access_hash
from accounts_app.models import User
from tests.channels_app import test_rpc
from tests.channels_app.test_rpc import call, iu
from tl import functions, layers, types
from tl.errors import RpcError

M = functions.messages
users = test_rpc.users  # the fixture: three real accounts on the `chan` storage


async def answer(user_id, req):
    """call(), plus the encoding of Vector / Bool results for layers 229 and 225."""
    result = await call(user_id, req)
    for layer in (229, 225):
        layers.encode_result(result, req.RESULT_TYPE, layer)
    return result


async def megagroup(a, b, title="Team"):
    res = await call(a, M.CreateChat(users=[iu(a, b)], title=title))
    ch = res.updates.chats[1]
    return ch, types.InputPeerChannel(channel_id=ch.id, access_hash=ch.access_hash)


def peer_user(viewer, uid, *, wrong=False):
    return types.InputPeerUser(user_id=uid, access_hash=user_access_hash(viewer, uid) ^ (7 if wrong else 0))


async def send(user_id, peer, text, rid, reply_to=0):
    r = types.InputReplyToMessage(reply_to_msg_id=reply_to) if reply_to else None
    res = await call(user_id, M.SendMessage(peer=peer, message=text, random_id=rid, reply_to=r))
    return next(u for u in res.updates if hasattr(u, "message")).message


def peer_methods(peer):
    """Every registered compat method that takes a peer, with harmless arguments."""
    f = types.InputMessagesFilterPhotos()
    return [
        M.GetPeerSettings(peer=peer),
        M.HidePeerSettingsBar(peer=peer),
        M.GetMessagesViews(peer=peer, id=[1], increment=True),
        M.GetMessageEditData(peer=peer, id=1),
        M.SaveDraft(peer=peer, message="draft"),
        M.GetSponsoredMessages(peer=peer),
        M.GetSearchCounters(peer=peer, filters=[f]),
        M.GetSearchResultsCalendar(peer=peer, filter=f, offset_id=0, offset_date=0),
        M.GetSearchResultsPositions(peer=peer, filter=f, offset_id=0, limit=10),
        M.SendMedia(peer=peer, media=types.InputMediaWebPage(url="https://x.y"), message="hi", random_id=5),
        M.SendMultiMedia(peer=peer, multi_media=[]),
        M.UploadMedia(peer=peer, media=types.InputMediaEmpty()),
        M.GetExtendedMedia(peer=peer, id=[1]),
        M.GetScheduledHistory(peer=peer, hash=0),
        M.GetScheduledMessages(peer=peer, id=[1]),
        M.SendScheduledMessages(peer=peer, id=[1]),
        M.DeleteScheduledMessages(peer=peer, id=[1]),
        M.ReportSpam(peer=peer),
        M.Report(peer=peer, id=[1], option=b"", message=""),
        M.ReportMessagesDelivery(peer=peer, id=[1]),
        M.ReportReadMetrics(peer=peer, metrics=[]),
        M.GetSavedReactionTags(peer=peer, hash=0),
        M.SendVote(peer=peer, msg_id=1, options=[b"0"]),
        M.GetPollResults(peer=peer, msg_id=1, poll_hash=0),
        M.GetPollVotes(peer=peer, id=1, limit=10),
        M.AddPollAnswer(peer=peer, msg_id=1, answer=types.PollAnswer(text=types.TextWithEntities(text="a", entities=[]), option=b"1")),
        M.DeletePollAnswer(peer=peer, msg_id=1, option=b"1"),
        M.GetUnreadPollVotes(peer=peer, offset_id=0, add_offset=0, limit=10, max_id=0, min_id=0),
        M.ReadPollVotes(peer=peer),
        M.GetMessagesReactions(peer=peer, id=[1]),
        M.GetMessageReactionsList(peer=peer, id=1, limit=10),
        M.GetUnreadReactions(peer=peer, offset_id=0, add_offset=0, limit=10, max_id=0, min_id=0),
        M.ReadReactions(peer=peer),
        M.SetHistoryTTL(peer=peer, period=0),
        M.SetChatTheme(peer=peer, theme=types.InputChatThemeEmpty()),
    ]  # fmt: skip


async def test_channel_peer_answers_and_wrong_hash(users):
    a, b, c = users
    ch, peer = await megagroup(a, b)
    root = await send(a, peer, "root", 1)
    await send(b, peer, "re 1", 2, reply_to=root.id)
    await send(b, peer, "re 2", 3, reply_to=root.id)

    settings = await answer(b, M.GetPeerSettings(peer=peer))
    assert isinstance(settings, types.messages.PeerSettings) and [x.id for x in settings.chats] == [ch.id]
    assert await answer(b, M.HidePeerSettingsBar(peer=peer)) is True
    # views: one entry per requested id, real thread replies, empty for unknown ids
    views = await answer(b, M.GetMessagesViews(peer=peer, id=[root.id, 999, root.id + 1], increment=True))
    assert len(views.views) == 3
    assert views.views[0].replies.replies == 2 and views.views[0].replies.max_id == root.id + 2
    assert views.views[1] == types.MessageViews() and views.views[2].replies.replies == 0
    counters = await answer(
        b,
        M.GetSearchCounters(
            peer=peer, filters=[types.InputMessagesFilterPhotos(), types.InputMessagesFilterUrl()]
        ),
    )
    assert [(type(x.filter).__name__, x.count) for x in counters] == [
        ("InputMessagesFilterPhotos", 0),
        ("InputMessagesFilterUrl", 0),
    ]
    cal = await answer(
        b,
        M.GetSearchResultsCalendar(
            peer=peer, filter=types.InputMessagesFilterPhotos(), offset_id=77, offset_date=1_700_000_000
        ),
    )
    assert (cal.count, cal.min_msg_id, cal.min_date, cal.periods) == (0, 77, 1_700_000_000, [])
    pos = await answer(
        b,
        M.GetSearchResultsPositions(
            peer=peer, filter=types.InputMessagesFilterPhotos(), offset_id=0, limit=10
        ),
    )
    assert (pos.count, pos.positions) == (0, [])
    assert isinstance(
        await answer(b, M.GetSponsoredMessages(peer=peer)), types.messages.SponsoredMessagesEmpty
    )
    assert await answer(b, M.SaveDraft(peer=peer, message="later")) is True
    empty = await answer(b, M.GetScheduledHistory(peer=peer, hash=0))
    assert isinstance(empty, types.messages.Messages) and empty.messages == []
    assert (await answer(b, M.DeleteScheduledMessages(peer=peer, id=[1]))).updates == []
    with pytest.raises(RpcError, match="MESSAGE_ID_INVALID"):
        await answer(b, M.SendScheduledMessages(peer=peer, id=[1]))
    unread = await answer(
        b, M.GetUnreadReactions(peer=peer, offset_id=0, add_offset=0, limit=10, max_id=0, min_id=0)
    )
    assert isinstance(unread, types.messages.ChannelMessages) and unread.messages == []
    affected = await answer(b, M.ReadReactions(peer=peer))
    assert (
        isinstance(affected, types.messages.AffectedHistory) and affected.pts_count == 0 and affected.pts > 0
    )
    assert (await answer(b, M.GetMessageReactionsList(peer=peer, id=root.id, limit=10))).count == 0
    refreshed = await answer(b, M.GetMessagesReactions(peer=peer, id=[root.id]))
    assert [(u.msg_id, u.reactions.results) for u in refreshed.updates] == [(root.id, [])]
    with pytest.raises(RpcError, match="MESSAGE_ID_INVALID"):  # a message without a poll
        await answer(b, M.GetPollVotes(peer=peer, id=root.id, limit=10))
    with pytest.raises(RpcError, match="MESSAGE_ID_INVALID"):
        await answer(b, M.SendVote(peer=peer, msg_id=root.id, options=[b"0"]))
    assert await answer(b, M.GetMessageReadParticipants(peer=peer, msg_id=root.id)) == []
    online = await answer(b, M.GetOnlines(peer=peer))
    assert isinstance(online, types.ChatOnlines)
    # send-as: only oneself can be chosen
    assert await answer(b, M.SaveDefaultSendAs(peer=peer, send_as=types.InputPeerSelf())) is True
    with pytest.raises(RpcError, match="SEND_AS_PEER_INVALID"):
        await answer(b, M.SaveDefaultSendAs(peer=peer, send_as=peer))
    # theme / TTL need change_info in a group
    with pytest.raises(RpcError, match="CHAT_ADMIN_REQUIRED"):
        await answer(b, M.SetChatTheme(peer=peer, theme=types.InputChatThemeEmpty()))
    theme = await answer(a, M.SetChatTheme(peer=peer, theme=types.InputChatThemeEmpty()))
    assert theme.updates == [] and [x.id for x in theme.chats] == [ch.id]
    assert (await answer(a, M.SetHistoryTTL(peer=peer, period=0))).updates == []
    with pytest.raises(RpcError, match="TTL_PERIOD_INVALID"):  # no auto-delete here: only 0
        await answer(a, M.SetHistoryTTL(peer=peer, period=86400))
    with pytest.raises(RpcError, match="TTL_PERIOD_INVALID"):
        await answer(a, M.SetHistoryTTL(peer=peer, period=-1))

    wrong = types.InputPeerChannel(channel_id=ch.id, access_hash=ch.access_hash ^ 5)
    for req in [
        *peer_methods(wrong),
        M.GetOnlines(peer=wrong),
        M.GetMessageReadParticipants(peer=wrong, msg_id=1),
    ]:
        with pytest.raises(RpcError) as e:
            await call(b, req)
        assert e.value.message == "CHANNEL_PRIVATE", req.TL_NAME
    # Carol, no member, cannot reach the private group by its id either
    with pytest.raises(RpcError, match="CHANNEL_PRIVATE"):
        await call(c, M.GetPeerSettings(peer=types.InputPeerChat(chat_id=ch.id)))


async def test_private_peer_answers_and_wrong_hash(users):
    a, b, _ = users
    bob = peer_user(a, b)
    sent = await send(a, bob, "hello", 10)
    settings = await answer(a, M.GetPeerSettings(peer=bob))
    assert settings.settings == types.PeerSettings() and b in {u.id for u in settings.users}
    views = await answer(a, M.GetMessagesViews(peer=bob, id=[sent.id, 5], increment=False))
    assert views.views == [types.MessageViews(), types.MessageViews()]
    affected = await answer(a, M.ReadMessageContents(id=[sent.id]))
    assert (
        isinstance(affected, types.messages.AffectedMessages)
        and affected.pts_count == 0
        and affected.pts >= 1
    )
    history = await answer(a, M.ReadPollVotes(peer=bob))
    assert history.pts == affected.pts and history.pts_count == 0
    assert (await answer(a, M.SetChatTheme(peer=bob, theme=types.InputChatTheme(emoticon="x")))).updates == []
    assert (await answer(a, M.GetMessageEditData(peer=bob, id=sent.id))).caption is False
    # Bob's copy of the message is not Bob's to edit
    with pytest.raises(RpcError, match="MESSAGE_AUTHOR_REQUIRED"):
        await answer(b, M.GetMessageEditData(peer=peer_user(b, a), id=1))
    with pytest.raises(RpcError, match="MESSAGE_ID_INVALID"):
        await answer(a, M.GetMessageEditData(peer=bob, id=999))
    # the read date comes from the read marks
    with pytest.raises(RpcError, match="MESSAGE_NOT_READ_YET"):
        await answer(a, M.GetOutboxReadDate(peer=bob, msg_id=sent.id))
    await call(b, M.ReadHistory(peer=peer_user(b, a), max_id=0))
    assert (await answer(a, M.GetOutboxReadDate(peer=bob, msg_id=sent.id))).date >= sent.date
    with pytest.raises(RpcError, match="MESSAGE_ID_INVALID"):
        await answer(b, M.GetOutboxReadDate(peer=peer_user(b, a), msg_id=1))  # incoming, not outgoing
    with pytest.raises(RpcError, match="PEER_ID_INVALID"):
        await answer(a, M.SaveDefaultSendAs(peer=bob, send_as=types.InputPeerSelf()))

    wrong = peer_user(a, b, wrong=True)
    for req in [*peer_methods(wrong), M.GetOutboxReadDate(peer=wrong, msg_id=1)]:
        with pytest.raises(RpcError) as e:
            await call(a, req)
        assert e.value.message == "PEER_ID_INVALID", req.TL_NAME


async def test_peerless_answers(users):
    a, _, _ = users
    assert (await answer(a, M.GetAllDrafts())).updates == []
    assert await answer(a, M.ClearAllDrafts()) is True
    assert await answer(a, M.ReceivedMessages(max_id=10)) == []
    preview = await answer(a, M.GetWebPagePreview(message="see https://example.com"))
    assert isinstance(preview, types.messages.WebPagePreview) and isinstance(
        preview.media, types.MessageMediaEmpty
    )
    page = await answer(a, M.GetWebPage(url="https://example.com", hash=0))
    assert isinstance(page.webpage, types.WebPageEmpty) and page.webpage.url == "https://example.com"
    assert isinstance(await answer(a, M.GetDefaultTagReactions(hash=0)), types.messages.ReactionsNotModified)
    assert (await answer(a, M.GetRecentReactions(limit=10, hash=0))).reactions == []
    top = await answer(a, M.GetTopReactions(limit=10, hash=0))
    assert len(top.reactions) == 10 and top.reactions[0].emoticon == "👍"  # the catalog fills it
    assert isinstance(
        await answer(a, M.GetTopReactions(limit=10, hash=top.hash)), types.messages.ReactionsNotModified
    )
    assert await answer(a, M.ClearRecentReactions()) is True
    assert (await answer(a, M.GetSavedReactionTags(hash=1))).tags == []
    with pytest.raises(RpcError, match="REACTION_INVALID"):
        await answer(a, M.UpdateSavedReactionTag(reaction=types.ReactionEmoji(emoticon="x"), title="t"))
    assert await answer(
        a, M.UpdateSavedReactionTag(reaction=types.ReactionEmoji(emoticon="👍"), title="good")
    )
    tags = await answer(a, M.GetSavedReactionTags(hash=0))
    assert [(t.reaction.emoticon, t.title) for t in tags.tags] == [("👍", "good")]
    assert isinstance(
        await answer(a, M.GetSavedReactionTags(hash=tags.hash)), types.messages.SavedReactionTagsNotModified
    )
    assert await answer(a, M.SetDefaultHistoryTTL(period=0)) is True
    with pytest.raises(RpcError, match="TTL_PERIOD_INVALID"):
        await answer(a, M.SetDefaultHistoryTTL(period=86400))
    assert await answer(a, M.ReportMusicListen(id=types.InputDocumentEmpty(), listened_duration=3)) is True
    assert isinstance(
        await answer(a, M.ReportSponsoredMessage(random_id=b"x", option=b"")),
        types.channels.SponsoredMessageReportResultReported,
    )


async def test_report_flow(users):
    a, b, _ = users
    bob = peer_user(a, b)
    first = await answer(a, M.Report(peer=bob, id=[1], option=b"", message=""))
    assert isinstance(first, types.ReportResultChooseOption) and first.options
    other = next(o.option for o in first.options if o.text == "Other")
    assert isinstance(
        await answer(a, M.Report(peer=bob, id=[1], option=other, message="")), types.ReportResultAddComment
    )
    assert isinstance(
        await answer(a, M.Report(peer=bob, id=[1], option=other, message="why")), types.ReportResultReported
    )
    spam = first.options[0].option
    assert isinstance(
        await answer(a, M.Report(peer=bob, id=[1], option=spam, message="")), types.ReportResultReported
    )
    with pytest.raises(RpcError, match="OPTION_INVALID"):
        await answer(a, M.Report(peer=bob, id=[1], option=b"nonsense", message=""))
    assert await answer(a, M.ReportReaction(peer=bob, id=1, reaction_peer=bob)) is True


async def test_caps(users):
    a, b, _ = users
    bob = peer_user(a, b)
    many = list(range(1, 102))
    for req in (
        M.GetMessagesViews(peer=bob, id=many, increment=False),
        M.ReadMessageContents(id=many),
        M.GetScheduledMessages(peer=bob, id=many),
        M.GetMessagesReactions(peer=bob, id=many),
        M.GetExtendedMedia(peer=bob, id=many),
        M.Report(peer=bob, id=many, option=b"", message=""),
        M.GetCommonChats(user_id=iu(a, b), max_id=0, limit=-1),
        M.GetMessageReactionsList(peer=bob, id=1, limit=-1),
        M.GetRecentReactions(limit=-1, hash=0),
        M.GetSearchCounters(peer=bob, filters=[types.InputMessagesFilterPhotos()] * 33),
        M.GetCustomEmojiDocuments(document_id=list(range(201))),
    ):
        with pytest.raises(RpcError) as e:
            await call(a, req)
        assert e.value.message == "LIMIT_INVALID", req.TL_NAME
    with pytest.raises(RpcError, match="MESSAGE_TOO_LONG"):
        await call(a, M.SaveDraft(peer=bob, message="x" * 5000))
    with pytest.raises(RpcError, match="MULTI_MEDIA_TOO_LONG"):
        await call(
            a,
            M.SendMultiMedia(
                peer=bob,
                multi_media=[types.InputSingleMedia(media=types.InputMediaEmpty(), random_id=i, message="") for i in range(11)],
            ),
        )  # fmt: skip


async def test_common_chats_are_shared_megagroups_only(users):
    a, b, c = users
    g1, _ = await megagroup(a, b, "one")
    g2, _ = await megagroup(b, a, "two")
    await megagroup(a, c, "not Bob's")
    news = await call(a, functions.channels.CreateChannel(title="News", about="", broadcast=True))
    nc = news.chats[0]
    await call(
        a,
        functions.channels.InviteToChannel(
            channel=types.InputChannel(channel_id=nc.id, access_hash=nc.access_hash), users=[iu(a, b)]
        ),
    )
    res = await answer(a, M.GetCommonChats(user_id=iu(a, b), max_id=0, limit=1000))
    assert [x.id for x in res.chats] == sorted([g1.id, g2.id], reverse=True)
    assert all(x.megagroup for x in res.chats)
    page = await answer(a, M.GetCommonChats(user_id=iu(a, b), max_id=res.chats[0].id, limit=10))
    assert [x.id for x in page.chats] == [res.chats[1].id]
    assert (await answer(a, M.GetCommonChats(user_id=iu(a, b), max_id=0, limit=0))).chats == []
    assert (await answer(c, M.GetCommonChats(user_id=iu(c, b), max_id=0, limit=10))).chats == []
    with pytest.raises(RpcError, match="USER_ID_INVALID"):
        await call(a, M.GetCommonChats(user_id=types.InputUser(user_id=b, access_hash=1), max_id=0, limit=10))
    # Bob leaves one: it is no longer common
    await call(
        b,
        functions.channels.LeaveChannel(
            channel=types.InputChannel(channel_id=g1.id, access_hash=g1.access_hash)
        ),
    )
    res = await answer(a, M.GetCommonChats(user_id=iu(a, b), max_id=0, limit=10))
    assert [x.id for x in res.chats] == [g2.id]
    full = await call(a, functions.users.GetFullUser(id=iu(a, b)))
    assert full.full_user.common_chats_count == 1


async def test_send_media_web_page_is_a_text_message(users):
    a, b, _ = users
    _, peer = await megagroup(a, b)
    res = await answer(
        a,
        M.SendMedia(
            peer=peer, media=types.InputMediaWebPage(url="https://example.com"), message="look", random_id=77
        ),
    )
    assert isinstance(res.updates[0], types.UpdateMessageID) and res.updates[0].random_id == 77
    hist = await call(
        b,
        M.GetHistory(
            peer=peer, offset_id=0, offset_date=0, add_offset=0, limit=5, max_id=0, min_id=0, hash=0
        ),
    )
    assert hist.messages[0].message == "look"
    # an empty caption sends the url itself, to a private chat as well
    bob = peer_user(a, b)
    await answer(
        a, M.SendMedia(peer=bob, media=types.InputMediaWebPage(url="https://e.org"), message="", random_id=78)
    )
    hist = await call(
        b,
        M.GetHistory(
            peer=peer_user(b, a),
            offset_id=0,
            offset_date=0,
            add_offset=0,
            limit=5,
            max_id=0,
            min_id=0,
            hash=0,
        ),
    )
    assert hist.messages[0].message == "https://e.org"
    # An empty photo is no media; a photo that does not exist is PHOTO_INVALID.
    empty = types.InputMediaPhoto(id=types.InputPhotoEmpty())
    missing = types.InputMediaPhoto(id=types.InputPhoto(id=5, access_hash=6, file_reference=b""))
    for photo, error in ((empty, "MEDIA_EMPTY"), (missing, "PHOTO_INVALID")):
        for req in (
            M.SendMedia(peer=peer, media=photo, message="", random_id=79),
            M.UploadMedia(peer=peer, media=photo),
            M.SendMultiMedia(
                peer=peer, multi_media=[types.InputSingleMedia(media=photo, random_id=80, message="")]
            ),
        ):
            with pytest.raises(RpcError) as e:
                await call(a, req)
            assert e.value.message == error, req.TL_NAME
    with pytest.raises(RpcError, match="SCHEDULE_DATE_TOO_LATE"):
        await call(
            a,
            M.SendMedia(peer=peer, media=types.InputMediaWebPage(url="https://e.org"), message="x", random_id=81,
                        schedule_date=2_000_000_000),
        )  # fmt: skip


async def test_edit_data_and_onlines_in_a_group(users):
    a, b, c = users
    _, peer = await megagroup(a, b)
    mine = await send(b, peer, "mine", 1)
    theirs = await send(a, peer, "theirs", 2)
    assert (await answer(b, M.GetMessageEditData(peer=peer, id=mine.id))).caption is False
    with pytest.raises(RpcError, match="MESSAGE_AUTHOR_REQUIRED"):
        await answer(b, M.GetMessageEditData(peer=peer, id=theirs.id))
    with pytest.raises(RpcError, match="MESSAGE_ID_INVALID"):
        await answer(b, M.GetMessageEditData(peer=peer, id=1))  # the service message of creation
    with pytest.raises(RpcError, match="MESSAGE_ID_INVALID"):
        await answer(b, M.GetMessageEditData(peer=peer, id=999))

    def online(uid):
        User.objects.filter(id=uid).update(online_until=timezone.now() + timedelta(minutes=5))

    await sync_to_async(online)(b)
    await sync_to_async(online)(c)  # online, but not a member
    assert (await answer(a, M.GetOnlines(peer=peer))).onlines == 1
    with pytest.raises(RpcError, match="PEER_ID_INVALID"):
        await answer(a, M.GetOnlines(peer=peer_user(a, b)))


# What a method may answer instead of a result: the explicit "no such store" errors.
NO_STORE_ERRORS = {
    "messages.sendVote": "MESSAGE_ID_INVALID",
    "messages.addPollAnswer": "MESSAGE_ID_INVALID",
    "messages.deletePollAnswer": "MESSAGE_ID_INVALID",
    "messages.appendTodoList": "MESSAGE_ID_INVALID",
    "messages.toggleTodoCompleted": "MESSAGE_ID_INVALID",
    "messages.sendScheduledMessages": "MESSAGE_ID_INVALID",
    "messages.sendMultiMedia": "MEDIA_EMPTY",
    "messages.uploadMedia": "MEDIA_EMPTY",
}
# Methods that look the message up for real: message 1 may not be the viewer's there.
MESSAGE_LOOKUPS = {
    "messages.getMessageReactionsList",
    "messages.sendReaction",
    "messages.getPollResults",
    "messages.getPollVotes",
}


async def test_every_peer_method_answers_its_result_type(users):
    a, b, _ = users
    _, group = await megagroup(a, b)
    await send(b, group, "in the group", 1)
    bob = peer_user(a, b)
    await send(a, bob, "private", 2)
    todo = types.TodoItem(id=1, title=types.TextWithEntities(text="t", entities=[]))
    for peer in (group, bob, types.InputPeerSelf()):
        extra = [
            M.AppendTodoList(peer=peer, msg_id=1, list=[todo]),
            M.ToggleTodoCompleted(peer=peer, msg_id=1, completed=[1], incompleted=[]),
        ]
        for req in [*peer_methods(peer), *extra]:
            if isinstance(req, M.GetMessageEditData | M.SendMedia):
                continue  # covered with real messages above
            try:
                await answer(a, req)
            except RpcError as e:
                if req.TL_NAME in MESSAGE_LOOKUPS and e.message == "MESSAGE_ID_INVALID":
                    continue
                assert NO_STORE_ERRORS.get(req.TL_NAME) == e.message, (req.TL_NAME, e.message)
            else:
                assert req.TL_NAME not in NO_STORE_ERRORS, req.TL_NAME
