"""Writing new private messages: one transaction on the pooled async connection
(``message_core.db``), as channel sends are, instead of the ORM in a thread.

A private send used to spend about 10 ms of CPU, most of it in a dozen ORM statements
run in a pool thread whose every round trip waited for the event loop's GIL, with both
users' rows locked all along. Here it is three to five statements on the event loop:

1. (replies only) the replied-to message in both numberings;
2. lock both users' rows in id order;
3. under the lock, what the rules need: blocks either way, each owner's newest box id,
   the sender's earlier sends with these random ids (a retried send returns them);
4. one statement writing the contents, both boxes, one account-log event per box,
   both users' pts and both dialog tops (data-modifying CTEs);
5. (media only) the recipient's right to download the files.

The message dicts are ``private_app.actions``'s (which checks text, caps and random
ids first). The rules checked here are those that must be read under the lock: the
recipient exists and is not deleted, blocks either way, a random id reused for another
peer, the owners' id space.
"""

from __future__ import annotations

from dataclasses import dataclass

import orjson
from django.utils import timezone

from accounts_app.models import Block, User, UserUpdateEvent
from accounts_app.updates import UserUpdate
from media_app import actions as media_actions
from media_app.value_media import plays_once
from message_core import db, limits
from message_core.clock import now
from tl.errors import (
    InputUserDeactivatedError,
    MessageIdInvalidError,
    PeerIdInvalidError,
    RandomIdDuplicateError,
    ReplyMessageIdInvalidError,
    UserIsBlockedError,
    YouBlockedUserError,
)

from .models import MessageBox, PrivateDialog, PrivateMessage

BOXES = MessageBox._meta.db_table
MESSAGES = PrivateMessage._meta.db_table
DIALOGS = PrivateDialog._meta.db_table
USERS = User._meta.db_table
EVENTS = UserUpdateEvent._meta.db_table
BLOCKS = Block._meta.db_table

_REPLIES = f"""
SELECT b.box_id,
       (SELECT o.box_id FROM {BOXES} o
         WHERE o.message_id = b.message_id AND o.owner_id = %(p)s AND NOT o.deleted LIMIT 1) AS theirs
  FROM {BOXES} b
 WHERE b.owner_id = %(s)s AND b.peer_id = %(p)s AND b.box_id = ANY(%(ids)s) AND NOT b.deleted
"""

# FOR UPDATE in id order: two users writing to each other at once never deadlock, and
# the pts and box ids read after it stay theirs until the commit.
_LOCK = f"SELECT id, deleted, pts FROM {USERS} WHERE id = ANY(%(owners)s) ORDER BY id FOR UPDATE"

# A statement of its own after the lock: one that waited for the lock reads the other
# transaction's boxes only with a snapshot taken after it. Originals are the sender's
# earlier sends with these random ids, deleted ones too (a retry of a send that was
# deleted since is still that send), each as the sender's message dict (the keys of
# private_app.actions.box_to_dict), ready for the answer.
_STATE = f"""
SELECT o AS id,
       (SELECT max(b.box_id) FROM {BOXES} b WHERE b.owner_id = o) AS top,
       EXISTS (SELECT 1 FROM {BLOCKS} k
                WHERE k.owner_id = o AND k.user_id = CASE WHEN o = %(s)s THEN %(p)s ELSE %(s)s END)
         AS blocks_other,
       -- the recipient archives new chats with non-contacts (setGlobalPrivacySettings)
       (o <> %(s)s
        AND EXISTS (SELECT 1 FROM account_settings st WHERE st.user_id = o
                     AND (st.global_privacy ->> 'archive_and_mute_new_noncontact_peers')::boolean)
        AND NOT EXISTS (SELECT 1 FROM contacts ct WHERE ct.owner_id = o AND ct.user_id = %(s)s))
         AS archives_new,
       CASE WHEN o = %(s)s THEN (
         SELECT json_agg(json_build_object(
                  'random_id', b.random_id, 'message', json_build_object(
                  'id', b.box_id, 'owner_id', b.owner_id, 'peer_id', b.peer_id, 'out', b.out,
                  'sender_id', m.sender_id, 'date', m.date, 'message', m.message,
                  'entities', COALESCE(m.entities, '[]'), 'fwd_from', m.fwd_from,
                  'edit_date', m.edit_date, 'silent', m.silent, 'reply_to_msg_id', b.reply_to_box_id,
                  'message_pk', b.message_id, 'reaction_unread', b.reaction_unread, 'media', m.media,
                  'grouped_id', m.grouped_id, 'reply_markup', m.reply_markup,
                  'via_bot_id', m.via_bot_id, 'media_unread', COALESCE(NOT m.media_read
                  AND b.owner_id <> b.peer_id AND m.media->>'kind' IN ('voice', 'round'), FALSE),
                  'saved_peer', b.saved_peer)))
           FROM {BOXES} b JOIN {MESSAGES} m ON m.id = b.message_id
          WHERE b.owner_id = o AND b.random_id = ANY(%(rids)s)) END AS originals
  FROM unnest(%(owners)s::bigint[]) AS o
"""

