"""Online fan-out of channel events across edge processes (edge_app.push).

One publish per event and interested listener, whatever the channel size: each
listener holding an online member (``edge_app.presence``: the channel's interest)
receives it once, intersects
the channel's active members with the users it holds live sessions for (partition-pruned
queries of at most REALTIME_FANOUT_MAX online ids each, so an edge never reads more
member rows than it has users online, and no query more than the cap) and renders the
update once per view (``out``, ``mentioned``), the chat per viewer's channel flags; each
session encodes it for its own layer. Typing reaches at most TYPING_FANOUT_MAX members
per edge. Offline members write nothing and catch up by getChannelDifference.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import logging
import time

from edge_app import presence
from edge_app.push import (
    deliver,
    is_subscribed,
    publish_to,
    push_to_users,
    render_failed,
    renderer,
    subscriber,
    unwanted,
)
from edge_app.push_order import HOLE_WAIT, publish_in_order, skip_in_order
from edge_app.serial_jobs import SerialJobs
from message_core import db, limits
from message_core.context import origin as push_origin
from message_core.context import origin_request, users_for
from polls_app import actions as polls
from tl.runtime import Reader

from . import notify, tl_convert, viewer_hooks
from .actions import media_read
from .actions.common import CHANNEL_COLUMNS, MEMBER_COLUMNS
from .actions.mentions import mentioned_user_ids
from .chat_context import chats_for
from .domain import ChannelEvent

log = logging.getLogger("telesrv.channels.push")

EVENT = "channels.event"
TYPING = "channels.typing"
UPDATE_CHANNEL = "channels.update_channel"
READ_OUTBOX = "channels.read_outbox"
MEMBERS_CHANGED = "channels.members_changed"
REACTIONS = "channels.reactions"
REACTIONS_READ = "channels.reactions_read"
TOPICS_PINNED = "channels.topics_pinned"
WEB_PAGE = "channels.web_page"
CONTENTS_READ = "channels.contents_read"


def _local_user_ids(edge) -> list[int]:
    # The edge's public registry API (mtproto.server.MTProtoServer.online_user_ids).
    return list(edge.online_user_ids())


# channel_id -> (expiry, online user ids it was computed for, channel row, members,
# the channel as each member sees it): a busy channel's events reuse one lookup and one
# rendering of the chat per viewer for a moment; membership and settings changes drop it.
MEMBERS_CACHE_SECONDS = 1.0
_members_cache: dict[int, tuple[float, frozenset, dict, dict, dict]] = {}


# One primary-key probe per online user. LATERAL ... LIMIT 1 keeps every plan (the
# generic one, and one made on statistics that lag behind a channel's growth) from
# turning it into a scan: as "user_id = ANY(online)" such a plan took the partial index
# of active members and filtered all 100,000 of them against the array, 340 ms per query
# in bench/bench_fanout.py (1.5 ms as probes).
_ONLINE_MEMBERS = f"""
SELECT m.* FROM unnest(%s::bigint[]) AS o(user_id)
CROSS JOIN LATERAL (
  SELECT {MEMBER_COLUMNS} FROM channel_members x WHERE x.channel_id = %s AND x.user_id = o.user_id LIMIT 1
) m
WHERE m.status = 'active' OR m.user_id = ANY(%s)
"""


async def _local_members(
    edge, channel_id: int, extra: list[int]
) -> tuple[dict | None, dict[int, dict], dict[int, list]]:
    """The channel, its members among the users online on this edge (active ones, and
    ``extra`` users whatever their status: those who just left or were removed), and
    the per-viewer chat renderings cached with them."""
    online = _local_user_ids(edge)
    if not online:
        await _follow(edge, channel_id, None, {})
        return None, {}, {}
    key = frozenset(online)
    hit = _members_cache.get(channel_id)
    now = time.monotonic()
    if hit is not None and hit[0] > now and hit[1] == key and not extra:
        return hit[2], hit[3], hit[4]
    members: dict[int, dict] = {}
    cap = limits.REALTIME_FANOUT_MAX
    async with db.connection() as conn:
        cur = await conn.execute(f"SELECT {CHANNEL_COLUMNS} FROM channels WHERE id = %s", (channel_id,))
        channel = await cur.fetchone()
        for at in range(0, len(online) if channel is not None else 0, cap):
            cur = await conn.execute(_ONLINE_MEMBERS, (online[at : at + cap], channel_id, list(extra)))
            members.update((r["user_id"], r) for r in await cur.fetchall())
    await _follow(edge, channel_id, channel, members)
    chats: dict[int, list] = {}
    if channel is not None and not extra:
        if len(_members_cache) > 10_000:
            _members_cache.clear()
        _members_cache[channel_id] = (now + MEMBERS_CACHE_SECONDS, key, channel, members, chats)
    return channel, members, chats


async def _follow(edge, channel_id: int, channel: dict | None, members: dict[int, dict]) -> None:
    """Keep this listener's interest in the channel true to what it holds: a member
    online here (whose lease a publisher granted) makes it follow the channel; none
    means the event that got here concerned nobody here."""
    if presence.listener_id() is None or presence.holds_channel(channel_id):
        return
    here = [u for u, m in members.items() if m["status"] == "active" and edge.sessions_of_user(u)]
    for user_id in here:
        await presence.add_channels(user_id, [channel_id])
    if not here:
        unwanted()
        await presence.release_channel(channel_id)


async def _channel_chats(channel: dict, user_id: int, member: dict, rendered: dict[int, list]) -> list:
    """[the channel as ``user_id`` sees it], rendered once per members-cache entry: it
    depends only on the rows cached with it (and the join flags, whose change drops
    the entry through channel.updated)."""
    chats = rendered.get(user_id)
    if chats is None:
        chats = rendered[user_id] = await chats_for(
            user_id, [channel["id"]], {channel["id"]: (channel, member)}
        )
    return list(chats)


async def online_viewers(edge, channel_id: int) -> dict[int, list]:
    """{user_id: [the channel as they see it]} of the active members online on this
    edge: for updates of other apps that reach a channel's members (polls)."""
    channel, members, rendered = await _local_members(edge, channel_id, [])
    if channel is None:
        return {}
    return {
        u: await _channel_chats(channel, u, m, rendered)
        for u, m in members.items()
        if m["status"] == "active"
    }


