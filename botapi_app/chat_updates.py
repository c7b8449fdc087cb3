"""Updates about the chats a bot is in: ``my_chat_member`` (the bot itself added,
removed, promoted, restricted or banned in a group or channel; blocked or unblocked by
a user in a private chat), ``chat_member`` (anyone's change), ``message_reaction`` /
``message_reaction_count`` (for admin bots that asked for them in allowed_updates),
``chat_join_request`` (admin bots that may invite) and the join / leave service
messages of a group (``message`` with ``new_chat_members`` / ``left_chat_member``).

All are queued in whichever process made the change (the listener, the console, the
Bot API itself) by a ``channels_app.notify`` sink or an ``accounts_app.blocking``
listener, so they are as durable as messages. What the bot was last told of its own
membership is kept (``BotChatMember``): every announcement naming a bot
(``channel.updated``, ``channel_admin.participant``) is compared with it, so a change
is told once, whatever path made it. Announcements that name no bot cost a dictionary
probe per user (``send_rules``' bot cache); chats without bots are known from
``channels.bot_members``."""

from __future__ import annotations

import logging

from django.db import IntegrityError, transaction

from bots_app import send_rules
from bots_app.models import Bot
from edge_app import push
from edge_app.orm_threads import in_thread
from message_core.clock import now

from . import queue, shapes
from .chat_shape import group_chat
from .models import BotApiState, BotChatMember

log = logging.getLogger("telesrv.botapi")

# Service messages of a megagroup that say who came or went.
_JOINS = {"chatAddUser", "chatJoinedByLink", "chatJoinedByRequest"}
_LEAVES = {"chatDeleteUser"}
_SNAPSHOT = ("user_id", "role", "status", "admin_rights", "banned_rights", "banned_until", "rank",
             "inviter_user_id", "kicked_by", "promoted_by")  # fmt: skip


def _row_dict(row) -> dict | None:
    return None if row is None else {k: getattr(row, k) for k in _SNAPSHOT}


def _bare(member: dict) -> dict:
    return {k: v for k, v in member.items() if k != "user"}


def _actor_of(bot_id: int, row: dict | None) -> int:
    """Who made the bot's membership what it is, as far as the row says."""
    if not row or row["status"] not in ("active", "kicked", "banned"):
        return bot_id
    if row["status"] != "active":
        return row["kicked_by"] or bot_id
    if row["role"] == "admin":
        return row["promoted_by"] or row["inviter_user_id"] or bot_id
    return row["inviter_user_id"] or bot_id


@in_thread
def _queue_mine(channel_id: int, bot_ids: list[int], actor_id: int, date: int) -> list[int]:
    from channels_app.models import Channel, ChannelMember

    service = int(queue._service_bot_id())
    bots = set(
        Bot.objects.filter(user_id__in=bot_ids, deactivated=False)
        .exclude(user_id=service)
        .values_list("user_id", flat=True)
    )
    channel = Channel.objects.filter(id=channel_id).first() if bots else None
    if channel is None:
        return []
    rows = {
        m.user_id: _row_dict(m) for m in ChannelMember.objects.filter(channel_id=channel_id, user_id__in=bots)
    }
    actors = {b: actor_id or _actor_of(b, rows.get(b)) for b in bots}
    users = queue.users_by_id(bots | set(actors.values()))
    chat = group_chat(channel)
    woken = []
    for bot_id in sorted(bots):
        if bot_id not in users:
            continue
        new = shapes.chat_member(users[bot_id], rows.get(bot_id))
        try:
            with transaction.atomic():
                told, _ = BotChatMember.objects.select_for_update().get_or_create(
                    bot_id=bot_id, channel_id=channel_id, defaults={"member": {"status": "left"}}
                )
                if told.member == _bare(new):
                    continue
                old = {"user": new["user"], **told.member}
                told.member, told.version = _bare(new), told.version + 1
                told.save(update_fields=["member", "version"])
                actor = users.get(actors[bot_id]) or users[bot_id]
                body = {"chat": chat, "from": shapes.user(actor), "date": date or now(),
                        "old_chat_member": old, "new_chat_member": new}  # fmt: skip
                if queue._insert(bot_id, "my_chat_member", body, f"y{channel_id}:{told.version}"):
                    woken.append(bot_id)
        except IntegrityError:
            continue  # another process told this change at the same moment
    return woken


