"""Discussion groups (link, roots, comments, thread reads), send-as, and the forum
switches of issue 16, driven through the RPC handlers as a client would call them."""

import pytest
from asgiref.sync import sync_to_async

from accounts_app.actions import do_create_user
from channels_app import actions
from channels_app.actions import admin, admin_log, settings
from channels_app.errors import ChatAdminRequiredError
from channels_app.rights import admin_bit
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


async def fails(user_id, req, message):
    with pytest.raises(RpcError) as e:
        await call(user_id, req)
    assert e.value.message == message
    return e.value


@pytest.fixture
async def users(chan):
    mk = sync_to_async(do_create_user)
    a = await mk("99966160001", "Alice")
    b = await mk("99966160002", "Bob")
    c = await mk("99966160003", "Carol")
    return a.id, b.id, c.id


def ic(ch):
    return types.InputChannel(channel_id=ch["id"], access_hash=ch["access_hash"])


def ip(ch):
    return types.InputPeerChannel(channel_id=ch["id"], access_hash=ch["access_hash"])


async def pair(a, *members):
    """A broadcast and a megagroup, both created by ``a``, with ``members`` in both."""
    b = (await actions.do_create_channel(a, "news", broadcast=True)).channel
    g = (await actions.do_create_channel(a, "talk", megagroup=True)).channel
    if members:
        await actions.do_invite_to_channel(a, b["id"], list(members))
        await actions.do_invite_to_channel(a, g["id"], list(members))
    return b, g


async def link(a, b, g):
    assert await call(a, functions.channels.SetDiscussionGroup(broadcast=ic(b), group=ic(g))) is True


async def fresh(channel_id):
    from channels_app.actions.common import load_channel
    from message_core import db

    async with db.connection() as conn:
        return await load_channel(conn, channel_id)


# ---- the link ----


async def test_set_discussion_group_errors(users):
    a, b_user, _ = users
    b, g = await pair(a, b_user)
    set_ = functions.channels.SetDiscussionGroup
    await fails(a, set_(broadcast=ic(g), group=ic(g)), "BROADCAST_ID_INVALID")
    await fails(a, set_(broadcast=ic(b), group=ic(b)), "MEGAGROUP_ID_INVALID")
    await fails(
        a, set_(broadcast=types.InputChannelEmpty(), group=types.InputChannelEmpty()), "BROADCAST_ID_INVALID"
    )
    wrong = types.InputChannel(channel_id=g["id"], access_hash=g["access_hash"] + 1)
    await fails(a, set_(broadcast=ic(b), group=wrong), "MEGAGROUP_ID_INVALID")
    # nothing linked yet: unlinking either side changes nothing
    await fails(a, set_(broadcast=ic(b), group=types.InputChannelEmpty()), "LINK_NOT_MODIFIED")
    await fails(a, set_(broadcast=types.InputChannelEmpty(), group=ic(g)), "LINK_NOT_MODIFIED")
    # a plain member of both may not link them
    await fails(b_user, set_(broadcast=ic(b), group=ic(g)), "CHAT_ADMIN_REQUIRED")
    # a group whose history is hidden from joiners cannot hold comments
    await settings.do_toggle_pre_history_hidden(a, g["id"], True)
    await fails(a, set_(broadcast=ic(b), group=ic(g)), "MEGAGROUP_PREHISTORY_HIDDEN")
    await settings.do_toggle_pre_history_hidden(a, g["id"], False)
    await link(a, b, g)
    await fails(a, set_(broadcast=ic(b), group=ic(g)), "LINK_NOT_MODIFIED")
    assert (await fresh(b["id"]))["linked_chat_id"] == g["id"]


