"""The handlers end to end below the transport: TL in, TL out (encoded, so a malformed
object fails here), with real accounts users and access hashes."""

import pytest
from asgiref.sync import sync_to_async

from accounts_app.access import user_access_hash
from accounts_app.actions import do_create_user, vector_hash
from edge_app.registry import lookup
from tl import functions, types
from tl.errors import RpcError


class Ctx:
    def __init__(self, user_id):
        self.app = {"user_id": user_id}
        self.auth_key_id = user_id * 1000
        self.perm_auth_key_id = user_id * 1000
        self.session_id = 1
        self.session = None
        self.layer = 229


async def call(user_id, req):
    reg = lookup(req.TL_NAME)
    assert reg is not None, req.TL_NAME
    result = await reg.handler(Ctx(user_id), req)
    if hasattr(result, "to_bytes"):
        result.to_bytes()
    return result


@pytest.fixture
async def users(chan):
    mk = sync_to_async(do_create_user)
    a = await mk("99966100001", "Alice")
    b = await mk("99966100002", "Bob")
    c = await mk("99966100003", "Carol")
    return a.id, b.id, c.id


def iu(viewer, uid):
    return types.InputUser(user_id=uid, access_hash=user_access_hash(viewer, uid))


async def test_create_chat_answer_puts_the_legacy_chat_first(users):
    a, b, c = users
    res = await call(a, functions.messages.CreateChat(users=[iu(a, b), iu(a, c)], title="Team"))
    chats = res.updates.chats
    assert isinstance(chats[0], types.Chat) and isinstance(chats[1], types.Channel)
    assert chats[0].migrated_to.channel_id == chats[1].id == chats[0].id
    assert chats[1].megagroup and chats[1].creator
    kinds = [type(u).__name__ for u in res.updates.updates]
    assert "UpdateNewChannelMessage" in kinds and "UpdateChannel" in kinds


async def test_send_history_difference_and_wrong_hash(users):
    a, b, c = users
    res = await call(a, functions.messages.CreateChat(users=[iu(a, b)], title="Team"))
    ch = res.updates.chats[1]
    peer_a = types.InputPeerChannel(channel_id=ch.id, access_hash=ch.access_hash)
    sent = await call(a, functions.messages.SendMessage(peer=peer_a, message="hi @all", random_id=42))
    assert isinstance(sent.updates[0], types.UpdateMessageID) and sent.updates[0].random_id == 42
    new = sent.updates[1]
    assert new.message.out and new.pts == 2
    # B sees the same message without `out`, and A among the users
    hist = await call(
        b,
        functions.messages.GetHistory(
            peer=peer_a, offset_id=0, offset_date=0, add_offset=0, limit=10, max_id=0, min_id=0, hash=0
        ),
    )
    assert [m.message for m in hist.messages if isinstance(m, types.Message)] == ["hi @all"]
    assert not hist.messages[0].out and a in {u.id for u in hist.users}
    # InputPeerChat maps to the same-id megagroup
    reply = await call(
        b,
        functions.messages.SendMessage(
            peer=types.InputPeerChat(chat_id=ch.id), message="re", random_id=43,
            reply_to=types.InputReplyToMessage(reply_to_msg_id=new.message.id),
        ),
    )  # fmt: skip
    assert reply.updates[1].message.reply_to.reply_to_msg_id == new.message.id
    diff = await call(
        b,
        functions.updates.GetChannelDifference(
            channel=types.InputChannel(channel_id=ch.id, access_hash=ch.access_hash),
            filter=types.ChannelMessagesFilterEmpty(),
            pts=1,
            limit=100,
        ),
    )
    assert isinstance(diff, types.updates.ChannelDifference) and diff.pts == 3
    wrong = types.InputChannel(channel_id=ch.id, access_hash=ch.access_hash ^ 5)
    for req in (
        functions.channels.GetFullChannel(channel=wrong),
        functions.updates.GetChannelDifference(
            channel=wrong, filter=types.ChannelMessagesFilterEmpty(), pts=1, limit=10
        ),
        functions.channels.GetParticipants(
            channel=wrong, filter=types.ChannelParticipantsRecent(), offset=0, limit=10, hash=0
        ),
        functions.channels.JoinChannel(channel=wrong),
        functions.channels.LeaveChannel(channel=wrong),
        functions.messages.SendMessage(
            peer=types.InputPeerChannel(channel_id=ch.id, access_hash=ch.access_hash ^ 5),
            message="x",
            random_id=9,
        ),
    ):
        with pytest.raises(RpcError) as e:
            await call(b, req)
        assert e.value.message == "CHANNEL_PRIVATE", req.TL_NAME
    # C is not a member of this private group
    with pytest.raises(RpcError) as e:
        await call(
            c,
            functions.messages.GetHistory(
                peer=peer_a, offset_id=0, offset_date=0, add_offset=0, limit=10, max_id=0, min_id=0, hash=0
            ),
        )
    assert e.value.message == "CHANNEL_PRIVATE"


