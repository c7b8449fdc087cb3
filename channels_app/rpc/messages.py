"""messages.* handlers for channel peers, and the dialog list, which this app serves.

A user peer (a private chat) is handed to ``private_app.rpc`` at the top of each
method both kinds of chat share; forwards may cross between the two.
"""

from __future__ import annotations

from edge_app.registry import rpc
from message_core import limits
from message_core import tl_convert as core_tl
from message_core.context import own_session, resolve_input_user, users_for, viewer
from private_app import actions as private_actions
from private_app import dialogs as private_dialogs
from private_app import rpc as private_rpc
from private_app import tl_convert as private_tl
from private_app.rpc import is_user_peer
from tl import functions, types

from .. import account_updates, actions, notify, tl_convert
from ..access import channel_ref, dialog_peer_channel, is_channel_peer
from ..actions import drafts, pins
from ..actions import mentions as mention_actions
from ..chat_context import chats_for
from ..errors import LimitInvalidError, MsgIdInvalidError, PeerIdInvalidError, ScheduleDateInvalidError
from .context import change_to_updates, context_for


def _channel_peer(peer) -> tuple[int, int]:
    if not is_channel_peer(peer):
        raise PeerIdInvalidError()
    return channel_ref(peer)


async def _checked_peer(me: int, peer, *, preview: bool = False):
    cid, access_hash = _channel_peer(peer)
    return await actions.get_channel_for_viewer(me, cid, access_hash, preview=preview)


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


@rpc(functions.messages.CreateChat)
async def create_chat(ctx, req: functions.messages.CreateChat):
    me = viewer(ctx)
    if len(req.users) > limits.CREATE_CHAT_USERS_MAX:
        from ..errors import UsersTooMuchError

        raise UsersTooMuchError()
    resolve = resolve_input_user(me)
    user_ids = [resolve(u) for u in req.users]
    change = await actions.do_create_channel(
        me, req.title, invite_user_ids=user_ids, ttl_period=req.ttl_period, from_create_chat=True
    )
    ch = change.channel
    updates = await change_to_updates(me, change, extra=[tl_convert.update_channel_to_tl(ch["id"])])
    # Telegram Desktop takes chats[0] of this answer as the new chat and only accepts a
    # legacy chat there; it follows migrated_to to the real megagroup, listed next.
    updates.chats = [tl_convert.legacy_chat_to_tl(ch), *updates.chats]
    return tl_convert.invited_users_to_tl(updates, change.missing_user_ids)


@rpc(functions.messages.SendMessage)
async def send_message(ctx, req: functions.messages.SendMessage):
    if req.schedule_date:
        raise ScheduleDateInvalidError()  # no scheduled-message store: never send at once instead
    if is_user_peer(req.peer):
        return await private_rpc.send_message(ctx, req)
    me = viewer(ctx)
    cid, access_hash = _channel_peer(req.peer)
    reply_to_msg_id = top_msg_id = 0
    quote_text = quote_entities = quote_offset = None
    r = req.reply_to
    if isinstance(r, types.InputReplyToMessage):
        if r.reply_to_peer_id is not None and _channel_peer(r.reply_to_peer_id)[0] != cid:
            raise PeerIdInvalidError()  # cross-chat replies are not modelled
        reply_to_msg_id, top_msg_id = r.reply_to_msg_id, r.top_msg_id or 0
        quote_text, quote_offset = r.quote_text, r.quote_offset
        quote_entities = (
            core_tl.entities_from_tl(r.quote_entities, resolve_input_user(me)) if r.quote_entities else None
        )
    entities = core_tl.entities_from_tl(req.entities, resolve_input_user(me))
    change = await actions.do_send_message(
        me, cid, req.message, req.random_id, entities=entities, reply_to_msg_id=reply_to_msg_id,
        top_msg_id=top_msg_id, quote_text=quote_text, quote_entities=quote_entities, quote_offset=quote_offset,
        silent=req.silent, sender_name=lambda: _sender_name(me), access_hash=access_hash,
    )  # fmt: skip
    return await change_to_updates(me, change)


