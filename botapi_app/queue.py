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

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts_app.models import User
from bots_app import send_rules
from bots_app.models import Bot
from edge_app import push
from edge_app.orm_threads import in_thread
from message_core import db
from private_app.actions import load_boxes
from private_app.models import MessageBox

from . import shapes
from .chat_shape import group_chat
from .models import BotApiState, BotUpdate

log = logging.getLogger("telesrv.botapi")

WAKE_EVENT = "botapi.new_update"
KEEP = timedelta(hours=24)  # as Telegram: older updates are dropped
LIMIT_MAX = 100
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


def users_by_id(ids) -> dict[int, User]:
    return {u.id: u for u in User.objects.filter(id__in={int(i) for i in ids if i})}


def _bot_view_of_private(bot_id: int, message_pk: int) -> dict | None:
    box_id = (
        MessageBox.objects.filter(owner_id=bot_id, message_id=message_pk, deleted=False)
        .values_list("box_id", flat=True)
        .first()
    )
    if box_id is None:
        return None
    return load_boxes(bot_id, [box_id]).get(box_id)


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


@in_thread
def _queue_private(bot_id: int, messages: list[dict], *, edited: bool = False) -> list[int]:
    if not Bot.objects.filter(user_id=bot_id, deactivated=False).exists():
        return []
    queued = []
    for m in messages:
        theirs = _bot_view_of_private(bot_id, m["message_pk"])
        if theirs is None:
            continue
        if edited:
            kind, dedup = "edited_message", f"e{m['message_pk']}:{theirs.get('edit_date') or 0}"
        else:
            kind, dedup = "message", f"m{m['message_pk']}"
            # The message as it was sent: a quick edit may be stored already (it comes
            # as an update of its own).
            theirs = {**theirs, "edit_date": None, **{k: m[k] for k in ("message", "entities") if k in m}}
        row = _insert(bot_id, kind, private_message_body(theirs), dedup)
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


@in_thread
def _callback_body(bot_id: int, payload: dict, channel_message: dict | None) -> dict | None:
    asker = users_by_id([payload["user_id"]]).get(int(payload["user_id"]))
    if asker is None:
        return None
    body = {
        "id": str(payload["query_id"]),
        "from": shapes.user(asker),
        "chat_instance": str(payload["chat_instance"]),
    }
    channel_id = (payload.get("peer") or {}).get("channel_id")
    if channel_id:
        from channels_app.models import Channel

        channel = Channel.objects.filter(id=int(channel_id)).first()
        if channel is not None and channel_message is not None:
            body["message"] = channel_message_body(channel_message, group_chat(channel))
    else:
        m = load_boxes(bot_id, [int(payload["msg_id"])]).get(int(payload["msg_id"]))
        if m is not None:
            body["message"] = private_message_body(m)
    if payload.get("data") is not None:
        body["data"] = bytes.fromhex(payload["data"]).decode("utf-8", "replace")
    return body


async def _queue_callback(bot_id: int, payload: dict) -> int | None:
    channel_id = (payload.get("peer") or {}).get("channel_id")
    channel_message = None
    if channel_id:
        from channels_app.actions.messages import get_messages

        shown = (await get_messages(bot_id, int(channel_id), [int(payload["msg_id"])])).messages
        channel_message = shown[0] if shown and not shown[0].get("empty") else None
    body = await _callback_body(bot_id, payload, channel_message)
    if body is None:
        return None
    return await in_thread(_insert)(bot_id, "callback_query", body, f"q{payload['query_id']}")


@in_thread
def _is_api_bot(user_id: int) -> bool:
    return user_id != _service_bot_id() and Bot.objects.filter(user_id=user_id, deactivated=False).exists()


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


@in_thread
def _take(bot_id: int, offset: int, limit: int, allowed: list[str] | None) -> list[dict]:
    with transaction.atomic():
        st = BotApiState.objects.select_for_update().get_or_create(bot_id=bot_id)[0]
        if allowed is not None and allowed != st.allowed_updates:
            st.allowed_updates = allowed
            st.save(update_fields=["allowed_updates"])
        rows = BotUpdate.objects.filter(bot_id=bot_id)
        rows.filter(created__lt=timezone.now() - KEEP).delete()
        if offset < 0:
            # The last -offset updates; everything before them is forgotten.
            keep = list(rows.order_by("-id").values_list("id", flat=True)[:-offset])
            if keep:
                rows.filter(id__lt=min(keep)).delete()
        elif offset:
            rows.filter(id__lt=offset).delete()
        wanted = _wanted(st.allowed_updates)
        # Kinds the bot no longer wants are confirmed by reading past them.
        picked = list(rows.order_by("id")[:limit])
        unwanted = [r.id for r in picked if r.kind not in wanted]
        if unwanted:
            BotUpdate.objects.filter(id__in=unwanted).delete()
        return [{"update_id": r.id, r.kind: r.body} for r in picked if r.kind in wanted]


async def get_updates(
    bot_id: int, offset: int, limit: int, timeout: float, allowed: list[str] | None
) -> list[dict]:
    limit = max(1, min(LIMIT_MAX, limit or LIMIT_MAX))
    deadline = asyncio.get_running_loop().time() + max(0.0, timeout)
    while True:
        waiter = _waiters.setdefault(bot_id, asyncio.Event())
        got = await _take(bot_id, offset, limit, allowed)
        left = deadline - asyncio.get_running_loop().time()
        if got or left <= 0:
            return got
        # A wake that came between the read and now has set the event already; the
        # second is a safety net against a lost pub/sub message.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(waiter.wait(), min(left, 2.0))
        allowed = None


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


@in_thread
def _queue_channel(
    sender_id: int, channel_id: int, messages: list[dict], *, edited: bool = False
) -> list[int]:
    from bots_app.privacy_mode import sees
    from channels_app.models import Channel, ChannelMember

    bot_ids = Bot.objects.filter(deactivated=False).exclude(user_id=sender_id).values("user_id")
    members = list(ChannelMember.objects.filter(channel_id=channel_id, status="active", user_id__in=bot_ids))
    if not members:
        return []
    channel = Channel.objects.filter(id=channel_id).first()
    if channel is None:
        return []
    chat = group_chat(channel)
    bots = {u.id: u for u in User.objects.filter(id__in=[mb.user_id for mb in members])}
    woken = []
    for mb in members:
        bot = bots.get(mb.user_id)
        if bot is None or mb.user_id == _service_bot_id():
            continue
        privacy = not bool((bot.bot or {}).get("history"))
        admin = mb.role in ("creator", "admin")
        kind = "channel_post" if channel.broadcast else "message"
        for m in messages:
            if channel.megagroup and not sees(bot.id, bot.username or "", m, privacy=privacy, admin=admin):
                continue
            dedup = f"c{channel_id}:{m['id']}"
            if edited:
                dedup = f"e{channel_id}:{m['id']}:{m.get('edit_date') or 0}"
            if _insert(bot.id, f"edited_{kind}" if edited else kind, channel_message_body(m, chat), dedup):
                woken.append(bot.id)
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