async def test_link_shows_on_both_sides_and_is_logged(users, chan):
    a, m, _ = users
    b, g = await pair(a, m)
    offered = await call(a, functions.channels.GetGroupsForDiscussion())
    assert [c.id for c in offered.chats] == [g["id"]]  # supergroups only, not the broadcast
    assert (await call(m, functions.channels.GetGroupsForDiscussion())).chats == []  # not an admin
    chan.clear()
    await link(a, b, g)
    updated = {p["channel_id"] for k, p in chan if k == "channel.updated"}
    assert updated == {b["id"], g["id"]}
    for ch, other in ((b, g), (g, b)):
        full = await call(m, functions.channels.GetFullChannel(channel=ic(ch)))
        assert full.full_chat.linked_chat_id == other["id"]
        assert {c.id for c in full.chats} == {b["id"], g["id"]}
        assert next(c for c in full.chats if c.id == ch["id"]).has_link
    # a linked group is no longer offered
    assert (await call(a, functions.channels.GetGroupsForDiscussion())).chats == []
    for ch, prev, new in ((b, 0, g["id"]), (g, 0, b["id"])):
        page = await admin_log.get_admin_log(a, ch["id"], filters={"info"})
        assert [(e["event_type"], e["data"]) for e in page.events] == [
            ("change_linked_chat", {"prev": prev, "new": new})
        ]
    log = await call(
        a,
        functions.channels.GetAdminLog(channel=ic(b), q="", max_id=0, min_id=0, limit=10),
    )
    action = log.events[0].action
    assert (
        isinstance(action, types.ChannelAdminLogEventActionChangeLinkedChat) and action.new_value == g["id"]
    )
    assert g["id"] in {c.id for c in log.chats}


async def test_replacing_and_unlinking(users):
    a, _, _ = users
    b, g1 = await pair(a)
    g2 = (await actions.do_create_channel(a, "talk2", megagroup=True)).channel
    b2 = (await actions.do_create_channel(a, "news2", broadcast=True)).channel
    await link(a, b, g1)
    await link(a, b, g2)  # replaces g1
    assert [(await fresh(c["id"]))["linked_chat_id"] for c in (b, g1, g2)] == [g2["id"], 0, b["id"]]
    await link(a, b2, g2)  # takes g2 away from b
    assert [(await fresh(c["id"]))["linked_chat_id"] for c in (b, b2, g2)] == [0, g2["id"], b2["id"]]
    # unlink from the group's side
    set_ = functions.channels.SetDiscussionGroup
    assert await call(a, set_(broadcast=types.InputChannelEmpty(), group=ic(g2))) is True
    assert [(await fresh(c["id"]))["linked_chat_id"] for c in (b2, g2)] == [0, 0]
    await link(a, b, g1)
    assert await call(a, set_(broadcast=ic(b), group=types.InputChannelEmpty())) is True
    assert [(await fresh(c["id"]))["linked_chat_id"] for c in (b, g1)] == [0, 0]
    chats = await call(a, functions.channels.GetChannels(id=[ic(b), ic(g1)]))
    assert [c.has_link for c in chats.chats] == [False, False]


# ---- posts, roots, comments ----


def _history(peer, limit=10, offset_id=0):
    return functions.messages.GetHistory(
        peer=peer, offset_id=offset_id, offset_date=0, add_offset=0, limit=limit, max_id=0, min_id=0, hash=0
    )


def _replies(peer, msg_id, limit=10, offset_id=0):
    return functions.messages.GetReplies(
        peer=peer, msg_id=msg_id, offset_id=offset_id, offset_date=0, add_offset=0, limit=limit,
        max_id=0, min_id=0, hash=0,
    )  # fmt: skip


