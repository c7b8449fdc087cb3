"""Messages in channels: send, forward, edit, delete, history, exact reads, read marks.

One copy per message in ``channel_messages``; no per-member rows are written by a send
(O(1) rows for any channel size): the message, its pts event, the channel's top/pts
and the sender's own read state.
"""

from __future__ import annotations

import contextlib
import json

from media_app import actions as media_holders
from message_core import db, limits, send_hooks
from message_core.text import (
    SEARCH_WINDOW,
    history_window,
    is_caption,
    like_pattern,
    validate_caption,
    validate_text,
)
from polls_app import actions as polls
from tl.errors import MediaPrevInvalidError

from .. import notify
from ..domain import ChannelChange, ChannelEvent, History
from ..errors import (
    ChannelInvalidError,
    ChannelPrivateError,
    ChatAdminRequiredError,
    ChatForwardsRestrictedError,
    ChatSendPlainForbiddenError,
    ChatWriteForbiddenError,
    LimitInvalidError,
    MessageAuthorRequiredError,
    MessageDeleteForbiddenError,
    MessageIdInvalidError,
    MessageIdsEmptyError,
    MessageNotModifiedError,
    MsgIdInvalidError,
    QuoteTextInvalidError,
    RandomIdEmptyError,
    RandomIdInvalidError,
    ReplyMessageIdInvalidError,
    SlowmodeWaitError,
    TopicDeletedError,
    TopicIdInvalidError,
)
from ..rights import banned_bit, effective_banned, has_admin_right, is_admin
from . import admin_log, discussion, media_read, mentions, reactions, topics
from . import send_as as send_as_rules
from .admin import load_for_actor, require_right
from .common import (
    MESSAGE_COLUMNS,
    insert_event,
    is_active,
    jsonb,
    load_channel,
    load_member,
    load_visible_message,
    mark_pinned,
    message_refs,
    message_snapshot,
    now,
    require_visible,
    with_pts,
)
from .media import check_media_rights, media_condition
from .mentions import mentioned_user_ids
from .message_writes import write_messages
from .send_context import load_send_context

MENTION_LOOKUPS_MAX = 20  # @username lookups per message


async def resolve_username_mentions(message: str, entities: list[dict]) -> list[dict]:
    """Give each ``@username`` entity the id of the user it names (if any), so every
    viewer's copy can say whether it mentions them without parsing text again."""
    wanted = [e for e in entities if e.get("type") == "mention"][:MENTION_LOOKUPS_MAX]
    if not wanted:
        return entities
    from asgiref.sync import sync_to_async

    try:
        from accounts_app.actions import find_user_by_username
    except ImportError:
        return entities
    units = message.encode("utf-16-le")
    for e in wanted:
        text = units[2 * e["offset"] : 2 * (e["offset"] + e["length"])].decode("utf-16-le", "replace")
        try:
            uid = await sync_to_async(find_user_by_username)(text)
        except Exception:  # not a valid username: an ordinary @word
            uid = None
        if uid:
            e["user_id"] = uid
    return entities


def _check_can_send(channel: dict, member: dict | None, *, plain: bool = True) -> None:
    if channel["deleted"]:
        raise ChannelPrivateError()
    if not is_active(member):
        if member is None and channel["username"]:
            raise ChatWriteForbiddenError()
        raise ChannelPrivateError()
    if channel["broadcast"]:
        if not has_admin_right(member, "post_messages"):
            raise ChatAdminRequiredError()
        return
    if is_admin(member):
        return
    banned = effective_banned(member, channel, now())
    if banned & banned_bit("view_messages"):
        raise ChannelPrivateError()
    if banned & banned_bit("send_messages"):
        raise ChatWriteForbiddenError()
    if plain and banned & banned_bit("send_plain"):
        raise ChatSendPlainForbiddenError()


async def check_can_send(sender_id: int, channel_id: int, media: list[dict | None]) -> dict:
    """The rights a send of these messages (their media, None for text) needs, checked
    without sending: a scheduled message is checked when scheduled, and its send checks
    again when it happens. Returns the channel."""
    async with db.connection() as conn:
        channel = await load_channel(conn, channel_id)
        member = await load_member(conn, channel_id, sender_id) if channel is not None else None
    if channel is None:
        raise ChannelPrivateError()
    _check_can_send(channel, member, plain=not all(media))
    for m in media:
        if m:
            check_media_rights(channel, member, m)
    return channel


def _check_slowmode(channel: dict, member: dict, date: int) -> None:
    if channel["broadcast"] or is_admin(member) or not channel["slowmode_seconds"]:
        return
    wait = member["slowmode_last_send_date"] + channel["slowmode_seconds"] - date
    if wait > 0:
        raise SlowmodeWaitError(seconds=wait)


async def _original_by_random_ids(
    conn, channel_id: int, sender: int, random_ids: list[int]
) -> dict[int, ChannelEvent]:
    """The durable new_message snapshots of earlier sends with these random ids."""
    cur = await conn.execute(
        "SELECT m.random_id, e.pts, e.date, e.payload FROM channel_messages m"
        " JOIN channel_update_events e ON e.channel_id = m.channel_id AND e.pts = m.pts"
        " WHERE m.channel_id = %s AND m.sender_user_id = %s AND m.random_id = ANY(%s)"
        " AND e.channel_id = %s",
        (channel_id, sender, random_ids, channel_id),
    )
    out = {}
    for r in await cur.fetchall():
        out[r["random_id"]] = ChannelEvent(
            channel_id, r["pts"], 1, "new_message", r["date"], r["payload"], random_id=r["random_id"]
        )
    return out


