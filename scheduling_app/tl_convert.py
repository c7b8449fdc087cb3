"""TL shapes of scheduled messages: the message as its sender sees it before it is
sent (``from_scheduled``, the schedule date as its date) and the scheduled updates."""

from __future__ import annotations

from media_app.tl_convert import media_to_tl
from message_core.tl_convert import entities_to_tl, fwd_header_to_tl
from tl import types

from .actions import history_hash


def _peer(kind: str, peer_id: int):
    return types.PeerUser(user_id=peer_id) if kind == "p" else types.PeerChannel(channel_id=peer_id)


def _reply_to_tl(p: dict):
    reply_to, top = p.get("reply_to_msg_id") or 0, p.get("top_msg_id") or 0
    if not reply_to and not top:
        return None
    quote = p.get("quote")
    return types.MessageReplyHeader(
        reply_to_msg_id=reply_to or top, reply_to_top_id=top if top and reply_to and top != reply_to else None,
        forum_topic=bool(p.get("forum")) or None, quote=bool(quote) or None,
        quote_text=quote["text"] if quote else None,
        quote_entities=entities_to_tl(quote["entities"]) if quote and quote.get("entities") else None,
        quote_offset=quote["offset"] if quote else None,
    )  # fmt: skip


def _from_peer(owner_id: int, send_as: int | None):
    return types.PeerChannel(channel_id=send_as) if send_as else types.PeerUser(user_id=owner_id)


def scheduled_to_tl(r: dict):
    p = r["params"] or {}
    post = bool(p.get("post"))
    return types.Message(
        out=True, from_scheduled=True, silent=bool(p.get("silent")) or None, post=post or None,
        invert_media=bool(p.get("invert_media")) or None, id=r["id"],
        from_id=None if post else _from_peer(r["owner_id"], p.get("send_as")),
        peer_id=_peer(r["peer_kind"], r["peer_id"]), fwd_from=fwd_header_to_tl(p.get("fwd_from")),
        reply_to=_reply_to_tl(p), date=r["date"], message=r["message"] or "",
        entities=entities_to_tl(r["entities"] or []) or None, media=media_to_tl(r["media"]),
        edit_date=r["edit_date"] or None, grouped_id=r["group_key"] or None,
    )  # fmt: skip


def messages_to_tl(rows: list[dict], users: list, chats: list):
    return types.messages.Messages(
        messages=[scheduled_to_tl(r) for r in rows], topics=[], chats=chats, users=users
    )


def history_to_tl(rows: list[dict], users: list, chats: list, client_hash: int):
    if client_hash and client_hash == history_hash(rows):
        return types.messages.MessagesNotModified(count=len(rows))
    return messages_to_tl(rows, users, chats)


def new_scheduled_updates(rows: list[dict]) -> list:
    return [types.UpdateNewScheduledMessage(message=scheduled_to_tl(r)) for r in rows]


def scheduled_sent_updates_to_tl(rows: list[dict], users: list, chats: list, date: int):
    """The answer to a scheduling send: each random id's scheduled id, then the messages."""
    ups = [types.UpdateMessageID(id=r["id"], random_id=r["random_id"]) for r in rows]
    return types.Updates(
        updates=ups + new_scheduled_updates(rows), users=users, chats=chats, date=date, seq=0
    )


def delete_scheduled_update(kind: str, peer_id: int, ids: list[int], sent: list[int] | None = None):
    return types.UpdateDeleteScheduledMessages(
        peer=_peer(kind, peer_id), messages=ids, sent_messages=sent or None
    )


def updates_to_tl(updates: list, users: list, chats: list, date: int):
    return types.Updates(updates=updates, users=users, chats=chats, date=date, seq=0)
