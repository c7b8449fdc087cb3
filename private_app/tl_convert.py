"""TL objects of private messages, dialogs and their account-log updates."""

from __future__ import annotations

import time

from accounts_app.tl_convert_settings import peer_notify_settings_to_tl
from media_app.tl_convert import media_to_tl
from message_core.tl_convert import (
    draft_to_tl,
    entities_to_tl,
    fwd_header_to_tl,
    message_reactions_to_tl,
    message_reactions_update_to_tl,
)
from message_core.tl_convert_markup import reply_markup_to_tl
from tl import types


def _peer(user_id: int):
    return types.PeerUser(user_id=user_id)


def message_to_tl(m: dict):
    """One owner's view of a private message (``m`` from ``actions.box_to_dict``)."""
    if m.get("empty"):
        return types.MessageEmpty(id=m["id"])
    action = (m.get("media") or {}).get("action")
    if action is not None:
        return types.MessageService(
            out=m["out"],
            silent=bool(m.get("silent")) or None,
            id=m["id"],
            from_id=_peer(m["sender_id"]),
            peer_id=_peer(m["peer_id"]),
            date=m["date"],
            action=service_action_to_tl(action, m["out"]),
        )
    return types.Message(
        out=m["out"],
        from_scheduled=(m["out"] and bool(m.get("from_scheduled"))) or None,
        silent=bool(m.get("silent")),
        id=m["id"],
        from_id=_peer(m["sender_id"]),
        peer_id=_peer(m["peer_id"]),
        fwd_from=fwd_header_to_tl(m.get("fwd_from")),
        reply_to=types.MessageReplyHeader(reply_to_msg_id=m["reply_to_msg_id"])
        if m.get("reply_to_msg_id")
        else None,
        date=m["date"],
        message=m.get("message") or "",
        entities=entities_to_tl(m.get("entities") or []) or None,
        edit_date=m.get("edit_date") or None,
        reactions=message_reactions_to_tl(m.get("reactions"), m["owner_id"], can_see_list=True),
        media=media_to_tl(m.get("media")),
        invert_media=bool((m.get("media") or {}).get("invert_media")) or None,
        grouped_id=m.get("grouped_id") or None,
        reply_markup=reply_markup_to_tl(m.get("reply_markup")),
        via_bot_id=m.get("via_bot_id") or None,
        media_unread=m.get("media_unread") or None,
        saved_peer_id=saved_peer_to_tl(m.get("saved_peer") or 0),
    )


def service_action_to_tl(action: dict, out: bool):
    """A private service message's action as its owner sees it: the bot that receives a
    Mini App's data gets the data, the user who sent it only the button's text."""
    kind = action.get("type")
    if kind == "web_view_data":
        if out:
            return types.MessageActionWebViewDataSent(text=action.get("text", ""))
        return types.MessageActionWebViewDataSentMe(text=action.get("text", ""), data=action.get("data", ""))
    if kind == "phone_call":
        return types.MessageActionPhoneCall(
            call_id=action["call_id"],
            video=bool(action.get("video")),
            reason=call_reason_to_tl(action.get("reason") or ""),
            duration=action.get("duration") or None,
        )
    return types.MessageActionEmpty()


_CALL_REASONS = {
    "hangup": types.PhoneCallDiscardReasonHangup,
    "busy": types.PhoneCallDiscardReasonBusy,
    "missed": types.PhoneCallDiscardReasonMissed,
    "disconnect": types.PhoneCallDiscardReasonDisconnect,
}


def call_reason_to_tl(reason: str):
    kind = _CALL_REASONS.get(reason)
    return kind() if kind else None


def saved_peer_to_tl(saved_peer: int):
    """A Saved Messages sublist's peer (MessageBox.saved_peer); None outside them."""
    if saved_peer > 0:
        return _peer(saved_peer)
    if saved_peer < 0:
        return types.PeerChannel(channel_id=-saved_peer)
    return None


def message_reactions_to_update(m: dict):
    """updateMessageReactions of one owner's message (its current reactions)."""
    reactions = message_reactions_to_tl(m.get("reactions"), m["owner_id"], can_see_list=True)
    return message_reactions_update_to_tl(_peer(m["peer_id"]), m["id"], reactions)


def read_contents_update_to_tl(ids: list[int], pts: int, pts_count: int = 1):
    return types.UpdateReadMessagesContents(messages=list(ids), pts=pts, pts_count=pts_count)


def new_message_update_to_tl(m: dict, pts: int, pts_count: int = 1):
    return types.UpdateNewMessage(message=message_to_tl(m), pts=pts, pts_count=pts_count)


def edit_message_update_to_tl(m: dict, pts: int, pts_count: int = 1):
    return types.UpdateEditMessage(message=message_to_tl(m), pts=pts, pts_count=pts_count)


def delete_messages_update_to_tl(ids: list[int], pts: int, pts_count: int):
    return types.UpdateDeleteMessages(messages=list(ids), pts=pts, pts_count=pts_count)