async def do_send_message(
    sender_id: int,
    channel_id: int,
    message: str,
    random_id: int,
    *,
    entities: list[dict] | None = None,
    reply_to_msg_id: int = 0,
    top_msg_id: int = 0,
    quote_text: str | None = None,
    quote_entities: list[dict] | None = None,
    quote_offset: int | None = None,
    silent: bool = False,
    sender_name="",
    access_hash: int = 0,
    media: dict | None = None,
    send_as: int | None = None,
    reply_markup: dict | None = None,
    via_bot_id: int = 0,
    noforwards: bool = False,
) -> ChannelChange:
    """messages.sendMessage (or sendMedia, with ``media``: a photo or document snapshot
    and its kind) into a channel. A non-zero ``access_hash`` (what the client sent) is
    checked here, saving the handler a lookup on the hottest path. ``send_as``: the
    channel id asked for (0 the user, None the saved default), re-checked here.
    ``noforwards``: this message is protected even where the channel is not (a bot's
    protect_content)."""
    if not random_id:
        raise RandomIdEmptyError()
    attached = media if is_caption(media) else None
    checked = validate_caption(message, entities) if attached else validate_text(message, entities)
    entities = await resolve_username_mentions(message, checked)
    channel, member, earlier = await load_send_context(channel_id, sender_id, random_id)
    if channel is None:
        raise ChannelPrivateError()
    if access_hash and access_hash != channel["access_hash"]:
        raise ChannelPrivateError()
    _check_can_send(channel, member, plain=not attached)
    if attached:
        check_media_rights(channel, member, media)
    elif (
        media
        and not (channel["broadcast"] or is_admin(member))
        and effective_banned(member, channel, now()) & banned_bit("embed_links")
    ):
        media = None  # no link preview without the right to embed links
    as_channel = send_as_rules.resolve(channel, member, send_as, channel.get("default_send_as") or 0)
    if earlier:
        # An idempotent retry returns the original durable snapshot, even if the message
        # was edited or deleted since, and does not count against slowmode.
        async with db.connection() as conn:
            original = await _original_by_random_ids(conn, channel_id, sender_id, [random_id])
        if random_id in original:
            ev = original[random_id]
            refs_u, refs_c = {sender_id}, {channel_id}
            message_refs([ev.message], refs_u, refs_c)
            return ChannelChange(channel=channel, events=[ev], user_ids=refs_u, duplicate=True, member=member)
    _check_slowmode(channel, member, now())
    await send_hooks.check(sender_id, "channel", channel_id, 1)
    reply_top = reply_user = topic_id = 0
    quote = None
    # Most sends reply to nothing and need no connection beyond the batched checks.
    async with db.connection() if reply_to_msg_id or top_msg_id else contextlib.nullcontext() as conn:
        if channel["forum"] and channel["megagroup"] and (reply_to_msg_id or top_msg_id):
            # A forum: the thread is the topic (General has none), the client's top is
            # only which topic it means.
            target = None
            if reply_to_msg_id:
                if not 0 < reply_to_msg_id <= limits.MAX_MESSAGE_ID:
                    raise ReplyMessageIdInvalidError()
                target = await load_visible_message(
                    conn, channel_id, reply_to_msg_id, member["available_min_id"]
                )
                if target is None:
                    raise ReplyMessageIdInvalidError()
                if target["action"] is None and not target["send_as_channel_id"]:
                    reply_user = target["sender_user_id"]
            topic_id = await topics.topic_for_send(conn, channel, member, reply_to_msg_id, top_msg_id, target)
            reply_to_msg_id = reply_to_msg_id or topic_id
            reply_top = topic_id
        elif reply_to_msg_id or top_msg_id:
            target_id = reply_to_msg_id or top_msg_id
            if not 0 < target_id <= limits.MAX_MESSAGE_ID:
                raise ReplyMessageIdInvalidError()
            target = await load_visible_message(conn, channel_id, target_id, member["available_min_id"])
            if target is None:
                raise ReplyMessageIdInvalidError()
            reply_to_msg_id = target_id
            # The thread top is the server's, never the client's.
            reply_top = target["reply_to_top_id"] or target["id"]
            # A reply to a message sent as a channel mentions nobody (that is its point).
            if channel["megagroup"] and target["action"] is None and not target["send_as_channel_id"]:
                reply_user = target["sender_user_id"]
        if reply_to_msg_id and quote_text:
            if len(quote_text) > limits.QUOTE_TEXT_MAX:
                raise QuoteTextInvalidError()
            quote = {
                "text": quote_text,
                "entities": validate_text(quote_text, quote_entities),
                "offset": max(0, min(int(quote_offset or 0), limits.MESSAGE_MAX)),
            }
    post_author = ""
    if as_channel:
        post_author = member["rank"] or ""  # an anonymous admin is shown by title only
    elif channel["broadcast"] and channel["signatures"]:
        # A callable is only awaited here: the name costs a lookup only when signed.
        name = await sender_name() if callable(sender_name) else sender_name
        post_author = (name or "")[: limits.POST_AUTHOR_MAX]
    row = {
        "message": message,
        "entities": entities,
        "random_id": random_id,
        "reply_to_msg_id": reply_to_msg_id,
        "reply_to_top_id": reply_top,
        "reply_to_user_id": reply_user,
        "forum_topic": bool(topic_id),
        "quote": quote,
        "media": media,
        "reply_markup": reply_markup,
        "via_bot_id": via_bot_id,
        "noforwards": noforwards,
    }
    events = await write_messages(
        channel, sender_id, [row], silent=silent, post_author=post_author, send_as=as_channel
    )
    if not events:  # lost a race against a retry of the same random_id
        async with db.connection() as conn:
            original = await _original_by_random_ids(conn, channel_id, sender_id, [random_id])
        events = [original[random_id]]
        duplicate = True
    else:
        duplicate = False
        # Published before the bookkeeping below, each of which waits for a pooled
        # connection: later events of the channel wait for this one (push_order).
        await _publish_new(events, sender_id)
        send_hooks.delivered(sender_id, "channel", channel_id, [e.message for e in events], channel)
        if media:
            await media_holders.do_add_holders(media_holders.media_keys(media), "c", [channel_id])
        if topic_id:
            await topics.touch_topic(channel_id, topic_id, events[0].message["id"], events[0].message["date"])
        mentioned = mentioned_user_ids(events[0].message)
        if mentioned:
            await mentions.record_mentions(channel_id, events[0].message["id"], sender_id, mentioned)
        if reply_top:
            await discussion.count_reply(channel, events[0].message)
        if channel["broadcast"]:
            await discussion.create_roots(channel, events)
            # After the commit, in its own transaction: the send itself is one statement.
            await admin_log.log_event(
                channel_id, sender_id, "send_message", data={"message": events[0].message}, query=message
            )
    users, chans = {sender_id}, {channel_id}
    message_refs([e.message for e in events], users, chans)
    channel = {**channel, "top_message_id": max(channel["top_message_id"], events[-1].message["id"])}
    return ChannelChange(channel=channel, events=events, user_ids=users, duplicate=duplicate, member=member)


KEEP_MARKUP = object()  # reply_markup of an edit that leaves the keyboard as it is


