"""messages.* methods that take any peer: each resolves the peer's kind once and calls
that kind's domain (a user peer: ``private_peer``; a channel peer: ``channels_app``).
Forwards may cross between the two kinds."""

from __future__ import annotations

from bots_app import markup as bot_markup
from channels_app import account_updates, actions, notify, tl_convert
from channels_app.actions import discussion, topics, views
from channels_app.actions import mentions as mention_actions
from channels_app.rpc.channels import read_channel
from channels_app.rpc.context import change_to_updates, context_for
from channels_app.tl_convert_topics import topic_to_tl
from edge_app.push import push_to_users, renderer
from edge_app.registry import rpc
from message_core import limits
from message_core import tl_convert as core_tl
from message_core.context import answer_without_updates, own_session, resolve_input_user, viewer
from tl import functions, types
from tl.errors import (
    ChannelPrivateError,
    LimitInvalidError,
    MsgIdInvalidError,
    PeerIdInvalidError,
)

from ..media_input import edited_media
from ..peers import channel_peer, checked_channel, is_user_peer, media_filter_kinds, peer_user_id, send_as_id
from . import private_peer, scheduled, webpages


async def _sender_name(me: int) -> str:
    from asgiref.sync import sync_to_async

    from accounts_app.models import User

    def load():
        u = User.objects.filter(id=me).only("first_name", "last_name").first()
        return " ".join(p for p in (u.first_name, u.last_name) if p) if u else ""

    try:
        return await sync_to_async(load)()
    except Exception:
        return ""


@rpc(functions.messages.SendMessage)
async def send_message(ctx, req: functions.messages.SendMessage):
    return await send_text(ctx, req)


async def send_text(ctx, req: functions.messages.SendMessage, preview: dict | None = None):
    """A text message; ``preview``: the link preview the client chose (inputMediaWebPage),
    else the server previews the first link of the text."""
    me = viewer(ctx)
    if req.schedule_date is not None:
        scheduled.check_date(req.schedule_date, req.peer)
        webpages.check_text(req.message)
        if preview is None:
            preview = await _preview(me, req, wait=True)
        return await scheduled.schedule_message(ctx, req, preview)
    if preview is None:
        webpages.check_text(req.message)
        preview = await _preview(me, req)
    if is_user_peer(req.peer):
        return await private_peer.send_message(ctx, req, preview)
    cid, access_hash = channel_peer(req.peer)
    reply_to_msg_id = top_msg_id = 0
    quote_text = quote_entities = quote_offset = None
    r = req.reply_to
    if isinstance(r, types.InputReplyToMessage):
        if r.reply_to_peer_id is not None and channel_peer(r.reply_to_peer_id)[0] != cid:
            raise PeerIdInvalidError()  # cross-chat replies are not modelled
        reply_to_msg_id, top_msg_id = r.reply_to_msg_id, r.top_msg_id or 0
        quote_text, quote_offset = r.quote_text, r.quote_offset
        quote_entities = (
            core_tl.entities_from_tl(r.quote_entities, resolve_input_user(me)) if r.quote_entities else None
        )
    entities = core_tl.entities_from_tl(req.entities, resolve_input_user(me))
    markup = await bot_markup.markup_for_sender(me, req.reply_markup, resolve_input_user(me))
    change = await actions.do_send_message(
        me, cid, req.message, req.random_id, entities=entities, reply_to_msg_id=reply_to_msg_id,
        top_msg_id=top_msg_id, quote_text=quote_text, quote_entities=quote_entities, quote_offset=quote_offset,
        silent=req.silent, sender_name=lambda: _sender_name(me), access_hash=access_hash,
        send_as=send_as_id(me, req.send_as), reply_markup=markup, media=preview,
    )  # fmt: skip
    if not change.duplicate:
        await webpages.after_send(preview, webpages.channel_refs(change))
    return await change_to_updates(me, change)


async def _preview(me: int, req, *, wait: bool = False) -> dict | None:
    entities = core_tl.entities_from_tl(req.entities, resolve_input_user(me))
    return await webpages.preview_for(
        req.message, entities, no_webpage=bool(req.no_webpage), invert_media=bool(req.invert_media), wait=wait
    )


