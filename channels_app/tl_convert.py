"""Domain <-> TL for channels: the only module of channels_app that builds TL objects.

Rendering is per viewer: ``out`` (the viewer sent it), ``mentioned`` (a mention-name
entity names the viewer), the viewer's creator/left/admin state on ``channel``. Every
response carries the users and channels its messages reference (sender, forward
header, service action) so clients can apply it at once.
"""

from __future__ import annotations

import os
import time

from media_app.tl_convert import chat_photo_to_tl, media_to_tl, photo_to_tl
from message_core import reactions as rx
from message_core.tl_convert import (
    draft_to_tl,
    entities_to_tl,
    fwd_header_to_tl,
    message_reactions_to_tl,
    message_reactions_update_to_tl,
    post_views,
)
from message_core.tl_convert_markup import reply_markup_to_tl, visible_markup
from stickers_app.tl_convert import sticker_set_to_tl
from tl import types

from . import rights
from .actions.mentions import mentioned_user_ids
from .domain import ChannelEvent, Dialogs, Difference, History

# --- chats -------------------------------------------------------------------------


def admin_rights_to_tl(mask: int):
    return types.ChatAdminRights(**rights.flags_to_names(mask, rights.ADMIN_FLAGS))


def banned_rights_to_tl(mask: int, until: int = 0):
    return types.ChatBannedRights(until_date=until, **rights.flags_to_names(mask, rights.BANNED_FLAGS))


def peer_color_to_tl(color: int | None, background_emoji_id: int | None):
    if color is None and not background_emoji_id:
        return None
    return types.PeerColor(color=color, background_emoji_id=background_emoji_id or None)


def emoji_status_to_tl(document_id: int | None, until: int | None):
    if not document_id:
        return None
    return types.EmojiStatus(document_id=document_id, until=until or None)


def unknown_channel_to_tl(channel_id: int):
    """A channel an update names whose row is gone (or was never there): named as one
    the viewer cannot open, so the update still carries every chat it names."""
    return types.ChannelForbidden(id=channel_id, access_hash=0, title="")


def channel_to_tl(ch: dict, member: dict | None, *, min_: bool = False, join: dict | None = None):
    if ch["deleted"] or (member is not None and member["status"] in ("kicked", "banned")):
        return types.ChannelForbidden(
            broadcast=ch["broadcast"], megagroup=ch["megagroup"], id=ch["id"], access_hash=ch["access_hash"],
            title=ch["title"], until_date=(member or {}).get("banned_until") or None,
        )  # fmt: skip
    active = member is not None and member["status"] == "active"
    creator = active and member["role"] == "creator"
    admin = active and member["role"] in ("creator", "admin")
    banned = member["banned_rights"] if active and member["banned_rights"] else 0
    return types.Channel(
        creator=creator,
        left=not active,
        broadcast=ch["broadcast"],
        megagroup=ch["megagroup"],
        signatures=ch["signatures"],
        slowmode_enabled=ch["slowmode_seconds"] > 0,
        noforwards=ch["noforwards"],
        forum=ch["forum"],
        forum_tabs=bool(ch.get("forum_tabs")) and ch["forum"],
        has_link=bool(ch.get("linked_chat_id")),
        join_to_send=bool(join and join["join_to_send"]),
        join_request=bool(join and join["join_request"]),
        min=min_,
        id=ch["id"],
        access_hash=None if min_ else ch["access_hash"],
        title=ch["title"],
        username=ch["username"] or None,
        photo=chat_photo_to_tl(ch.get("photo")),
        date=member["joined_at"] if active else ch["date"],
        admin_rights=admin_rights_to_tl(member["admin_rights"]) if admin else None,
        banned_rights=banned_rights_to_tl(banned, member["banned_until"]) if banned else None,
        default_banned_rights=banned_rights_to_tl(ch["default_banned_rights"]) if ch["megagroup"] else None,
        participants_count=ch["participants_count"],
        color=peer_color_to_tl(ch["color"], ch["color_background_emoji_id"]),
        profile_color=peer_color_to_tl(ch["profile_color"], ch["profile_background_emoji_id"]),
        emoji_status=emoji_status_to_tl(ch["emoji_status_document_id"], ch["emoji_status_until"]),
        autotranslation=ch["autotranslation"],
        broadcast_messages_allowed=ch["broadcast"] and ch["broadcast_messages_allowed"],
        send_paid_messages_stars=ch["send_paid_messages_stars"] if ch["megagroup"] else None,
        call_active=bool(ch.get("call_id")),
        call_not_empty=bool(ch.get("call_id")) and bool(ch.get("call_not_empty")),
    )