# Contents get their ids from the sequence in the first CTE (evaluated once: nextval is
# volatile), so the boxes can point at them without another round trip. Rows come as two
# JSON documents: one orjson.dumps is far cheaper than adapting a dozen arrays.
_WRITE = f"""
WITH msg AS (
  SELECT nextval(pg_get_serial_sequence('{MESSAGES}', 'id')) AS id, t.*
    FROM jsonb_to_recordset(%(msgs)s::jsonb)
         AS t(ord int, message text, entities jsonb, fwd_from jsonb, media jsonb, grouped_id bigint,
              reply_markup jsonb, via_bot_id bigint)
), box AS (
  SELECT * FROM jsonb_to_recordset(%(boxes)s::jsonb)
         AS b(ord int, owner_id bigint, box_id int, peer_id bigint, "out" bool, reply_to int,
              random_id bigint, pts bigint, saved_peer bigint, folder int)
), ins_msg AS (
  INSERT INTO {MESSAGES} (id, sender_id, date, message, entities, fwd_from, media, grouped_id,
                          edit_date, silent, reply_markup, via_bot_id)
  SELECT id, %(s)s, %(date)s, message, entities, fwd_from, media, grouped_id, 0, %(silent)s, reply_markup,
         COALESCE(via_bot_id, 0)
    FROM msg
), ins_box AS (
  INSERT INTO {BOXES} (owner_id, box_id, peer_id, message_id, "out", reply_to_box_id, random_id,
                       deleted, reaction_unread, saved_peer)
  SELECT box.owner_id, box.box_id, box.peer_id, msg.id, box."out", box.reply_to, box.random_id, false, false,
         box.saved_peer
    FROM box JOIN msg USING (ord)
), ins_event AS (
  INSERT INTO {EVENTS} (user_id, pts, pts_count, type, payload, date)
  SELECT owner_id, pts, 1, %(kind)s, jsonb_build_object('box_id', box_id), %(now)s FROM box
), bump AS (
  UPDATE {USERS} u SET pts = c.pts
    FROM (SELECT owner_id, max(pts) AS pts FROM box GROUP BY owner_id) c
   WHERE u.id = c.owner_id AND u.id = ANY(%(owners)s::bigint[])  -- by value: the users' shards
), tops AS (
  INSERT INTO {DIALOGS} (owner_id, peer_id, top_box_id, top_date, read_inbox_max_id,
                         read_outbox_max_id, unread_mark, folder_id, pinned, pinned_order)
  SELECT owner_id, peer_id, max(box_id), %(date)s, 0, 0, false, max(folder), false, 0
    FROM box GROUP BY owner_id, peer_id
  ON CONFLICT (owner_id, peer_id) DO UPDATE SET top_box_id = EXCLUDED.top_box_id, top_date = EXCLUDED.top_date
)
SELECT ord, id FROM msg ORDER BY ord
"""


@dataclass(slots=True)
class Written:
    """What one write stored: the sender's boxes in request order (retries included),
    the new events of each side (with the message each pushes), the sender's pts."""

    own_messages: list[dict]
    own_events: list[UserUpdate]
    their_events: list[UserUpdate]
    pts: int


