"""The console's "end call": the same domain action as phone.discardGroupCall (the
operator as actor: no rights check, the call's creator signs the "ended" message),
then the same pushes, so every member's client sees the call end."""

from __future__ import annotations

from edge_app import redis_conn

from . import group_actions, group_push


async def end_group_call(call_id: int) -> group_actions.Change:
    try:
        change = await group_actions.do_discard_group_call(None, call_id)
        await group_push.publish(change)
        return change
    finally:
        await redis_conn.close_client()