async def test_dialogs_full_channel_participants_and_read(users):
    a, b, c = users
    res = await call(a, functions.messages.CreateChat(users=[iu(a, b), iu(a, c)], title="Team"))
    ch = res.updates.chats[1]
    ic = types.InputChannel(channel_id=ch.id, access_hash=ch.access_hash)
    for i in range(3):
        await call(
            a,
            functions.messages.SendMessage(
                peer=types.InputPeerChannel(channel_id=ch.id, access_hash=ch.access_hash),
                message=f"m{i}",
                random_id=100 + i,
            ),
        )
    d = await call(
        b,
        functions.messages.GetDialogs(
            offset_date=0, offset_id=0, offset_peer=types.InputPeerEmpty(), limit=20, hash=0
        ),
    )
    assert [(x.peer.channel_id, x.unread_count, x.top_message) for x in d.dialogs] == [(ch.id, 4, 4)]
    assert len(d.messages) == 1 and d.chats[0].id == ch.id
    assert await call(b, functions.channels.ReadHistory(channel=ic, max_id=4)) is True
    full = await call(a, functions.channels.GetFullChannel(channel=ic))
    assert full.full_chat.read_outbox_max_id == 4 and full.full_chat.participants_count == 3
    parts = await call(
        b,
        functions.channels.GetParticipants(
            channel=ic, filter=types.ChannelParticipantsRecent(), offset=0, limit=500, hash=0
        ),
    )
    assert parts.count == 3 and len(parts.users) == 3
    # The client's cached list is current: the hash of its ids answers NotModified ...
    recent = types.ChannelParticipantsRecent()
    known = vector_hash([p.user_id for p in parts.participants])
    again = functions.channels.GetParticipants(channel=ic, filter=recent, offset=0, limit=500, hash=known)
    assert isinstance(await call(b, again), types.channels.ChannelParticipantsNotModified)
    # ... until the list changes.
    await call(a, functions.channels.EditBanned(
        channel=ic, participant=types.InputPeerUser(user_id=c, access_hash=user_access_hash(a, c)),
        banned_rights=types.ChatBannedRights(view_messages=True, until_date=0),
    ))  # fmt: skip
    changed = await call(b, again)
    assert isinstance(changed, types.channels.ChannelParticipants) and changed.count == 2
    me = await call(b, functions.channels.GetParticipant(channel=ic, participant=types.InputPeerSelf()))
    assert isinstance(me.participant, types.ChannelParticipantSelf)
    creator = await call(
        b,
        functions.channels.GetParticipant(
            channel=ic, participant=types.InputPeerUser(user_id=a, access_hash=user_access_hash(b, a))
        ),
    )
    assert isinstance(creator.participant, types.ChannelParticipantCreator)
    assert await call(
        b,
        functions.messages.ToggleDialogPin(
            peer=types.InputDialogPeer(
                peer=types.InputPeerChannel(channel_id=ch.id, access_hash=ch.access_hash)
            ),
            pinned=True,
        ),
    )
    pinned = await call(b, functions.messages.GetPinnedDialogs(folder_id=0))
    assert [x.peer.channel_id for x in pinned.dialogs] == [ch.id] and pinned.dialogs[0].pinned