async def write_messages(
    sender_id: int, peer_id: int, items: list[dict], random_ids: list[int], *, silent: bool, kind: str
) -> Written:
    """Store ``items`` (message, entities, fwd_from, media, grouped_id,
    reply_to_msg_id in the sender's numbering) from ``sender_id`` to ``peer_id``, each
    with its random id; ``kind`` is the account-log event type of a new message."""
    saved = peer_id == sender_id
    owners = [sender_id] if saved else sorted((sender_id, peer_id))
    async with db.connection() as conn, conn.transaction():
        replies = await _replies(conn, sender_id, peer_id, items)
        cur = await conn.execute(_LOCK, {"owners": owners})
        users = {r["id"]: r for r in await cur.fetchall()}
        if len(users) < len(owners):
            raise PeerIdInvalidError()
        if users[peer_id]["deleted"]:
            raise InputUserDeactivatedError()
        cur = await conn.execute(_STATE, {"s": sender_id, "p": peer_id, "owners": owners, "rids": random_ids})
        for row in await cur.fetchall():
            users[row["id"]].update(row)
        if not saved and users[sender_id]["blocks_other"]:
            raise YouBlockedUserError()
        if not saved and users[peer_id]["blocks_other"]:
            raise UserIsBlockedError()
        originals = {r["random_id"]: r["message"] for r in users[sender_id]["originals"] or ()}
        if any(m["peer_id"] != peer_id for m in originals.values()):
            raise RandomIdDuplicateError()
        fresh = [(i, rid) for i, rid in enumerate(random_ids) if rid not in originals]
        pts = {u: users[u]["pts"] for u in owners}
        mine: dict[int, dict] = {}  # request index -> the sender's new box
        own_events: list[UserUpdate] = []
        their_events: list[UserUpdate] = []
        if fresh:
            if any((users[u]["top"] or 0) + len(fresh) > limits.MAX_MESSAGE_ID for u in owners):
                raise MessageIdInvalidError()
            date, logged_at = now(), timezone.now()
            next_box = {u: (users[u]["top"] or 0) + 1 for u in owners}
            boxes: list[dict] = []  # in write order: per item the sender's, then the peer's
            for ord_, (i, rid) in enumerate(fresh):
                item = items[i]
                reply_own, reply_theirs = replies.get(item.get("reply_to_msg_id") or 0, (0, 0))
                sides = [(sender_id, peer_id, True, reply_own, rid)]
                if not saved:
                    sides.append((peer_id, sender_id, False, reply_theirs, None))
                for owner, other, out, reply, box_rid in sides:
                    pts[owner] += 1
                    boxes.append({
                        "ord": ord_, "index": i, "owner_id": owner, "id": next_box[owner], "peer_id": other,
                        "out": out, "reply_to_msg_id": reply, "random_id": box_rid, "pts": pts[owner],
                        "saved_peer": (item.get("saved_peer") or sender_id) if saved else 0,
                    })  # fmt: skip
                    next_box[owner] += 1
            contents = [items[i] for i, _ in fresh]
            msgs = [
                {"ord": o, "message": c["message"], "entities": c.get("entities") or [], "fwd_from": c.get("fwd_from"),
                 "media": c.get("media"), "grouped_id": c.get("grouped_id", 0),
                 "reply_markup": c.get("reply_markup"), "via_bot_id": c.get("via_bot_id", 0)}
                for o, c in enumerate(contents)
            ]  # fmt: skip
            rows = [
                {"ord": b["ord"], "owner_id": b["owner_id"], "box_id": b["id"], "peer_id": b["peer_id"], "out": b["out"],
                 "reply_to": b["reply_to_msg_id"], "random_id": b["random_id"], "pts": b["pts"],
                 "saved_peer": b["saved_peer"], "folder": 1 if users[b["owner_id"]].get("archives_new") else 0}
                for b in boxes
            ]  # fmt: skip
            cur = await conn.execute(
                _WRITE,
                {"s": sender_id, "owners": owners, "date": date, "silent": silent, "kind": kind, "now": logged_at,
                 "msgs": orjson.dumps(msgs).decode(), "boxes": orjson.dumps(rows).decode()},
            )  # fmt: skip
            pks = {r["ord"]: r["id"] for r in await cur.fetchall()}
            keys = [k for c in contents for k in media_actions.media_keys(c.get("media"))]
            if keys:
                await media_actions.add_holders_on(conn, keys, "u", owners)
            for b in boxes:
                item = items[b["index"]]
                message = {
                    "id": b["id"], "owner_id": b["owner_id"], "peer_id": b["peer_id"], "out": b["out"],
                    "sender_id": sender_id, "date": date, "message": item["message"],
                    "entities": item.get("entities") or [], "fwd_from": item.get("fwd_from"), "edit_date": 0,
                    "silent": silent, "reply_to_msg_id": b["reply_to_msg_id"], "message_pk": pks[b["ord"]],
                    "reaction_unread": False, "media": item.get("media"), "grouped_id": item.get("grouped_id", 0),
                    "reply_markup": item.get("reply_markup"), "via_bot_id": item.get("via_bot_id", 0),
                    "media_unread": b["owner_id"] != b["peer_id"] and plays_once(item.get("media")),
                    "saved_peer": b["saved_peer"],
                }  # fmt: skip
                # The event as pushed carries the message its commit wrote, so a live
                # session's render needs no query (the stored payload keeps the box id).
                event = UserUpdate(
                    b["owner_id"], b["pts"], 1, kind, {"box_id": b["id"], "message": message}, logged_at
                )
                if b["out"]:
                    mine[b["index"]] = message
                    own_events.append(event)
                else:
                    their_events.append(event)
    own_messages = [mine[i] if i in mine else originals[rid] for i, rid in enumerate(random_ids)]
    return Written(own_messages, own_events, their_events, pts[sender_id])


async def _replies(conn, sender_id: int, peer_id: int, items: list[dict]) -> dict[int, tuple[int, int]]:
    """The replied-to messages in the sender's and the peer's numbering."""
    ids = sorted({it["reply_to_msg_id"] for it in items if it.get("reply_to_msg_id")})
    if not ids:
        return {}
    cur = await conn.execute(_REPLIES, {"s": sender_id, "p": peer_id, "ids": ids})
    found = {
        r["box_id"]: (r["box_id"], 0 if peer_id == sender_id else r["theirs"] or 0)
        for r in await cur.fetchall()
    }
    if len(found) < len(ids):
        raise ReplyMessageIdInvalidError()
    return found
