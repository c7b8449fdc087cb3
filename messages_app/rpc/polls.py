"""messages.sendVote / getPollResults / getPollVotes in any chat, and closing a poll
by editMessage (called from the edit handlers). Thin: the message is looked up as the
viewer may see it, polls_app does the rest, poll_push tells everyone who can see it."""

from __future__ import annotations

from channels_app import actions as channel_actions
from channels_app import tl_convert as channels_tl
from channels_app.actions.common import is_active
from channels_app.errors import ChannelPrivateError
from edge_app.registry import rpc
from message_core import limits
from message_core.context import own_session, users_for, viewer
from polls_app import actions as polls
from polls_app import tl_convert as polls_tl
from polls_app import vote_hooks
from private_app import actions as private_actions
from tl import functions
from tl.errors import LimitInvalidError, MessageIdInvalidError, OffsetInvalidError

from .. import poll_push
from ..peers import Peer, resolve_peer

VOTES_LIMIT = polls.VOTES_PAGE_MAX
OFFSET_STRING_MAX = 64


async def message_of(me: int, p: Peer, msg_id: int, *, member: bool = False) -> dict:
    """The message ``msg_id`` of the peer as the viewer sees it (MESSAGE_ID_INVALID when
    there is none; ``member``: a channel's message needs membership, as voting does)."""
    if not 0 < msg_id <= limits.MAX_MESSAGE_ID:
        raise MessageIdInvalidError()
    if p.channel is None:
        found = (await private_actions.get_messages(me, [msg_id]))[0]
        if found.get("empty") or found["peer_id"] != p.user_id:
            raise MessageIdInvalidError()
        return found
    h = await channel_actions.get_messages(me, p.channel_id, [msg_id])
    if member and not is_active(h.member):
        raise ChannelPrivateError()
    m = h.messages[0]
    if not m or m.get("empty"):
        raise MessageIdInvalidError()
    return m


async def _poll_of(me: int, p: Peer, msg_id: int, *, member: bool = False) -> int:
    poll_id = polls.poll_id_of((await message_of(me, p, msg_id, member=member)).get("media"))
    if poll_id is None:
        raise MessageIdInvalidError()
    return poll_id


async def poll_answer(me: int, poll_id: int):
    updates, user_ids = await poll_push.poll_updates_for(me, [poll_id])
    return channels_tl.updates_to_tl(updates, await users_for(me, user_ids), [])


async def close_by_edit(ctx, me: int, poll_id: int):
    """editMessage(media=closed poll) by its creator: closed once, everyone told."""
    if await polls.do_close_poll(poll_id, me):
        await poll_push.publish_change(poll_id, me, exclude=own_session(ctx))
        await vote_hooks.changed(poll_id)
    return await poll_answer(me, poll_id)


@rpc(functions.messages.SendVote)
async def send_vote(ctx, req: functions.messages.SendVote):
    me = viewer(ctx)
    p = await resolve_peer(me, req.peer, preview=False)
    poll_id = await _poll_of(me, p, req.msg_id, member=True)
    await polls.do_send_vote(poll_id, me, [bytes(o) for o in req.options])
    await vote_hooks.changed(poll_id, me)
    await poll_push.publish_change(poll_id, me, exclude=own_session(ctx))
    return await poll_answer(me, poll_id)


@rpc(functions.messages.GetPollResults)
async def get_poll_results(ctx, req: functions.messages.GetPollResults):
    me = viewer(ctx)
    p = await resolve_peer(me, req.peer)
    return await poll_answer(me, await _poll_of(me, p, req.msg_id))


@rpc(functions.messages.GetPollVotes)
async def get_poll_votes(ctx, req: functions.messages.GetPollVotes):
    """Voters of a public poll, newest first, paged (never of an anonymous poll, nor
    in a broadcast channel)."""
    me = viewer(ctx)
    if req.limit < 0:
        raise LimitInvalidError()
    if req.offset is not None and len(req.offset) > OFFSET_STRING_MAX:
        raise OffsetInvalidError()
    p = await resolve_peer(me, req.peer)
    poll_id = await _poll_of(me, p, req.id)
    broadcast = bool(p.channel and p.channel["broadcast"])
    count, votes, next_offset = await polls.get_votes(
        poll_id, me, bytes(req.option) if req.option is not None else None, req.offset or "",
        min(req.limit, VOTES_LIMIT), broadcast=broadcast,
    )  # fmt: skip
    snapshot = await polls.load_snapshot(poll_id)
    users = await users_for(me, [v[0] for v in votes])
    return polls_tl.votes_list_to_tl(
        count, votes, users, next_offset, multiple=bool(snapshot and snapshot["multiple_choice"])
    )
