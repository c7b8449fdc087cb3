"""Scheduled messages: the rules of scheduling, listing, editing and deleting them, and
their delivery as ordinary sends of the chat's kind.

A scheduled message is a row of ``scheduled_messages`` (models.ScheduledMessage) until it
is sent. Delivery claims due rows (``FOR UPDATE SKIP LOCKED`` and a lease), sends them
through the chat kind's own send action with the row's random id, and deletes them: a
send retried after a crash is a duplicate of the first one (sends are idempotent by
random id), so each message is sent exactly once whichever worker or machine claims it.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field

from channels_app.actions import admin as channel_admin
from channels_app.actions import album as channel_album
from channels_app.actions import messages as channel_messages
from channels_app.actions.common import jsonb, load_channel
from edge_app.alarm import Alarm
from message_core import db, limits
from message_core.clock import now
from message_core.send_origin import FROM_SCHEDULED
from message_core.text import validate_caption, validate_text
from private_app import actions as private_actions
from tl.errors import (
    MessageEditTimeExpiredError,
    MessageIdInvalidError,
    MessageIdsEmptyError,
    RandomIdDuplicateError,
    RandomIdEmptyError,
    RpcError,
    ScheduleDateInvalidError,
    ScheduleDateTooLateError,
    ScheduleTooMuchError,
)

# "Send when online": the peer user's next moment online (private chats only).
WHEN_ONLINE = 0x7FFFFFFE
SCHEDULE_AHEAD_MAX = 365 * 86400  # Telegram's limit: up to a year ahead
SCHEDULED_PER_CHAT = 100  # Telegram's limit of scheduled messages in one chat
IDS_MAX = 100  # ids per getScheduledMessages / send / delete call
CLAIM_LEASE_SECONDS = 30  # a claimed row is another worker's after this (its worker died)
# Rung when a message is scheduled or moved here: the scheduler job wakes (scheduler.py).
due_alarm = Alarm()
CLAIM_GROUPS = 50  # groups (a message or an album) claimed per round
ADMINS_MAX = 200  # a broadcast's admins told of its scheduled messages

COLUMNS = (
    "id, owner_id, peer_kind, peer_id, date, random_id, group_key, message, entities, media, params,"
    " created, edit_date"
)

Chat = tuple[str, int]  # ("p", user_id) / ("c", channel_id)


# --- whose scheduled messages ----------------------------------------------------------------
# A broadcast channel's scheduled messages are the channel's: every admin who may post
# lists, edits, deletes and sends them now, and the cap counts the chat's. Elsewhere
# they are their sender's. Functions below take ``owner_id`` None for "the whole chat".


async def _broadcast(chat: Chat) -> bool:
    if chat[0] != "c":
        return False
    async with db.connection() as conn:
        channel = await load_channel(conn, chat[1])
    return bool(channel and channel["broadcast"])


async def scope_for(viewer_id: int, chat: Chat) -> int | None:
    """Whose scheduled messages in ``chat`` the viewer sees and manages: None (all of
    them) for an admin of a broadcast channel who may post, else the viewer's own."""
    if not await _broadcast(chat):
        return viewer_id
    try:
        await channel_messages.check_can_send(viewer_id, chat[1], [None])
    except RpcError:
        return viewer_id
    return None


async def audience(owner_id: int, chat: Chat) -> list[int]:
    """Who hears of a change to ``owner_id``'s scheduled messages in ``chat``: every
    admin of a broadcast channel who may post (and the owner), else the owner."""
    if not await _broadcast(chat):
        return [owner_id]
    return sorted({owner_id, *await channel_admin.admin_ids(chat[1], "post_messages", cap=ADMINS_MAX)})


def _whose(owner_id: int | None) -> tuple[str, tuple]:
    return ("", ()) if owner_id is None else (" AND owner_id = %s", (owner_id,))


def check_schedule_date(date: int, kind: str, at: int | None = None) -> None:
    """A schedule date Telegram accepts: in the future, at most a year ahead; "when
    online" only in a private chat."""
    at = now() if at is None else at
    if date == WHEN_ONLINE:
        if kind != "p":
            raise ScheduleDateInvalidError()
        return
    if date <= at:
        raise ScheduleDateInvalidError()
    if date > at + SCHEDULE_AHEAD_MAX:
        raise ScheduleDateTooLateError()


