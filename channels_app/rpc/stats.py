"""stats.* (channel statistics from the store) and premium.* boost answers: every
method checks the channel, its hash and the admin right first; boosts do not exist
here, so their answers are the zero state, never a boost that was not given."""

from __future__ import annotations

from edge_app.registry import rpc
from message_core.context import resolve_input_user, users_for, viewer
from tl import functions
from tl.errors import GraphInvalidReloadError, PeerIdInvalidError, PremiumAccountRequiredError

from .. import tl_convert_stats
from ..access import is_channel_peer
from ..actions import stats
from ..errors import LimitInvalidError, MessageIdInvalidError, OffsetInvalidError
from .admin import checked_channel

PUBLIC_FORWARDS_LIMIT = 100
BOOSTS_LIMIT = 100
OFFSET_MAX = 64  # an opaque next_offset string; none is ever issued here
BOOST_SLOTS_MAX = 10


async def _channel_of_peer(me: int, peer) -> dict:
    if not is_channel_peer(peer):
        raise PeerIdInvalidError()
    channel, _ = await checked_channel(me, peer)
    return channel


@rpc(functions.stats.GetBroadcastStats)
async def get_broadcast_stats(ctx, req: functions.stats.GetBroadcastStats):
    me = viewer(ctx)
    channel, _ = await checked_channel(me, req.channel)
    s = await stats.get_channel_stats(me, channel["id"], megagroup=False)
    return tl_convert_stats.broadcast_stats_to_tl(s)


@rpc(functions.stats.GetMegagroupStats)
async def get_megagroup_stats(ctx, req: functions.stats.GetMegagroupStats):
    me = viewer(ctx)
    channel, _ = await checked_channel(me, req.channel)
    s = await stats.get_channel_stats(me, channel["id"], megagroup=True)
    return tl_convert_stats.megagroup_stats_to_tl(s, await users_for(me, s.user_ids))


@rpc(functions.stats.GetMessageStats)
async def get_message_stats(ctx, req: functions.stats.GetMessageStats):
    me = viewer(ctx)
    channel, _ = await checked_channel(me, req.channel)
    if req.msg_id <= 0:
        raise MessageIdInvalidError()
    await stats.check_message_stats(me, channel["id"], req.msg_id)
    return tl_convert_stats.message_stats_to_tl()


@rpc(functions.stats.GetMessagePublicForwards)
async def get_message_public_forwards(ctx, req: functions.stats.GetMessagePublicForwards):
    """Forwards into public channels are not indexed: the first page is empty."""
    me = viewer(ctx)
    if not 0 <= req.limit <= PUBLIC_FORWARDS_LIMIT:
        raise LimitInvalidError()
    if len(req.offset) > OFFSET_MAX:
        raise OffsetInvalidError()
    channel, _ = await checked_channel(me, req.channel)
    if req.msg_id <= 0:
        raise MessageIdInvalidError()
    await stats.check_message_stats(me, channel["id"], req.msg_id)
    return tl_convert_stats.public_forwards_to_tl()


@rpc(functions.stats.LoadAsyncGraph)
async def load_async_graph(ctx, req: functions.stats.LoadAsyncGraph):
    """Every graph is answered inline (statsGraph or statsGraphError), never as a token,
    so no token this server could be asked for exists."""
    viewer(ctx)
    raise GraphInvalidReloadError()


@rpc(functions.premium.GetBoostsStatus)
async def get_boosts_status(ctx, req: functions.premium.GetBoostsStatus):
    me = viewer(ctx)
    channel = await _channel_of_peer(me, req.peer)
    return tl_convert_stats.boosts_status_to_tl(channel)


@rpc(functions.premium.GetBoostsList, functions.premium.GetUserBoosts)
async def get_boosts_list(ctx, req):
    me = viewer(ctx)
    if isinstance(req, functions.premium.GetBoostsList):
        if not 0 <= req.limit <= BOOSTS_LIMIT:
            raise LimitInvalidError()
        if len(req.offset) > OFFSET_MAX:
            raise OffsetInvalidError()
    else:
        resolve_input_user(me)(req.user_id)
    channel = await _channel_of_peer(me, req.peer)
    await stats.load_for_stats(me, channel["id"])
    return tl_convert_stats.boosts_list_to_tl()


@rpc(functions.premium.GetMyBoosts)
async def get_my_boosts(ctx, req: functions.premium.GetMyBoosts):
    viewer(ctx)
    return tl_convert_stats.my_boosts_to_tl()


@rpc(functions.premium.ApplyBoost)
async def apply_boost(ctx, req: functions.premium.ApplyBoost):
    """Boost slots come with Premium, which no account has here."""
    me = viewer(ctx)
    if req.slots is not None and len(req.slots) > BOOST_SLOTS_MAX:
        raise LimitInvalidError()
    await _channel_of_peer(me, req.peer)
    raise PremiumAccountRequiredError()
