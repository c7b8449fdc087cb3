"""updateMessagePoll to everyone who can see a poll whose results changed: the online
members of each channel holding it and the owners of the private chats holding it,
once on each listener holding one of them. Voters see the totals as a ``min`` result (each client
keeps its own choice); the actor's other sessions get their full view. Offline
clients read it in updates.getDifference (``changed_polls``)."""

from __future__ import annotations

import logging
import time

from accounts_app.updates import Rendered, register_difference_contributor
from channels_app import push as channel_push
from channels_app import tl_convert as channels_tl
from channels_app.actions.search import member_channel_ids
from edge_app import background
from edge_app.alarm import seconds_until
from edge_app.push import deliver, publish_to, subscriber
from media_app import actions as media_actions
from message_core.context import users_for
from polls_app import actions as polls
from polls_app import tl_convert as polls_tl

log = logging.getLogger("telesrv.polls.push")

CHANGED = "polls.changed"
CLOSE_INTERVAL = 0.5  # seconds between looks while polls are closing or the database fails
CLOSE_IDLE_SECONDS = 5.0  # at most this long between looks otherwise
DIFFERENCE_POLLS_MAX = 100


async def publish_change(poll_id: int, actor_id: int = 0, exclude=None) -> None:
    _, holders = await media_actions.holders_of("l", poll_id)
    channels = sorted({h for kind, h in holders if kind == "c"})
    users = sorted({h for kind, h in holders if kind == "u"})
    await publish_to(
        CHANGED,
        {
            "poll_id": poll_id,
            "actor": actor_id,
            "exclude": list(exclude) if exclude else None,
            "channels": channels,
            "users": users,
        },
        users=users,
        channels=channels,
    )


def _sessions(edge, user_id: int, exclude):
    return [s for s in edge.sessions_of_user(user_id) if (s.auth_key_id, s.session_id) != exclude]


@subscriber(CHANGED)
async def _on_changed(payload: dict, edge) -> None:
    try:
        await _deliver(payload, edge)
    except Exception:
        log.exception("poll %s update not delivered", payload.get("poll_id"))


async def _deliver(payload: dict, edge) -> None:
    poll_id, actor = payload["poll_id"], payload["actor"]
    exclude = tuple(payload["exclude"]) if payload.get("exclude") else None
    online = set(edge.online_user_ids())
    audience: dict[int, list] = {u: [] for u in payload["users"] if u in online}
    for cid in payload["channels"]:
        for u, chats in (await channel_push.online_viewers(edge, cid)).items():
            audience.setdefault(u, []).extend(c for c in chats if c not in audience.get(u, []))
    if not audience:
        return
    snapshot = await polls.load_snapshot(poll_id)
    if snapshot is None:
        return
    shared = (await polls.results_of_async([poll_id], 0)).get(poll_id)
    own = (await polls.results_of_async([poll_id], actor)).get(poll_id) if actor in audience else None
    voters = set(shared["recent"]) if snapshot.get("public_voters") else set()
    for user_id, chats in audience.items():
        sessions = _sessions(edge, user_id, exclude)
        if not sessions:
            continue
        if user_id == actor and own is not None:
            update = polls_tl.poll_update_to_tl(snapshot, own)
        else:
            update = polls_tl.poll_update_to_tl(snapshot, shared, min_=True)
        users = await users_for(user_id, voters) if voters else []
        updates = channels_tl.updates_to_tl([update], users, chats)
        for s in sessions:
            await deliver(s, updates)


async def poll_updates_for(viewer_id: int, poll_ids: list[int]) -> tuple[list, set[int]]:
    """updateMessagePoll of these polls as the viewer sees them, and the users they name."""
    out, user_ids = [], set()
    found = await polls.results_of_async(poll_ids, viewer_id)
    for pid in poll_ids:
        snapshot, r = await polls.load_snapshot(pid), found.get(pid)
        if snapshot is None or r is None:
            continue
        out.append(polls_tl.poll_update_to_tl(snapshot, r))
        if snapshot.get("public_voters"):
            user_ids.update(r["recent"])
    return out, user_ids


async def changed_polls(user_id: int, since) -> Rendered:
    """The difference's contribution: polls the user can see whose results changed
    since the client's state (newest first, bounded), each as the user sees it."""
    channel_ids = await member_channel_ids(user_id)
    ids = await polls.changed_for_async(user_id, channel_ids, since, DIFFERENCE_POLLS_MAX)
    if not ids:
        return Rendered()
    updates, user_ids = await poll_updates_for(user_id, ids)
    return Rendered(updates=updates, user_ids=user_ids)


async def run_close_job() -> None:
    """Close polls at their close_date: every listener runs this, each poll is claimed
    by exactly one (SKIP LOCKED) and announced once. It sleeps until the next close
    date (woken when a poll with one is created here), at most CLOSE_IDLE_SECONDS (a
    poll created on another listener)."""
    rung = polls.close_alarm.arm()
    while True:
        delay = CLOSE_INTERVAL
        try:
            closed, ahead = await polls.close_due_and_next_async()
            for poll_id in closed:
                await publish_change(poll_id)
            if not closed:
                delay = seconds_until(ahead, time.time(), CLOSE_IDLE_SECONDS)
        except Exception as exc:
            log.warning("closing due polls postponed: %s", exc)
        await polls.close_alarm.sleep(rung, delay)


def install() -> None:
    register_difference_contributor(changed_polls)
    background.register("polls.close_due", run_close_job)
