"""Scheduled messages of any peer: the send methods with ``schedule_date`` route here
(``schedule_*``), and the messages.*Scheduled* methods. The rows, rules and delivery
are ``scheduling_app``'s; this module decodes, checks the peer and converts."""

from __future__ import annotations

from channels_app.actions.messages import check_can_send
from channels_app.rpc.context import change_to_updates
from edge_app.registry import rpc
from message_core import limits
from message_core import tl_convert as core_tl
from message_core.clock import now
from message_core.context import own_session, resolve_input_user, viewer
from scheduling_app import actions, push, scheduler
from scheduling_app import tl_convert as sched_tl
from tl import functions, types
from tl.errors import LimitInvalidError, PeerIdInvalidError

from ..peers import channel_peer, checked_channel, is_user_peer, peer_user_id, send_as_id
from . import private_peer


def check_date(date: int, peer) -> None:
    """The schedule date checked before anything else is looked at (writes nothing)."""
    actions.check_schedule_date(date, "p" if is_user_peer(peer) else "c")


async def _chat(me: int, peer, media: list | None = None) -> tuple[tuple[str, int], dict]:
    """(chat, params) of a scheduling send, the sender's rights checked as a send now
    would check them (they are checked again when it is sent)."""
    if is_user_peer(peer):
        return ("p", peer_user_id(me, peer)), {}
    channel, _ = await checked_channel(me, peer)
    await check_can_send(me, channel["id"], media or [None])
    params = {"post": bool(channel["broadcast"])}
    if channel["forum"] and channel["megagroup"]:
        params["forum"] = True
    return ("c", channel["id"]), params


def _reply_params(me: int, chat, reply_to) -> dict:
    if not isinstance(reply_to, types.InputReplyToMessage):
        return {}
    if reply_to.reply_to_peer_id is not None:
        other = reply_to.reply_to_peer_id
        same = (
            peer_user_id(me, other) == chat[1] if is_user_peer(other) else channel_peer(other)[0] == chat[1]
        )
        if not same:
            raise PeerIdInvalidError()  # cross-chat replies are not modelled
    p = {"reply_to_msg_id": reply_to.reply_to_msg_id}
    if reply_to.top_msg_id and chat[0] == "c":
        p["top_msg_id"] = reply_to.top_msg_id
    if reply_to.quote_text and chat[0] == "c":
        p["quote"] = {
            "text": reply_to.quote_text[: limits.QUOTE_TEXT_MAX],
            "entities": core_tl.entities_from_tl(reply_to.quote_entities, resolve_input_user(me)),
            "offset": max(0, min(int(reply_to.quote_offset or 0), limits.MESSAGE_MAX)),
        }
    return p


async def _answer(ctx, me: int, rows: list[dict]):
    if rows:
        who = await actions.audience(me, (rows[0]["peer_kind"], rows[0]["peer_id"]))
        await push.push_new(who, rows, exclude=own_session(ctx))
    users, chats = await push.context_for(me, rows)
    return sched_tl.scheduled_sent_updates_to_tl(rows, users, chats, now())


def _common(me: int, req, chat) -> dict:
    p = {"silent": bool(req.silent)}
    if getattr(req, "invert_media", None):
        p["invert_media"] = True
    send_as = send_as_id(me, getattr(req, "send_as", None)) if chat[0] == "c" else None
    if send_as is not None:
        p["send_as"] = send_as
    return p


async def schedule_message(ctx, req: functions.messages.SendMessage, media: dict | None = None):
    """messages.sendMessage (or a text with a link preview: ``media``) with schedule_date."""
    me = viewer(ctx)
    check_date(req.schedule_date, req.peer)
    chat, params = await _chat(me, req.peer)
    if media is not None and media.get("webpage", {}).get("pending"):
        media = None  # a page not fetched in time: the scheduled message goes without one
    params |= _common(me, req, chat) | _reply_params(me, chat, req.reply_to)
    entities = core_tl.entities_from_tl(req.entities, resolve_input_user(me))
    item = {"message": req.message, "entities": entities, "media": media, "random_id": req.random_id}
    rows = await actions.do_schedule(me, chat, [item], req.schedule_date, params)
    return await _answer(ctx, me, rows)


async def schedule_media(ctx, req: functions.messages.SendMedia, media: dict):
    me = viewer(ctx)
    chat, params = await _chat(me, req.peer, [media])
    params |= _common(me, req, chat) | _reply_params(me, chat, req.reply_to)
    entities = core_tl.entities_from_tl(req.entities, resolve_input_user(me))
    item = {"message": req.message, "entities": entities, "media": media, "random_id": req.random_id}
    rows = await actions.do_schedule(me, chat, [item], req.schedule_date, params)
    return await _answer(ctx, me, rows)


async def schedule_album(ctx, req: functions.messages.SendMultiMedia, items: list[dict]):
    me = viewer(ctx)
    chat, params = await _chat(me, req.peer, [it["media"] for it in items])
    params |= _common(me, req, chat) | _reply_params(me, chat, req.reply_to)
    rows = await actions.do_schedule(me, chat, items, req.schedule_date, params, album=True)
    return await _answer(ctx, me, rows)