# Events of one channel are rendered in order by one worker task per channel, so the
# edge's single subscriber loop is not held up and channels proceed side by side.
_channel_jobs = SerialJobs("channel push")


def _enqueue(channel_id: int, job) -> None:
    _channel_jobs.put(channel_id, job)


def _sessions(edge, user_id: int, exclude):
    return [s for s in edge.sessions_of_user(user_id) if (s.auth_key_id, s.session_id) != exclude]


async def _sink(kind: str, payload: dict) -> None:
    origin = push_origin.get()
    exclude = list(origin) if origin else None
    if kind == "channel.event":
        # One ordering rule for every pts event of a channel: published in pts order
        # whichever transaction committed first (edge_app.push_order).
        ev = payload["event"]
        if origin:
            _owe_answer(ev["channel_id"], ev["pts"])
            # The acting session's listener receives its own channel's events (its
            # answer waits for them below), whatever the lease said a moment ago.
            await _hold_interest(ev["channel_id"])
        if payload.get("extra_user_ids"):
            # Members just added hear the event that announces them.
            await presence.grant_channel(ev["channel_id"], payload["extra_user_ids"])
        await publish_in_order(
            ev["channel_id"],
            ev["pts"] - ev["pts_count"],
            ev["pts"],
            EVENT,
            {**payload, "exclude": exclude},
        )
        if origin:
            # The acting session gets this event in its answer: the answer waits until
            # this edge handed the session the events before it (they reach the edge
            # before this one, which the edge receives too) and until the session's own
            # earlier answers in the channel went out, or the client would see a gap
            # and run getChannelDifference.
            await _until_delivered(ev["channel_id"], ev["pts"])
            await _after_earlier_answers(origin, ev["channel_id"], ev["pts"])
    elif kind == "channel.noop":
        await skip_in_order(payload["channel_id"], payload["pts"] - payload["pts_count"], payload["pts"])
    elif kind == "channel.typing":
        await publish_to(TYPING, payload, channels=[payload["channel_id"]])
    elif kind == "channel.updated":
        # Before updateChannel: the listeners of users who joined hold the channel's
        # interest by the time their clients ask for its difference.
        await publish_to(
            MEMBERS_CHANGED,
            {"channel_id": payload["channel_id"], "user_ids": payload["user_ids"]},
            users=payload["user_ids"],
            channels=[payload["channel_id"]],
        )
        await push_to_users(
            payload["user_ids"], UPDATE_CHANNEL, {"channel_id": payload["channel_id"]}, exclude=origin
        )
    elif kind == "channel.reactions":
        await publish_to(REACTIONS, {**payload, "exclude": exclude}, channels=[payload["channel_id"]])
    elif kind == "channel.reactions_read":
        await push_to_users([payload["user_id"]], REACTIONS_READ, payload, exclude=origin)
    elif kind == "channel.topics_pinned":
        await publish_to(TOPICS_PINNED, {**payload, "exclude": exclude}, channels=[payload["channel_id"]])
    elif kind == "channel.web_page":
        await publish_to(WEB_PAGE, payload, channels=[payload["channel_id"]])
    elif kind == "channel.contents_read":
        # The reader's other sessions; a sender whose message was first played: all.
        mine = None if payload.get("other") else origin
        await push_to_users([payload["user_id"]], CONTENTS_READ, payload, exclude=mine)
    elif kind == "channel.read_outbox":
        await push_to_users([payload["user_id"]], READ_OUTBOX, payload)
    # read_inbox / available_messages travel through the account update log.