async def _publish_new(events: list[ChannelEvent], sender_id: int) -> None:
    for ev in events:
        await notify.publish(
            "channel.event", {"event": ev.to_payload(), "extra_user_ids": [], "exclude_user_id": 0}
        )


def _forward_header(src_channel: dict, m: dict) -> dict:
    if m.get("fwd_from"):
        # A forward of a forward names the original source (a discussion root's link
        # to its post stays behind).
        return {k: v for k, v in m["fwd_from"].items() if not k.startswith("saved_from")}
    if src_channel["broadcast"]:
        return {
            "from_channel_id": src_channel["id"],
            "channel_post": m["id"],
            "post_author": m.get("post_author") or "",
            "date": m["date"],
        }
    return {"from_user_id": m["sender_user_id"], "date": m["date"]}


async def get_forwardable(viewer_id: int, channel_id: int, ids: list[int]) -> tuple[dict, list[dict]]:
    """Source side of messages.forwardMessages from a channel: visible, non-service,
    not content-protected messages, in request order, with their forward header."""
    if not ids:
        raise MessageIdsEmptyError()
    if len(ids) > limits.FORWARD_IDS_MAX:
        raise LimitInvalidError()
    async with db.connection() as conn:
        channel = await load_channel(conn, channel_id)
        if channel is None:
            raise ChannelPrivateError()
        member = await load_member(conn, channel_id, viewer_id)
        require_visible(channel, member, allow_public_preview=True)
        amin = member["available_min_id"] if member else 0
        cur = await conn.execute(
            f"SELECT {MESSAGE_COLUMNS} FROM channel_messages WHERE channel_id = %s AND id = ANY(%s) AND NOT deleted",
            (channel_id, ids),
        )
        rows = {r["id"]: r for r in await cur.fetchall() if r["id"] > amin and r["action"] is None}
    if channel["noforwards"] or any(r["noforwards"] for r in rows.values()):
        raise ChatForwardsRestrictedError()
    out = []
    for i in ids:
        r = rows.get(i)
        if r is not None:
            out.append(
                {
                    "message": r["message"],
                    "entities": r["entities"],
                    "media": r["media"],
                    "fwd_from": _forward_header(channel, r),
                    "source": r,
                }
            )
    if not out:
        raise MessageIdInvalidError()
    if not channel["broadcast"]:
        from asgiref.sync import sync_to_async

        from accounts_app.privacy import hide_forward_senders

        await sync_to_async(hide_forward_senders)(viewer_id, out)
    return channel, out


async def do_forward_to_channel(
    sender_id: int,
    channel_id: int,
    items: list[dict],
    random_ids: list[int],
    *,
    drop_author: bool = False,
    silent: bool = False,
    sender_name: str = "",
    top_msg_id: int = 0,
    send_as: int | None = None,
) -> ChannelChange:
    """Target side of messages.forwardMessages into a channel. ``items``: message,
    entities, fwd_from (from get_forwardable or a private-chat source). ``top_msg_id``:
    the forum topic the copies land in (checked like a send into it)."""
    if len(random_ids) != len(items) or len(set(random_ids)) != len(random_ids) or not all(random_ids):
        raise RandomIdInvalidError()
    async with db.connection() as conn:
        channel = await load_channel(conn, channel_id)
        if channel is None:
            raise ChannelPrivateError()
        member = await load_member(conn, channel_id, sender_id)
        _check_can_send(channel, member)
        as_channel = send_as_rules.resolve(
            channel, member, send_as, await send_as_rules.saved_default(conn, sender_id, channel_id)
        )
        topic_id = 0
        if top_msg_id and channel["forum"] and channel["megagroup"]:
            topic_id = await topics.topic_for_send(conn, channel, member, 0, top_msg_id, None)
        original = await _original_by_random_ids(conn, channel_id, sender_id, random_ids)
        if len(original) < len(random_ids):
            _check_slowmode(channel, member, now())
    rows = []
    for item, rid in zip(items, random_ids, strict=True):
        if rid in original:
            continue
        rows.append(
            {
                "message": item["message"],
                "entities": item.get("entities") or [],
                "random_id": rid,
                "media": item.get("media"),
                "fwd_from": None if drop_author else item.get("fwd_from"),
                "reply_to_msg_id": topic_id,
                "reply_to_top_id": topic_id,
                "forum_topic": bool(topic_id),
            }
        )
    if rows:
        await send_hooks.check(sender_id, "channel", channel_id, len(rows))
    post_author = (
        sender_name[: limits.POST_AUTHOR_MAX] if channel["broadcast"] and channel["signatures"] else ""
    )
    if as_channel:
        post_author = member["rank"] or ""
    events = (
        await write_messages(
            channel, sender_id, rows, silent=silent, post_author=post_author, send_as=as_channel
        )
        if rows
        else []
    )
    keys = [k for r in rows for k in media_holders.media_keys(r.get("media"))]
    if keys:
        await media_holders.do_add_holders(keys, "c", [channel_id])
    if events and topic_id:
        await topics.touch_topic(channel_id, topic_id, events[-1].message["id"], events[-1].message["date"])
    await _publish_new(events, sender_id)
    if channel["broadcast"]:
        await discussion.create_roots(channel, events)
    by_rid = {e.random_id: e for e in [*original.values(), *events]}
    ordered = [by_rid[r] for r in random_ids if r in by_rid]
    users, chans = {sender_id}, {channel_id}
    message_refs([e.message for e in ordered], users, chans)
    return ChannelChange(channel=channel, events=ordered, user_ids=users, duplicate=not events)


def require_editable(channel: dict, member: dict | None, m: dict, editor_id: int) -> None:
    """Who may edit a channel message: its author, or in a broadcast channel an admin
    with edit_messages. Service messages are never edited."""
    if m.get("empty") or m.get("action") is not None:
        raise MessageIdInvalidError()
    own = m["sender_user_id"] == editor_id
    if not own and not (channel["broadcast"] and has_admin_right(member, "edit_messages")):
        raise MessageAuthorRequiredError()


