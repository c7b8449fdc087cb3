"""A chat's group call as the chat itself shows it: the row's ``call_id`` /
``call_access_hash`` / ``call_not_empty`` (``call_active`` and ``call_not_empty`` on the
channel, ``call`` in channelFull) and the service messages a call leaves in history
(started, scheduled, ended with its duration, invited).

calls_app owns the calls and their rules; it calls these after each change. A service
message goes through the chat's normal path (a pts of its own, the new_message event,
the channel's top message), so history and getChannelDifference see it like any other.
"""

from __future__ import annotations

from message_core import db
from message_core.clock import now

from .. import notify
from ..domain import ChannelChange
from .admin import publish_channel_updated
from .common import insert_service_message, load_channel, with_pts

ACTIONS = ("groupCall", "groupCallScheduled", "inviteToGroupCall")
COLUMNS = ("call_id", "call_access_hash", "call_not_empty")


async def _write_columns(conn, channel_id: int, columns: dict) -> None:
    sets = ", ".join(f"{c} = %({c})s" for c in columns)
    await conn.execute(f"UPDATE channels SET {sets} WHERE id = %(id)s", {**columns, "id": channel_id})


async def do_set_call_state(
    channel_id: int, sender_user_id: int, columns: dict, action: dict | None = None
) -> ChannelChange:
    """Write the chat's call columns (any of ``COLUMNS``) and, with ``action``, a service
    message from ``sender_user_id`` in the same transaction; members hear updateChannel
    (and the message, as any message) on every listener."""
    assert set(columns) <= set(COLUMNS)
    if action is not None:
        assert action["_"] in ACTIONS
        date = now()

        async def body(conn, msg_id, pts):
            locked = await load_channel(conn, channel_id, lock=True)
            if columns:
                await _write_columns(conn, channel_id, columns)
            return await insert_service_message(conn, locked, msg_id, pts, sender_user_id, action, date)

        event = await with_pts(channel_id, 1, body, message_ids=1)
        await notify.publish(
            "channel.event",
            {"event": event.to_payload(), "extra_user_ids": [], "exclude_user_id": sender_user_id},
        )
        events = [event]
    else:
        async with db.connection() as conn, conn.transaction():
            before = await load_channel(conn, channel_id, lock=True)
            changed = {c: v for c, v in columns.items() if before is not None and before[c] != v}
            if changed:
                await _write_columns(conn, channel_id, changed)
        if not changed:
            return ChannelChange(channel=before)
        events = []
    await publish_channel_updated(channel_id)
    async with db.connection() as conn:
        channel = await load_channel(conn, channel_id)
    return ChannelChange(
        channel=channel, events=events, user_ids={sender_user_id, *(action or {}).get("users", ())}
    )