# Waits below are heaps by pts, so releasing them costs what is released, not what is
# waiting: a client that pipelines hundreds of sends (an open-loop sender, a bot) would
# otherwise make every delivered event and every sent answer rescan all its waiters.
_seq = itertools.count()  # ties in a heap: futures and sessions do not compare

# channel_id -> the last pts this edge handed to its sessions (in pts order, see
# _sink), and the answers waiting for a position: heap of (pts, seq, future).
_delivered: dict[int, int] = {}
_waiters: dict[int, list[tuple[int, int, asyncio.Future]]] = {}


def _release(heap: list, upto: int | None) -> list:
    """Pop the entries of ``heap`` at or below ``upto`` (all of them with None)."""
    out = []
    while heap and (upto is None or heap[0][0] <= upto):
        out.append(heapq.heappop(heap))
    return out


def _mark_delivered(channel_id: int, pts: int) -> None:
    if pts <= _delivered.get(channel_id, 0):
        return
    if len(_delivered) > 100_000:
        _delivered.clear()
    _delivered[channel_id] = pts
    _wake(_waiters, channel_id, pts)


def _wake(heaps: dict, key, upto: int | None) -> None:
    """Resolve the waits of ``heaps[key]`` at or below ``upto`` (all of them with None)."""
    heap = heaps.get(key)
    if not heap:
        return
    for *_, fut in _release(heap, upto):
        if not fut.done():
            fut.set_result(None)
    if not heap:
        del heaps[key]


async def _wait_in(heaps: dict, key, pts: int) -> None:
    """Wait (at most HOLE_WAIT + 2 s) until ``pts`` is released from ``heaps[key]``."""
    fut = asyncio.get_running_loop().create_future()
    heapq.heappush(heaps.setdefault(key, []), (pts, next(_seq), fut))
    try:
        await asyncio.wait_for(fut, HOLE_WAIT + 2)
    except TimeoutError:
        # Rare: drop the heap once nothing in it waits any more.
        heap = heaps.get(key)
        if heap is not None and all(entry[-1].done() for entry in heap):
            del heaps[key]


async def _until_delivered(channel_id: int, pts: int) -> None:
    # Only where this process receives the channel's events (an edge).
    if not is_subscribed() or _delivered.get(channel_id, 0) >= pts:
        return
    await _wait_in(_waiters, channel_id, pts)


# The acting session gets its event in the RPC answer; later events of the channel
# must not reach it before that answer. session key -> channel_id -> own pts whose
# answers are not sent yet; (session key, channel_id) -> the answers waiting for the
# earlier ones (heap of (pts, seq, future)) and the pushes held meanwhile (heap of
# (pts, seq, session, updates)).
_owed: dict[tuple[int, int], dict[int, list[int]]] = {}
_answer_waiters: dict[tuple, list[tuple[int, int, asyncio.Future]]] = {}
_held: dict[tuple, list[tuple[int, int, object, object]]] = {}


def _owe_answer(channel_id: int, pts: int) -> None:
    req = origin_request.get()
    session = getattr(req, "session", None)
    if session is None or not hasattr(session, "after_answer"):
        return
    key = (session.auth_key_id, session.session_id)
    _owed.setdefault(key, {}).setdefault(channel_id, []).append(pts)
    session.after_answer(
        req.msg_id, lambda: asyncio.get_running_loop().create_task(_answer_sent(key, channel_id, pts))
    )