async def do_edit_message(
    editor_id: int,
    channel_id: int,
    msg_id: int,
    message: str | None,
    entities: list[dict] | None,
    *,
    media: dict | None = None,
    reply_markup=KEEP_MARKUP,
    link_preview: dict | None = None,
    relink: bool = False,
) -> ChannelChange:
    """messages.editMessage in a channel: new text (a caption, on a media message) and/or
    new media in place of the old (a media message only). ``message`` None keeps the text;
    ``reply_markup`` a bot's new keyboard (None removes it, KEEP_MARKUP leaves it).
    ``relink``: a text message's link preview becomes ``link_preview`` (None: none)."""
    if message is None and media is None and reply_markup is KEEP_MARKUP:
        raise MessageNotModifiedError()
    async with db.connection() as conn:
        channel = await load_channel(conn, channel_id)
        if channel is None:
            raise ChannelPrivateError()
        member = await load_member(conn, channel_id, editor_id)
        if not is_active(member) or channel["deleted"]:
            raise ChannelPrivateError()
        if not 0 < msg_id <= limits.MAX_MESSAGE_ID:
            raise MessageIdInvalidError()
        current = await load_visible_message(conn, channel_id, msg_id, member["available_min_id"])
    if current is None:
        raise MessageIdInvalidError()
    require_editable(channel, member, current, editor_id)
    if media is not None and not current["media"]:
        raise MediaPrevInvalidError()  # only a media message gets new media
    if media is not None:
        check_media_rights(channel, member, media)
    if message is None:
        message, entities = current["message"], current["entities"] or []
    else:
        checked = (
            validate_caption(message, entities)
            if is_caption(current["media"])
            else validate_text(message, entities)
        )
        entities = await resolve_username_mentions(message, checked)
    own = current["sender_user_id"] == editor_id  # others' edits are admin-logged
    same_markup = reply_markup is KEEP_MARKUP or reply_markup == current.get("reply_markup")
    if (
        media is None
        and current["message"] == message
        and (current["entities"] or []) == entities
        and same_markup
    ):
        raise MessageNotModifiedError()
    markup = current.get("reply_markup") if reply_markup is KEEP_MARKUP else reply_markup
    if media is not None:
        await media_holders.do_add_holders(media_holders.media_keys(media), "c", [channel_id])
    # A text message's preview follows its new text; a media message keeps its media.
    relink = relink and media is None and not is_caption(current["media"])
    if relink:
        media = link_preview
    date = now()

    async def body(conn, _mid, pts):
        cur = await conn.execute(
            f"UPDATE channel_messages SET message = %s, entities = %s, edit_date = %s,"
            f" media = CASE WHEN %s THEN %s::jsonb ELSE COALESCE(%s::jsonb, media) END,"
            f" reply_markup = %s::jsonb"
            f" WHERE channel_id = %s AND id = %s AND NOT deleted RETURNING {MESSAGE_COLUMNS}",
            (
                message,
                jsonb(entities),
                date,
                relink,
                jsonb(media),
                jsonb(media),
                jsonb(markup),
                channel_id,
                msg_id,
            ),
        )
        row = await cur.fetchone()
        if row is None:
            raise MessageIdInvalidError()  # deleted meanwhile: the pts becomes a noop
        snap = {k: row[k] for k in row if k != "random_id"}
        snap["pts"] = pts
        await insert_event(
            conn, channel_id=channel_id, pts=pts, pts_count=1, type="edit_message", date=date,
            message_id=msg_id, sender_user_id=row["sender_user_id"],
            user_ids=sorted({row["sender_user_id"], *mentioned_user_ids(row)}), payload=snap,
        )  # fmt: skip
        await conn.execute("UPDATE channels SET pts = GREATEST(pts, %s) WHERE id = %s", (pts, channel_id))
        if channel["broadcast"] or not own:
            await admin_log.record(
                conn, channel_id, editor_id, "edit_message", target_user_id=row["sender_user_id"],
                data={"prev_message": message_snapshot(current), "new_message": snap}, query=message, date=date,
            )  # fmt: skip
        return ChannelEvent(channel_id, pts, 1, "edit_message", date, snap)

    event = await with_pts(channel_id, 1, body)
    await notify.publish(
        "channel.event", {"event": event.to_payload(), "extra_user_ids": [], "exclude_user_id": 0}
    )
    send_hooks.edited(editor_id, "channel", channel_id, [event.message], channel)
    before, after = mentioned_user_ids(current), mentioned_user_ids({**current, "entities": entities})
    if before or after:
        await mentions.do_update_mentions(channel_id, msg_id, current["sender_user_id"], before, after)
    users, chans = {editor_id}, {channel_id}
    message_refs([event.message], users, chans)
    return ChannelChange(channel=channel, events=[event], user_ids=users)


async def _delete_ids(
    channel: dict, ids: list[int], *, actor_id: int | None = 0, logged: list[dict] = ()
) -> ChannelEvent | None:
    """Mark ``ids`` deleted with one updateDeleteChannelMessages (pts_count = len);
    ``logged`` rows get a delete_message admin-log entry by ``actor_id``."""
    if not ids:
        return None
    channel_id = channel["id"]
    date = now()
    n = len(ids)

    async def body(conn, _mid, pts):
        cur = await conn.execute(
            "UPDATE channel_messages SET deleted = true, message = '', entities = '[]', media = NULL"
            " WHERE channel_id = %s AND id = ANY(%s) AND NOT deleted RETURNING id",
            (channel_id, ids),
        )
        done = sorted(r["id"] for r in await cur.fetchall())
        if len(done) != n:
            raise MessageIdInvalidError()  # raced with another delete: pts range -> noop
        await reactions.recount_after_delete(conn, channel_id, done)
        await insert_event(
            conn,
            channel_id=channel_id,
            pts=pts,
            pts_count=n,
            type="delete_messages",
            date=date,
            message_ids=done,
        )
        for m in logged:
            await admin_log.record(
                conn, channel_id, actor_id, "delete_message", target_user_id=m["sender_user_id"],
                data={"message": message_snapshot(m)}, query=m["message"], date=date,
            )  # fmt: skip
        # The visible top may have been deleted: recompute it from the history index.
        await conn.execute(
            "UPDATE channels SET pts = GREATEST(pts, %(p)s),"
            " top_message_id = COALESCE((SELECT id FROM channel_messages WHERE channel_id = %(c)s AND NOT deleted"
            " ORDER BY id DESC LIMIT 1), 0),"
            " top_message_date = COALESCE((SELECT date FROM channel_messages WHERE channel_id = %(c)s AND NOT deleted"
            " ORDER BY id DESC LIMIT 1), 0) WHERE id = %(c)s",
            {"p": pts, "c": channel_id},
        )
        return ChannelEvent(channel_id, pts, n, "delete_messages", date, None, done)

    event = await with_pts(channel_id, n, body)
    await notify.publish(
        "channel.event", {"event": event.to_payload(), "extra_user_ids": [], "exclude_user_id": 0}
    )
    return event