def legacy_chat_to_tl(ch: dict):
    """messages.createChat's first chat for Telegram Desktop: a legacy chat that points
    at the megagroup that really exists (nothing of it is stored)."""
    return types.Chat(
        creator=True,
        id=ch["id"],
        title=ch["title"],
        photo=types.ChatPhotoEmpty(),
        participants_count=ch["participants_count"],
        date=ch["date"],
        version=1,
        migrated_to=types.InputChannel(channel_id=ch["id"], access_hash=ch["access_hash"]),
    )


# --- invite links -------------------------------------------------------------------

# What links look like to clients; TDesktop and Telethon take the hash after "+".
INVITE_LINK_PREFIX = os.environ.get("TELESRV_INVITE_LINK_PREFIX", "https://t.me/+")


def invite_link(invite_hash: str) -> str:
    return INVITE_LINK_PREFIX + invite_hash


def exported_invite_to_tl(inv: dict | None):
    if inv is None:
        return types.ChatInvitePublicJoinRequests()
    return types.ChatInviteExported(
        revoked=inv["revoked"],
        permanent=inv["permanent"],
        request_needed=inv["request_needed"],
        link=invite_link(inv["hash"]),
        admin_id=inv["admin_user_id"],
        date=inv["date"],
        expire_date=inv["expire_date"] or None,
        usage_limit=inv["usage_limit"] or None,
        usage=inv["usage_count"] or None,
        requested=inv["requested_count"] or None,
        title=inv["title"] or None,
    )


# --- messages ----------------------------------------------------------------------


def _reply_to_tl(m: dict):
    if not m.get("reply_to_msg_id"):
        return None
    top = m.get("reply_to_top_id") or 0
    quote = m.get("quote")
    return types.MessageReplyHeader(
        forum_topic=bool(m.get("forum_topic")),
        reply_to_msg_id=m["reply_to_msg_id"],
        reply_to_top_id=top if top and top != m["reply_to_msg_id"] else None,
        quote=bool(quote),
        quote_text=quote["text"] if quote else None,
        quote_entities=entities_to_tl(quote["entities"]) if quote and quote.get("entities") else None,
        quote_offset=quote["offset"] if quote else None,
    )


def _action_to_tl(a: dict):
    kind = a.get("_")
    if kind == "channelCreate":
        return types.MessageActionChannelCreate(title=a["title"])
    if kind == "chatAddUser":
        return types.MessageActionChatAddUser(users=list(a["users"]))
    if kind == "chatDeleteUser":
        return types.MessageActionChatDeleteUser(user_id=a["user_id"])
    if kind == "chatJoinedByLink":
        return types.MessageActionChatJoinedByLink(inviter_id=a["inviter_id"])
    if kind == "chatEditTitle":
        return types.MessageActionChatEditTitle(title=a["title"])
    if kind == "chatEditPhoto":
        return types.MessageActionChatEditPhoto(photo=photo_to_tl(a["photo"]))
    if kind == "chatDeletePhoto":
        return types.MessageActionChatDeletePhoto()
    if kind == "topicCreate":
        return types.MessageActionTopicCreate(
            title=a["title"],
            icon_color=a.get("icon_color") or 0,
            icon_emoji_id=a.get("icon_emoji_id") or None,
        )
    if kind in ("groupCall", "groupCallScheduled", "inviteToGroupCall"):
        call = types.InputGroupCall(id=a["call_id"], access_hash=a["call_access_hash"])
        if kind == "groupCall":
            return types.MessageActionGroupCall(call=call, duration=a.get("duration"))
        if kind == "groupCallScheduled":
            return types.MessageActionGroupCallScheduled(call=call, schedule_date=a["schedule_date"])
        return types.MessageActionInviteToGroupCall(call=call, users=list(a["users"]))
    if kind == "topicEdit":
        return types.MessageActionTopicEdit(
            title=a.get("title"),
            icon_emoji_id=a.get("icon_emoji_id"),
            closed=a.get("closed"),
            hidden=a.get("hidden"),
        )
    return types.MessageActionEmpty()