@rpc(functions.messages.ForwardMessages)
async def forward_messages(ctx, req: functions.messages.ForwardMessages):
    me = viewer(ctx)
    if req.schedule_date:
        raise ScheduleDateInvalidError()
    if len(req.id) > limits.FORWARD_IDS_MAX or len(req.random_id) > limits.FORWARD_IDS_MAX:
        raise LimitInvalidError()
    if is_user_peer(req.from_peer):
        items = await private_rpc.forwardable(ctx, req.from_peer, list(req.id))
    else:
        src, _ = await _checked_peer(me, req.from_peer, preview=True)
        _, items = await actions.get_forwardable(me, src["id"], list(req.id))
    # Only what exists is forwarded; random ids follow their source message.
    by_id = {it["source"]["id"]: it for it in items}
    pairs = [(by_id[i], rid) for i, rid in zip(req.id, req.random_id, strict=False) if i in by_id]
    if is_user_peer(req.to_peer):
        return await private_rpc.forward_to_user(ctx, req, [p[0] for p in pairs], [p[1] for p in pairs])
    dst, _ = await _checked_peer(me, req.to_peer)
    name = await _sender_name(me) if dst["broadcast"] and dst["signatures"] else ""
    change = await actions.do_forward_to_channel(
        me, dst["id"], [p[0] for p in pairs], [p[1] for p in pairs], drop_author=req.drop_author,
        silent=req.silent, sender_name=name,
    )  # fmt: skip
    return await change_to_updates(me, change)


@rpc(functions.messages.EditMessage)
async def edit_message(ctx, req: functions.messages.EditMessage):
    if is_user_peer(req.peer):
        return await private_rpc.edit_message(ctx, req)
    me = viewer(ctx)
    channel, _ = await _checked_peer(me, req.peer)
    if req.media is not None and not isinstance(req.media, types.InputMediaEmpty | types.InputMediaWebPage):
        from ..errors import MediaEmptyError

        raise MediaEmptyError()  # no media store: text edits only
    entities = core_tl.entities_from_tl(req.entities, resolve_input_user(me))
    change = await actions.do_edit_message(me, channel["id"], req.id, req.message, entities)
    return await change_to_updates(me, change)


@rpc(functions.messages.GetHistory)
async def get_history(ctx, req: functions.messages.GetHistory):
    if is_user_peer(req.peer):
        return await private_rpc.get_history(ctx, req)
    me = viewer(ctx)
    channel, _ = await _checked_peer(me, req.peer, preview=True)
    h = await actions.get_history(
        me, channel["id"], offset_id=req.offset_id, offset_date=req.offset_date, add_offset=req.add_offset,
        limit=req.limit, max_id=req.max_id, min_id=req.min_id,
    )  # fmt: skip
    users, chats = await context_for(
        me, h.messages, (), [channel["id"]], {channel["id"]: (h.channel, h.member)}
    )
    return tl_convert.channel_messages_to_tl(h, me, users, chats)


async def read_channel(ctx, me: int, channel_id: int, max_id: int) -> dict:
    res = await actions.do_read_history(me, channel_id, max_id)
    if res["advanced"]:
        await account_updates.append(
            me,
            account_updates.READ_INBOX,
            {
                "channel_id": channel_id,
                "max_id": res["max_id"],
                "still_unread_count": res["still_unread_count"],
                "pts": res["pts"],
            },
            exclude=own_session(ctx),
        )
    return res


@rpc(functions.messages.ReadHistory)
async def read_history(ctx, req: functions.messages.ReadHistory):
    if is_user_peer(req.peer):
        return await private_rpc.read_history(ctx, req)
    me = viewer(ctx)
    channel, _ = await _checked_peer(me, req.peer)
    res = await read_channel(ctx, me, channel["id"], req.max_id)
    return core_tl.affected_messages_to_tl(res["pts"], 0)


@rpc(functions.messages.DeleteHistory)
async def delete_history(ctx, req: functions.messages.DeleteHistory):
    if is_user_peer(req.peer):
        return await private_rpc.delete_history(ctx, req)
    me = viewer(ctx)
    channel, _ = await _checked_peer(me, req.peer)
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
        return await private_rpc.set_typing(ctx, req)
    channel, member = await _checked_peer(me, req.peer)
    if member is None or member["status"] != "active":
        from ..errors import ChannelPrivateError

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