def _ids(ids: list[int]) -> list[int]:
    if not ids:
        raise MessageIdsEmptyError()
    return [i for i in ids[:IDS_MAX] if 0 < i <= limits.MAX_MESSAGE_ID]


async def do_schedule(
    owner_id: int, chat: Chat, items: list[dict], date: int, params: dict, *, album: bool = False
) -> list[dict]:
    """Store ``items`` (message, entities, media, random_id; fwd_from for a forward) to
    be sent at ``date``. A retry with the same random ids returns the stored rows; more
    than SCHEDULED_PER_CHAT in the chat (the sender's, or a broadcast's all) is
    SCHEDULE_TOO_MUCH. Nothing is written on an error."""
    kind, peer_id = chat
    check_schedule_date(date, kind)
    random_ids = [it["random_id"] for it in items]
    if not items or not all(random_ids):
        raise RandomIdEmptyError()
    rows = []
    for it in items:
        text = it.get("message") or ""
        if "fwd_from" in it:
            entities = it.get("entities") or []  # a forward keeps its source's checked text
        elif it.get("media"):
            entities = validate_caption(text, it.get("entities"))
        else:
            entities = validate_text(text, it.get("entities"))
        item_params = dict(params)
        if "fwd_from" in it:
            item_params["fwd_from"] = it["fwd_from"]
        rows.append((text, entities, it.get("media"), it["random_id"], item_params))
    group_key = secrets.randbits(62) + 1 if album else 0
    created = now()
    counted = None if await _broadcast(chat) else owner_id
    where, args = _whose(counted)
    async with db.connection() as conn, conn.transaction():
        # One writer per counted list at a time: the per-chat cap is counted, then written.
        await conn.execute(
            "SELECT pg_advisory_xact_lock(hashtext('scheduled_messages'), %s::int)",
            ((owner_id if counted else peer_id) % 2**31,),
        )
        cur = await conn.execute(
            f"SELECT {COLUMNS} FROM scheduled_messages WHERE owner_id = %s AND random_id = ANY(%s)",
            (owner_id, random_ids),
        )
        earlier = {r["random_id"]: r for r in await cur.fetchall()}
        if earlier:
            if len(earlier) == len(items) and all(
                r["peer_kind"] == kind and r["peer_id"] == peer_id for r in earlier.values()
            ):
                return [earlier[r] for r in random_ids]  # a retried request
            raise RandomIdDuplicateError()
        cur = await conn.execute(
            f"SELECT count(*) AS n FROM scheduled_messages WHERE peer_kind = %s AND peer_id = %s{where}",
            (kind, peer_id, *args),
        )
        if (await cur.fetchone())["n"] + len(items) > SCHEDULED_PER_CHAT:
            raise ScheduleTooMuchError()
        out = []
        for text, entities, media, random_id, item_params in rows:
            cur = await conn.execute(
                "INSERT INTO scheduled_messages (owner_id, peer_kind, peer_id, date, random_id, group_key, message,"
                " entities, media, params, created, edit_date)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s, %s::jsonb, %s::jsonb, %s::jsonb, %s, 0)"
                f" RETURNING {COLUMNS}",
                (owner_id, kind, peer_id, date, random_id, group_key, text, jsonb(entities), jsonb(media),
                 jsonb(item_params), created),
            )  # fmt: skip
            out.append(await cur.fetchone())
    due_alarm.ring()
    return out


def _order(rows: list[dict]) -> list[dict]:
    # Newest first, like a history page; "when online" sorts last-to-send.
    return sorted(rows, key=lambda r: (r["date"], r["id"]), reverse=True)


async def get_scheduled_history(owner_id: int | None, chat: Chat) -> list[dict]:
    """The owner's (None: everyone's) scheduled messages in the chat (at most
    SCHEDULED_PER_CHAT exist)."""
    where, args = _whose(owner_id)
    rows = await db.fetchall(
        f"SELECT {COLUMNS} FROM scheduled_messages WHERE peer_kind = %s AND peer_id = %s{where}"
        " ORDER BY date DESC, id DESC LIMIT %s",
        (chat[0], chat[1], *args, SCHEDULED_PER_CHAT * 2),
    )
    return _order(rows)


