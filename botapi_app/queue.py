"""Each bot's durable queue of updates: filled where the events happen, read by
getUpdates (offsets confirm, 24 hours kept) and drained by the webhook sender.

Private messages to a bot are written by the process that delivered them (a
``message_core.send_hooks`` listener), so a bot that was offline, or a Bot API process
that was down, loses none. Callback queries are live by nature (the user waits for the
answer): the Bot API process hears them on the push path and queues them there. A queued
row wakes waiting getUpdates calls through the push path (``WAKE_EVENT``).

Edits come the way messages do (``send_hooks``' edit listeners); polls through
``polls_app.vote_hooks``; membership, reactions and join requests through
``chat_updates`` (a ``channels_app.notify`` sink). Every one of these is written in the
process where the event happened."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import logging
import time
from datetime import timedelta
from types import SimpleNamespace

import orjson
from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone
from psycopg.types.json import Jsonb

from accounts_app.models import User
from bots_app import send_rules
from bots_app.models import Bot
from edge_app import push
from edge_app.orm_threads import in_thread
from media_app.value_media import plays_once
from message_core import db
from private_app.actions import load_boxes

from . import shapes
from .chat_shape import group_chat
from .errors import Conflict
from .models import BotApiState, BotUpdate

log = logging.getLogger("telesrv.botapi")

WAKE_EVENT = "botapi.new_update"
KEEP = timedelta(hours=24)  # as Telegram: older updates are dropped
LIMIT_MAX = 100
REREAD_SECONDS = 10.0  # a waiting getUpdates reads its queue again after this, woken or not
# Kinds a bot gets without asking; the rest only when named in allowed_updates.
DEFAULT_KINDS = {
    "message",
    "edited_message",
    "channel_post",
    "edited_channel_post",
    "inline_query",
    "chosen_inline_result",
    "callback_query",
    "my_chat_member",
    "chat_join_request",
    "poll",
    "poll_answer",
}
# As Telegram: these only when allowed_updates names them (checked when queued too, so
# a bot that never asked costs no rows).
OPT_IN_KINDS = {"chat_member", "message_reaction", "message_reaction_count"}
KNOWN_KINDS = DEFAULT_KINDS | OPT_IN_KINDS

_waiters: dict[int, asyncio.Event] = {}


def _service_bot_id() -> int:
    return int(getattr(settings, "SERVICE_BOT_ID", 0))


def _insert(bot_id: int, kind: str, body: dict, dedup: str) -> int | None:
    try:
        with transaction.atomic():
            return BotUpdate.objects.create(bot_id=bot_id, kind=kind, body=body, dedup=dedup).id
    except IntegrityError:
        return None  # heard twice


def _jsonb(value) -> Jsonb:
    return Jsonb(value, dumps=lambda v: orjson.dumps(v).decode())


_INSERT = (
    "INSERT INTO botapi_updates (bot_id, kind, body, dedup, created) VALUES (%s, %s, %s, %s, %s)"
    " ON CONFLICT (bot_id, dedup) DO NOTHING RETURNING id"
)


async def _insert_async(bot_id: int, kind: str, body: dict, dedup: str) -> int | None:
    """:func:`_insert` on the pooled async connections (no thread)."""
    row = await db.fetchone(_INSERT, (bot_id, kind, _jsonb(body), dedup, timezone.now()))
    return row["id"] if row else None  # None: heard twice


def users_by_id(ids) -> dict[int, User]:
    return {u.id: u for u in User.objects.filter(id__in={int(i) for i in ids if i})}


# A bot's boxes as private_app.actions.box_to_dict shapes them, read on the pooled
# connections; only while the bot is active (a bot switched off gets no updates).
_BOXES = """
SELECT b.box_id AS id, b.owner_id, b.peer_id, b.out, m.sender_id, m.date, m.message, m.entities,
       m.fwd_from, m.edit_date, m.silent, b.reply_to_box_id AS reply_to_msg_id,
       b.message_id AS message_pk, b.reaction_unread, m.media, m.grouped_id, m.reply_markup,
       m.via_bot_id, m.media_read, b.saved_peer
  FROM private_message_boxes b JOIN private_messages m ON m.id = b.message_id
 WHERE b.owner_id = %(bot)s AND NOT b.deleted
   AND EXISTS (SELECT 1 FROM bots WHERE user_id = %(bot)s AND NOT deactivated)
   AND """


async def _active_bot_boxes(bot_id: int, *, box_ids=(), message_pks=()) -> list[dict]:
    """The active bot's live boxes among ``box_ids`` (its numbering) or holding the
    messages ``message_pks``, as :func:`private_app.actions.load_boxes` gives them."""
    where = "b.box_id = ANY(%(ids)s)" if box_ids else "b.message_id = ANY(%(ids)s)"
    rows = await db.fetchall(_BOXES + where, {"bot": bot_id, "ids": list(box_ids or message_pks)})
    for r in rows:
        r["entities"] = r["entities"] or []
        r["media_unread"] = (
            not r.pop("media_read") and r["owner_id"] != r["peer_id"] and plays_once(r["media"])
        )
    return rows


# What the Bot API's shapes read of a user (botapi_app.shapes), and whether it is deleted.
_USER_COLUMNS = "id, first_name, last_name, username, lang_code, bot, deleted"


async def users_by_id_async(ids) -> dict[int, User]:
    """:func:`users_by_id` on the pooled async connections (unsaved User objects holding
    only the columns the Bot API's shapes read)."""
    wanted = sorted({int(i) for i in ids if i})
    if not wanted:
        return {}
    rows = await db.fetchall(f"SELECT {_USER_COLUMNS} FROM users WHERE id = ANY(%s)", (wanted,))
    return {r["id"]: User(**r) for r in rows}


async def private_message_body_async(m: dict, known: dict[int, User]) -> dict:
    """:func:`private_message_body` of a message that replies to nothing, without a
    thread; ``known``: users already read (only the others are)."""
    ids = {m["sender_id"], m["peer_id"], m["owner_id"], m.get("via_bot_id") or 0}
    ids.update(int(e.get("user_id") or 0) for e in m.get("entities") or [])
    users = {i: known[i] for i in ids if i in known}
    users.update(await users_by_id_async(ids - users.keys()))
    peer = users.get(m["peer_id"])
    chat = shapes.private_chat(peer) if peer else {"id": m["peer_id"], "type": "private"}
    return shapes.message(m, users, chat)


def private_message_body(m: dict, *, with_reply: bool = True) -> dict:
    """A private message (as its owner sees it) in the Bot API's shape, with the message
    it replies to (one level, as Telegram)."""
    ids = {m["sender_id"], m["peer_id"], m["owner_id"], m.get("via_bot_id") or 0}
    ids.update(int(e.get("user_id") or 0) for e in m.get("entities") or [])
    users = users_by_id(ids)
    peer = users.get(m["peer_id"])
    chat = shapes.private_chat(peer) if peer else {"id": m["peer_id"], "type": "private"}
    body = shapes.message(m, users, chat)
    if with_reply and m.get("reply_to_msg_id"):
        replied = load_boxes(m["owner_id"], [m["reply_to_msg_id"]]).get(m["reply_to_msg_id"])
        if replied is not None:
            body["reply_to_message"] = private_message_body(replied, with_reply=False)
    return body


def needs_orm(m: dict) -> bool:
    """Whether the message's shape reads through the ORM: a forward's origin
    (forward_shapes) and a poll's state (media_shapes) do."""
    media = m.get("media") or {}
    return bool(m.get("fwd_from")) or media.get("kind") == "poll" or bool(media.get("poll"))


async def private_body_async(m: dict, known: dict[int, User] | None = None) -> dict:
    """:func:`private_message_body` without a thread for most messages; a reply (which
    shows the replied message too), a forward or a poll in a thread."""
    if m.get("reply_to_msg_id") or needs_orm(m):
        return await in_thread(private_message_body)(m)
    return await private_message_body_async(m, known or {})


async def _queue_private(bot_id: int, messages: list[dict], *, edited: bool = False) -> list[int]:
    """Queue the bot's copies of a user's ``messages`` (the sender's view), on the
    pooled connections: this runs in the listener after each private send to a bot."""
    boxes = await _active_bot_boxes(bot_id, message_pks=[m["message_pk"] for m in messages])
    theirs_of = {b["message_pk"]: b for b in boxes}
    queued = []
    for m in messages:
        theirs = theirs_of.get(m["message_pk"])
        if theirs is None:
            continue
        if edited:
            kind, dedup = "edited_message", f"e{m['message_pk']}:{theirs.get('edit_date') or 0}"
        else:
            kind, dedup = "message", f"m{m['message_pk']}"
            # The message as it was sent: a quick edit may be stored already (it comes
            # as an update of its own).
            theirs = {**theirs, "edit_date": None, **{k: m[k] for k in ("message", "entities") if k in m}}
        row = await _insert_async(bot_id, kind, await private_body_async(theirs), dedup)
        if row:
            queued.append(row)
    return queued


async def on_private_message(
    sender_id: int, kind: str, peer_id: int, messages: list[dict], chat: dict | None = None
) -> None:
    """send_hooks listener: a user's private message to a bot becomes its ``message``.
    The send's guard has just asked whether the peer is a bot (``send_rules``' cache), so
    a message between people costs no query here."""
    await _private(sender_id, kind, peer_id, messages, edited=False)


async def on_private_edit(
    sender_id: int, kind: str, peer_id: int, messages: list[dict], chat: dict | None = None
) -> None:
    """send_hooks edit listener: a user's edit in a private chat with a bot becomes its
    ``edited_message``."""
    await _private(sender_id, kind, peer_id, messages, edited=True)


async def _private(sender_id: int, kind: str, peer_id: int, messages: list[dict], *, edited: bool) -> None:
    if kind != "user" or peer_id == _service_bot_id() or sender_id == peer_id:
        return
    known = send_rules.known_bot(peer_id)
    if known is False or (known is None and not (await send_rules.are_bots(peer_id))[peer_id]):
        return
    if await _queue_private(peer_id, messages, edited=edited):
        await push.publish_service(WAKE_EVENT, {"bot_id": peer_id})


async def _callback_body(bot_id: int, payload: dict, channel_message: dict | None) -> dict | None:
    asker = (await users_by_id_async([payload["user_id"]])).get(int(payload["user_id"]))
    if asker is None:
        return None
    body = {
        "id": str(payload["query_id"]),
        "from": shapes.user(asker),
        "chat_instance": str(payload["chat_instance"]),
    }
    channel_id = (payload.get("peer") or {}).get("channel_id")
    if channel_id:
        chat = await channel_chat_async(int(channel_id))
        if chat is not None and channel_message is not None:
            body["message"] = await channel_message_body_async(channel_message, chat)
    else:
        boxes = await _active_bot_boxes(bot_id, box_ids=[int(payload["msg_id"])])
        if boxes:
            body["message"] = await private_body_async(boxes[0])
    if payload.get("data") is not None:
        body["data"] = bytes.fromhex(payload["data"]).decode("utf-8", "replace")
    return body


async def _queue_callback(bot_id: int, payload: dict) -> int | None:
    """A user pressed a button under the bot's message: on the pooled connections, as
    the user waits for the bot's answer."""
    channel_id = (payload.get("peer") or {}).get("channel_id")
    channel_message = None
    if channel_id:
        from channels_app.actions.messages import get_messages

        shown = (await get_messages(bot_id, int(channel_id), [int(payload["msg_id"])])).messages
        channel_message = shown[0] if shown and not shown[0].get("empty") else None
    body = await _callback_body(bot_id, payload, channel_message)
    if body is None:
        return None
    return await _insert_async(bot_id, "callback_query", body, f"q{payload['query_id']}")


async def _is_api_bot(user_id: int) -> bool:
    if user_id == _service_bot_id():
        return False
    return (
        await db.fetchone("SELECT 1 AS yes FROM bots WHERE user_id = %s AND NOT deactivated", (user_id,))
        is not None
    )


_CHAT_TYPES = {"pm": "private", "same_bot_pm": "sender", "chat": "group", "megagroup": "supergroup",
               "broadcast": "channel"}  # fmt: skip


@in_thread
def _queue_inline(bot_id: int, payload: dict) -> int | None:
    asker = users_by_id([payload["user_id"]]).get(int(payload["user_id"]))
    if asker is None:
        return None
    body = {
        "id": str(payload["query_id"]),
        "from": shapes.user(asker),
        "query": payload.get("query") or "",
        "offset": payload.get("offset") or "",
    }
    if payload.get("peer_type") in _CHAT_TYPES:
        body["chat_type"] = _CHAT_TYPES[payload["peer_type"]]
    return _insert(bot_id, "inline_query", body, f"i{payload['query_id']}")


@in_thread
def _queue_chosen(bot_id: int, payload: dict) -> int | None:
    asker = users_by_id([payload["user_id"]]).get(int(payload["user_id"]))
    if asker is None:
        return None
    body = {"result_id": payload["id"], "from": shapes.user(asker), "query": payload.get("query") or ""}
    # One row per user and result a minute: pushes carry no id of their own.
    return _insert(
        bot_id,
        "chosen_inline_result",
        body,
        f"s{payload['user_id']}:{payload['id']}:{int(time.time()) // 60}",
    )


async def on_pushed(event: dict, edge) -> None:
    """The Bot API process's subscriber of user pushes: queries asked of a bot."""
    from bots_app import callbacks, inline

    queue_fn = {
        callbacks.PUSH_KIND: _queue_callback,
        inline.PUSH_KIND: _queue_inline,
        inline.SEND_PUSH_KIND: _queue_chosen,
    }.get(event.get("kind"))
    if queue_fn is None:
        return
    for bot_id in event["user_ids"]:
        if await _is_api_bot(int(bot_id)) and await queue_fn(int(bot_id), event["payload"]):
            wake(int(bot_id))


async def on_wake(event: dict, edge) -> None:
    wake(int(event["bot_id"]))


def wake(bot_id: int) -> None:
    waiter = _waiters.pop(bot_id, None)
    if waiter is not None:
        waiter.set()


def state(bot_id: int) -> BotApiState:
    return BotApiState.objects.get_or_create(bot_id=bot_id)[0]


def _wanted(allowed: list[str]) -> set[str]:
    return set(allowed) & KNOWN_KINDS if allowed else DEFAULT_KINDS


WEBHOOK_ACTIVE = (
    "can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first"
)
_STATE = "SELECT allowed_updates, webhook_url FROM botapi_state WHERE bot_id = %s FOR UPDATE"
_NEW_STATE = (
    "INSERT INTO botapi_state (bot_id, allowed_updates, webhook_url, secret_token, max_connections,"
    " last_error_date, last_error_message, retry_at, failures) VALUES (%s, '[]', '', '', 40, 0, '', 0, 0)"
    " ON CONFLICT (bot_id) DO NOTHING"
)
# Confirmed (below the offset) and expired rows go in one statement.
_CONFIRM = "DELETE FROM botapi_updates WHERE bot_id = %s AND (id < %s OR created < %s)"
_KEEP_LAST = """
DELETE FROM botapi_updates WHERE bot_id = %(b)s AND (created < %(old)s OR id < (
  SELECT min(id) FROM (SELECT id FROM botapi_updates WHERE bot_id = %(b)s ORDER BY id DESC LIMIT %(n)s) k))"""
_PICK = "SELECT id, kind, body FROM botapi_updates WHERE bot_id = %s ORDER BY id LIMIT %s"


async def _take(
    bot_id: int, offset: int, limit: int, allowed: list[str] | None, *, refuse_webhook: bool = False
) -> list[dict]:
    """Confirm the updates below ``offset`` and read the next ones, in one transaction
    on the pooled connections (the bot's state row locked: one poll of a bot at a
    time). ``refuse_webhook``: Conflict when the bot has a webhook (a getUpdates'
    first read; the check was a thread of its own)."""
    # Pipelined: BEGIN with the state's read, the confirmation with the next page's
    # read, then COMMIT: three round trips, as a wake-up's answer waits on them.
    async with db.connection() as conn, conn.pipeline(), conn.transaction():
        st = await (await conn.execute(_STATE, (bot_id,))).fetchone()
        if st is None:
            await conn.execute(_NEW_STATE, (bot_id,))
            st = await (await conn.execute(_STATE, (bot_id,))).fetchone()
        if refuse_webhook and st["webhook_url"]:
            raise Conflict(WEBHOOK_ACTIVE)
        stored = st["allowed_updates"] or []
        if allowed is not None and allowed != stored:
            await conn.execute(
                "UPDATE botapi_state SET allowed_updates = %s WHERE bot_id = %s", (_jsonb(allowed), bot_id)
            )
            stored = allowed
        old = timezone.now() - KEEP
        if offset < 0:
            # The last -offset updates; everything before them is forgotten.
            await conn.execute(_KEEP_LAST, {"b": bot_id, "old": old, "n": -offset})
        else:
            await conn.execute(_CONFIRM, (bot_id, offset, old))
        wanted = _wanted(stored)
        # Kinds the bot no longer wants are confirmed by reading past them.
        picked = await (await conn.execute(_PICK, (bot_id, limit))).fetchall()
        unwanted = [r["id"] for r in picked if r["kind"] not in wanted]
        if unwanted:
            await conn.execute(
                "DELETE FROM botapi_updates WHERE bot_id = %s AND id = ANY(%s)", (bot_id, unwanted)
            )
        return [{"update_id": r["id"], r["kind"]: r["body"]} for r in picked if r["kind"] in wanted]


async def get_updates(
    bot_id: int, offset: int, limit: int, timeout: float, allowed: list[str] | None
) -> list[dict]:
    """Conflict while the bot has a webhook."""
    limit = max(1, min(LIMIT_MAX, limit or LIMIT_MAX))
    deadline = asyncio.get_running_loop().time() + max(0.0, timeout)
    first = True
    while True:
        waiter = _waiters.setdefault(bot_id, asyncio.Event())
        got = await _take(bot_id, offset, limit, allowed, refuse_webhook=first)
        left = deadline - asyncio.get_running_loop().time()
        if got or left <= 0:
            return got
        # A wake that came between the read and now has set the event already; the
        # re-read is a safety net against a lost pub/sub message (Redis dropped the
        # subscriber's connection). Not shorter: every waiting poll re-reads that often,
        # a transaction per bot; at 2 s, 100 idle bots cost more CPU than their sends.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(waiter.wait(), min(left, REREAD_SECONDS))
        allowed, first = None, False


@in_thread
def pending_count(bot_id: int) -> int:
    return BotUpdate.objects.filter(bot_id=bot_id, created__gte=timezone.now() - KEEP).count()


@in_thread
def drop_pending(bot_id: int) -> None:
    BotUpdate.objects.filter(bot_id=bot_id).delete()


def data_b64(data: str) -> str:
    return base64.b64encode(data.encode()).decode()


_REPLIED_FIELDS = ("id", "date", "edit_date", "message", "entities", "sender_user_id", "media")


def channel_message_body(m: dict, chat: dict, *, with_reply: bool = True) -> dict:
    """A channel message snapshot in the Bot API's shape, with the message it replies
    to (one level)."""
    from channels_app.models import ChannelMessage

    ids = {m.get("sender_user_id") or 0, m.get("via_bot_id") or 0}
    ids.update(int(e.get("user_id") or 0) for e in m.get("entities") or [])
    users = users_by_id(ids)
    view = {**m, "sender_id": m.get("sender_user_id") or 0}
    body = shapes.message(view, users, chat)
    reply_id = m.get("reply_to_msg_id") or 0
    if with_reply and reply_id:
        channel_id = -chat["id"] - 10**12
        replied = (
            ChannelMessage.objects.filter(
                channel_id=channel_id, id=reply_id, deleted=False, action__isnull=True
            )
            .values(*_REPLIED_FIELDS)
            .first()
        )
        if replied is not None:
            body["reply_to_message"] = channel_message_body(replied, chat, with_reply=False)
    return body


_CHANNEL = "SELECT id, title, username, megagroup, broadcast FROM channels WHERE id = %(c)s"
_MEMBER = (
    " AND EXISTS (SELECT 1 FROM channel_members"
    " WHERE channel_id = %(c)s AND user_id = %(u)s AND status = 'active')"
)


async def channel_chat_async(channel_id: int, member_id: int = 0) -> dict | None:
    """The group or channel in the Bot API's shape (``member_id``: only if that user is
    an active member), on the pooled connections; None if not."""
    sql = _CHANNEL + (_MEMBER if member_id else "")
    row = await db.fetchone(sql, {"c": channel_id, "u": member_id})
    return group_chat(SimpleNamespace(**row)) if row else None


_REPLIED = (
    f"SELECT {', '.join(_REPLIED_FIELDS)} FROM channel_messages"
    " WHERE channel_id = %s AND id = %s AND NOT deleted AND action IS NULL"
)


async def channel_message_body_async(m: dict, chat: dict, *, with_reply: bool = True) -> dict:
    """:func:`channel_message_body` on the pooled connections; a forward or a poll (see
    :func:`needs_orm`) in a thread."""
    if needs_orm(m):
        return await in_thread(channel_message_body)(m, chat, with_reply=with_reply)
    ids = {m.get("sender_user_id") or 0, m.get("via_bot_id") or 0}
    ids.update(int(e.get("user_id") or 0) for e in m.get("entities") or [])
    users = await users_by_id_async(ids)
    view = {**m, "sender_id": m.get("sender_user_id") or 0}
    body = shapes.message(view, users, chat)
    reply_id = m.get("reply_to_msg_id") or 0
    if with_reply and reply_id:
        replied = await db.fetchone(_REPLIED, (-chat["id"] - 10**12, reply_id))
        if replied is not None:
            replied["entities"] = replied["entities"] or []
            body["reply_to_message"] = await channel_message_body_async(replied, chat, with_reply=False)
    return body


# The group's active bots but the sender. Two statements, as under Citus the members
# (the channel's shard) and the bots (the users' shards) are in different colocation
# groups: the subquery over all bots is planned on its own (docs/scaling.md), the
# bots' user rows are then read by id.
_GROUP_BOTS = """
SELECT user_id, role FROM channel_members
 WHERE channel_id = %(c)s AND status = 'active' AND user_id <> %(s)s
   AND user_id IN (SELECT user_id FROM bots WHERE NOT deactivated)"""
_BOT_USERS = "SELECT id, username, bot FROM users WHERE id = ANY(%s)"


async def _queue_channel(
    sender_id: int, channel_id: int, messages: list[dict], *, edited: bool = False
) -> list[int]:
    """Queue a group's or channel's ``messages`` for each of its bots that sees them,
    on the pooled connections (this runs in the listener after each send into a chat
    with bots)."""
    from bots_app.privacy_mode import sees

    roles = {
        r["user_id"]: r["role"] for r in await db.fetchall(_GROUP_BOTS, {"c": channel_id, "s": sender_id})
    }
    roles.pop(_service_bot_id(), None)
    if not roles:
        return []
    bots = [{**u, "role": roles[u["id"]]} for u in await db.fetchall(_BOT_USERS, (sorted(roles),))]
    row = await db.fetchone(_CHANNEL, {"c": channel_id})
    if row is None:
        return []
    chat = group_chat(SimpleNamespace(**row))
    kind = "channel_post" if row["broadcast"] else "message"
    bodies: dict[int, dict] = {}  # the same message looks the same to every bot
    woken = []
    for bot in bots:
        privacy = not bool((bot["bot"] or {}).get("history"))
        admin = bot["role"] in ("creator", "admin")
        for m in messages:
            if row["megagroup"] and not sees(
                bot["id"], bot["username"] or "", m, privacy=privacy, admin=admin
            ):
                continue
            dedup = f"c{channel_id}:{m['id']}"
            if edited:
                dedup = f"e{channel_id}:{m['id']}:{m.get('edit_date') or 0}"
            if m["id"] not in bodies:
                bodies[m["id"]] = await channel_message_body_async(m, chat)
            if await _insert_async(bot["id"], f"edited_{kind}" if edited else kind, bodies[m["id"]], dedup):
                woken.append(bot["id"])
    return sorted(set(woken))


async def on_channel_message(
    sender_id: int, kind: str, peer_id: int, messages: list[dict], chat: dict | None = None
) -> None:
    """send_hooks listener: a group's message becomes the ``message`` of each bot in the
    group that sees it (privacy mode), a channel's post its ``channel_post``.

    Every channel send of the deployment passes here. The channel row the send checked
    counts its bot members (a trigger keeps ``bot_members``), so a chat without bots
    costs nothing: no query, no ORM thread (whose hold on the interpreter lock stalls
    the listener's loop). A send that came without its row takes the exact check."""
    await _channel(sender_id, kind, peer_id, messages, chat, edited=False)


async def on_channel_edit(
    sender_id: int, kind: str, peer_id: int, messages: list[dict], chat: dict | None = None
) -> None:
    """send_hooks edit listener: an edit in a group becomes ``edited_message`` of each
    bot that sees the message, in a channel ``edited_channel_post``."""
    await _channel(sender_id, kind, peer_id, messages, chat, edited=True)


async def _channel(
    sender_id: int, kind: str, peer_id: int, messages: list[dict], chat: dict | None, *, edited: bool
) -> None:
    if kind != "channel" or (chat is not None and not chat.get("bot_members", 1)):
        return
    for bot_id in await _queue_channel(sender_id, peer_id, messages, edited=edited):
        await push.publish_service(WAKE_EVENT, {"bot_id": bot_id})


@in_thread
def purge_expired() -> int:
    """Drop every bot's updates older than 24 hours (bots that never poll, or that run
    over MTProto, would otherwise keep theirs forever)."""
    return BotUpdate.objects.filter(created__lt=timezone.now() - KEEP).delete()[0]


@in_thread
def _queue_poll(poll_id: int, voter_id: int) -> list[int]:
    """A vote in, or the closing of, a poll a bot sent: the bot's ``poll`` (the new
    state) and, for a poll with public voters, ``poll_answer`` (who chose what)."""
    from django.db.models import Count

    from polls_app.models import Poll, PollVote

    p = Poll.objects.filter(id=poll_id).first()
    if p is None or p.creator_id == _service_bot_id():
        return []
    if not Bot.objects.filter(user_id=p.creator_id, deactivated=False).exists():
        return []
    votes = PollVote.objects.filter(poll_id=poll_id)
    counts = dict(votes.values_list("option").annotate(n=Count("id")).values_list("option", "n"))
    total = votes.values("user_id").distinct().count()
    stamp = f"{p.updated_at.timestamp():.6f}"
    queued = [_insert(p.creator_id, "poll", shapes.poll(p, counts, total), f"p{poll_id}:{stamp}")]
    if voter_id and p.public_voters:
        voter = users_by_id([voter_id]).get(voter_id)
        if voter is not None:
            options = [a["option"] for a in p.answers]
            chosen = set(votes.filter(user_id=voter_id).values_list("option", flat=True))
            body = {"poll_id": str(p.id), "user": shapes.user(voter),
                    "option_ids": [i for i, o in enumerate(options) if o in chosen],
                    "option_persistent_ids": [o for o in options if o in chosen]}  # fmt: skip
            queued.append(_insert(p.creator_id, "poll_answer", body, f"a{poll_id}:{voter_id}:{stamp}"))
    return [p.creator_id] if any(queued) else []


async def on_poll_changed(poll_id: int, voter_id: int) -> None:
    """polls_app.vote_hooks listener, in the process that took the vote."""
    for bot_id in await _queue_poll(poll_id, voter_id):
        await push.publish_service(WAKE_EVENT, {"bot_id": bot_id})