def _owed_floor(key, channel_id: int) -> int | None:
    owed = _owed.get(key, {}).get(channel_id)
    return min(owed) if owed else None


async def _after_earlier_answers(key, channel_id: int, pts: int) -> None:
    key = tuple(key)
    floor = _owed_floor(key, channel_id)
    if floor is None or floor >= pts:
        return
    await _wait_in(_answer_waiters, (key, channel_id), pts)


async def _answer_sent(key: tuple[int, int], channel_id: int, pts: int) -> None:
    # No await suspends between updating the holds and pushing what they released
    # (Session.push only queues), so a newer event cannot overtake them.
    owed = _owed.get(key, {}).get(channel_id, [])
    if pts in owed:
        owed.remove(pts)
    if not owed:
        _owed.get(key, {}).pop(channel_id, None)
        if not _owed.get(key, True):
            _owed.pop(key, None)
    floor = min(owed) if owed else None
    slot = (key, channel_id)
    # An answer goes once no earlier own answer is owed: its own pts is the floor.
    _wake(_answer_waiters, slot, floor)
    held = _held.get(slot)
    if not held:
        return
    ready = _release(held, None if floor is None else floor - 1)
    if not held:
        del _held[slot]
    for *_, session, updates in ready:
        await deliver(session, updates)


async def _push_after_own_answers(session, channel_id: int, pts: int, updates) -> None:
    key = (session.auth_key_id, session.session_id)
    floor = _owed_floor(key, channel_id)
    if floor is not None and floor < pts:
        heapq.heappush(_held.setdefault((key, channel_id), []), (pts, next(_seq), session, updates))
        return
    await deliver(session, updates)


@subscriber(EVENT)
async def _on_event(payload: dict, edge) -> None:
    _enqueue(payload["event"]["channel_id"], lambda: _deliver_event(payload, edge))


async def _deliver_event(payload: dict, edge) -> None:
    try:
        await _render_and_push(payload, edge)
    finally:
        _mark_delivered(payload["event"]["channel_id"], payload["event"]["pts"])


async def _render_and_push(payload: dict, edge) -> None:
    ev = ChannelEvent.from_payload(payload["event"])
    exclude = tuple(payload["exclude"]) if payload.get("exclude") else None
    channel, members, rendered = await _local_members(
        edge, ev.channel_id, payload.get("extra_user_ids") or []
    )
    if channel is None:
        return
    refs_u, refs_c = set(), {ev.channel_id}
    from .actions.common import message_refs

    if ev.message:
        # A poll's current totals, the same for everyone (a min result).
        await polls.attach_results_async(0, [ev.message])
        if ev.type == "new_message":
            media_read.mark_fresh(ev.message)
    message_refs([ev.message], refs_u, refs_c)
    own_chat_only = refs_c == {ev.channel_id}  # no forward source to render as well
    # Each member's sessions looked up once (the prefetch and the loop both need them).
    online = {u: s for u in members if (s := _sessions(edge, u, exclude))}
    if ev.type in ("new_message", "edit_message") and ev.message:
        await viewer_hooks.prefetch(list(online))
    # In a big channel most viewers see the same update: rendered once per view.
    shared: dict[tuple, object] = {}
    mentioned = set(mentioned_user_ids(ev.message)) if ev.message else set()
    for user_id, member in members.items():
        sessions = online.get(user_id)
        if not sessions:
            continue
        try:
            users = await users_for(user_id, refs_u) if refs_u else []
            if own_chat_only:
                chats = await _channel_chats(channel, user_id, member, rendered)
            else:
                chats = await chats_for(user_id, sorted(refs_c), {ev.channel_id: (channel, member)})
            view = tl_convert.event_view(ev, user_id, mentioned)
            update = shared.get(view) if view is not None else None
            if ev.type in ("new_message", "edit_message") and await viewer_hooks.hidden(
                user_id, member, ev.message
            ):
                update, view = tl_convert.pts_filler_to_tl(ev), None
            if update is None:
                update = tl_convert.event_to_update(ev, user_id)
                if view is not None:
                    shared[view] = update
            updates = tl_convert.updates_to_tl([update], users, chats)
        except Exception:
            render_failed()
            log.exception("rendering channel event %s@%d for %d failed", ev.type, ev.pts, user_id)
            continue
        for s in sessions:
            await _push_after_own_answers(s, ev.channel_id, ev.pts, updates)