def history_hash(rows: list[dict]) -> int:
    """Telegram's vector hash over (id, edit date or date) of the list, as clients
    compute it from their cache (an equal hash answers messagesNotModified)."""
    h = 0
    for r in rows:
        for v in (r["id"], r["edit_date"] or r["date"]):
            h ^= (h >> 21) & 0xFFFFFFFFFFFFFFFF
            h ^= (h << 35) & 0xFFFFFFFFFFFFFFFF
            h ^= h >> 4
            h = (h + v) & 0xFFFFFFFFFFFFFFFF
    return h - (1 << 64) if h >= 1 << 63 else h


async def get_scheduled(owner_id: int | None, chat: Chat, ids: list[int]) -> list[dict]:
    ids = _ids(ids)
    where, args = _whose(owner_id)
    rows = await db.fetchall(
        f"SELECT {COLUMNS} FROM scheduled_messages WHERE peer_kind = %s AND peer_id = %s{where}"
        " AND id = ANY(%s)",
        (chat[0], chat[1], *args, ids),
    )
    return _order(rows)


async def do_delete_scheduled(owner_id: int | None, chat: Chat, ids: list[int]) -> list[dict]:
    """Delete these of the owner's (None: anyone's) scheduled messages in the chat; the
    rows deleted, by id (a row a worker is sending right now stays: it is sent)."""
    ids = _ids(ids)
    where, args = _whose(owner_id)
    async with db.connection() as conn, conn.transaction():
        cur = await conn.execute(
            "DELETE FROM scheduled_messages WHERE id IN (SELECT id FROM scheduled_messages WHERE"
            f" peer_kind = %s AND peer_id = %s{where} AND id = ANY(%s)"
            f" AND (claimed_until IS NULL OR claimed_until < now()) FOR UPDATE SKIP LOCKED) RETURNING {COLUMNS}",
            (chat[0], chat[1], *args, ids),
        )
        return sorted(await cur.fetchall(), key=lambda r: r["id"])


async def do_edit_scheduled(
    owner_id: int | None, chat: Chat, msg_id: int, *, message: str | None, entities: list[dict] | None,
    media: dict | None, date: int,
) -> dict:  # fmt: skip
    """messages.editMessage of a scheduled message: its text (None: unchanged), media
    (None: unchanged) and schedule date. ``owner_id`` None: anyone's in the chat."""
    check_schedule_date(date, chat[0])
    where, args = _whose(owner_id)
    async with db.connection() as conn, conn.transaction():
        cur = await conn.execute(
            f"SELECT {COLUMNS} FROM scheduled_messages WHERE peer_kind = %s AND peer_id = %s{where}"
            " AND id = %s AND (claimed_until IS NULL OR claimed_until < now()) FOR UPDATE",
            (chat[0], chat[1], *args, msg_id),
        )
        row = await cur.fetchone()
        if row is None:
            raise MessageIdInvalidError()
        if row["params"].get("fwd_from") is not None and (message is not None or media is not None):
            raise MessageEditTimeExpiredError()  # a forward's text is its source's
        new_media = media if media is not None else row["media"]
        text = row["message"] if message is None else message
        if message is not None:
            entities = validate_caption(text, entities) if new_media else validate_text(text, entities)
        else:
            entities = row["entities"]
        cur = await conn.execute(
            "UPDATE scheduled_messages SET message = %s, entities = %s::jsonb, media = %s::jsonb, date = %s,"
            f" edit_date = %s WHERE id = %s RETURNING {COLUMNS}",
            (text, jsonb(entities), jsonb(new_media), date, now(), msg_id),
        )
        row = await cur.fetchone()
    due_alarm.ring()
    return row


# --- delivery -------------------------------------------------------------------------------