async def test_broadcast_posting_rules(users):
    a, b, _ = users
    res = await call(a, functions.channels.CreateChannel(title="News", about="", broadcast=True))
    ch = next(c for c in res.chats if isinstance(c, types.Channel))
    assert ch.broadcast and ch.creator
    ic = types.InputChannel(channel_id=ch.id, access_hash=ch.access_hash)
    await call(a, functions.channels.InviteToChannel(channel=ic, users=[iu(a, b)]))
    post = await call(
        a,
        functions.messages.SendMessage(
            peer=types.InputPeerChannel(channel_id=ch.id, access_hash=ch.access_hash),
            message="post",
            random_id=1,
        ),
    )
    msg = post.updates[1].message
    assert msg.post and msg.from_id is None
    with pytest.raises(RpcError) as e:
        await call(
            b,
            functions.messages.SendMessage(
                peer=types.InputPeerChannel(channel_id=ch.id, access_hash=ch.access_hash),
                message="no",
                random_id=2,
            ),
        )
    assert e.value.message == "CHAT_ADMIN_REQUIRED"
    with pytest.raises(RpcError) as e:
        await call(a, functions.channels.CreateChannel(title="x", about="", megagroup=True, for_import=True))
    assert e.value.message == "CHAT_INVALID"


async def test_account_difference_carries_read_inbox_and_channel_too_long(users):
    a, b, _ = users
    res = await call(a, functions.messages.CreateChat(users=[iu(a, b)], title="Team"))
    ch = res.updates.chats[1]
    peer = types.InputPeerChannel(channel_id=ch.id, access_hash=ch.access_hash)
    await call(a, functions.messages.SendMessage(peer=peer, message="hi", random_id=1))
    await call(
        b,
        functions.channels.ReadHistory(
            channel=types.InputChannel(channel_id=ch.id, access_hash=ch.access_hash), max_id=2
        ),
    )
    # Another device of B replays the account log: the read mark (durable, account pts)
    # and a computed nudge to fetch the channel's own difference.
    diff = await call(b, functions.updates.GetDifference(pts=0, date=0, qts=0))
    kinds = {type(u).__name__: u for u in diff.other_updates}
    assert kinds["UpdateReadChannelInbox"].max_id == 2 and kinds["UpdateReadChannelInbox"].channel_id == ch.id
    assert kinds["UpdateChannelTooLong"].channel_id == ch.id and kinds["UpdateChannelTooLong"].pts == 2
    assert ch.id in {c.id for c in diff.chats}


async def test_typing_is_published_once_and_top_msg_id_checked(users, chan):
    a, b, _ = users
    res = await call(a, functions.messages.CreateChat(users=[iu(a, b)], title="Team"))
    ch = res.updates.chats[1]
    peer = types.InputPeerChannel(channel_id=ch.id, access_hash=ch.access_hash)
    chan.clear()
    assert (
        await call(b, functions.messages.SetTyping(peer=peer, action=types.SendMessageTypingAction())) is True
    )
    assert [k for k, _ in chan] == ["channel.typing"]
    with pytest.raises(RpcError) as e:
        await call(
            b, functions.messages.SetTyping(peer=peer, action=types.SendMessageTypingAction(), top_msg_id=-1)
        )
    assert e.value.message == "MSG_ID_INVALID"