@subscriber(REACTIONS)
async def _on_reactions(payload: dict, edge) -> None:
    _enqueue(payload["channel_id"], lambda: _deliver_reactions(payload, edge))


async def _deliver_reactions(payload: dict, edge) -> None:
    """updateMessageReactions to the channel's online members: the totals and newest
    reactors as a ``min`` object (each client keeps its own choice); the actor's other
    sessions get their full view. Read once per edge, not per viewer."""
    from .actions import reactions

    cid, msg_id, actor = payload["channel_id"], payload["msg_id"], payload["actor"]
    exclude = tuple(payload["exclude"]) if payload.get("exclude") else None
    channel, members, rendered = await _local_members(edge, cid, [])
    if channel is None or not members:
        return
    author = payload.get("author") or 0
    # One read for everyone: the author's view (their unread marks); the others get it
    # as a min object without those marks; the actor's other sessions need their choice.
    own = await reactions.current(author, channel, msg_id)
    shared = (
        None
        if own is None
        else {**own, "mine": [], "recent": [{**r, "unread": False} for r in own["recent"]]}
    )
    if author == actor or actor not in members or not _sessions(edge, actor, exclude):
        mine = own if author == actor else None
    else:
        mine = await reactions.current(actor, channel, msg_id)
    user_ids = reactions.reactor_ids([{"reactions": shared}]) if shared else set()
    broadcast = bool(channel["broadcast"])
    for user_id, member in members.items():
        sessions = _sessions(edge, user_id, exclude)
        if not sessions or member["status"] != "active":
            continue
        if user_id == author:
            update = tl_convert.message_reactions_to_update(cid, msg_id, own, user_id, broadcast=broadcast)
        elif user_id == actor:
            update = tl_convert.message_reactions_to_update(cid, msg_id, mine, user_id, broadcast=broadcast)
        else:
            update = tl_convert.message_reactions_to_update(
                cid, msg_id, shared, user_id, broadcast=broadcast, min_=True
            )
        try:
            users = await users_for(user_id, user_ids) if user_ids else []
            chats = await _channel_chats(channel, user_id, member, rendered)
        except Exception:
            log.exception("rendering reactions of %d/%d for %d failed", cid, msg_id, user_id)
            continue
        updates = tl_convert.updates_to_tl([update], users, chats)
        for s in sessions:
            await deliver(s, updates)


@subscriber(MEMBERS_CHANGED)
async def _on_members_changed(payload: dict, edge) -> None:
    cid = payload["channel_id"]
    _members_cache.pop(cid, None)
    mine = [int(u) for u in payload.get("user_ids") or () if presence.holds_user(int(u))]
    if not mine:
        return
    rows = await db.fetchall(
        "SELECT user_id, status FROM channel_members WHERE channel_id = %s AND user_id = ANY(%s)",
        (cid, mine),
    )
    active = {r["user_id"] for r in rows if r["status"] == "active"}
    for user_id in mine:
        if user_id in active:
            await presence.add_channels(user_id, [cid])
        else:
            await presence.remove_channel(user_id, cid)


async def _hold_interest(channel_id: int) -> None:
    session = getattr(origin_request.get(), "session", None)
    user_id = getattr(session, "user_id", None)
    if user_id is not None and presence.listener_id() is not None:
        await presence.add_channels(user_id, [channel_id])


async def _user_channels(user_ids: list[int]) -> dict[int, list[int]]:
    """The channels whose events a listener holding these users needs (each user's
    active memberships, at most CHANNELS_PER_USER_MAX)."""
    rows = await db.fetchall(
        "SELECT o.user_id, i.channel_id FROM unnest(%s::bigint[]) AS o(user_id)"
        " CROSS JOIN LATERAL (SELECT channel_id FROM user_channel_member_index x"
        "  WHERE x.user_id = o.user_id AND x.status = 'active' AND NOT x.deleted"
        "  ORDER BY channel_id LIMIT %s) i",
        (user_ids, limits.CHANNELS_PER_USER_MAX),
    )
    found: dict[int, list[int]] = {}
    for r in rows:
        found.setdefault(r["user_id"], []).append(r["channel_id"])
    return found