@dataclass(slots=True)
class Delivery:
    """One group (a message or an album) delivered: sent (``sent``: the new message ids,
    ``change``: the chat kind's change) or dropped (``error``: why)."""

    rows: list[dict]
    sent: list[int] = field(default_factory=list)
    change: object = None
    error: RpcError | None = None

    @property
    def owner_id(self) -> int:
        return self.rows[0]["owner_id"]

    @property
    def chat(self) -> Chat:
        return self.rows[0]["peer_kind"], self.rows[0]["peer_id"]


_CLAIMABLE = "(s.claimed_until IS NULL OR s.claimed_until < now())"
# Two statements, each an index range: by date (scheduled_messages_due), and the "when
# online" rows whose peer is online now.
_DUE_BY_DATE = f"SELECT s.id FROM scheduled_messages s WHERE s.date <= %(now)s AND {_CLAIMABLE}"
_DUE_ONLINE = (
    "SELECT s.id FROM scheduled_messages s JOIN users u ON u.id = s.peer_id WHERE s.date = %(when_online)s"
    f" AND s.peer_kind = 'p' AND u.online_until > now() AND {_CLAIMABLE}"
)


async def next_due() -> tuple[int | None, bool]:
    """(the earliest date of an unclaimed message due by date, None: none; whether
    "send when online" messages wait): when the scheduler must look again."""
    row = await db.fetchone(
        f"SELECT (SELECT s.date FROM scheduled_messages s WHERE s.date < %(when_online)s AND {_CLAIMABLE}"
        " ORDER BY s.date LIMIT 1) AS due,"
        " EXISTS (SELECT 1 FROM scheduled_messages WHERE date = %(when_online)s) AS when_online",
        {"when_online": WHEN_ONLINE},
    )
    return row["due"], bool(row["when_online"])


async def claim_due(
    *, at: int | None = None, limit: int = CLAIM_GROUPS, when_online: bool = True
) -> list[list[dict]]:
    """Claim due scheduled messages for this worker (a lease of CLAIM_LEASE_SECONDS),
    grouped as they are sent (an album's rows together, in order). ``when_online``: also
    the "send when online" ones whose peer is online now."""
    params = {"now": now() if at is None else at, "when_online": WHEN_ONLINE, "limit": limit,
              "lease": CLAIM_LEASE_SECONDS}  # fmt: skip
    rows = []
    async with db.connection() as conn, conn.transaction():
        for due in (_DUE_BY_DATE, _DUE_ONLINE) if when_online else (_DUE_BY_DATE,):
            cur = await conn.execute(
                "UPDATE scheduled_messages SET claimed_until = now() + make_interval(secs => %(lease)s)"
                f" WHERE id IN ({due} ORDER BY s.date, s.id LIMIT %(limit)s FOR UPDATE OF s SKIP LOCKED)"
                f" RETURNING {COLUMNS}",
                params,
            )
            rows += await cur.fetchall()
    return _groups(rows)


async def claim_ids(owner_id: int | None, chat: Chat, ids: list[int]) -> list[list[dict]]:
    """messages.sendScheduledMessages: claim these rows (the owner's, None: anyone's in
    the chat) to send now (ones a worker holds are being sent anyway)."""
    ids = _ids(ids)
    where, args = _whose(owner_id)
    async with db.connection() as conn, conn.transaction():
        cur = await conn.execute(
            "UPDATE scheduled_messages SET claimed_until = now() + make_interval(secs => %s)"
            f" WHERE id IN (SELECT id FROM scheduled_messages WHERE peer_kind = %s AND peer_id = %s{where}"
            " AND (id = ANY(%s) OR group_key IN (SELECT group_key FROM scheduled_messages WHERE id = ANY(%s)"
            " AND group_key <> 0)) AND (claimed_until IS NULL OR claimed_until < now()) FOR UPDATE SKIP LOCKED)"
            f" RETURNING {COLUMNS}",
            (CLAIM_LEASE_SECONDS, chat[0], chat[1], *args, ids, ids),
        )
        rows = await cur.fetchall()
    if not rows:
        raise MessageIdInvalidError()
    return _groups(rows)


def _groups(rows: list[dict]) -> list[list[dict]]:
    groups: dict[tuple, list[dict]] = {}
    for r in sorted(rows, key=lambda r: (r["date"], r["id"])):
        key = ("g", r["group_key"]) if r["group_key"] else ("m", r["id"])
        groups.setdefault(key, []).append(r)
    return list(groups.values())


