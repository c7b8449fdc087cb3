"""Delivering a call's states and signalling to the right devices, on every listener.

A call's update concerns devices, not only users: the callee's devices all ring, and
once one answers, the others are told the call is gone and only the answering one (a
permanent auth key) hears the rest. Events go through ``edge_app.push.publish_to``
to the listeners holding the users; there each target's sessions are picked by their
permanent key, and rendering and delivery run in order per user (``SerialJobs``), so
signalling data reach the other side in the order it was sent.

Target: ``[user_id, only_key, not_key, view]`` (keys 0: any device).
"""

from __future__ import annotations

import base64
from functools import partial

from edge_app.push import deliver, publish_to, render_failed, subscriber, unwanted
from edge_app.serial_jobs import SerialJobs
from message_core.clock import now
from message_core.context import users_for

from . import tl_convert

STATE = "calls.state"
SIGNALING = "calls.signaling"

_jobs = SerialJobs("call push")


async def push_state(call: dict, targets: list[tuple[int, int, int, str]]) -> None:
    if targets:
        await publish_to(
            STATE, {"call": call, "to": [list(t) for t in targets]}, users=[t[0] for t in targets]
        )


async def push_signaling(call_id: int, to_user: int, to_key: int, data: bytes) -> None:
    payload = {"call_id": call_id, "to": [to_user, to_key, 0, ""], "data": base64.b64encode(data).decode()}
    await publish_to(SIGNALING, payload, users=[to_user])


def _sessions(edge, target: list) -> list:
    user_id, only_key, not_key, _ = target
    return [
        s
        for s in edge.sessions_of_user(int(user_id))
        if (not only_key or s.perm_auth_key_id == only_key) and (not not_key or s.perm_auth_key_id != not_key)
    ]


async def _render_state(call: dict, target: list, edge) -> None:
    try:
        user_id, view = int(target[0]), target[3]
        users = await users_for(user_id, [call["admin_id"], call["participant_id"]])
        updates = tl_convert.call_updates(call, view, user_id, now(), users)
        for session in _sessions(edge, target):
            await deliver(session, updates)
    except Exception:
        render_failed()
        raise


async def _send_signaling(payload: dict, edge) -> None:
    updates = tl_convert.signaling_update(payload["call_id"], base64.b64decode(payload["data"]), now())
    for session in _sessions(edge, payload["to"]):
        await deliver(session, updates)


@subscriber(STATE)
async def _on_state(payload: dict, edge) -> None:
    mine = [t for t in payload["to"] if _sessions(edge, t)]
    if not mine:
        unwanted()
    for target in mine:
        _jobs.put(int(target[0]), partial(_render_state, payload["call"], target, edge))


@subscriber(SIGNALING)
async def _on_signaling(payload: dict, edge) -> None:
    if not _sessions(edge, payload["to"]):
        unwanted()
        return
    _jobs.put(int(payload["to"][0]), partial(_send_signaling, payload, edge))
