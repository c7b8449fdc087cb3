"""Keeping every member's view of a group call live, on every listener.

After each change the actor's handler publishes the call and the participants it
concerns to the chat's members (bounded like the chat's own state pushes) and to the
participants themselves, except the session whose answer already carries it. Each
listener renders per viewer (``self``, whether they may change join_muted, their
start subscription) and delivers in order per user (``edge_app.push``).
updateGroupCallConnection never goes here: it belongs to the joining session's answer.
"""

from __future__ import annotations

from channels_app.actions.admin import active_member_ids
from channels_app.actions.common import load_channel_and_member
from channels_app.chat_context import chats_for
from edge_app.push import push_to_users, renderer
from message_core.clock import now
from message_core.context import users_for

from . import group_actions, group_tl_convert

KIND = "calls.group"


async def viewer_context(viewer_id: int, call: dict, participants: list[dict]) -> tuple[list, list, dict]:
    """(users, chats, view) of an answer or update naming ``participants``."""
    user_ids, channel_ids = group_tl_convert.refs(participants)
    users = await users_for(viewer_id, sorted(user_ids | {viewer_id}))
    chats = await chats_for(viewer_id, [call["channel_id"], *sorted(channel_ids - {call["channel_id"]})])
    _, member = await load_channel_and_member(call["channel_id"], viewer_id)
    subscribed = call["state"] == "scheduled" and await group_actions.is_subscribed(call["id"], viewer_id)
    return users, chats, {"can_manage": group_actions.may_manage(member), "subscribed": subscribed}


async def updates_for(viewer_id: int, change: group_actions.Change, *, connection: bool = False):
    users, chats, view = await viewer_context(viewer_id, change.call, change.participants)
    return group_tl_convert.call_updates(
        change.call, change.participants, viewer_id, now(), users, chats, **view,
        connection=change.connection if connection else None, presentation=change.presentation,
    )  # fmt: skip


async def publish(change: group_actions.Change, exclude: tuple[int, int] | None = None, also=()) -> None:
    call = change.call
    recipients = set(await active_member_ids(call["channel_id"]))
    recipients.update(p["user_id"] for p in change.participants)
    recipients.update(also)
    payload = {"call": call, "participants": change.participants}
    await push_to_users(sorted(recipients), KIND, payload, exclude=exclude)


@renderer(KIND)
async def _render(payload: dict, user_id: int):
    change = group_actions.Change(payload["call"], payload["participants"])
    return await updates_for(user_id, change)
