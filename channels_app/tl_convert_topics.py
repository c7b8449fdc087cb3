"""Forum topics as TL: ``forumTopic`` / ``forumTopicDeleted`` and ``messages.forumTopics``."""

from __future__ import annotations

from tl import types

from .tl_convert import message_to_tl


def topic_to_tl(t: dict, viewer_id: int, *, short: bool = False):
    if t["deleted"]:
        return types.ForumTopicDeleted(id=t["id"])
    return types.ForumTopic(
        my=t["creator_user_id"] == viewer_id,
        closed=t["closed"],
        pinned=t["pinned_order"] > 0,
        short=short,
        hidden=t["hidden"],
        id=t["id"],
        date=t["date"],
        peer=types.PeerChannel(channel_id=t["channel_id"]),
        title=t["title"],
        icon_color=t["icon_color"],
        icon_emoji_id=t["icon_emoji_id"] or None,
        top_message=t["top_message_id"],
        read_inbox_max_id=t.get("read_inbox_max_id", 0),
        read_outbox_max_id=t.get("read_outbox_max_id", 0),
        unread_count=t.get("unread_count", 0),
        unread_mentions_count=0,
        unread_reactions_count=0,
        unread_poll_votes_count=0,
        from_id=types.PeerUser(user_id=t["creator_user_id"]),
        notify_settings=types.PeerNotifySettings(),
    )


def topics_to_tl(page, viewer_id: int, users: list, chats: list):
    return types.messages.ForumTopics(
        count=page.count,
        topics=[topic_to_tl(t, viewer_id) for t in page.topics],
        messages=[message_to_tl(m, viewer_id) for m in page.messages],
        chats=chats,
        users=users,
        pts=page.channel["pts"],
    )