def read_contents_to_tl(channel_id: int, ids: list[int]):
    return types.UpdateChannelReadMessagesContents(channel_id=channel_id, messages=list(ids))


def message_to_tl(m: dict, viewer_id: int, broadcast: bool | None = None, unread_mentions=()):
    peer = types.PeerChannel(channel_id=m["channel_id"])
    if m.get("empty"):
        return types.MessageEmpty(id=m["id"], peer_id=peer)
    is_post = bool(m.get("post")) if broadcast is None else broadcast
    sender = m["sender_user_id"]
    # Sender 0 (a service message by the operator console) is the group's own message.
    out = bool(sender) and sender == viewer_id
    from_id = None if is_post or not sender else types.PeerUser(user_id=sender)
    if m.get("send_as_channel_id") and not is_post:
        from_id = types.PeerChannel(channel_id=m["send_as_channel_id"])
    if m.get("action"):
        return types.MessageService(
            out=out, post=is_post, silent=bool(m.get("silent")), id=m["id"], from_id=from_id,
            peer_id=peer, date=m["date"], action=_action_to_tl(m["action"]),
        )  # fmt: skip
    entities = m.get("entities") or []
    mentioned = viewer_id in mentioned_user_ids(m)
    return types.Message(
        views=post_views(m.get("views_count")) if is_post else None,
        forwards=(m.get("forwards_count") or 0) if is_post else None,
        reactions=reactions_of(m, viewer_id, is_post),
        out=out,
        mentioned=mentioned,
        media_unread=(mentioned and m["id"] in unread_mentions) or bool(m.get("media_unread")),
        silent=bool(m.get("silent")),
        post=is_post,
        from_scheduled=(out and bool(m.get("from_scheduled"))) or None,
        noforwards=bool(m.get("noforwards")),
        pinned=bool(m.get("pinned")),
        id=m["id"],
        from_id=from_id,
        peer_id=peer,
        fwd_from=fwd_header_to_tl(m.get("fwd_from")),
        reply_to=_reply_to_tl(m),
        date=m["date"],
        message=m.get("message") or "",
        entities=entities_to_tl(entities) or None,
        edit_date=m.get("edit_date") or None,
        post_author=m.get("post_author") or None,
        media=media_to_tl(m.get("media")),
        invert_media=bool((m.get("media") or {}).get("invert_media")) or None,
        grouped_id=m.get("grouped_id") or None,
        replies=replies_of(m, is_post),
        reply_markup=reply_markup_to_tl(
            visible_markup(
                m.get("reply_markup"),
                viewer_id,
                sender_id=sender,
                targets={*mentioned_user_ids(m), m.get("reply_to_user_id") or 0},
            )
        )
        if m.get("reply_markup")
        else None,
        via_bot_id=m.get("via_bot_id") or None,
    )


def _peer_of(signed_id: int):
    return types.PeerUser(user_id=signed_id) if signed_id > 0 else types.PeerChannel(channel_id=-signed_id)