@rpc(functions.messages.GetChats)
async def get_chats(ctx, req: functions.messages.GetChats):
    """Legacy chat ids are the same-id megagroups."""
    me = viewer(ctx)
    if len(req.id) > limits.GET_CHANNELS_MAX:
        raise LimitInvalidError()
    found = await actions.get_channels(me, [(cid, 0) for cid in req.id])
    return tl_convert.chats_to_tl([tl_convert.channel_to_tl(ch, m) for ch, m in found])


@rpc(functions.messages.GetFullChat)
async def get_full_chat(ctx, req: functions.messages.GetFullChat):
    me = viewer(ctx)
    full = await actions.get_full_channel(me, req.chat_id, 0)
    chats = await chats_for(me, [req.chat_id], {req.chat_id: (full["channel"], full["member"])})
    return tl_convert.full_channel_to_tl(full, chats, await users_for(me, [me]))


# --- dialogs -------------------------------------------------------------------------


def _order_key(kind: str, e) -> tuple:
    """The design's dialog order, shared by both kinds: pins first (one pin order for
    both, channels_app.actions.pins), then the newest top."""
    pinned = bool(e.dialog["pinned"])
    order = e.dialog["pinned_order"] if pinned else 0
    if kind == "c":
        return (pinned, order, e.top_date, e.top_message["id"] if e.top_message else 0)
    return (pinned, order, e.dialog["top_date"], e.dialog["top_box_id"])


async def _dialogs_response(me: int, merged: list[tuple[str, object]], *, count: int, complete: bool,
                            peer: bool = False):  # fmt: skip
    """``merged``: ("c", channel DialogEntry) / ("p", PrivateDialogEntry) in answer order."""
    channel_entries = [e for kind, e in merged if kind == "c"]
    private_entries = [e for kind, e in merged if kind == "p"]
    user_ids, channel_ids = {e.peer_id for e in private_entries}, {e.channel["id"] for e in channel_entries}
    private_actions.message_refs(
        [e.top_message for e in private_entries if e.top_message], user_ids, channel_ids
    )
    users, chats = await context_for(me, [e.top_message for e in channel_entries if e.top_message], user_ids,
                                     channel_ids, {e.channel["id"]: (e.channel, e.member) for e in channel_entries})  # fmt: skip
    found = await drafts.get_drafts(
        me, [(kind, e.channel["id"] if kind == "c" else e.peer_id) for kind, e in merged]
    )
    dialogs, messages = [], []
    for kind, e in merged:
        if kind == "c":
            dialog, top = tl_convert.dialog_entry_to_tl(e, me, found.get(("c", e.channel["id"])))
        else:
            dialog = private_tl.dialog_to_tl(e, found.get(("p", e.peer_id)))
            top = private_tl.message_to_tl(e.top_message) if e.top_message else None
        dialogs.append(dialog)
        if top is not None:
            messages.append(top)
    state = None
    if peer:
        from asgiref.sync import sync_to_async

        from accounts_app import tl_convert as accounts_tl
        from accounts_app import updates

        s = await sync_to_async(updates.get_state)(me)
        state = accounts_tl.state_to_tl(s.pts, s.date)
    return tl_convert.dialogs_result_to_tl(
        dialogs, messages, users, chats, count=count, complete=complete, peer=peer, state=state
    )


def _dialog_user_peer(obj):
    """The user peer of an InputDialogPeer, or None for a channel / folder peer."""
    peer = getattr(obj, "peer", None) if isinstance(obj, types.InputDialogPeer) else None
    return peer if peer is not None and is_user_peer(peer) else None