@rpc(functions.messages.ForwardMessages)
async def forward_messages(ctx, req: functions.messages.ForwardMessages):
    me = viewer(ctx)
    if req.schedule_date is not None:
        scheduled.check_date(req.schedule_date, req.to_peer)
    if len(req.id) > limits.FORWARD_IDS_MAX or len(req.random_id) > limits.FORWARD_IDS_MAX:
        raise LimitInvalidError()
    src = None
    if is_user_peer(req.from_peer):
        items = await private_peer.forwardable(ctx, req.from_peer, list(req.id))
        source = ("u", peer_user_id(me, req.from_peer))
    else:
        src, _ = await checked_channel(me, req.from_peer, preview=True)
        _, items = await actions.get_forwardable(me, src["id"], list(req.id))
        source = ("c", src["id"])
    # Only what exists is forwarded; random ids follow their source message.
    by_id = {it["source"]["id"]: it for it in items}
    pairs = [(by_id[i], rid) for i, rid in zip(req.id, req.random_id, strict=False) if i in by_id]
    if req.schedule_date is not None:
        return await scheduled.schedule_forward(ctx, req, [p[0] for p in pairs], [p[1] for p in pairs])
    if is_user_peer(req.to_peer):
        answer = await private_peer.forward_to_user(
            ctx, req, [p[0] for p in pairs], [p[1] for p in pairs], source
        )
    else:
        dst, _ = await checked_channel(me, req.to_peer)
        name = await _sender_name(me) if dst["broadcast"] and dst["signatures"] else ""
        change = await actions.do_forward_to_channel(
            me, dst["id"], [p[0] for p in pairs], [p[1] for p in pairs], drop_author=req.drop_author,
            silent=req.silent, sender_name=name, top_msg_id=req.top_msg_id or 0,
            send_as=send_as_id(me, req.send_as),
        )  # fmt: skip
        answer = await change_to_updates(me, change)
    if src is not None and src["broadcast"]:
        await views.do_count_forwards(src["id"], [p[0]["source"]["id"] for p in pairs])
    return answer


async def _current_media(me: int, channel_id: int, msg_id: int) -> dict | None:
    h = await actions.get_messages(me, channel_id, [msg_id])
    m = h.messages[0]
    return None if not m or m.get("empty") else m.get("media")


@rpc(functions.messages.EditMessage)
async def edit_message(ctx, req: functions.messages.EditMessage):
    if req.schedule_date is not None:
        return await scheduled.edit_scheduled(ctx, req, await edited_media(viewer(ctx), req.media))
    if is_user_peer(req.peer):
        return await private_peer.edit_message(ctx, req)
    me = viewer(ctx)
    channel, _ = await checked_channel(me, req.peer)
    media = await edited_media(me, req.media, current=lambda: _current_media(me, channel["id"], req.id))
    if media and media.get("close_poll"):
        from .polls import close_by_edit

        return await close_by_edit(ctx, me, media["close_poll"])
    entities = core_tl.entities_from_tl(req.entities, resolve_input_user(me))
    markup = await bot_markup.edit_markup_args(me, req.reply_markup, resolve_input_user(me))
    relink = req.message is not None and req.media is None
    preview = await _preview(me, req) if relink else None
    change = await actions.do_edit_message(
        me, channel["id"], req.id, req.message, entities, media=media, link_preview=preview, relink=relink,
        **markup,
    )  # fmt: skip
    await webpages.after_send(preview, webpages.channel_refs(change))
    return await change_to_updates(me, change)


@rpc(functions.messages.GetHistory)
async def get_history(ctx, req: functions.messages.GetHistory):
    if is_user_peer(req.peer):
        return await private_peer.get_history(ctx, req)
    me = viewer(ctx)
    channel, _ = await checked_channel(me, req.peer, preview=True)
    h = await actions.get_history(
        me, channel["id"], offset_id=req.offset_id, offset_date=req.offset_date, add_offset=req.add_offset,
        limit=req.limit, max_id=req.max_id, min_id=req.min_id,
    )  # fmt: skip
    users, chats = await context_for(
        me, h.messages, (), [channel["id"]], {channel["id"]: (h.channel, h.member)}
    )
    return tl_convert.channel_messages_to_tl(h, me, users, chats)


@rpc(functions.messages.ReadHistory)
async def read_history(ctx, req: functions.messages.ReadHistory):
    if is_user_peer(req.peer):
        return await private_peer.read_history(ctx, req)
    me = viewer(ctx)
    channel, _ = await checked_channel(me, req.peer)
    res = await read_channel(ctx, me, channel["id"], req.max_id)
    return core_tl.affected_messages_to_tl(res["pts"], 0)