def replies_of(m: dict, is_post: bool):
    """messageReplies: a commented post names its discussion group (comments); a thread
    root in a group carries its reply count once it has replies. The read mark is the
    viewer's (attached by the read path: discussion.attach_read_marks)."""
    comments = bool(is_post and m.get("discussion_channel_id"))
    if not comments and not m.get("replies_count"):
        return None
    return types.MessageReplies(
        comments=comments,
        replies=m.get("replies_count") or 0,
        replies_pts=m.get("replies_pts") or 0,
        recent_repliers=[_peer_of(p) for p in m.get("recent_repliers") or ()] or None,
        channel_id=m["discussion_channel_id"] if comments else None,
        max_id=m.get("replies_max_id") or None,
        read_max_id=m.get("thread_read_max_id") or None,
    )


def reactions_of(m: dict, viewer_id: int, is_post: bool):
    """The message's reactions: the viewer's summary when the read path attached one
    (channels_app.actions.reactions.attach), else the stored totals as a ``min``
    object (a snapshot pushed live: the client keeps its own choice)."""
    summary = m.get("reactions")
    if summary is not None:
        return message_reactions_to_tl(summary, viewer_id, can_see_list=not is_post)
    counts = m.get("reaction_counts")
    if counts:
        return message_reactions_to_tl(rx.summary(counts), viewer_id, can_see_list=not is_post, min_=True)
    return None


def message_reactions_to_update(channel_id: int, msg_id: int, summary: dict | None, viewer_id: int,
                                *, broadcast: bool, min_: bool = False):  # fmt: skip
    reactions = message_reactions_to_tl(summary, viewer_id, can_see_list=not broadcast, min_=min_)
    return message_reactions_update_to_tl(types.PeerChannel(channel_id=channel_id), msg_id, reactions)


def event_view(ev: ChannelEvent, viewer_id: int, mentioned: set[int]) -> tuple | None:
    """What of ``event_to_update(ev, viewer_id)`` depends on the viewer (``mentioned``:
    the message's mentioned user ids): viewers with the same view get an equal update.
    None: the viewer's own reaction choice is in it."""
    m = ev.message
    if ev.type not in ("new_message", "edit_message") or not m:
        return ()
    if m.get("reactions") is not None:
        return None
    sender = m.get("sender_user_id")
    return (bool(sender) and sender == viewer_id, viewer_id in mentioned)


def event_to_update(ev: ChannelEvent, viewer_id: int):
    if ev.type == "new_message":
        # A new message that mentions the viewer is an unread mention for them.
        return types.UpdateNewChannelMessage(
            message=message_to_tl(ev.message, viewer_id, unread_mentions={ev.message["id"]}),
            pts=ev.pts,
            pts_count=ev.pts_count,
        )
    if ev.type == "edit_message":
        return types.UpdateEditChannelMessage(
            message=message_to_tl(ev.message, viewer_id), pts=ev.pts, pts_count=ev.pts_count
        )
    if ev.type == "delete_messages":
        return types.UpdateDeleteChannelMessages(
            channel_id=ev.channel_id, messages=list(ev.message_ids), pts=ev.pts, pts_count=ev.pts_count
        )
    if ev.type == "pin_messages":
        payload = ev.message or {}
        return types.UpdatePinnedChannelMessages(
            pinned=bool(payload.get("pinned")),
            channel_id=ev.channel_id,
            messages=list(ev.message_ids or payload.get("messages") or []),
            pts=ev.pts,
            pts_count=ev.pts_count,
        )
    return None


def pts_filler_to_tl(ev: ChannelEvent):
    """An update that only moves a member's channel pts over ``ev`` (a message the
    member is not shown)."""
    return types.UpdateDeleteChannelMessages(
        channel_id=ev.channel_id, messages=[], pts=ev.pts, pts_count=ev.pts_count
    )


def updates_to_tl(updates: list, users: list, chats: list):
    return types.Updates(
        updates=[u for u in updates if u is not None], users=users, chats=chats, date=int(time.time()), seq=0
    )