async def test_mentions_are_per_viewer(users):
    from accounts_app.models import User

    a, b, c = users
    await User.objects.filter(id=c).aupdate(username="carol_m")
    res = await call(a, functions.messages.CreateChat(users=[iu(a, b), iu(a, c)], title="Team"))
    ch = res.updates.chats[1]
    peer = types.InputPeerChannel(channel_id=ch.id, access_hash=ch.access_hash)
    text = "hi Bob and @carol_m"
    await call(
        a,
        functions.messages.SendMessage(
            peer=peer, message=text, random_id=5,
            entities=[
                types.InputMessageEntityMentionName(offset=3, length=3, user_id=iu(a, b)),
                types.MessageEntityMention(offset=text.index("@"), length=8),
            ],
        ),
    )  # fmt: skip
    get = functions.messages.GetHistory(
        peer=peer, offset_id=0, offset_date=0, add_offset=0, limit=1, max_id=0, min_id=0, hash=0
    )
    for viewer, expected in ((a, False), (b, True), (c, True)):
        (msg,) = (await call(viewer, get)).messages
        assert msg.mentioned is expected, viewer
    # the mention-name entity goes back out as messageEntityMentionName with the user id
    (msg,) = (await call(c, get)).messages
    assert any(isinstance(e, types.MessageEntityMentionName) and e.user_id == b for e in msg.entities)


async def test_smaller_channel_methods_answer_for_real_or_explicitly(users):
    a, b, _ = users
    res = await call(a, functions.messages.CreateChat(users=[iu(a, b)], title="Team"))
    ch = res.updates.chats[1]
    ic = types.InputChannel(channel_id=ch.id, access_hash=ch.access_hash)
    peer = types.InputPeerChannel(channel_id=ch.id, access_hash=ch.access_hash)
    for i in range(3):
        await call(b, functions.messages.SendMessage(peer=peer, message=f"b{i}", random_id=300 + i))
    link = await call(b, functions.channels.ExportMessageLink(channel=ic, id=2))
    assert link.link == f"https://t.me/c/{ch.id}/2"
    with pytest.raises(RpcError, match="MESSAGE_ID_INVALID"):
        await call(b, functions.channels.ExportMessageLink(channel=ic, id=999))
    # deleteParticipantHistory: admins only, removes that sender's messages in one event
    bob = types.InputPeerUser(user_id=b, access_hash=user_access_hash(a, b))
    with pytest.raises(RpcError, match="CHAT_ADMIN_REQUIRED"):
        await call(b, functions.channels.DeleteParticipantHistory(channel=ic, participant=bob))
    affected = await call(a, functions.channels.DeleteParticipantHistory(channel=ic, participant=bob))
    assert (affected.pts_count, affected.offset) == (3, 0)
    history = await call(
        a,
        functions.messages.GetHistory(
            peer=peer, offset_id=0, offset_date=0, add_offset=0, limit=10, max_id=0, min_id=0, hash=0
        ),
    )
    assert all(m.from_id is None or m.from_id.user_id != b for m in history.messages if hasattr(m, "message"))
    # Fragment usernames change nothing but need change_info
    with pytest.raises(RpcError, match="CHAT_ADMIN_REQUIRED"):
        await call(b, functions.channels.DeactivateAllUsernames(channel=ic))
    assert await call(a, functions.channels.ToggleUsername(channel=ic, username="x", active=False)) is True
    assert await call(b, functions.channels.ReportSpam(channel=ic, participant=bob, id=[1])) is True
    assert (await call(b, functions.channels.GetGroupsForDiscussion())).chats == []
    send_as = await call(b, functions.channels.GetSendAs(peer=peer))
    assert [p.peer.user_id for p in send_as.peers] == [b]
    flood = await call(b, functions.channels.CheckSearchPostsFlood(query="x"))
    assert flood.query_is_free and flood.remains > 0
    with pytest.raises(RpcError, match="MEGAGROUP_GEO_REQUIRED"):
        await call(
            a,
            functions.channels.EditLocation(channel=ic, geo_point=types.InputGeoPointEmpty(), address=""),
        )
    with pytest.raises(RpcError, match="CHAT_ADMIN_REQUIRED"):
        await call(b, functions.channels.UpdateColor(channel=ic, color=3))
    with pytest.raises(RpcError, match="CHANNEL_INVALID"):  # a broadcast switch
        await call(a, functions.channels.ToggleAutotranslation(channel=ic, enabled=True))
    posts = await call(
        b,
        functions.channels.SearchPosts(
            query="x", offset_rate=0, offset_peer=types.InputPeerEmpty(), offset_id=0, limit=10
        ),
    )
    assert posts.messages == []  # a group without a username is not public
    view = await call(b, functions.channels.ToggleViewForumAsMessages(channel=ic, enabled=True))
    assert [type(u).__name__ for u in view.updates] == ["UpdateChannelViewForumAsMessages"]
    # every one of them refuses a wrong access hash like the real methods
    wrong = types.InputChannel(channel_id=ch.id, access_hash=ch.access_hash ^ 1)
    with pytest.raises(RpcError, match="CHANNEL_PRIVATE"):
        await call(b, functions.channels.ReadMessageContents(channel=wrong, id=[1]))