@rpc(functions.messages.GetDialogs)
async def get_dialogs(ctx, req: functions.messages.GetDialogs):
    """Channel and private dialogs, one order and one seek cursor over both."""
    me = viewer(ctx)
    offset_channel = offset_user = 0
    if req.offset_peer is not None and is_channel_peer(req.offset_peer):
        cid, access_hash = channel_ref(req.offset_peer)
        await actions.get_channel_for_viewer(me, cid, access_hash)  # the cursor peer is hash-checked too
        offset_channel = cid
    elif req.offset_peer is not None and is_user_peer(req.offset_peer):
        offset_user = private_rpc.peer_user_id(me, req.offset_peer)
    cursor = bool(req.offset_date or req.offset_id or offset_channel or offset_user)
    # The cursor's pin position, whichever kind its dialog is, seeks both lists.
    cursor_pin = None
    if offset_channel or offset_user:
        state = await pins.pin_state(me, ("c", offset_channel) if offset_channel else ("p", offset_user))
        _, pinned, order = state or (0, False, 0)
        cursor_pin = (pinned, order if pinned else 0)
    d = await actions.get_dialogs(
        me, offset_date=req.offset_date, offset_id=req.offset_id, offset_channel_id=offset_channel,
        limit=req.limit, folder_id=req.folder_id, exclude_pinned=req.exclude_pinned, cursor_pin=cursor_pin,
    )  # fmt: skip
    limit = min(req.limit or limits.DIALOGS_LIMIT, limits.DIALOGS_LIMIT)
    private, private_total = await private_dialogs.get_dialogs(
        me, limit=limit, folder_id=req.folder_id or 0, offset_date=req.offset_date, offset_id=req.offset_id,
        offset_peer_id=offset_user, cursor_pin=cursor_pin, exclude_pinned=req.exclude_pinned,
    )  # fmt: skip
    merged = [("c", e) for e in d.entries] + [("p", e) for e in private]
    merged.sort(key=lambda item: _order_key(*item), reverse=True)
    merged = merged[:limit]
    count = d.count + private_total
    return await _dialogs_response(me, merged, count=count, complete=not cursor and len(merged) == count)


@rpc(functions.messages.GetPeerDialogs)
async def get_peer_dialogs(ctx, req: functions.messages.GetPeerDialogs):
    me = viewer(ctx)
    wanted: list[tuple[str, int]] = []
    for p in req.peers[: limits.DIALOGS_LIMIT]:
        user_peer = _dialog_user_peer(p)
        if user_peer is not None:
            wanted.append(("p", private_rpc.peer_user_id(me, user_peer)))
            continue
        ref = dialog_peer_channel(p)
        if ref is None:
            continue  # folder peers: folders have no dialog of their own here
        channel, _ = await actions.get_channel_for_viewer(me, ref[0], ref[1])
        wanted.append(("c", channel["id"]))
    d = await actions.get_peer_dialogs(me, [i for kind, i in wanted if kind == "c"])
    private = await private_dialogs.get_peer_dialogs(me, [i for kind, i in wanted if kind == "p"])
    found = {("c", e.channel["id"]): e for e in d.entries} | {("p", e.peer_id): e for e in private}
    merged = [(kind, found[(kind, i)]) for kind, i in dict.fromkeys(wanted) if (kind, i) in found]
    return await _dialogs_response(me, merged, count=len(merged), complete=True, peer=True)


@rpc(functions.messages.GetPinnedDialogs)
async def get_pinned_dialogs(ctx, req: functions.messages.GetPinnedDialogs):
    me = viewer(ctx)
    if req.folder_id not in (0, 1):
        from ..errors import FolderIdInvalidError

        raise FolderIdInvalidError()
    d = await actions.get_pinned_dialogs(me, req.folder_id)
    private = await private_dialogs.get_pinned(me, req.folder_id)
    merged = sorted([("c", e) for e in d.entries] + [("p", e) for e in private], key=lambda it: _order_key(*it),
                    reverse=True)  # fmt: skip
    return await _dialogs_response(me, merged, count=len(merged), complete=True, peer=True)


@rpc(functions.messages.GetSavedDialogs, functions.messages.GetPinnedSavedDialogs)
async def get_saved_dialogs(ctx, req):
    # Saved Messages are one private chat with oneself here; their sublists by origin
    # peer (what these methods list) are not modelled.
    from accounts_app import tl_convert as accounts_tl

    return accounts_tl.empty_saved_dialogs_to_tl()


async def _dialog_ref(me: int, obj) -> tuple[str, int]:
    """("c", channel_id) / ("p", user_id) of an InputDialogPeer, hash-checked."""
    user_peer = _dialog_user_peer(obj)
    if user_peer is not None:
        return "p", private_rpc.peer_user_id(me, user_peer)
    ref = dialog_peer_channel(obj)
    if ref is None:
        raise PeerIdInvalidError()
    channel, _ = await actions.get_channel_for_viewer(me, *ref)
    return "c", channel["id"]