def _wanting(bot_ids, kind: str) -> set[int]:
    """The bots among ``bot_ids`` whose allowed_updates name ``kind`` (an opt-in kind)."""
    return {
        s.bot_id
        for s in BotApiState.objects.filter(bot_id__in=list(bot_ids))
        if kind in (s.allowed_updates or [])
    }


@in_thread
def _queue_others(
    channel_id: int, changes: list[tuple[int, dict, dict | None]], actor_id: int, date: int, admins: list[int]
) -> list[int]:
    """``chat_member`` of each (user, old row, new row) for the chat's admin bots that
    asked for it; ``admins``: the candidates (None rows are read here)."""
    from channels_app.models import Channel, ChannelMember

    admin_bots = set(
        ChannelMember.objects.filter(
            channel_id=channel_id, status="active", role__in=("creator", "admin"), user_id__in=admins
        ).values_list("user_id", flat=True)
    )
    admin_bots &= set(
        Bot.objects.filter(user_id__in=admin_bots, deactivated=False).values_list("user_id", flat=True)
    )
    wanting = _wanting(admin_bots, "chat_member")
    channel = Channel.objects.filter(id=channel_id).first() if wanting else None
    if channel is None:
        return []
    chat = group_chat(channel)
    users = queue.users_by_id({u for u, _, _ in changes} | {actor_id})
    woken = []
    for user_id, old_row, new_row in changes:
        if user_id not in users:
            continue
        if new_row is None:
            new_row = _row_dict(ChannelMember.objects.filter(channel_id=channel_id, user_id=user_id).first())
        old, new = shapes.chat_member(users[user_id], old_row), shapes.chat_member(users[user_id], new_row)
        if old == new:
            continue
        actor = users.get(actor_id) or users[user_id]
        body = {"chat": chat, "from": shapes.user(actor), "date": date or now(),
                "old_chat_member": old, "new_chat_member": new}  # fmt: skip
        for bot_id in sorted(wanting - {user_id}):
            dedup = f"k{channel_id}:{user_id}:{new['status']}:{body['date']}"
            if queue._insert(bot_id, "chat_member", body, dedup):
                woken.append(bot_id)
    return woken


async def _bots_among(user_ids) -> list[int]:
    ids = [int(u) for u in user_ids if u]
    if not ids:
        return []
    known = [send_rules.known_bot(u) for u in ids]
    if all(k is False for k in known):
        return []
    return [u for u, is_bot in (await send_rules.are_bots(*ids)).items() if is_bot]


async def _wake(bot_ids) -> None:
    for bot_id in sorted(set(bot_ids)):
        await push.publish_service(queue.WAKE_EVENT, {"bot_id": bot_id})


async def on_notify(kind: str, payload: dict) -> None:
    """channels_app.notify sink. New messages (the bulk of what passes) leave at the
    first test."""
    if kind == "channel.event":
        ev = payload.get("event") or {}
        action = (ev.get("message") or {}).get("action") or {}
        name = action.get("_")
        if ev.get("type") != "new_message":
            return
        if name == "channelCreate":  # created with its first members, perhaps a bot
            bots = await _bots_among(payload.get("extra_user_ids") or ())
            if bots:
                actor = int(ev["message"].get("sender_user_id") or 0)
                await _wake(await _queue_mine(int(ev["channel_id"]), bots, actor, int(ev.get("date") or 0)))
        elif name in _JOINS | _LEAVES:
            await _service_message(ev, name, action)
    elif kind == "channel.updated":
        bots = await _bots_among(payload.get("user_ids") or ())
        if bots:
            await _wake(await _queue_mine(int(payload["channel_id"]), bots, 0, 0))
    elif kind == "channel_admin.participant":
        await _participant(payload)
    elif kind == "channel.reactions" and payload.get("bot_members", 1) and payload.get("old") is not None:
        await _wake(await _queue_reaction(payload))
    elif kind == "channel_admin.pending" and payload.get("request"):
        bots = await _bots_among(payload.get("user_ids") or ())
        if bots:
            await _wake(await _queue_join_request(int(payload["channel_id"]), payload["request"], bots))