async def test_unread_mentions_badge_list_and_read(users):
    a, b, c = users
    res = await call(a, functions.messages.CreateChat(users=[iu(a, b), iu(a, c)], title="Team"))
    ch = res.updates.chats[1]
    peer = types.InputPeerChannel(channel_id=ch.id, access_hash=ch.access_hash)

    async def send(text, rid, mention=None):
        ents = (
            [types.InputMessageEntityMentionName(offset=0, length=2, user_id=iu(a, mention))]
            if mention
            else []
        )
        up = await call(
            a, functions.messages.SendMessage(peer=peer, message=text, random_id=rid, entities=ents)
        )
        return next(u.message.id for u in up.updates if isinstance(u, types.UpdateNewChannelMessage))

    def dialogs_req():
        return functions.messages.GetDialogs(
            offset_date=0, offset_id=0, offset_peer=types.InputPeerEmpty(), limit=20, hash=0
        )

    m1 = await send("hi Bob", 1, b)
    await send("no one", 2)
    m3 = await send("yo Bob", 3, b)
    m4 = await send("hey Bob", 4, b)
    (d,) = (await call(b, dialogs_req())).dialogs
    assert d.unread_mentions_count == 3
    (dc,) = (await call(c, dialogs_req())).dialogs
    assert dc.unread_mentions_count == 0
    listing = functions.messages.GetUnreadMentions(
        peer=peer, offset_id=0, add_offset=0, limit=2, max_id=0, min_id=0
    )
    page = await call(b, listing)
    assert [m.id for m in page.messages] == [m4, m3] and page.count == 3
    # Telegram Desktop reads mentioned + media_unread as "an unread mention of me"
    assert all(m.mentioned and m.media_unread for m in page.messages)
    history = functions.messages.GetHistory(
        peer=peer, offset_id=0, offset_date=0, add_offset=0, limit=10, max_id=0, min_id=0, hash=0
    )
    flags = {
        m.id: (m.mentioned, m.media_unread)
        for m in (await call(b, history)).messages
        if hasattr(m, "mentioned")
    }
    assert flags[m4] == (True, True)
    carol_view = {
        m.id: m.media_unread for m in (await call(c, history)).messages if hasattr(m, "media_unread")
    }
    assert carol_view[m4] is False
    ic0 = types.InputChannel(channel_id=ch.id, access_hash=ch.access_hash)
    diff = await call(
        b,
        functions.updates.GetChannelDifference(
            channel=ic0, filter=types.ChannelMessagesFilterEmpty(), pts=1, limit=100
        ),
    )
    replayed = {m.id: m.media_unread for m in diff.new_messages if hasattr(m, "media_unread")}
    assert replayed[m4] is True and replayed[m1] is True
    # a deleted message is no longer an unread mention; reading up to m1 reads that one
    await call(
        a,
        functions.channels.DeleteMessages(
            channel=types.InputChannel(channel_id=ch.id, access_hash=ch.access_hash), id=[m3]
        ),
    )
    ic = types.InputChannel(channel_id=ch.id, access_hash=ch.access_hash)
    assert await call(b, functions.channels.ReadHistory(channel=ic, max_id=m1)) is True
    page = await call(b, listing)
    assert [m.id for m in page.messages] == [m4] and page.count == 1
    affected = await call(b, functions.messages.ReadMentions(peer=peer))
    assert affected.offset == 0
    assert (await call(b, listing)).messages == []
    (d,) = (await call(b, dialogs_req())).dialogs
    assert d.unread_mentions_count == 0
    flags = {
        m.id: (m.mentioned, m.media_unread)
        for m in (await call(b, history)).messages
        if hasattr(m, "mentioned")
    }
    assert flags[m4] == (True, False)  # still a mention, no longer unread
    with pytest.raises(RpcError, match="CHANNEL_PRIVATE"):
        await call(
            b, functions.messages.ReadMentions(peer=types.InputPeerChannel(channel_id=ch.id, access_hash=1))
        )


