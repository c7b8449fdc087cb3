"""Cloud drafts: what messages.saveDraft stores per dialog (a channel's or a private
chat's), shown by the owner's other devices (updateDraftMessage, the dialog's
``draft``) and listed by messages.getAllDrafts. Saving an empty text clears it.

Drafts are account-level dialog state like pins: the handlers log each change in the
owner's account update log (``update_kinds.DRAFT``). A draft is a dict:
``kind`` ("c" / "p"), ``peer_id``, ``date`` and either ``empty`` or ``message``,
``entities``, ``reply_to_msg_id``, ``no_webpage``.
"""

from __future__ import annotations

from channels_app.actions.common import jsonb
from message_core import db, limits
from message_core.clock import now
from message_core.text import validate_text

Peer = tuple[str, int]
DRAFTS_MAX = 1000  # getAllDrafts lists at most this many (a user has at most ~1000 dialogs of each kind)

_COLUMNS = "peer_kind AS kind, peer_id, message, entities, reply_to_msg_id, no_webpage, date"


async def do_save_draft(
    owner_id: int, peer: Peer, message: str, entities: list[dict] | None, *, reply_to_msg_id: int = 0,
    no_webpage: bool = False,
) -> dict | None:  # fmt: skip
    """Store (or, for an empty text, clear) the owner's draft in this dialog. Returns
    the draft to log, None when nothing changed."""
    kind, peer_id = peer
    date = now()
    if not message.strip():
        row = await db.fetchone(
            "DELETE FROM dialog_drafts WHERE owner_id = %s AND peer_kind = %s AND peer_id = %s RETURNING 1",
            (owner_id, kind, peer_id),
        )
        return {"kind": kind, "peer_id": peer_id, "date": date, "empty": True} if row else None
    entities = validate_text(message, entities)
    if not 0 <= reply_to_msg_id <= limits.MAX_MESSAGE_ID:
        reply_to_msg_id = 0
    await db.fetchone(
        "INSERT INTO dialog_drafts (owner_id, peer_kind, peer_id, message, entities, reply_to_msg_id,"
        " no_webpage, date) VALUES (%s, %s, %s, %s, %s::jsonb, %s, %s, %s)"
        " ON CONFLICT (owner_id, peer_kind, peer_id) DO UPDATE SET message = EXCLUDED.message,"
        " entities = EXCLUDED.entities, reply_to_msg_id = EXCLUDED.reply_to_msg_id,"
        " no_webpage = EXCLUDED.no_webpage, date = EXCLUDED.date RETURNING 1",
        (owner_id, kind, peer_id, message, jsonb(entities), reply_to_msg_id, no_webpage, date),
    )
    return {
        "kind": kind, "peer_id": peer_id, "date": date, "message": message, "entities": entities,
        "reply_to_msg_id": reply_to_msg_id, "no_webpage": no_webpage,
    }  # fmt: skip


async def get_drafts(owner_id: int, peers: list[Peer] | None = None) -> dict[Peer, dict]:
    """The owner's drafts (of these dialogs, or all of them up to DRAFTS_MAX)."""
    if peers is not None:
        if not peers:
            return {}
        rows = await db.fetchall(
            f"SELECT {_COLUMNS} FROM dialog_drafts d JOIN unnest(%s::text[], %s::bigint[]) AS p(kind, id)"
            " ON d.peer_kind = p.kind AND d.peer_id = p.id WHERE d.owner_id = %s",
            ([k for k, _ in peers], [i for _, i in peers], owner_id),
        )
    else:
        rows = await db.fetchall(
            f"SELECT {_COLUMNS} FROM dialog_drafts WHERE owner_id = %s ORDER BY date DESC LIMIT %s",
            (owner_id, DRAFTS_MAX),
        )
    return {(r["kind"], r["peer_id"]): dict(r) for r in rows}


async def do_clear_drafts(owner_id: int) -> list[dict]:
    """messages.clearAllDrafts: the cleared drafts (as empty drafts, to log), at most
    DRAFTS_MAX per call."""
    date = now()
    rows = await db.fetchall(
        "DELETE FROM dialog_drafts WHERE id IN (SELECT id FROM dialog_drafts WHERE owner_id = %s LIMIT %s)"
        " RETURNING peer_kind AS kind, peer_id",
        (owner_id, DRAFTS_MAX),
    )
    return [{"kind": r["kind"], "peer_id": r["peer_id"], "date": date, "empty": True} for r in rows]