@rpc(functions.messages.DeleteHistory)
async def delete_history(ctx, req: functions.messages.DeleteHistory):
    if is_user_peer(req.peer):
        return await private_peer.delete_history(ctx, req)
    me = viewer(ctx)
    answer_without_updates()
    channel, _ = await checked_channel(me, req.peer)
    ch, event, applied, more = await actions.do_delete_history(
        me, channel["id"], req.max_id, for_everyone=req.revoke
    )
    if event is None:
        await account_updates.append(
            me,
            account_updates.AVAILABLE_MESSAGES,
            {"channel_id": ch["id"], "available_min_id": applied},
            exclude=own_session(ctx),
        )
        return core_tl.affected_history_to_tl(ch["pts"], 0, False)
    return core_tl.affected_history_to_tl(event.pts, event.pts_count, more)


@rpc(functions.messages.SetTyping)
async def set_typing(ctx, req: functions.messages.SetTyping):
    me = viewer(ctx)
    if req.top_msg_id is not None and not 0 <= req.top_msg_id <= limits.MAX_MESSAGE_ID:
        raise MsgIdInvalidError()
    if is_user_peer(req.peer):
        return await private_peer.set_typing(ctx, req)
    channel, member = await checked_channel(me, req.peer)
    if member is None or member["status"] != "active":
        raise ChannelPrivateError()
    await notify.publish(
        "channel.typing",
        {
            "channel_id": channel["id"],
            "user_id": me,
            "action": req.action.to_bytes().hex(),
            "top_msg_id": req.top_msg_id or 0,
        },
    )
    return True


@rpc(functions.messages.GetUnreadMentions)
async def get_unread_mentions(ctx, req: functions.messages.GetUnreadMentions):
    """The viewer's unread mentions in a channel, newest first (topics: not modelled,
    so top_msg_id narrows nothing)."""
    me = viewer(ctx)
    channel, _ = await checked_channel(me, req.peer)
    ids, total = await mention_actions.unread_mention_ids(
        me, channel["id"], offset_id=req.offset_id, add_offset=req.add_offset, limit=req.limit,
        max_id=req.max_id, min_id=req.min_id,
    )  # fmt: skip
    h = await actions.get_existing_messages(me, channel["id"], ids)
    h.count = total
    users, chats = await context_for(
        me, h.messages, (), [channel["id"]], {channel["id"]: (h.channel, h.member)}
    )
    return tl_convert.channel_messages_to_tl(h, me, users, chats)


@rpc(functions.messages.ReadMentions)
async def read_mentions(ctx, req: functions.messages.ReadMentions):
    me = viewer(ctx)
    channel, _ = await checked_channel(me, req.peer)
    pts, more = await mention_actions.do_read_mentions(me, channel["id"])
    return core_tl.affected_history_to_tl(pts, 0, more)


def _search_from_user(me: int, from_id) -> int:
    if from_id is None:
        return 0
    if isinstance(from_id, types.InputPeerSelf):
        return me
    if isinstance(from_id, types.InputPeerUser):
        from accounts_app.access import check_input_peer_user

        return check_input_peer_user(me, from_id)
    raise PeerIdInvalidError()


@rpc(functions.messages.Search)
async def search(ctx, req: functions.messages.Search):
    """Text / sender / date / media-kind search in one channel; the pinned filter lists
    the pinned messages; other filters (geo, chat photos, mentions...) find nothing."""
    if is_user_peer(req.peer):
        return await private_peer.search(ctx, req)
    me = viewer(ctx)
    channel, member = await checked_channel(me, req.peer, preview=True)
    known = {channel["id"]: (channel, member)}
    if isinstance(req.filter, types.InputMessagesFilterPinned):
        ids = await actions.pinned_message_ids(channel["id"], min(req.limit or 100, limits.HISTORY_LIMIT))
        h = await actions.get_existing_messages(me, channel["id"], ids)
    elif (
        not isinstance(req.filter, types.InputMessagesFilterEmpty) and media_filter_kinds(req.filter) is None
    ):
        return tl_convert.empty_channel_messages_to_tl(channel["pts"])
    else:
        h = await actions.get_history(
            me, channel["id"], offset_id=req.offset_id, add_offset=req.add_offset, limit=req.limit,
            max_id=req.max_id, min_id=req.min_id, q=req.q.strip(), thread_id=req.top_msg_id or 0,
            from_user_id=_search_from_user(me, req.from_id), min_date=req.min_date, max_date=req.max_date,
            media_kinds=media_filter_kinds(req.filter) or (),
        )  # fmt: skip
    users, chats = await context_for(me, h.messages, (), [channel["id"]], known)
    return tl_convert.channel_messages_to_tl(h, me, users, chats)