async def _service_message(ev: dict, name: str, action: dict) -> None:
    """A megagroup's join / leave service message: a ``message`` with
    ``new_chat_members`` / ``left_chat_member`` for every bot in the group (privacy mode
    lets service messages through), ``chat_member`` for its admin bots."""
    m = ev["message"]
    channel_id, actor = int(ev["channel_id"]), int(m.get("sender_user_id") or 0)
    if name in _JOINS:
        users = [int(u) for u in action.get("users") or [actor]]
        changes = [(u, {"status": "left"}, None) for u in users]
    else:
        users = [int(action.get("user_id") or 0)]
        changes = [(users[0], {"status": "active", "role": "member"}, None)]
    if not await _has_bots(channel_id):
        return
    woken = await _queue_service_message(channel_id, m, users, joined=name in _JOINS)
    admins = await in_thread(_admin_bots)(channel_id)
    if admins:
        woken += await _queue_others(channel_id, changes, actor, int(ev.get("date") or 0), admins)
    await _wake(woken)


@in_thread
def _queue_service_message(channel_id: int, m: dict, users: list[int], *, joined: bool) -> list[int]:
    from channels_app.models import Channel, ChannelMember

    service = int(queue._service_bot_id())
    bots = Bot.objects.filter(deactivated=False).exclude(user_id=service).values("user_id")
    members = list(
        ChannelMember.objects.filter(channel_id=channel_id, status="active", user_id__in=bots).values_list(
            "user_id", flat=True
        )
    )
    channel = Channel.objects.filter(id=channel_id).first() if members else None
    if channel is None:
        return []
    actor_id = int(m.get("sender_user_id") or 0)
    known = queue.users_by_id({actor_id, *users})
    body = {"message_id": m["id"], "date": m["date"], "chat": group_chat(channel)}
    if actor_id in known:
        body["from"] = shapes.user(known[actor_id])
    if joined:
        body["new_chat_members"] = [shapes.user(known[u]) for u in users if u in known]
    elif users[0] in known:
        body["left_chat_member"] = shapes.user(known[users[0]])
    return [b for b in members if queue._insert(b, "message", body, f"c{channel_id}:{m['id']}")]


def _admin_bots(channel_id: int) -> list[int]:
    from channels_app.models import ChannelMember

    bots = Bot.objects.filter(deactivated=False).values("user_id")
    return list(
        ChannelMember.objects.filter(
            channel_id=channel_id, status="active", role__in=("creator", "admin"), user_id__in=bots
        ).values_list("user_id", flat=True)
    )


async def _has_bots(channel_id: int) -> bool:
    from message_core import db

    # The channel row counts its bots (channels.bot_members): most groups have none.
    row = await db.fetchone("SELECT bot_members FROM channels WHERE id = %s", (channel_id,))
    return row is not None and bool(row["bot_members"])


async def _participant(payload: dict) -> None:
    """editAdmin / editBanned: the target's own update if it is a bot, ``chat_member``
    for the admin bots among the announcement's recipients."""
    channel_id, user_id = int(payload["channel_id"]), int(payload["user_id"])
    actor, date = int(payload.get("actor_user_id") or 0), int(payload.get("date") or 0)
    bots = await _bots_among({user_id, *(payload.get("user_ids") or ())})
    if not bots:
        return
    woken = []
    if user_id in bots:
        woken += await _queue_mine(channel_id, [user_id], actor, date)
    admins = [b for b in bots if b != user_id]
    if admins:
        change = (user_id, payload.get("prev"), payload.get("new"))
        woken += await _queue_others(channel_id, [change], actor, date, admins)
    await _wake(woken)


def _reaction_types(values) -> list[dict]:
    return [{"type": "emoji", "emoji": v} for v in values]