@rpc(functions.messages.ToggleDialogPin)
async def toggle_dialog_pin(ctx, req: functions.messages.ToggleDialogPin):
    me = viewer(ctx)
    kind, peer_id = await _dialog_ref(me, req.peer)
    folder_id = await pins.do_toggle_dialog_pin(me, (kind, peer_id), req.pinned)
    if folder_id is not None:
        if kind == "c":
            kind_name, payload = account_updates.DIALOG_PINNED, {"channel_id": peer_id}
        else:
            kind_name, payload = private_dialogs.DIALOG_PINNED, {"peer_id": peer_id}
        await account_updates.append(
            me, kind_name, {**payload, "pinned": req.pinned, "folder_id": folder_id}, exclude=own_session(ctx)
        )
    return True


@rpc(functions.messages.ReorderPinnedDialogs)
async def reorder_pinned_dialogs(ctx, req: functions.messages.ReorderPinnedDialogs):
    me = viewer(ctx)
    if len(req.order) > limits.PINNED_DIALOGS_MAX * 2:
        raise LimitInvalidError()
    # Folder peers (a pinned archive) have no pin of their own here.
    order = [await _dialog_ref(me, p) for p in req.order if isinstance(p, types.InputDialogPeer)]
    applied = await pins.do_reorder_pinned_dialogs(me, req.folder_id, order, force=req.force)
    await account_updates.append(
        me,
        account_updates.PINNED_ORDER,
        {"peers": [list(p) for p in applied], "folder_id": req.folder_id},
        exclude=own_session(ctx),
    )
    return True


@rpc(functions.messages.MarkDialogUnread)
async def mark_dialog_unread(ctx, req: functions.messages.MarkDialogUnread):
    me = viewer(ctx)
    user_peer = _dialog_user_peer(req.peer)
    if user_peer is not None:
        await private_dialogs.do_mark_dialog_unread(
            me, private_rpc.peer_user_id(me, user_peer), req.unread, exclude=own_session(ctx)
        )
        return True
    ref = dialog_peer_channel(req.peer)
    if ref is None:
        raise PeerIdInvalidError()
    channel, _ = await actions.get_channel_for_viewer(me, *ref)
    if req.parent_peer is not None:
        return True  # monoforum sub-dialogs are not modelled
    if await actions.do_mark_dialog_unread(me, channel["id"], req.unread):
        await account_updates.append(
            me,
            account_updates.UNREAD_MARK,
            {"channel_id": channel["id"], "unread": req.unread},
            exclude=own_session(ctx),
        )
    return True


@rpc(functions.messages.GetDialogUnreadMarks)
async def get_dialog_unread_marks(ctx, req: functions.messages.GetDialogUnreadMarks):
    me = viewer(ctx)
    if req.parent_peer is not None:
        return []
    channels = [
        types.DialogPeer(peer=types.PeerChannel(channel_id=c)) for c in await actions.get_unread_marks(me)
    ]
    return channels + [private_tl.dialog_peer_to_tl(u) for u in await private_dialogs.get_unread_marks(me)]


@rpc(functions.folders.EditPeerFolders)
async def edit_peer_folders(ctx, req: functions.folders.EditPeerFolders):
    me = viewer(ctx)
    ups, chat_ids, user_ids = [], [], []
    for fp in req.folder_peers[: limits.DIALOGS_LIMIT]:
        if is_user_peer(fp.peer):
            uid = private_rpc.peer_user_id(me, fp.peer)
            pts = await private_dialogs.do_set_dialog_folder(me, uid, fp.folder_id, exclude=own_session(ctx))
            if pts is not None:
                ups.append(private_tl.folder_update_to_tl(uid, fp.folder_id, pts))
            user_ids.append(uid)
            continue
        ref = dialog_peer_channel(fp.peer)
        if ref is None:
            raise PeerIdInvalidError()
        channel, _ = await actions.get_channel_for_viewer(me, *ref)
        if await actions.do_set_dialog_folder(me, channel["id"], fp.folder_id):
            pts = await account_updates.append(
                me,
                account_updates.FOLDER,
                {"channel_id": channel["id"], "folder_id": fp.folder_id},
                exclude=own_session(ctx),
            )
            if pts is not None:
                ups.append(
                    types.UpdateFolderPeers(
                        folder_peers=[
                            types.FolderPeer(
                                peer=types.PeerChannel(channel_id=channel["id"]), folder_id=fp.folder_id
                            )
                        ],
                        pts=pts,
                        pts_count=1,
                    )
                )
        chat_ids.append(channel["id"])
    return tl_convert.updates_to_tl(ups, await users_for(me, user_ids), await chats_for(me, chat_ids))