async def test_post_gets_root_and_comments_count(users):
    a, m, c = users
    b, g = await pair(a, m)
    await actions.do_invite_to_channel(a, b["id"], [c])  # a subscriber who is not in the group
    await link(a, b, g)
    sent = await call(a, functions.messages.SendMessage(peer=ip(b), message="post", random_id=1))
    post = sent.updates[1].message
    assert post.replies.comments and post.replies.channel_id == g["id"] and post.replies.replies == 0
    hist = await call(m, _history(ip(g), limit=1))
    root = hist.messages[0]
    assert root.message == "post" and root.from_id == types.PeerChannel(channel_id=b["id"])
    assert root.fwd_from.saved_from_peer == types.PeerChannel(channel_id=b["id"])
    assert root.fwd_from.saved_from_msg_id == post.id and root.fwd_from.channel_post == post.id
    assert b["id"] in {ch.id for ch in hist.chats}
    # the root is reached from the post
    disc = await call(c, functions.messages.GetDiscussionMessage(peer=ip(b), msg_id=post.id))
    assert [x.id for x in disc.messages] == [root.id] and disc.unread_count == 0
    assert {ch.id for ch in disc.chats} >= {b["id"], g["id"]}
    # comments: replies into the root's thread, from the group's members
    ids = []
    for i in range(3):
        r = await call(
            m,
            functions.messages.SendMessage(
                peer=ip(g), message=f"c{i}", random_id=10 + i,
                reply_to=types.InputReplyToMessage(reply_to_msg_id=root.id),
            ),
        )  # fmt: skip
        ids.append(r.updates[1].message.id)
    got = await call(c, functions.channels.GetMessages(channel=ic(b), id=[types.InputMessageID(id=post.id)]))
    replies = got.messages[0].replies
    assert (replies.replies, replies.max_id, replies.channel_id) == (3, ids[-1], g["id"])
    assert replies.recent_repliers == [types.PeerUser(user_id=m)]
    assert m in {u.id for u in got.users}
    views = await call(c, functions.messages.GetMessagesViews(peer=ip(b), id=[post.id], increment=False))
    assert views.views[0].replies.replies == 3
    # the subscriber pages the comments through the post, newest first
    page = await call(c, _replies(ip(b), post.id, limit=2))
    assert [x.id for x in page.messages] == ids[:0:-1]
    page2 = await call(c, _replies(ip(b), post.id, limit=2, offset_id=ids[1]))
    assert [x.id for x in page2.messages] == ids[:1]
    assert g["id"] in {ch.id for ch in page.chats}
    disc = await call(c, functions.messages.GetDiscussionMessage(peer=ip(b), msg_id=post.id))
    assert (disc.max_id, disc.unread_count, disc.read_inbox_max_id) == (ids[-1], 3, None)
    # a real per-thread read mark, never past the newest comment and never lowered
    assert await call(c, functions.messages.ReadDiscussion(peer=ip(b), msg_id=post.id, read_max_id=ids[1]))
    disc = await call(c, functions.messages.GetDiscussionMessage(peer=ip(b), msg_id=post.id))
    assert (disc.read_inbox_max_id, disc.unread_count) == (ids[1], 1)
    await call(c, functions.messages.ReadDiscussion(peer=ip(b), msg_id=post.id, read_max_id=ids[0]))
    await call(c, functions.messages.ReadDiscussion(peer=ip(b), msg_id=post.id, read_max_id=10**6))
    got = await call(c, functions.channels.GetMessages(channel=ic(b), id=[types.InputMessageID(id=post.id)]))
    assert got.messages[0].replies.read_max_id == ids[-1]
    # another viewer's mark is their own
    got = await call(m, functions.channels.GetMessages(channel=ic(b), id=[types.InputMessageID(id=post.id)]))
    assert got.messages[0].replies.read_max_id is None


async def test_thread_errors_on_posts_without_comments(users):
    a, m, _ = users
    b, g = await pair(a, m)
    sent = await call(a, functions.messages.SendMessage(peer=ip(b), message="early", random_id=1))
    post = sent.updates[1].message
    assert post.replies is None  # no group linked when it was posted
    await fails(m, functions.messages.GetDiscussionMessage(peer=ip(b), msg_id=post.id), "MSG_ID_INVALID")
    await fails(m, _replies(ip(b), post.id), "MSG_ID_INVALID")
    await fails(
        m, functions.messages.ReadDiscussion(peer=ip(b), msg_id=post.id, read_max_id=1), "MSG_ID_INVALID"
    )
    await link(a, b, g)
    await fails(m, functions.messages.GetDiscussionMessage(peer=ip(b), msg_id=post.id), "MSG_ID_INVALID")
    await fails(m, functions.messages.GetDiscussionMessage(peer=ip(b), msg_id=10**6), "MSG_ID_INVALID")