def read_inbox_update_to_tl(peer_id: int, max_id: int, still_unread: int, pts: int, pts_count: int = 1):
    return types.UpdateReadHistoryInbox(
        peer=_peer(peer_id), max_id=max_id, still_unread_count=still_unread, pts=pts, pts_count=pts_count
    )


def read_outbox_update_to_tl(peer_id: int, max_id: int, pts: int, pts_count: int = 1):
    return types.UpdateReadHistoryOutbox(peer=_peer(peer_id), max_id=max_id, pts=pts, pts_count=pts_count)


def typing_update_to_tl(user_id: int, action):
    """updateShort(updateUserTyping): typing is transient, it takes no pts."""
    return types.UpdateShort(
        update=types.UpdateUserTyping(user_id=user_id, action=action), date=int(time.time())
    )


def sent_updates_to_tl(change, users: list, chats: list, date: int):
    """The sender's answer: updateMessageID per random id, then its updateNewMessage."""
    ups: list = [types.UpdateMessageID(id=i, random_id=r) for i, r in change.random_ids.items()]
    fresh = {ev.payload.get("box_id"): ev for ev in change.events}
    for m in change.messages:
        ev = fresh.get(m["id"])
        # A retried send answers its original message at the current pts, moving nothing.
        ups.append(
            new_message_update_to_tl(m, ev.pts, ev.pts_count)
            if ev
            else new_message_update_to_tl(m, change.pts, 0)
        )
    return types.Updates(updates=ups, users=users, chats=chats, date=date, seq=0)


def edit_updates_to_tl(change, users: list, chats: list, date: int):
    ups = [edit_message_update_to_tl(change.messages[0], ev.pts, ev.pts_count) for ev in change.events]
    return types.Updates(updates=ups, users=users, chats=chats, date=date, seq=0)


def history_to_tl(h, users: list, chats: list):
    msgs = [message_to_tl(m) for m in h.messages]
    if h.count <= len(msgs):
        return types.messages.Messages(messages=msgs, topics=[], chats=chats, users=users)
    return types.messages.MessagesSlice(
        count=h.count, messages=msgs, topics=[], chats=chats, users=users, inexact=h.inexact or None
    )


def messages_to_tl(messages: list[dict], users: list, chats: list):
    return types.messages.Messages(
        messages=[message_to_tl(m) for m in messages], topics=[], chats=chats, users=users
    )


def dialog_to_tl(e, draft: dict | None = None):
    d = e.dialog
    top = e.top_message["id"] if e.top_message else 0
    return types.Dialog(
        pinned=bool(d.get("pinned")),
        unread_mark=bool(d.get("unread_mark")),
        peer=_peer(e.peer_id),
        top_message=top,
        read_inbox_max_id=d.get("read_inbox_max_id", 0),
        read_outbox_max_id=d.get("read_outbox_max_id", 0),
        unread_count=e.unread_count,
        unread_mentions_count=0,
        unread_reactions_count=e.unread_reactions,
        unread_poll_votes_count=0,
        notify_settings=peer_notify_settings_to_tl(d.get("notify_settings")),
        draft=draft_to_tl(draft),
        folder_id=d.get("folder_id") or None,
    )


def unread_mark_update_to_tl(peer_id: int, unread: bool):
    return types.UpdateDialogUnreadMark(unread=unread, peer=types.DialogPeer(peer=_peer(peer_id)))


def folder_update_to_tl(peer_id: int, folder_id: int, pts: int, pts_count: int = 1):
    return types.UpdateFolderPeers(
        folder_peers=[types.FolderPeer(peer=_peer(peer_id), folder_id=folder_id)],
        pts=pts,
        pts_count=pts_count,
    )


def dialog_pinned_update_to_tl(peer_id: int, pinned: bool, folder_id: int = 0):
    return types.UpdateDialogPinned(
        pinned=pinned, folder_id=folder_id or None, peer=dialog_peer_to_tl(peer_id)
    )


def dialog_peer_to_tl(peer_id: int):
    return types.DialogPeer(peer=_peer(peer_id))


# --- Saved Messages sublists (private_app.saved_dialogs) ----------------------------------


def saved_dialogs_to_tl(page, users: list, chats: list):
    dialogs = [
        types.SavedDialog(pinned=d.pinned, peer=saved_peer_to_tl(d.saved_peer), top_message=d.top["id"])
        for d in page.dialogs
    ]
    msgs = [message_to_tl(d.top) for d in page.dialogs]
    if page.complete and page.count <= len(dialogs):
        return types.messages.SavedDialogs(dialogs=dialogs, messages=msgs, chats=chats, users=users)
    return types.messages.SavedDialogsSlice(
        count=page.count, dialogs=dialogs, messages=msgs, chats=chats, users=users
    )


def saved_dialog_pinned_update_to_tl(saved_peer: int, pinned: bool):
    return types.UpdateSavedDialogPinned(
        pinned=pinned, peer=types.DialogPeer(peer=saved_peer_to_tl(saved_peer))
    )


def pinned_saved_dialogs_update_to_tl(order: list[int]):
    return types.UpdatePinnedSavedDialogs(order=[types.DialogPeer(peer=saved_peer_to_tl(k)) for k in order])