async def release(rows: list[dict], *, retry_in: int) -> None:
    """Keep these rows for a later try (a send that must wait, e.g. slow mode)."""
    await db.fetchall(
        "UPDATE scheduled_messages SET claimed_until = now() + make_interval(secs => %s) WHERE id = ANY(%s)"
        " RETURNING id",
        (retry_in, [r["id"] for r in rows]),
    )


async def _forget(rows: list[dict]) -> None:
    await db.fetchall(
        "DELETE FROM scheduled_messages WHERE id = ANY(%s) RETURNING id", ([r["id"] for r in rows],)
    )


async def do_deliver(group: list[dict], *, sender_name=None) -> Delivery:
    """Send a claimed group as the ordinary send of its chat's kind (rights, blocks and
    caps are checked again now), then delete it. An error the send answers drops the
    group (``Delivery.error``) except a wait (flood / slow mode), which keeps it."""
    from tl.errors import FloodWaitError, SlowmodeWaitError

    d = Delivery(rows=group)
    owner, (kind, peer_id) = d.owner_id, d.chat
    p = group[0]["params"]
    origin = FROM_SCHEDULED.set(True)
    try:
        if "fwd_from" in p:
            items = [{"message": r["message"], "entities": r["entities"], "media": r["media"],
                      "fwd_from": r["params"].get("fwd_from")} for r in group]  # fmt: skip
            rids = [r["random_id"] for r in group]
            if kind == "p":
                d.change = await private_actions.do_forward_to_user(
                    owner, peer_id, items, rids, silent=p.get("silent")
                )
            else:
                d.change = await channel_messages.do_forward_to_channel(
                    owner, peer_id, items, rids, silent=bool(p.get("silent")), top_msg_id=p.get("top_msg_id") or 0,
                    sender_name=(await sender_name()) if sender_name and p.get("post") else "",
                    send_as=p.get("send_as"),
                )  # fmt: skip
        elif group[0]["group_key"]:
            items = [{"message": r["message"], "entities": r["entities"], "media": r["media"],
                      "random_id": r["random_id"]} for r in group]  # fmt: skip
            if kind == "p":
                d.change = await private_actions.do_send_private_album(
                    owner, peer_id, items, silent=p.get("silent")
                )
            else:
                d.change = await channel_album.do_send_album(
                    owner, peer_id, items, silent=bool(p.get("silent")),
                    sender_name=(await sender_name()) if sender_name and p.get("post") else "",
                )  # fmt: skip
        else:
            r = group[0]
            if kind == "p":
                d.change = await private_actions.do_send_private_message(
                    owner, peer_id, r["message"], r["random_id"], entities=r["entities"],
                    reply_to_msg_id=p.get("reply_to_msg_id") or 0, silent=bool(p.get("silent")), media=r["media"],
                )  # fmt: skip
            else:
                d.change = await channel_messages.do_send_message(
                    owner, peer_id, r["message"], r["random_id"], entities=r["entities"],
                    reply_to_msg_id=p.get("reply_to_msg_id") or 0, top_msg_id=p.get("top_msg_id") or 0,
                    quote_text=(p.get("quote") or {}).get("text"), quote_entities=(p.get("quote") or {}).get("entities"),
                    quote_offset=(p.get("quote") or {}).get("offset"), silent=bool(p.get("silent")),
                    sender_name=sender_name or "", media=r["media"], send_as=p.get("send_as"),
                )  # fmt: skip
    except (FloodWaitError, SlowmodeWaitError) as exc:
        await release(group, retry_in=max(1, int(getattr(exc, "seconds", 1))))
        d.error = exc
        return d
    except RpcError as exc:
        d.error = exc
    finally:
        FROM_SCHEDULED.reset(origin)
    if d.change is not None:
        d.sent = _sent_ids(d.change)
    await _forget(group)
    return d


def _sent_ids(change) -> list[int]:
    msgs = getattr(change, "messages", None)
    if msgs is not None:  # a private change: the sender's own copies
        return [m["id"] for m in msgs]
    return [e.message["id"] for e in change.events if e.message]