async def test_megagroup_thread_read_mark(users):
    a, m, _ = users
    g = (await actions.do_create_channel(a, "g", megagroup=True, invite_user_ids=[m])).channel
    top = (await actions.do_send_message(a, g["id"], "q", 1)).events[0].message["id"]
    r1 = (await actions.do_send_message(a, g["id"], "a1", 2, reply_to_msg_id=top)).events[0].message["id"]
    disc = await call(m, functions.messages.GetDiscussionMessage(peer=ip(g), msg_id=top))
    assert (disc.messages[0].replies.replies, disc.max_id, disc.unread_count) == (1, r1, 1)
    await call(m, functions.messages.ReadDiscussion(peer=ip(g), msg_id=top, read_max_id=r1))
    disc = await call(m, functions.messages.GetDiscussionMessage(peer=ip(g), msg_id=top))
    assert (disc.read_inbox_max_id, disc.unread_count) == (r1, 0)


# ---- send-as ----


async def test_send_as_for_anonymous_admins(users):
    a, m, c = users
    g = (await actions.do_create_channel(a, "g", megagroup=True, invite_user_ids=[m, c])).channel
    offers = await call(m, functions.channels.GetSendAs(peer=ip(g)))
    assert [p.peer for p in offers.peers] == [types.PeerUser(user_id=m)]
    # a member may not send as the group, explicitly or as a saved default
    send = functions.messages.SendMessage
    await fails(m, send(peer=ip(g), message="x", random_id=1, send_as=ip(g)), "SEND_AS_PEER_INVALID")
    await fails(m, functions.messages.SaveDefaultSendAs(peer=ip(g), send_as=ip(g)), "SEND_AS_PEER_INVALID")
    other = (await actions.do_create_channel(m, "other", megagroup=True)).channel
    await fails(m, send(peer=ip(g), message="x", random_id=1, send_as=ip(other)), "SEND_AS_PEER_INVALID")
    await admin.do_edit_admin(a, g["id"], m, admin_bit("anonymous") | admin_bit("pin_messages"), rank="boss")
    offers = await call(m, functions.channels.GetSendAs(peer=ip(g)))
    assert [p.peer for p in offers.peers] == [
        types.PeerUser(user_id=m),
        types.PeerChannel(channel_id=g["id"]),
    ]
    assert g["id"] in {ch.id for ch in offers.chats}
    sent = await call(m, send(peer=ip(g), message="anon", random_id=2, send_as=ip(g)))
    msg = sent.updates[1].message
    assert msg.from_id == types.PeerChannel(channel_id=g["id"]) and msg.post_author == "boss"
    seen = (await call(c, _history(ip(g), limit=1))).messages[0]
    assert seen.from_id == types.PeerChannel(channel_id=g["id"]) and seen.message == "anon"
    assert m not in {u.id for u in (await call(c, _history(ip(g), limit=1))).users}
    # the saved default is used when a send names none, and shown in the full channel
    full = await call(m, functions.channels.GetFullChannel(channel=ic(g)))
    assert full.full_chat.default_send_as == types.PeerUser(user_id=m)
    assert await call(m, functions.messages.SaveDefaultSendAs(peer=ip(g), send_as=ip(g)))
    full = await call(m, functions.channels.GetFullChannel(channel=ic(g)))
    assert full.full_chat.default_send_as == types.PeerChannel(channel_id=g["id"])
    sent = await call(m, send(peer=ip(g), message="default", random_id=3))
    assert sent.updates[1].message.from_id == types.PeerChannel(channel_id=g["id"])
    sent = await call(m, send(peer=ip(g), message="me", random_id=4, send_as=types.InputPeerSelf()))
    assert sent.updates[1].message.from_id == types.PeerUser(user_id=m)
    # demoted: the default falls back to the user; asking for the group is refused
    await admin.do_edit_admin(a, g["id"], m, 0)
    sent = await call(m, send(peer=ip(g), message="after", random_id=5))
    assert sent.updates[1].message.from_id == types.PeerUser(user_id=m)
    await fails(m, send(peer=ip(g), message="x", random_id=6, send_as=ip(g)), "SEND_AS_PEER_INVALID")
    full = await call(m, functions.channels.GetFullChannel(channel=ic(g)))
    assert full.full_chat.default_send_as is None