async def schedule_forward(
    ctx, req: functions.messages.ForwardMessages, items: list[dict], random_ids: list[int]
):
    """Forwards scheduled: the source messages as they are now (their text, media and
    forward header), sent into the target at the date."""
    me = viewer(ctx)
    chat, params = await _chat(me, req.to_peer, [it.get("media") for it in items])
    params |= _common(me, req, chat)
    if req.top_msg_id and chat[0] == "c":
        params["top_msg_id"] = req.top_msg_id
    snap = [
        {"message": it["message"], "entities": it.get("entities") or [], "media": it.get("media"),
         "fwd_from": None if req.drop_author else it.get("fwd_from"), "random_id": rid}
        for it, rid in zip(items, random_ids, strict=True)
    ]  # fmt: skip
    rows = await actions.do_schedule(me, chat, snap, req.schedule_date, params, album=False)
    return await _answer(ctx, me, rows)


async def edit_scheduled(ctx, req: functions.messages.EditMessage, media: dict | None):
    """messages.editMessage with schedule_date: the id is a scheduled message's."""
    me = viewer(ctx)
    chat = ("p", peer_user_id(me, req.peer)) if is_user_peer(req.peer) else ("c", channel_peer(req.peer)[0])
    if chat[0] == "c":
        await checked_channel(me, req.peer)
    entities = (
        core_tl.entities_from_tl(req.entities, resolve_input_user(me)) if req.message is not None else None
    )
    row = await actions.do_edit_scheduled(
        await actions.scope_for(me, chat), chat, req.id, message=req.message, entities=entities, media=media,
        date=req.schedule_date,
    )  # fmt: skip
    await push.push_new(await actions.audience(row["owner_id"], chat), [row], exclude=own_session(ctx))
    users, chats = await push.context_for(me, [row])
    return sched_tl.updates_to_tl(sched_tl.new_scheduled_updates([row]), users, chats, now())


async def _peer_chat(me: int, peer) -> tuple[str, int]:
    if is_user_peer(peer):
        return "p", peer_user_id(me, peer)
    channel, _ = await checked_channel(me, peer, preview=True)
    return "c", channel["id"]


def _ids(ids) -> list[int]:
    if len(ids) > actions.IDS_MAX:
        raise LimitInvalidError()
    return list(ids)


@rpc(functions.messages.GetScheduledHistory)
async def get_scheduled_history(ctx, req: functions.messages.GetScheduledHistory):
    me = viewer(ctx)
    chat = await _peer_chat(me, req.peer)
    rows = await actions.get_scheduled_history(await actions.scope_for(me, chat), chat)
    users, chats = await push.context_for(me, rows, chat)
    return sched_tl.history_to_tl(rows, users, chats, req.hash)


@rpc(functions.messages.GetScheduledMessages)
async def get_scheduled_messages(ctx, req: functions.messages.GetScheduledMessages):
    me = viewer(ctx)
    ids = _ids(req.id)
    chat = await _peer_chat(me, req.peer)
    rows = await actions.get_scheduled(await actions.scope_for(me, chat), chat, ids) if ids else []
    users, chats = await push.context_for(me, rows)
    return sched_tl.messages_to_tl(rows, users, chats)


@rpc(functions.messages.SendScheduledMessages)
async def send_scheduled_messages(ctx, req: functions.messages.SendScheduledMessages):
    """Send these scheduled messages now (each as its sender; the new messages reach
    every session of the sender as any send does; the answer removes them from the
    scheduled list)."""
    me = viewer(ctx)
    ids = _ids(req.id)
    chat = await _peer_chat(me, req.peer)
    groups = await actions.claim_ids(await actions.scope_for(me, chat), chat, ids)
    done, sent, error, answers = [], [], None, []
    for group in groups:
        d = await scheduler.deliver(group)
        if d.error is not None:
            error = error or d.error
            continue
        done += [r["id"] for r in group]
        sent += d.sent
        # The answer shows the new messages as the kind's own send answers them.
        if chat[0] == "c":
            answers.append(await change_to_updates(me, d.change))
        else:
            answers.append(await private_peer.sent_updates(me, d.change))
    if error is not None and not done:
        raise error
    users, chats = await push.context_for(me, [], chat)
    ups = [u for a in answers for u in a.updates]
    ups.append(sched_tl.delete_scheduled_update(chat[0], chat[1], done, sent))
    known_users = {u.id for u in users}
    known_chats = {c.id for c in chats}
    for a in answers:
        users += [u for u in a.users if u.id not in known_users and not known_users.add(u.id)]
        chats += [c for c in a.chats if c.id not in known_chats and not known_chats.add(c.id)]
    return sched_tl.updates_to_tl(ups, users, chats, now())


@rpc(functions.messages.DeleteScheduledMessages)
async def delete_scheduled_messages(ctx, req: functions.messages.DeleteScheduledMessages):
    me = viewer(ctx)
    ids = _ids(req.id)
    chat = await _peer_chat(me, req.peer)
    rows = await actions.do_delete_scheduled(await actions.scope_for(me, chat), chat, ids) if ids else []
    deleted = [r["id"] for r in rows]
    who = set()
    for owner in {r["owner_id"] for r in rows}:
        who.update(await actions.audience(owner, chat))
    await push.push_deleted(sorted(who), chat[0], chat[1], deleted, exclude=own_session(ctx))
    update = sched_tl.delete_scheduled_update(chat[0], chat[1], deleted)
    users, chats = await push.context_for(me, [], chat) if deleted else ([], [])
    return sched_tl.updates_to_tl([update] if deleted else [], users, chats, now())