async def test_a_reply_is_a_mention_of_the_replied_author(users):
    a, b, c = users
    res = await call(a, functions.messages.CreateChat(users=[iu(a, b), iu(a, c)], title="Team"))
    ch = res.updates.chats[1]
    peer = types.InputPeerChannel(channel_id=ch.id, access_hash=ch.access_hash)

    async def send(user, text, rid, reply_to=0):
        reply = types.InputReplyToMessage(reply_to_msg_id=reply_to) if reply_to else None
        up = await call(
            user, functions.messages.SendMessage(peer=peer, message=text, random_id=rid, reply_to=reply)
        )
        return next(u.message for u in up.updates if isinstance(u, types.UpdateNewChannelMessage))

    bobs = await send(b, "question", 1)
    answer = await send(a, "answer", 2, reply_to=bobs.id)
    own = await send(b, "replying to myself", 3, reply_to=bobs.id)
    assert not answer.mentioned  # the sender's own view
    dialogs = functions.messages.GetDialogs(
        offset_date=0, offset_id=0, offset_peer=types.InputPeerEmpty(), limit=20, hash=0
    )
    assert (await call(b, dialogs)).dialogs[0].unread_mentions_count == 1
    assert (await call(c, dialogs)).dialogs[0].unread_mentions_count == 0
    history = functions.messages.GetHistory(
        peer=peer, offset_id=0, offset_date=0, add_offset=0, limit=10, max_id=0, min_id=0, hash=0
    )
    seen_by_b = {m.id: (m.mentioned, m.media_unread) for m in (await call(b, history)).messages}
    assert seen_by_b[answer.id] == (True, True) and seen_by_b[own.id] == (False, False)
    seen_by_c = {m.id: m.mentioned for m in (await call(c, history)).messages if hasattr(m, "mentioned")}
    assert seen_by_c[answer.id] is False
    # Editing the reply's text keeps it a mention of the replied author.
    await call(a, functions.messages.EditMessage(peer=peer, id=answer.id, message="better answer"))
    listing = functions.messages.GetUnreadMentions(
        peer=peer, offset_id=0, add_offset=0, limit=10, max_id=0, min_id=0
    )
    assert [m.id for m in (await call(b, listing)).messages] == [answer.id]