def sent_updates_to_tl(events: list[ChannelEvent], viewer_id: int, users: list, chats: list, *, extra=()):
    """The sender's answer: updateMessageID per random_id, then the channel updates."""
    ups: list = []
    for ev in events:
        if ev.random_id and ev.message:
            ups.append(types.UpdateMessageID(id=ev.message["id"], random_id=ev.random_id))
    ups += [event_to_update(ev, viewer_id) for ev in events]
    ups += list(extra)
    return updates_to_tl(ups, users, chats)


def update_channel_to_tl(channel_id: int):
    return types.UpdateChannel(channel_id=channel_id)


def available_messages_to_tl(channel_id: int, available_min_id: int):
    return types.UpdateChannelAvailableMessages(channel_id=channel_id, available_min_id=available_min_id)


def read_inbox_to_tl(channel_id: int, max_id: int, still_unread: int, pts: int, folder_id: int = 0):
    return types.UpdateReadChannelInbox(
        folder_id=folder_id or None,
        channel_id=channel_id,
        max_id=max_id,
        still_unread_count=still_unread,
        pts=pts,
    )


def read_outbox_to_tl(channel_id: int, max_id: int):
    return types.UpdateReadChannelOutbox(channel_id=channel_id, max_id=max_id)


def pinned_topics_to_tl(channel_id: int, order: list[int]):
    return types.UpdatePinnedForumTopics(peer=types.PeerChannel(channel_id=channel_id), order=list(order))


def typing_to_tl(channel_id: int, user_id: int, action, top_msg_id: int | None):
    return types.UpdateChannelUserTyping(
        channel_id=channel_id,
        top_msg_id=top_msg_id or None,
        from_id=types.PeerUser(user_id=user_id),
        action=action,
    )


def web_page_update_to_tl(channel_id: int, page: dict, pts: int):
    """A link preview of the channel's messages is ready: no pts of its own (pts_count 0)."""
    from media_app.tl_convert import web_page_to_tl

    return types.UpdateChannelWebPage(
        channel_id=channel_id, webpage=web_page_to_tl(page), pts=pts, pts_count=0
    )


def too_long_update_to_tl(channel_id: int, pts: int):
    return types.UpdateChannelTooLong(channel_id=channel_id, pts=pts)


def channel_messages_to_tl(h: History, viewer_id: int, users: list, chats: list):
    return types.messages.ChannelMessages(
        inexact=h.inexact or None,
        pts=h.channel["pts"],
        count=h.count,
        messages=[message_to_tl(m, viewer_id, unread_mentions=h.unread_mentions) for m in h.messages],
        topics=[],
        chats=chats,
        users=users,
    )


def _notify_settings_to_tl(d: dict | None):
    from accounts_app.tl_convert_settings import peer_notify_settings_to_tl

    return peer_notify_settings_to_tl(d)


def dialog_to_tl(channel_id: int, *, top: int, read_in: int, read_out: int, unread: int, pts: int,
                 pinned: bool = False, unread_mark: bool = False, folder_id: int = 0, notify=None,
                 mentions: int = 0, draft=None, reactions: int = 0):  # fmt: skip
    return types.Dialog(
        pinned=pinned,
        unread_mark=unread_mark,
        peer=types.PeerChannel(channel_id=channel_id),
        top_message=top,
        read_inbox_max_id=read_in,
        read_outbox_max_id=read_out,
        unread_count=unread,
        unread_mentions_count=mentions,
        unread_reactions_count=reactions,
        unread_poll_votes_count=0,
        notify_settings=_notify_settings_to_tl(notify),
        pts=pts,
        draft=draft_to_tl(draft),
        folder_id=folder_id or None,
    )


