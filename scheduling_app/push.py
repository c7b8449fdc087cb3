"""Who manages scheduled messages hears of them (the sender's other sessions; in a
broadcast channel every admin who may post, ``actions.audience``):
updateNewScheduledMessage when one is scheduled or edited, updateDeleteScheduledMessages
when one is deleted or sent (with the ids it was sent as)."""

from __future__ import annotations

from edge_app.push import push_to_users, renderer
from message_core.clock import now
from message_core.context import chats_for, users_for

from . import tl_convert

NEW = "scheduled.new"
DELETED = "scheduled.deleted"


async def context_for(
    viewer_id: int, rows: list[dict], chat: tuple[str, int] | None = None
) -> tuple[list, list]:
    """(users, chats) an answer or update showing ``rows`` (and naming ``chat``) carries."""
    if chat is not None:
        rows = [*rows, {"owner_id": viewer_id, "peer_kind": chat[0], "peer_id": chat[1], "params": {}}]
    users = (
        {viewer_id} | {r["owner_id"] for r in rows} | {r["peer_id"] for r in rows if r["peer_kind"] == "p"}
    )
    for r in rows:
        fwd = (r["params"] or {}).get("fwd_from") or {}
        if fwd.get("from_user_id"):
            users.add(fwd["from_user_id"])
    channels = sorted({r["peer_id"] for r in rows if r["peer_kind"] == "c"} | {
        (r["params"].get("fwd_from") or {}).get("from_channel_id") for r in rows if r["params"]
    } - {None, 0})  # fmt: skip
    return await users_for(viewer_id, users), await chats_for(viewer_id, channels)


async def push_new(user_ids: list[int], rows: list[dict], exclude=None) -> None:
    if rows:
        await push_to_users(user_ids, NEW, {"rows": rows}, exclude=exclude)


async def push_deleted(
    user_ids: list[int], kind: str, peer_id: int, ids: list[int], sent=None, exclude=None
) -> None:
    if ids:
        payload = {"kind": kind, "peer_id": peer_id, "ids": ids, "sent": sent or []}
        await push_to_users(user_ids, DELETED, payload, exclude=exclude)


@renderer(NEW)
async def _render_new(payload: dict, viewer_id: int):
    rows = payload["rows"]
    users, chats = await context_for(viewer_id, rows)
    return tl_convert.updates_to_tl(tl_convert.new_scheduled_updates(rows), users, chats, now())


@renderer(DELETED)
async def _render_deleted(payload: dict, viewer_id: int):
    kind, peer_id = payload["kind"], payload["peer_id"]
    update = tl_convert.delete_scheduled_update(kind, peer_id, payload["ids"], payload.get("sent"))
    users = await users_for(viewer_id, [peer_id]) if kind == "p" else []
    chats = await chats_for(viewer_id, [peer_id]) if kind == "c" else []
    return tl_convert.updates_to_tl([update], users, chats, now())
