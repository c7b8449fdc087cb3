"""Discovery in public channels: channels.searchPosts (posts of public channels and
supergroups by a word or a hashtag) and channels.getChannelRecommendations."""

from __future__ import annotations

from edge_app.registry import rpc
from message_core import limits
from message_core import tl_convert as core_tl
from message_core.context import users_for, viewer
from tl import functions, types
from tl.errors import SearchQueryEmptyError

from .. import tl_convert
from ..access import is_channel_peer
from ..actions import search
from ..actions.common import message_refs
from ..chat_context import chats_for
from ..errors import LimitInvalidError
from .admin import checked_channel


async def _cursor(me: int, req) -> tuple[int, int, int, int] | None:
    if not req.offset_rate:
        return None
    if is_channel_peer(req.offset_peer):
        channel, _ = await checked_channel(me, req.offset_peer, preview=True)
        return (req.offset_rate, search.CHANNEL_RANK, channel["id"], req.offset_id)
    return (req.offset_rate, search.CHANNEL_RANK + 1, 0, 0)


@rpc(functions.channels.SearchPosts)
async def search_posts(ctx, req: functions.channels.SearchPosts):
    me = viewer(ctx)
    hashtag, query = (req.hashtag or "").strip().lstrip("#"), (req.query or "").strip()
    if len(req.hashtag or "") > limits.SEARCH_QUERY_MAX or len(req.query or "") > limits.SEARCH_QUERY_MAX:
        raise LimitInvalidError()
    if req.limit < 0:
        raise LimitInvalidError()
    if not (hashtag or query):
        raise SearchQueryEmptyError()
    limit = min(req.limit or limits.SEARCH_GLOBAL_LIMIT, limits.SEARCH_GLOBAL_LIMIT)
    rows = await search.search_public_posts(
        me, f"#{hashtag}" if hashtag else query, cursor=await _cursor(me, req), limit=limit
    )
    user_ids, channel_ids = set(), set()
    message_refs(rows, user_ids, channel_ids)
    messages = [tl_convert.message_to_tl(m, me) for m in rows]
    users, chats = await users_for(me, user_ids), await chats_for(me, sorted(channel_ids))
    next_rate = rows[-1]["date"] if len(rows) == limit else None
    return core_tl.search_results_to_tl(messages, chats, users, next_rate=next_rate)


@rpc(functions.channels.GetChannelRecommendations)
async def get_channel_recommendations(ctx, req: functions.channels.GetChannelRecommendations):
    me = viewer(ctx)
    source = None
    if req.channel is not None and not isinstance(req.channel, types.InputChannelEmpty):
        channel, _ = await checked_channel(me, req.channel, preview=True)
        source = channel["id"]
    found = await search.recommend_channels(me, source)
    return tl_convert.chats_to_tl(
        await chats_for(me, [c["id"] for c in found], {c["id"]: (c, None) for c in found})
    )