async def do_delete_messages(
    user_id: int | None, channel_id: int, ids: list[int]
) -> tuple[dict, ChannelEvent | None]:
    """channels.deleteMessages: own messages, or any with delete_messages; cap 1000.
    ``user_id`` None is the operator console: every right, actor 0 in the admin log.
    Deleting someone else's message (and any post of a broadcast) is admin-logged."""
    if not ids:
        raise MessageIdsEmptyError()
    if len(ids) > limits.DELETE_IDS_MAX:
        raise LimitInvalidError()
    ids = sorted({i for i in ids if 0 < i <= limits.MAX_MESSAGE_ID})
    async with db.connection() as conn:
        channel = await load_channel(conn, channel_id)
        if channel is None or channel["deleted"]:
            raise ChannelPrivateError()
        operator = user_id is None
        member = None if operator else await load_member(conn, channel_id, user_id)
        if not operator and not is_active(member):
            raise ChannelPrivateError()
        cur = await conn.execute(
            f"SELECT {MESSAGE_COLUMNS} FROM channel_messages WHERE channel_id = %s AND id = ANY(%s)"
            " AND NOT deleted AND id > %s",
            (channel_id, ids, member["available_min_id"] if member else 0),
        )
        rows = await cur.fetchall()
    may_all = operator or has_admin_right(member, "delete_messages")
    for r in rows:
        if not may_all and (channel["broadcast"] or r["sender_user_id"] != user_id):
            raise MessageDeleteForbiddenError()
    logged = [r for r in rows if channel["broadcast"] or r["sender_user_id"] != user_id]
    event = await _delete_ids(channel, [r["id"] for r in rows], actor_id=user_id, logged=logged)
    async with db.connection() as conn:
        channel = await load_channel(conn, channel_id)
    return channel, event


async def do_delete_history(
    user_id: int, channel_id: int, max_id: int, *, for_everyone: bool
) -> tuple[dict, ChannelEvent | None, int, bool]:
    """channels.deleteHistory / messages.deleteHistory for a channel.

    Local clear (default): the member's ``available_min_id`` rises monotonically to
    ``min(max_id, top)`` (0 = everything); no channel pts. For everyone: one bounded
    page (1000 newest ids <= max_id) becomes one delete event; returns whether more
    remain (the affectedHistory ``offset``).

    Returns (channel, delete event, applied available_min_id, more).
    """
    async with db.connection() as conn:
        channel = await load_channel(conn, channel_id)
        if channel is None:
            raise ChannelPrivateError()
        member = await load_member(conn, channel_id, user_id)
        if not is_active(member) or channel["deleted"]:
            raise ChannelPrivateError()
    top = channel["top_message_id"]
    bound = top if max_id <= 0 else min(max_id, top)
    if not for_everyone:
        async with db.connection() as conn, conn.transaction():
            cur = await conn.execute(
                "UPDATE channel_members SET available_min_id = GREATEST(available_min_id, %s),"
                " read_inbox_max_id = GREATEST(read_inbox_max_id, %s)"
                " WHERE channel_id = %s AND user_id = %s RETURNING available_min_id",
                (bound, bound, channel_id, user_id),
            )
            applied = (await cur.fetchone())["available_min_id"]
            await conn.execute(
                "UPDATE channel_dialogs SET read_inbox_max_id = GREATEST(read_inbox_max_id, %s)"
                " WHERE user_id = %s AND channel_id = %s",
                (applied, user_id, channel_id),
            )
        await notify.publish(
            "channel.available_messages",
            {"channel_id": channel_id, "user_id": user_id, "available_min_id": applied},
        )
        return channel, None, applied, False
    if channel["broadcast"] or not has_admin_right(member, "delete_messages"):
        raise ChatAdminRequiredError()
    async with db.connection() as conn:
        cur = await conn.execute(
            "SELECT id FROM channel_messages WHERE channel_id = %s AND NOT deleted AND id <= %s"
            " ORDER BY id DESC LIMIT %s",
            (channel_id, bound, limits.DELETE_HISTORY_PAGE + 1),
        )
        ids = [r["id"] for r in await cur.fetchall()]
    more = len(ids) > limits.DELETE_HISTORY_PAGE
    ids = ids[: limits.DELETE_HISTORY_PAGE]
    event = await _delete_ids(channel, ids)
    async with db.connection() as conn:
        channel = await load_channel(conn, channel_id)
    return channel, event, member["available_min_id"], more


async def do_delete_topic_history(
    actor_id: int, channel_id: int, topic_id: int
) -> tuple[ChannelEvent | None, bool]:
    """messages.deleteTopicHistory: an admin with delete_messages deletes a forum topic's
    messages one bounded page (DELETE_HISTORY_PAGE, newest first) per call, each page
    one delete event; the page that empties the topic also deletes its root message
    and marks the topic deleted. Returns (event, more) for affectedHistory.offset."""
    channel, member = await load_for_actor(channel_id, actor_id)
    topics.require_forum(channel)
    if not has_admin_right(member, "delete_messages"):
        raise ChatAdminRequiredError()
    if not topics.GENERAL_TOPIC_ID < topic_id <= limits.MAX_MESSAGE_ID:
        raise TopicIdInvalidError()
    async with db.connection() as conn:
        topic = await topics.load_topic(conn, channel_id, topic_id)
        if topic is None:
            raise TopicIdInvalidError()
        if topic["deleted"]:
            raise TopicDeletedError()
        cur = await conn.execute(
            "SELECT id FROM channel_messages WHERE channel_id = %s AND reply_to_top_id = %s AND reply_to_top_id > 0"
            " AND NOT deleted ORDER BY id DESC LIMIT %s",
            (channel_id, topic_id, limits.DELETE_HISTORY_PAGE + 1),
        )
        ids = [r["id"] for r in await cur.fetchall()]
        more = len(ids) > limits.DELETE_HISTORY_PAGE
        ids = ids[: limits.DELETE_HISTORY_PAGE]
        if not more:  # the last page takes the root with it
            cur = await conn.execute(
                "SELECT 1 FROM channel_messages WHERE channel_id = %s AND id = %s AND NOT deleted",
                (channel_id, topic_id),
            )
            if await cur.fetchone():
                ids.append(topic_id)
    event = await _delete_ids(channel, ids)
    if not more:
        await topics.mark_deleted(channel_id, topic_id)
    return event, more