async def test_send_as_in_forwards_and_for_the_creator(users):
    a, m, _ = users
    g = (await actions.do_create_channel(a, "g", megagroup=True, invite_user_ids=[m])).channel
    src = (await actions.do_send_message(m, g["id"], "source", 1)).events[0].message
    fwd = await call(
        a,
        functions.messages.ForwardMessages(
            from_peer=ip(g), id=[src["id"]], random_id=[7], to_peer=ip(g), send_as=ip(g)
        ),
    )
    assert fwd.updates[1].message.from_id == types.PeerChannel(channel_id=g["id"])
    await fails(
        m,
        functions.messages.ForwardMessages(
            from_peer=ip(g), id=[src["id"]], random_id=[8], to_peer=ip(g), send_as=ip(g)
        ),
        "SEND_AS_PEER_INVALID",
    )
    b = (await actions.do_create_channel(a, "news", broadcast=True)).channel
    offers = await call(a, functions.channels.GetSendAs(peer=ip(b)))
    assert types.PeerChannel(channel_id=b["id"]) in [p.peer for p in offers.peers]


# ---- forum switches ----


async def test_toggle_forum_is_for_the_creator_and_stores_tabs(users):
    a, m, _ = users
    g = (await actions.do_create_channel(a, "g", megagroup=True, invite_user_ids=[m])).channel
    await admin.do_edit_admin(a, g["id"], m, admin_bit("change_info"))
    await fails(
        m, functions.channels.ToggleForum(channel=ic(g), enabled=True, tabs=False), "CHAT_ADMIN_REQUIRED"
    )
    with pytest.raises(ChatAdminRequiredError):
        await settings.do_toggle_forum(m, g["id"], True)
    res = await call(a, functions.channels.ToggleForum(channel=ic(g), enabled=True, tabs=True))
    ch = next(c for c in res.chats if c.id == g["id"])
    assert ch.forum and ch.forum_tabs
    res = await call(a, functions.channels.ToggleForum(channel=ic(g), enabled=True, tabs=False))
    assert not next(c for c in res.chats if c.id == g["id"]).forum_tabs
    await fails(
        a, functions.channels.ToggleForum(channel=ic(g), enabled=True, tabs=False), "CHAT_NOT_MODIFIED"
    )
    page = await admin_log.get_admin_log(a, g["id"], filters={"forums"})
    assert len(page.events) == 1  # only the forum flag itself is logged


async def test_create_forum_topic_is_idempotent_on_random_id(users):
    a, _, _ = users
    g = (await actions.do_create_channel(a, "g", megagroup=True)).channel
    await settings.do_toggle_forum(a, g["id"], True)
    create = functions.messages.CreateForumTopic(peer=ip(g), title="t", random_id=99)
    first = await call(a, create)
    again = await call(a, create)
    ids = [u.id for u in first.updates if isinstance(u, types.UpdateMessageID)]
    assert ids == [u.id for u in again.updates if isinstance(u, types.UpdateMessageID)]
    topics = await call(
        a, functions.messages.GetForumTopics(peer=ip(g), offset_date=0, offset_id=0, offset_topic=0, limit=10)
    )
    assert [t.id for t in topics.topics if t.id != 1] == ids