def dialog_entry_to_tl(e, viewer_id: int, draft: dict | None = None):
    """(dialog, top message or None) of one channel dialog."""
    top = e.top_message["id"] if e.top_message else 0
    read_in = max(e.member["read_inbox_max_id"], e.member["available_min_id"])
    dialog = dialog_to_tl(
        e.channel["id"],
        top=top,
        read_in=min(read_in, top) if top else read_in,
        read_out=e.member["read_outbox_max_id"],
        unread=e.unread_count,
        mentions=e.unread_mentions,
        reactions=e.dialog.get("unread_reactions_count") or 0,
        pts=e.channel["pts"],
        pinned=e.dialog["pinned"],
        unread_mark=e.dialog["unread_mark"],
        folder_id=e.dialog["folder_id"],
        notify=e.dialog["notify_settings"],
        draft=draft,
    )
    return dialog, message_to_tl(e.top_message, viewer_id) if e.top_message else None


def dialogs_result_to_tl(dialogs: list, messages: list, users: list, chats: list, *, count: int,
                         complete: bool, peer: bool = False, state=None):  # fmt: skip
    if peer:
        return types.messages.PeerDialogs(
            dialogs=dialogs, messages=messages, chats=chats, users=users, state=state
        )
    if complete:
        return types.messages.Dialogs(dialogs=dialogs, messages=messages, chats=chats, users=users)
    return types.messages.DialogsSlice(
        count=count, dialogs=dialogs, messages=messages, chats=chats, users=users
    )


def dialogs_to_tl(d: Dialogs, viewer_id: int, users: list, chats: list, *, peer: bool = False, state=None):
    dialogs, messages = [], []
    for e in d.entries:
        dialog, top = dialog_entry_to_tl(e, viewer_id)
        dialogs.append(dialog)
        if top is not None:
            messages.append(top)
    return dialogs_result_to_tl(
        dialogs, messages, users, chats, count=d.count, complete=d.complete, peer=peer, state=state
    )


def difference_to_tl(d: Difference, viewer_id: int, users: list, chats: list):
    if d.kind == "empty":
        return types.updates.ChannelDifferenceEmpty(final=d.final, pts=d.pts, timeout=d.timeout)
    if d.kind == "too_long":
        dl = d.dialog
        return types.updates.ChannelDifferenceTooLong(
            final=True,
            timeout=d.timeout,
            dialog=dialog_to_tl(
                d.channel["id"],
                top=dl["top_message"],
                read_in=dl["read_inbox_max_id"],
                read_out=dl["read_outbox_max_id"],
                unread=dl["unread_count"],
                pts=dl["pts"],
            ),
            messages=[message_to_tl(m, viewer_id, unread_mentions=d.unread_mentions) for m in d.messages],
            chats=chats,
            users=users,
        )
    return types.updates.ChannelDifference(
        final=d.final,
        pts=d.pts,
        timeout=d.timeout,
        new_messages=[message_to_tl(m, viewer_id, unread_mentions=d.unread_mentions) for m in d.new_messages],
        other_updates=[event_to_update(e, viewer_id) for e in d.other_events],
        chats=chats,
        users=users,
    )