async def get_history(
    viewer_id: int,
    channel_id: int,
    *,
    offset_id: int = 0,
    offset_date: int = 0,
    add_offset: int = 0,
    limit: int = 20,
    max_id: int = 0,
    min_id: int = 0,
    thread_id: int = 0,
    q: str = "",
    from_user_id: int = 0,
    min_date: int = 0,
    max_date: int = 0,
    media_kinds: tuple[str, ...] = (),
    via_post: bool = False,
) -> History:
    """messages.getHistory on a channel: seek pagination on (channel_id, id), no OFFSET.

    ``via_post``: a discussion thread read through its broadcast post (the caller
    checked the post is visible): a subscriber reads the comments without joining.

    The same seek serves messages.getReplies (``thread_id``: replies whose thread top
    is that message, on the thread index) and messages.search (``q``, ``from_user_id``,
    dates). A text search has no index: it scans at most SEARCH_WINDOW ids below its
    offset per page, so one request is bounded however large the channel is."""
    limit, add_offset = history_window(limit, add_offset)
    if len(q) > limits.SEARCH_QUERY_MAX:
        raise LimitInvalidError()
    async with db.connection() as conn:
        channel = await load_channel(conn, channel_id)
        if channel is None:
            raise ChannelPrivateError()
        member = await load_member(conn, channel_id, viewer_id)
        if not (via_post and thread_id and not channel["deleted"]):
            require_visible(channel, member, allow_public_preview=True)
        floor = max(member["available_min_id"] if is_active(member) else 0, min_id, 0)
        ceiling = max_id if max_id > 0 else limits.MAX_MESSAGE_ID + 1
        if offset_id <= 0 and offset_date > 0:
            cur = await conn.execute(
                "SELECT id FROM channel_messages WHERE channel_id = %s AND date < %s ORDER BY date DESC, id DESC LIMIT 1",
                (channel_id, offset_date),
            )
            pivot = await cur.fetchone()
            offset_id = pivot["id"] + 1 if pivot else 1
        if offset_id <= 0:
            offset_id = limits.MAX_MESSAGE_ID + 1
        extra, params = "", []
        if thread_id:
            extra += " AND reply_to_top_id = %s"
            params.append(thread_id)
        if from_user_id:
            extra += " AND sender_user_id = %s"
            params.append(from_user_id)
        if min_date:
            extra += " AND date >= %s"
            params.append(min_date)
        if max_date:
            extra += " AND date <= %s"
            params.append(max_date)
        if media_kinds:
            media_sql, media_params = media_condition(media_kinds)
            extra += media_sql
            params.extend(media_params)
        matches: list[int] | None = None  # every match of a text search, when there are few
        if q:
            extra += " AND message ILIKE %s"
            params.append(like_pattern(q))
            matches = await _text_matches(conn, channel, floor, ceiling, extra, params)
        elif media_kinds:
            # Media kinds without text have no index of their own: a window of ids.
            floor = max(floor, min(offset_id, channel["top_message_id"] + 1) - SEARCH_WINDOW)
        older_limit = limit + add_offset  # add_offset < 0 moves the window to newer ids
        messages: list[dict] = []
        if matches is not None:
            # The page's ids are known: read those rows by key, nothing else (an ordered
            # LIMIT beside them let the generic plan walk the history down to old matches).
            page = []
            if add_offset < 0:
                page += sorted(i for i in matches if i >= offset_id)[: min(-add_offset, limit)]
            if older_limit > 0:
                skip = max(add_offset, 0)
                below = sorted((i for i in matches if i < offset_id), reverse=True)
                page += below[skip : skip + min(older_limit, limit)]
            cur = await conn.execute(
                f"SELECT {MESSAGE_COLUMNS} FROM channel_messages WHERE channel_id = %s AND id = ANY(%s)"
                " AND NOT deleted",
                (channel_id, page),
            )
            messages = sorted(await cur.fetchall(), key=lambda m: m["id"], reverse=True)
        # A common word: the history newest first, the pattern a filter only (|| '' keeps
        # the trigram index out: the pool's generic plan cannot see the word is common,
        # and took the bitmap of its 250k matches in a 2.5M group on every page, 0.8-1 s).
        dense = extra.replace(" AND message ILIKE", " AND (message || '') ILIKE")
        if matches is None and add_offset < 0:
            n = min(-add_offset, limit)
            cur = await conn.execute(
                f"SELECT {MESSAGE_COLUMNS} FROM channel_messages WHERE channel_id = %s AND NOT deleted"
                f" AND id >= %s AND id > %s AND id < %s{dense} ORDER BY id ASC LIMIT %s",
                (channel_id, offset_id, floor, ceiling, *params, n),
            )
            messages = list(reversed(await cur.fetchall()))
        if matches is None and older_limit > 0:
            skip = max(add_offset, 0)
            n = min(older_limit, limit) + skip
            cur = await conn.execute(
                f"SELECT {MESSAGE_COLUMNS} FROM channel_messages WHERE channel_id = %s AND NOT deleted"
                f" AND id < %s AND id > %s AND id < %s{dense} ORDER BY id DESC LIMIT %s",
                (channel_id, offset_id, floor, ceiling, *params, n),
            )
            messages += (await cur.fetchall())[skip:]
        messages = messages[:limit]
        await mark_pinned(conn, channel_id, messages)
        await reactions.attach_fresh(viewer_id, channel, messages, conn)
    await discussion.attach_read_marks(viewer_id, messages)
    await polls.attach_results_async(viewer_id, messages)
    await media_read.attach(viewer_id, channel_id, messages)
    users, chans = set(), {channel_id}
    message_refs(messages, users, chans)
    inexact = True
    if matches is not None:
        count, inexact = len(matches), False  # the total of a text search with few matches
    elif q:
        count = TEXT_MATCHES_MAX + 1  # at least: a common word
    elif extra:
        count = len(messages) + (1 if len(messages) == limit else 0)  # inexact: no count(*)
    else:
        count = max(len(messages), channel["top_message_id"] - floor)
    unread = await mentions.unread_among(viewer_id, channel_id, messages)
    return History(channel, member, messages, count, users, chans, unread, inexact=inexact)


TEXT_MATCHES_MAX = 2000  # a text search's matches read through the trigram index at most
SMALL_CHANNEL_MESSAGES = 5000  # a text search reads a channel this small by its key