async def test_search_replies_and_discussion(users):
    a, b, _ = users
    res = await call(a, functions.messages.CreateChat(users=[iu(a, b)], title="Team"))
    ch = res.updates.chats[1]
    peer = types.InputPeerChannel(channel_id=ch.id, access_hash=ch.access_hash)

    async def send(who, text, rid, reply_to=0):
        reply = types.InputReplyToMessage(reply_to_msg_id=reply_to) if reply_to else None
        up = await call(
            who, functions.messages.SendMessage(peer=peer, message=text, random_id=rid, reply_to=reply)
        )
        return next(u.message.id for u in up.updates if isinstance(u, types.UpdateNewChannelMessage))

    root = await send(a, "Release plan for Friday", 1)
    r1 = await send(b, "sounds good", 2, root)
    await send(a, "unrelated 100%_done", 3)
    r2 = await send(a, "I will write the notes", 4, r1)  # a reply to a reply stays in root's thread

    def search(q="", **kw):
        return functions.messages.Search(
            peer=peer, q=q, filter=kw.pop("filter", types.InputMessagesFilterEmpty()), min_date=0, max_date=0,
            offset_id=0, add_offset=0, limit=kw.pop("limit", 20), max_id=0, min_id=0, hash=0, **kw,
        )  # fmt: skip

    assert [m.id for m in (await call(b, search("friday"))).messages] == [root]
    assert [m.message for m in (await call(b, search("100%_"))).messages] == ["unrelated 100%_done"]
    assert (await call(b, search("100%x"))).messages == []  # % and _ are literal
    bob = types.InputPeerUser(user_id=b, access_hash=user_access_hash(a, b))
    assert [m.id for m in (await call(a, search(from_id=bob))).messages] == [r1]
    photos = await call(b, search(filter=types.InputMessagesFilterPhotos(), limit=0))
    assert (photos.count, photos.messages) == (0, [])
    with pytest.raises(RpcError, match="LIMIT_INVALID"):
        await call(b, search("x" * 257))
    replies = await call(
        b,
        functions.messages.GetReplies(
            peer=peer,
            msg_id=root,
            offset_id=0,
            offset_date=0,
            add_offset=0,
            limit=10,
            max_id=0,
            min_id=0,
            hash=0,
        ),
    )
    assert [m.id for m in replies.messages] == [r2, r1]
    disc = await call(b, functions.messages.GetDiscussionMessage(peer=peer, msg_id=root))
    assert [m.id for m in disc.messages] == [root] and disc.max_id == r2
    with pytest.raises(RpcError, match="MSG_ID_INVALID"):
        await call(b, functions.messages.GetDiscussionMessage(peer=peer, msg_id=9999))
    assert await call(b, functions.messages.ReadDiscussion(peer=peer, msg_id=root, read_max_id=r2)) is True


async def test_zero_access_hash_from_a_client_is_refused_for_a_public_group(users):
    a, b, c = users
    res = await call(a, functions.messages.CreateChat(users=[iu(a, b)], title="Public"))
    ch = res.updates.chats[1]
    own = types.InputChannel(channel_id=ch.id, access_hash=ch.access_hash)
    assert await call(a, functions.channels.UpdateUsername(channel=own, username="zero_hash_public"))
    # Carol never resolved it: the numeric id with hash 0 reads and joins nothing.
    zero = types.InputChannel(channel_id=ch.id, access_hash=0)
    for req in (
        functions.channels.GetFullChannel(channel=zero),
        functions.channels.JoinChannel(channel=zero),
        functions.messages.GetHistory(
            peer=types.InputPeerChannel(channel_id=ch.id, access_hash=0),
            offset_id=0,
            offset_date=0,
            add_offset=0,
            limit=10,
            max_id=0,
            min_id=0,
            hash=0,
        ),
    ):
        with pytest.raises(RpcError) as err:
            await call(c, req)
        assert err.value.message == "CHANNEL_INVALID", req
    # Also in a vector (what Telethon's resolve-by-id fallback sends and expects).
    with pytest.raises(RpcError) as err:
        await call(c, functions.channels.GetChannels(id=[zero]))
    assert err.value.message == "CHANNEL_INVALID"
    # Resolved by username, the real hash works.
    found = await call(c, functions.contacts.ResolveUsername(username="zero_hash_public"))
    real = types.InputChannel(channel_id=ch.id, access_hash=found.chats[0].access_hash)
    assert await call(c, functions.channels.JoinChannel(channel=real))
    # A member's min reference (no hash) still resolves, and so does InputPeerChat.
    from_message = types.InputChannelFromMessage(peer=types.InputPeerSelf(), msg_id=1, channel_id=ch.id)
    full = await call(b, functions.channels.GetFullChannel(channel=from_message))
    assert full.full_chat.id == ch.id
    hist = await call(
        b,
        functions.messages.GetHistory(
            peer=types.InputPeerChat(chat_id=ch.id),
            offset_id=0,
            offset_date=0,
            add_offset=0,
            limit=10,
            max_id=0,
            min_id=0,
            hash=0,
        ),
    )
    assert hist.messages