@rpc(functions.messages.GetUnreadMentions)
async def get_unread_mentions(ctx, req: functions.messages.GetUnreadMentions):
    """The viewer's unread mentions in a channel, newest first (topics: not modelled,
    so top_msg_id narrows nothing)."""
    me = viewer(ctx)
    channel, _ = await _checked_peer(me, req.peer)
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
    channel, _ = await _checked_peer(me, req.peer)
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
    """Text / sender / date search in one channel. Media filters answer an empty page
    (no media exist); the pinned filter lists the pinned messages."""
    if is_user_peer(req.peer):
        return await private_rpc.search(ctx, req)
    me = viewer(ctx)
    channel, member = await _checked_peer(me, req.peer, preview=True)
    known = {channel["id"]: (channel, member)}
    if isinstance(req.filter, types.InputMessagesFilterPinned):
        ids = await actions.pinned_message_ids(channel["id"], min(req.limit or 100, limits.HISTORY_LIMIT))
        h = await actions.get_existing_messages(me, channel["id"], ids)
    elif not isinstance(req.filter, types.InputMessagesFilterEmpty):
        return tl_convert.empty_channel_messages_to_tl(channel["pts"])
    else:
        h = await actions.get_history(
            me, channel["id"], offset_id=req.offset_id, add_offset=req.add_offset, limit=req.limit,
            max_id=req.max_id, min_id=req.min_id, q=req.q.strip(), thread_id=req.top_msg_id or 0,
            from_user_id=_search_from_user(me, req.from_id), min_date=req.min_date, max_date=req.max_date,
        )  # fmt: skip
    users, chats = await context_for(me, h.messages, (), [channel["id"]], known)
    return tl_convert.channel_messages_to_tl(h, me, users, chats)


@rpc(functions.messages.GetReplies)
async def get_replies(ctx, req: functions.messages.GetReplies):
    """A thread: the replies whose thread top is msg_id (seek like getHistory)."""
    me = viewer(ctx)
    channel, _ = await _checked_peer(me, req.peer, preview=True)
    await actions.get_thread_root(me, channel["id"], req.msg_id)
    h = await actions.get_history(
        me, channel["id"], offset_id=req.offset_id, offset_date=req.offset_date, add_offset=req.add_offset,
        limit=req.limit, max_id=req.max_id, min_id=req.min_id, thread_id=req.msg_id,
    )  # fmt: skip
    users, chats = await context_for(
        me, h.messages, (), [channel["id"]], {channel["id"]: (h.channel, h.member)}
    )
    return tl_convert.channel_messages_to_tl(h, me, users, chats)


@rpc(functions.messages.GetDiscussionMessage)
async def get_discussion_message(ctx, req: functions.messages.GetDiscussionMessage):
    """In a megagroup a message's discussion is its own thread (no linked channels)."""
    me = viewer(ctx)
    channel, _ = await _checked_peer(me, req.peer, preview=True)
    root = await actions.get_thread_root(me, channel["id"], req.msg_id)
    latest = await actions.get_history(me, channel["id"], limit=1, thread_id=req.msg_id)
    top = latest.messages[0]["id"] if latest.messages else 0
    users, chats = await context_for(
        me, root.messages, (), [channel["id"]], {channel["id"]: (root.channel, root.member)}
    )
    return tl_convert.discussion_message_to_tl(root.messages[0], me, top, users, chats)


@rpc(functions.messages.ReadDiscussion)
async def read_discussion(ctx, req: functions.messages.ReadDiscussion):
    """Thread read marks are not stored separately: the thread must exist and be
    visible; the channel's own read mark is what clients show."""
    me = viewer(ctx)
    channel, _ = await _checked_peer(me, req.peer)
    await actions.get_thread_root(me, channel["id"], req.msg_id)
    return True