async def _text_matches(
    conn, channel: dict, floor: int, ceiling: int, extra: str, params: list
) -> list[int] | None:
    """The ids of every match of a text search in the channel's whole history (between
    floor and ceiling); None when there are more than TEXT_MATCHES_MAX (a common word:
    the page then reads newest first, where matches are dense). A search used to scan
    only the newest SEARCH_WINDOW ids and answered "no results" for older matches.

    A small channel's rows are read by its key; a larger one's through the trigram index
    alone: its own partition, with no other indexable condition (``+ 0``,
    ``deleted::int``), since the planner otherwise took a bitmap of the channel's whole
    key range (111 ms of PostgreSQL per call in a 50k-message channel)."""
    channel_id = channel["id"]
    table, key = "channel_messages", "channel_id = %s AND NOT deleted AND id > %s AND id < %s"
    if channel["top_message_id"] > SMALL_CHANNEL_MESSAGES:
        cur = await conn.execute(
            "SELECT tableoid::regclass::text AS part FROM channel_messages WHERE channel_id = %s LIMIT 1",
            (channel_id,),
        )
        row = await cur.fetchone()
        if row is None:
            return []
        # A name from the catalogue (``[schema.]relation``), each part quoted.
        table = ".".join('"' + part.strip('"').replace('"', '""') + '"' for part in row["part"].split("."))
        key = "channel_id + 0 = %s AND deleted::int = 0 AND id + 0 > %s AND id + 0 < %s"
    async with conn.transaction():
        # Bitmap scans only: never the history in id order filtered row by row down to
        # its first message, nor a whole scan.
        await conn.execute("SET LOCAL enable_indexscan = off")
        await conn.execute("SET LOCAL enable_seqscan = off")
        # Planned for this pattern (the pool's generic plan cannot see how rare it is).
        await conn.execute("SET LOCAL plan_cache_mode = force_custom_plan")
        cur = await conn.execute(
            f"SELECT id FROM {table} WHERE {key}{extra} LIMIT %s",
            (channel_id, floor, ceiling, *params, TEXT_MATCHES_MAX + 1),
        )
        ids = [r["id"] for r in await cur.fetchall()]
    return ids if len(ids) <= TEXT_MATCHES_MAX else None


async def get_thread_root(viewer_id: int, channel_id: int, msg_id: int) -> History:
    """The message a thread hangs on (messages.getDiscussionMessage in a megagroup)."""
    h = await get_messages(viewer_id, channel_id, [msg_id])
    if h.messages[0].get("empty") or not h.channel["megagroup"]:
        raise MsgIdInvalidError()
    return h


async def get_messages(viewer_id: int, channel_id: int, ids: list) -> History:
    """channels.getMessages: exact ids (= ANY, never a range), cap 100; request order,
    ``None`` for an id the viewer cannot see (messageEmpty). An item may also be
    ``("pinned",)`` (the channel's pinned message) or ``("reply", id)`` (the message
    ``id`` replies to), resolved in the same connection."""
    if len(ids) > limits.GET_IDS_MAX:
        raise LimitInvalidError()
    async with db.connection() as conn:
        channel = await load_channel(conn, channel_id)
        if channel is None:
            raise ChannelPrivateError()
        member = await load_member(conn, channel_id, viewer_id)
        require_visible(channel, member, allow_public_preview=True)
        floor = member["available_min_id"] if is_active(member) else 0
        ids = await _resolve_refs(conn, channel, floor, ids)
        valid = [i for i in ids if 0 < i <= limits.MAX_MESSAGE_ID]
        rows = {}
        if valid:
            cur = await conn.execute(
                f"SELECT {MESSAGE_COLUMNS} FROM channel_messages WHERE channel_id = %s AND id = ANY(%s) AND NOT deleted",
                (channel_id, valid),
            )
            rows = {r["id"]: r for r in await cur.fetchall() if r["id"] > floor}
            await mark_pinned(conn, channel_id, list(rows.values()))
    messages = [rows.get(i) or {"empty": True, "id": i, "channel_id": channel_id} for i in ids]
    live = [m for m in messages if not m.get("empty")]
    await reactions.attach_fresh(viewer_id, channel, live)
    await discussion.attach_read_marks(viewer_id, live)
    await polls.attach_results_async(viewer_id, live)
    await media_read.attach(viewer_id, channel_id, live)
    users, chans = set(), {channel_id}
    message_refs(live, users, chans)
    unread = await mentions.unread_among(viewer_id, channel_id, live)
    return History(channel, member, messages, len(messages), users, chans, unread)


async def _resolve_refs(conn, channel: dict, floor: int, ids: list) -> list[int]:
    replies = [i[1] for i in ids if isinstance(i, tuple) and i[0] == "reply"]
    reply_to: dict[int, int] = {}
    if replies:
        cur = await conn.execute(
            "SELECT id, reply_to_msg_id FROM channel_messages WHERE channel_id = %s AND id = ANY(%s)"
            " AND NOT deleted AND id > %s",
            (channel["id"], replies, floor),
        )
        reply_to = {r["id"]: r["reply_to_msg_id"] or 0 for r in await cur.fetchall()}
    out = []
    for i in ids:
        if not isinstance(i, tuple):
            out.append(i)
        elif i[0] == "pinned":
            out.append(channel["pinned_message_id"] or 0)
        else:
            out.append(reply_to.get(i[1], 0))
    return out


async def get_existing_messages(viewer_id: int, channel_id: int, ids: list[int]) -> History:
    """Like get_messages, for listings (pins, unread mentions): the ids the viewer can
    see, in the given order, without messageEmpty placeholders."""
    h = await get_messages(viewer_id, channel_id, ids)
    h.messages = [m for m in h.messages if not m.get("empty")]
    h.count = len(h.messages)
    return h