@rpc(functions.messages.GetReplies)
async def get_replies(ctx, req: functions.messages.GetReplies):
    """A thread: the replies whose thread top is msg_id (seek like getHistory). A post
    of a linked broadcast pages its comments, through its root in the group."""
    me = viewer(ctx)
    channel, member = await checked_channel(me, req.peer, preview=True)
    thread = await discussion.resolve_thread(me, channel, member, req.msg_id)
    if thread.post is None:
        await actions.get_thread_root(me, channel["id"], req.msg_id)
    h = await actions.get_history(
        me, thread.channel_id, offset_id=req.offset_id, offset_date=req.offset_date, add_offset=req.add_offset,
        limit=req.limit, max_id=req.max_id, min_id=req.min_id, thread_id=thread.top_id,
        via_post=thread.post is not None,
    )  # fmt: skip
    users, chats = await context_for(
        me, h.messages, (), [thread.channel_id, channel["id"]], {thread.channel_id: (h.channel, h.member)}
    )
    answer = tl_convert.channel_messages_to_tl(h, me, users, chats)
    if thread.post is None and channel["forum"] and channel["megagroup"]:
        # A topic's thread names its topic (the short form: no top message of its own).
        page = await topics.get_topics_by_id(me, channel["id"], [req.msg_id])
        answer.topics = [topic_to_tl(t, me, short=True) for t in page.topics if t["id"] != 1]
    return answer


@rpc(functions.messages.GetDiscussionMessage)
async def get_discussion_message(ctx, req: functions.messages.GetDiscussionMessage):
    """The message a thread hangs on, with the viewer's read state in it: in a
    megagroup the message itself; for a post of a linked broadcast its root in the
    discussion group."""
    me = viewer(ctx)
    channel, member = await checked_channel(me, req.peer, preview=True)
    thread = await discussion.resolve_thread(me, channel, member, req.msg_id)
    if thread.post is None:
        found = await actions.get_thread_root(me, channel["id"], req.msg_id)
        root, known = found.messages[0], {channel["id"]: (found.channel, found.member)}
    else:
        root, known = thread.root, None
    await discussion.attach_read_marks(me, [root])
    state = await discussion.thread_state(me, thread.channel_id, thread.top_id)
    users, chats = await context_for(me, [root], (), [thread.channel_id, channel["id"]], known)
    return tl_convert.discussion_message_to_tl(root, me, state, users, chats)


READ_DISCUSSION = "channel.read_discussion"


@rpc(functions.messages.ReadDiscussion)
async def read_discussion(ctx, req: functions.messages.ReadDiscussion):
    """The viewer's read mark inside one thread (a post's comments, a reply thread or a
    forum topic), stored per thread; the viewer's other sessions are told."""
    me = viewer(ctx)
    channel, member = await checked_channel(me, req.peer, preview=True)
    thread = await discussion.resolve_thread(me, channel, member, req.msg_id)
    if thread.post is None:
        await actions.get_thread_root(me, channel["id"], req.msg_id)
    mark = await discussion.do_read_thread(me, thread.channel_id, thread.top_id, req.read_max_id)
    if mark is not None:
        payload = {"channel_id": thread.channel_id, "top_msg_id": thread.top_id, "read_max_id": mark}
        if thread.post is not None:
            payload["post"] = [channel["id"], req.msg_id]
        await push_to_users([me], READ_DISCUSSION, payload, exclude=own_session(ctx))
    return True


@renderer(READ_DISCUSSION)
async def _render_read_discussion(payload: dict, viewer_id: int):
    post = payload.get("post")
    update = tl_convert.read_discussion_to_tl(
        payload["channel_id"], payload["top_msg_id"], payload["read_max_id"], tuple(post) if post else None
    )
    return tl_convert.updates_to_tl([update], [], [])