@subscriber(TYPING)
async def _on_typing(payload: dict, edge) -> None:
    channel, members, rendered = await _local_members(edge, payload["channel_id"], [])
    if channel is None:
        return
    action = Reader(bytes.fromhex(payload["action"])).read_object()
    update = tl_convert.typing_to_tl(
        payload["channel_id"], payload["user_id"], action, payload.get("top_msg_id")
    )
    # A typing notice is worth little in a crowd: a bounded few hear it.
    audience = [(u, m) for u, m in members.items() if u != payload["user_id"] and m["status"] == "active"][
        : limits.TYPING_FANOUT_MAX
    ]
    for user_id, member in audience:
        chats = await _channel_chats(channel, user_id, member, rendered)
        # the typing user is named by from_id: the update carries it
        users = await users_for(user_id, [payload["user_id"]])
        updates = tl_convert.updates_to_tl([update], users, chats)
        for s in edge.sessions_of_user(user_id):
            await deliver(s, updates)


@subscriber(TOPICS_PINNED)
async def _on_topics_pinned(payload: dict, edge) -> None:
    """The forum's pinned topics changed: no pts (Telegram's update has none), so
    only members online now hear it; the others read it in getForumTopics."""
    channel, members, rendered = await _local_members(edge, payload["channel_id"], [])
    if channel is None:
        return
    exclude = tuple(payload["exclude"]) if payload.get("exclude") else None
    update = tl_convert.pinned_topics_to_tl(payload["channel_id"], payload["order"])
    for user_id, member in members.items():
        sessions = _sessions(edge, user_id, exclude)
        if not sessions or member["status"] != "active":
            continue
        updates = tl_convert.updates_to_tl(
            [update], [], await _channel_chats(channel, user_id, member, rendered)
        )
        for s in sessions:
            await s.push(updates)


@subscriber(WEB_PAGE)
async def _on_web_page(payload: dict, edge) -> None:
    """A link preview of the channel's messages is ready: updateChannelWebPage (no pts
    of its own) to the members online; the others read the filled-in messages."""
    channel, members, rendered = await _local_members(edge, payload["channel_id"], [])
    if channel is None:
        return
    update = tl_convert.web_page_update_to_tl(payload["channel_id"], payload["page"], channel["pts"])
    for user_id, member in members.items():
        sessions = _sessions(edge, user_id, None)
        if not sessions or member["status"] != "active":
            continue
        updates = tl_convert.updates_to_tl(
            [update], [], await _channel_chats(channel, user_id, member, rendered)
        )
        for s in sessions:
            await s.push(updates)


@renderer(UPDATE_CHANNEL)
async def _render_update_channel(payload: dict, viewer_id: int):
    cid = payload["channel_id"]
    return tl_convert.updates_to_tl(
        [tl_convert.update_channel_to_tl(cid)], [], await chats_for(viewer_id, [cid])
    )


@renderer(REACTIONS_READ)
async def _render_reactions_read(payload: dict, viewer_id: int):
    """The author read reactions on these messages: their sessions get each message's
    reactions without the unread marks (TDesktop drops the dialog's reaction badge)."""
    from .actions import reactions

    cid = payload["channel_id"]
    channel = {"id": cid, "broadcast": bool(payload.get("broadcast"))}
    shown = [{"id": i, "channel_id": cid} for i in payload["ids"]]
    await reactions.attach(viewer_id, channel, shown)
    ups = [
        tl_convert.message_reactions_to_update(
            cid, m["id"], m.get("reactions"), viewer_id, broadcast=channel["broadcast"]
        )
        for m in shown
        if "views_count" in m
    ]
    users = await users_for(viewer_id, reactions.reactor_ids(shown))
    return tl_convert.updates_to_tl(ups, users, await chats_for(viewer_id, [cid]))


@renderer(CONTENTS_READ)
async def _render_contents_read(payload: dict, viewer_id: int):
    cid = payload["channel_id"]
    return tl_convert.updates_to_tl(
        [tl_convert.read_contents_to_tl(cid, payload["ids"])], [], await chats_for(viewer_id, [cid])
    )


@renderer(READ_OUTBOX)
async def _render_read_outbox(payload: dict, viewer_id: int):
    cid = payload["channel_id"]
    return tl_convert.updates_to_tl(
        [tl_convert.read_outbox_to_tl(cid, payload["max_id"])], [], await chats_for(viewer_id, [cid])
    )


def install() -> None:
    notify.add_sink(_sink)
    presence.set_channel_lookup(_user_channels)