def full_channel_to_tl(full: dict, chats: list, users: list, *, bot_info=()):
    ch, member = full["channel"], full["member"]
    admin = full["is_admin"]
    fc = types.ChannelFull(
        can_view_participants=not ch["broadcast"] or admin,
        hidden_prehistory=ch["pre_history_hidden"],
        participants_hidden=ch["participants_hidden"],
        can_delete_channel=bool(member and member["role"] == "creator" and member["status"] == "active"),
        id=ch["id"],
        about=ch["about"],
        participants_count=ch["participants_count"],
        admins_count=ch["admins_count"] if admin else None,
        kicked_count=ch["kicked_count"] if admin else None,
        banned_count=ch["banned_count"] if admin else None,
        read_inbox_max_id=full["read_inbox_max_id"],
        read_outbox_max_id=full["read_outbox_max_id"],
        unread_count=full["unread_count"],
        chat_photo=photo_to_tl(ch.get("photo")),
        notify_settings=_notify_settings_to_tl((full.get("dialog") or {}).get("notify_settings")),
        bot_info=list(bot_info),
        pinned_msg_id=ch["pinned_message_id"] or None,
        available_min_id=full["available_min_id"] or None,
        folder_id=((full.get("dialog") or {}).get("folder_id")) or None,
        view_forum_as_messages=bool((full.get("dialog") or {}).get("view_forum_as_messages")),
        slowmode_seconds=ch["slowmode_seconds"] or None,
        pts=ch["pts"],
        ttl_period=ch["ttl_period"] or None,
        antispam=bool((full.get("join_settings") or {}).get("antispam")),
        requests_pending=full.get("requests_pending") or None,
        recent_requesters=full.get("recent_requesters") or None,
        available_reactions=chat_reactions_to_tl(ch.get("available_reactions")),
        reactions_limit=ch.get("reactions_limit") or None,
        restricted_sponsored=ch["restricted_sponsored"],
        send_paid_messages_stars=ch["send_paid_messages_stars"],
        paid_messages_available=ch["broadcast"] and ch["broadcast_messages_allowed"],
        linked_chat_id=ch.get("linked_chat_id") or None,
        default_send_as=_send_as_peer(full.get("default_send_as"), full.get("viewer_id")),
        call=types.InputGroupCall(id=ch["call_id"], access_hash=ch["call_access_hash"])
        if ch.get("call_id")
        else None,
        groupcall_default_join_as=_join_as_peer(full.get("groupcall_default_join_as")),
    )
    if full.get("exported_invite"):
        fc.exported_invite = exported_invite_to_tl(full["exported_invite"])
    viewer_id = full.get("viewer_id") or 0
    sticker_sets = full.get("sticker_sets") or {}
    fc.can_set_stickers = full.get("can_set_stickers") or None
    if sticker_sets.get("stickers"):
        fc.stickerset = sticker_set_to_tl(sticker_sets["stickers"], viewer_id)
    if sticker_sets.get("emojis"):
        fc.emojiset = sticker_set_to_tl(sticker_sets["emojis"], viewer_id)
    return types.messages.ChatFull(full_chat=fc, chats=chats, users=users)


def chat_reactions_to_tl(policy: dict | None):
    if policy is None or policy.get("kind") == "all":
        return types.ChatReactionsAll()
    if policy["kind"] == "none":
        return types.ChatReactionsNone()
    return types.ChatReactionsSome(reactions=[types.ReactionEmoji(emoticon=r) for r in policy["reactions"]])


def participant_to_tl(m: dict, viewer_id: int, viewer_member: dict | None):
    uid = m["user_id"]
    if m["status"] in ("kicked", "banned") or (
        m["status"] == "active" and m["banned_rights"] and m["role"] == "member"
    ):
        return types.ChannelParticipantBanned(
            left=m["status"] == "kicked", peer=types.PeerUser(user_id=uid), kicked_by=m["kicked_by"],
            date=m["left_at"] or m["joined_at"], banned_rights=banned_rights_to_tl(m["banned_rights"], m["banned_until"]),
        )  # fmt: skip
    if m["status"] == "left":
        return types.ChannelParticipantLeft(peer=types.PeerUser(user_id=uid))
    if m["role"] == "creator":
        return types.ChannelParticipantCreator(
            user_id=uid, admin_rights=admin_rights_to_tl(m["admin_rights"]), rank=m["rank"] or None
        )
    if m["role"] == "admin":
        viewer_creator = bool(viewer_member and viewer_member["role"] == "creator")
        return types.ChannelParticipantAdmin(
            can_edit=viewer_creator or m["promoted_by"] == viewer_id, self=uid == viewer_id,
            user_id=uid, inviter_id=m["inviter_user_id"] if uid == viewer_id else None,
            promoted_by=m["promoted_by"], date=m["joined_at"], admin_rights=admin_rights_to_tl(m["admin_rights"]),
            rank=m["rank"] or None,
        )  # fmt: skip
    if uid == viewer_id:
        return types.ChannelParticipantSelf(user_id=uid, inviter_id=m["inviter_user_id"], date=m["joined_at"])
    return types.ChannelParticipant(user_id=uid, date=m["joined_at"])