async def do_read_history(user_id: int, channel_id: int, max_id: int) -> dict:
    """channels.readHistory: advance the reader's inbox mark to min(max_id, top), then a
    bounded sender scan advances senders' outbox marks (at most 1000 messages, 128
    senders). Returns what the RPC layer pushes."""
    async with db.connection() as conn:
        channel = await load_channel(conn, channel_id)
        if channel is None:
            raise ChannelPrivateError()
        member = await load_member(conn, channel_id, user_id)
        if not is_active(member) or channel["deleted"]:
            raise ChannelPrivateError()
    top = channel["top_message_id"]
    target = top if max_id <= 0 else min(max_id, top)
    old = member["read_inbox_max_id"]
    date = now()
    outbox: list[tuple[int, int]] = []
    if target > old:
        async with db.connection() as conn, conn.transaction():
            cur = await conn.execute(
                "UPDATE channel_members SET read_inbox_max_id = %s, read_inbox_date = %s"
                " WHERE channel_id = %s AND user_id = %s AND read_inbox_max_id < %s RETURNING 1",
                (target, date, channel_id, user_id, target),
            )
            advanced = await cur.fetchone() is not None
            await conn.execute(
                "UPDATE channel_dialogs SET read_inbox_max_id = GREATEST(read_inbox_max_id, %s), unread_mark = false,"
                " unread_count = GREATEST(0, %s - GREATEST(read_inbox_max_id, %s))"
                " WHERE user_id = %s AND channel_id = %s",
                (target, top, target, user_id, channel_id),
            )
            await mentions.clear_read(conn, user_id, channel_id, target)
            if advanced:
                cur = await conn.execute(
                    "SELECT sender_user_id, max(id) AS max_id FROM (SELECT sender_user_id, id FROM channel_messages"
                    " WHERE channel_id = %s AND id > %s AND id <= %s AND NOT deleted AND sender_user_id <> %s"
                    " AND action IS NULL ORDER BY id DESC LIMIT %s) recent GROUP BY sender_user_id"
                    " ORDER BY max(id) DESC LIMIT %s",
                    (
                        channel_id,
                        old,
                        target,
                        user_id,
                        limits.READ_OUTBOX_SCAN_MESSAGES,
                        limits.READ_OUTBOX_FANOUT,
                    ),
                )
                rows = await cur.fetchall()
                if rows:
                    senders = [r["sender_user_id"] for r in rows]
                    marks = [r["max_id"] for r in rows]
                    cur = await conn.execute(
                        "UPDATE channel_members m SET read_outbox_max_id = s.max_id FROM unnest(%s::bigint[], %s::int[])"
                        " AS s(user_id, max_id) WHERE m.channel_id = %s AND m.user_id = s.user_id"
                        " AND m.read_outbox_max_id < s.max_id RETURNING m.user_id, s.max_id",
                        (senders, marks, channel_id),
                    )
                    outbox = [(r["user_id"], r["max_id"]) for r in await cur.fetchall()]
                    if outbox:
                        await conn.execute(
                            "UPDATE channel_dialogs d SET read_outbox_max_id = GREATEST(d.read_outbox_max_id, s.max_id)"
                            " FROM unnest(%s::bigint[], %s::int[]) AS s(user_id, max_id)"
                            " WHERE d.user_id = ANY(%s) AND d.user_id = s.user_id AND d.channel_id = %s",
                            (
                                [u for u, _ in outbox],
                                [m for _, m in outbox],
                                [u for u, _ in outbox],
                                channel_id,
                            ),
                        )
    read = max(old, target)
    still_unread = max(0, top - max(read, member["available_min_id"]))
    result = {
        "channel": channel,
        "max_id": read,
        "still_unread_count": still_unread,
        "pts": channel["pts"],
        "advanced": target > old,
        "outbox": outbox,
    }
    if target > old:
        await notify.publish(
            "channel.read_inbox",
            {
                "channel_id": channel_id,
                "user_id": user_id,
                "max_id": read,
                "still_unread_count": still_unread,
                "pts": channel["pts"],
            },
        )
        for sender, mark in outbox:
            await notify.publish(
                "channel.read_outbox", {"channel_id": channel_id, "user_id": sender, "max_id": mark}
            )
    return result


def decode_json(value):
    return json.loads(value) if isinstance(value, str) else value


MESSAGE_LINK_PREFIX = "https://t.me/"


async def export_message_link(viewer_id: int, channel_id: int, msg_id: int, *, thread: bool = False) -> str:
    """channels.exportMessageLink: t.me/<username>/<id> for a public channel, else the
    members-only t.me/c/<channel id>/<id>; the message must be visible to the viewer."""
    history = await get_messages(viewer_id, channel_id, [msg_id])
    m = history.messages[0]
    if m.get("empty"):
        raise MessageIdInvalidError()
    ch = history.channel
    base = (
        f"{MESSAGE_LINK_PREFIX}{ch['username']}" if ch["username"] else f"{MESSAGE_LINK_PREFIX}c/{channel_id}"
    )
    link = f"{base}/{msg_id}"
    if thread and m.get("reply_to_top_id"):
        link += f"?thread={m['reply_to_top_id']}"
    return link


async def get_message_author(viewer_id: int, channel_id: int, msg_id: int) -> int:
    """channels.getMessageAuthor: who really posted a broadcast post (admins only)."""
    history = await get_messages(viewer_id, channel_id, [msg_id])
    if not history.channel["broadcast"]:
        raise ChannelInvalidError()
    if not is_admin(history.member):
        raise ChatAdminRequiredError()
    m = history.messages[0]
    if m.get("empty") or not m.get("sender_user_id"):
        raise MessageIdInvalidError()
    return m["sender_user_id"]


DELETE_PARTICIPANT_HISTORY_PAGE = 100


async def do_delete_participant_history(
    actor_user_id: int | None, channel_id: int, participant_id: int
) -> tuple[ChannelEvent | None, bool]:
    """channels.deleteParticipantHistory: one bounded page (the newest 100 of that
    sender, on the (channel_id, sender_user_id, id DESC) index) per call, as one delete
    event; returns it and whether more remain (affectedHistory.offset)."""
    channel, member = await load_for_actor(channel_id, actor_user_id)
    require_right(actor_user_id, member, "delete_messages")
    if not channel["megagroup"]:
        raise ChannelInvalidError()
    async with db.connection() as conn:
        cur = await conn.execute(
            "SELECT id FROM channel_messages WHERE channel_id = %s AND sender_user_id = %s AND NOT deleted"
            " ORDER BY id DESC LIMIT %s",
            (channel_id, participant_id, DELETE_PARTICIPANT_HISTORY_PAGE + 1),
        )
        ids = [r["id"] for r in await cur.fetchall()]
    more = len(ids) > DELETE_PARTICIPANT_HISTORY_PAGE
    event = await _delete_ids(channel, sorted(ids[:DELETE_PARTICIPANT_HISTORY_PAGE]))
    return event, more
