"""messages.* forum topic methods. Only a forum megagroup has topics, so each resolves
the peer as a channel (a user peer: PEER_ID_INVALID) and calls channels_app's topics."""

from __future__ import annotations

from channels_app import tl_convert
from channels_app.actions import messages, topics
from channels_app.rpc.context import change_to_updates, context_for
from channels_app.tl_convert_topics import topics_to_tl
from edge_app.registry import rpc
from message_core.context import viewer
from message_core.tl_convert import affected_history_to_tl
from tl import functions

from ..peers import checked_channel


async def _page_to_tl(me: int, page):
    known = {page.channel["id"]: (page.channel, page.member)}
    creators = {t["creator_user_id"] for t in page.topics if not t["deleted"]}
    users, chats = await context_for(me, page.messages, creators, [page.channel["id"]], known)
    return topics_to_tl(page, me, users, chats)


@rpc(functions.messages.CreateForumTopic)
async def create_forum_topic(ctx, req: functions.messages.CreateForumTopic):
    me = viewer(ctx)
    channel, _ = await checked_channel(me, req.peer)
    change = await topics.do_create_topic(
        me, channel["id"], req.title, req.icon_color, req.icon_emoji_id, req.random_id
    )
    return await change_to_updates(me, change)


@rpc(functions.messages.EditForumTopic)
async def edit_forum_topic(ctx, req: functions.messages.EditForumTopic):
    me = viewer(ctx)
    channel, _ = await checked_channel(me, req.peer)
    change = await topics.do_edit_topic(
        me, channel["id"], req.topic_id, title=req.title, icon_emoji_id=req.icon_emoji_id,
        closed=req.closed, hidden=req.hidden,
    )  # fmt: skip
    return await change_to_updates(me, change)


@rpc(functions.messages.GetForumTopics)
async def get_forum_topics(ctx, req: functions.messages.GetForumTopics):
    me = viewer(ctx)
    channel, _ = await checked_channel(me, req.peer, preview=True)
    page = await topics.get_topics(
        me, channel["id"], q=req.q or "", offset_date=req.offset_date, offset_id=req.offset_id,
        offset_topic=req.offset_topic, limit=req.limit,
    )  # fmt: skip
    return await _page_to_tl(me, page)


@rpc(functions.messages.GetForumTopicsByID)
async def get_forum_topics_by_id(ctx, req: functions.messages.GetForumTopicsByID):
    me = viewer(ctx)
    channel, _ = await checked_channel(me, req.peer, preview=True)
    return await _page_to_tl(me, await topics.get_topics_by_id(me, channel["id"], list(req.topics)))


async def _order_updates(me: int, channel: dict, order: list[int]):
    users, chats = await context_for(me, [], (), [channel["id"]])
    return tl_convert.updates_to_tl([tl_convert.pinned_topics_to_tl(channel["id"], order)], users, chats)


@rpc(functions.messages.UpdatePinnedForumTopic)
async def update_pinned_forum_topic(ctx, req: functions.messages.UpdatePinnedForumTopic):
    me = viewer(ctx)
    channel, _ = await checked_channel(me, req.peer)
    order = await topics.do_pin_topic(me, channel["id"], req.topic_id, bool(req.pinned))
    return await _order_updates(me, channel, order)


@rpc(functions.messages.ReorderPinnedForumTopics)
async def reorder_pinned_forum_topics(ctx, req: functions.messages.ReorderPinnedForumTopics):
    me = viewer(ctx)
    channel, _ = await checked_channel(me, req.peer)
    order = await topics.do_reorder_pinned_topics(me, channel["id"], list(req.order), bool(req.force))
    return await _order_updates(me, channel, order)


@rpc(functions.messages.DeleteTopicHistory)
async def delete_topic_history(ctx, req: functions.messages.DeleteTopicHistory):
    me = viewer(ctx)
    channel, _ = await checked_channel(me, req.peer)
    event, more = await messages.do_delete_topic_history(me, channel["id"], req.top_msg_id)
    if event is None:
        return affected_history_to_tl(channel["pts"], 0, False)
    return affected_history_to_tl(event.pts, event.pts_count, more)