def participants_to_tl(count: int, rows: list[dict], viewer_id: int, viewer_member, chats: list, users: list):
    return types.channels.ChannelParticipants(
        count=count,
        participants=[participant_to_tl(r, viewer_id, viewer_member) for r in rows],
        chats=chats,
        users=users,
    )


def participants_not_modified_to_tl():
    return types.channels.ChannelParticipantsNotModified()


def participant_result_to_tl(row: dict, viewer_id: int, viewer_member, chats: list, users: list):
    return types.channels.ChannelParticipant(
        participant=participant_to_tl(row, viewer_id, viewer_member), chats=chats, users=users
    )


def chats_to_tl(chats: list):
    return types.messages.Chats(chats=chats)


def invited_users_to_tl(updates, missing_user_ids: list[int] = ()):
    return types.messages.InvitedUsers(
        updates=updates, missing_invitees=[types.MissingInvitee(user_id=u) for u in missing_user_ids]
    )


# --- smaller channel methods -------------------------------------------------------------


def message_link_to_tl(link: str):
    return types.ExportedMessageLink(link=link, html="")


def _join_as_peer(peer: tuple[str, int] | None):
    if not peer:
        return None
    kind, peer_id = peer
    return types.PeerChannel(channel_id=peer_id) if kind == "channel" else types.PeerUser(user_id=peer_id)


def _send_as_peer(channel_id: int | None, user_id: int | None):
    if channel_id is None:
        return None
    if channel_id:
        return types.PeerChannel(channel_id=channel_id)
    return types.PeerUser(user_id=user_id)


def send_as_peers_to_tl(user_id: int, channel_ids: list[int], chats: list, users: list):
    """The identities offered: the user (0), then the channel itself where allowed."""
    return types.channels.SendAsPeers(
        peers=[types.SendAsPeer(peer=_send_as_peer(c, user_id)) for c in [0, *channel_ids]],
        chats=chats,
        users=users,
    )


def search_posts_flood_to_tl(daily: int):
    return types.SearchPostsFlood(query_is_free=True, total_daily=daily, remains=daily, stars_amount=0)


def sponsored_messages_empty_to_tl():
    return types.messages.SponsoredMessagesEmpty()


def sponsored_report_reported_to_tl():
    return types.channels.SponsoredMessageReportResultReported()


def view_forum_as_messages_to_tl(channel_id: int, enabled: bool):
    return types.UpdateChannelViewForumAsMessages(channel_id=channel_id, enabled=enabled)


def empty_channel_messages_to_tl(pts: int):
    """A media search (photos, files, links...): no media exist, so none and count 0."""
    return types.messages.ChannelMessages(pts=pts, count=0, messages=[], topics=[], chats=[], users=[])


def discussion_message_to_tl(root: dict, viewer_id: int, state: dict, users: list, chats: list):
    """The thread's root with the viewer's read mark and unread count in it."""
    return types.messages.DiscussionMessage(
        messages=[message_to_tl(root, viewer_id)],
        max_id=state["max_id"] or None,
        read_inbox_max_id=state["read_max_id"] or None,
        unread_count=state["unread_count"],
        chats=chats,
        users=users,
    )


def read_discussion_to_tl(channel_id: int, top_msg_id: int, read_max_id: int, post: tuple[int, int] | None):
    return types.UpdateReadChannelDiscussionInbox(
        channel_id=channel_id,
        top_msg_id=top_msg_id,
        read_max_id=read_max_id,
        broadcast_id=post[0] if post else None,
        broadcast_post=post[1] if post else None,
    )