@in_thread
def _queue_reaction(payload: dict) -> list[int]:
    """A member's reactions to a group message changed: ``message_reaction`` (who, before,
    after); in a channel, where reactions are anonymous, ``message_reaction_count``."""
    import zlib

    from channels_app.models import Channel, ChannelMessage

    channel_id, msg_id = int(payload["channel_id"]), int(payload["msg_id"])
    admins = set(_admin_bots(channel_id))
    channel = Channel.objects.filter(id=channel_id).first() if admins else None
    if channel is None:
        return []
    kind = "message_reaction_count" if channel.broadcast else "message_reaction"
    wanting = _wanting(admins, kind)
    if not wanting:
        return []
    chat, date = group_chat(channel), int(payload.get("date") or now())
    new = list(payload.get("new") or [])
    if kind == "message_reaction":
        actor = queue.users_by_id([payload["actor"]]).get(int(payload["actor"]))
        if actor is None:
            return []
        body = {"chat": chat, "message_id": msg_id, "user": shapes.user(actor), "date": date,
                "old_reaction": _reaction_types(payload.get("old") or []), "new_reaction": _reaction_types(new)}  # fmt: skip
        dedup = f"r{channel_id}:{msg_id}:{actor.id}:{date}:{zlib.crc32(repr(new).encode())}"
    else:
        counts = (
            ChannelMessage.objects.filter(channel_id=channel_id, id=msg_id)
            .values_list("reaction_counts", flat=True)
            .first()
        ) or {}
        reactions = [{"type": {"type": "emoji", "emoji": v}, "total_count": n} for v, n in counts.items()]
        body = {"chat": chat, "message_id": msg_id, "date": date, "reactions": reactions}
        dedup = f"n{channel_id}:{msg_id}:{date}:{zlib.crc32(repr(sorted(counts.items())).encode())}"
    return [b for b in sorted(wanting) if queue._insert(b, kind, body, dedup)]


@in_thread
def _queue_join_request(channel_id: int, request: dict, bot_ids: list[int]) -> list[int]:
    """A join request to a chat: ``chat_join_request`` for its admin bots that may invite
    (the announcement's recipients)."""
    from channels_app.models import Channel

    bots = set(Bot.objects.filter(user_id__in=bot_ids, deactivated=False).values_list("user_id", flat=True))
    channel = Channel.objects.filter(id=channel_id).first() if bots else None
    asker = queue.users_by_id([request["user_id"]]).get(int(request["user_id"]))
    if channel is None or asker is None:
        return []
    body = {"chat": group_chat(channel), "from": shapes.user(asker), "user_chat_id": asker.id,
            "date": int(request.get("date") or now())}  # fmt: skip
    dedup = f"j{channel_id}:{asker.id}:{body['date']}"
    return [b for b in sorted(bots) if queue._insert(b, "chat_join_request", body, dedup)]


@in_thread
def _queue_blocked(owner_id: int, bot_id: int, blocked: bool, pts: int) -> bool:
    """A user blocked (or unblocked) the bot: its ``my_chat_member`` in the private chat,
    member -> kicked (or back)."""
    if bot_id == int(queue._service_bot_id()):
        return False
    if not Bot.objects.filter(user_id=bot_id, deactivated=False).exists():
        return False
    users = queue.users_by_id([owner_id, bot_id])
    if owner_id not in users or bot_id not in users:
        return False
    bot = shapes.user(users[bot_id])
    member, kicked = {"user": bot, "status": "member"}, {"user": bot, "status": "kicked", "until_date": 0}
    body = {"chat": shapes.private_chat(users[owner_id]), "from": shapes.user(users[owner_id]), "date": now(),
            "old_chat_member": member if blocked else kicked,
            "new_chat_member": kicked if blocked else member}  # fmt: skip
    return bool(queue._insert(bot_id, "my_chat_member", body, f"b{owner_id}:{pts}"))


async def on_block(owner_id: int, user_id: int, blocked: bool, pts: int) -> None:
    """accounts_app.blocking listener, in the process that took the block."""
    if await _bots_among([user_id]) and await _queue_blocked(owner_id, user_id, blocked, pts):
        await _wake([user_id])
