"""messages.searchGlobal: the main search box. Channel messages of the user's active
memberships and the user's private chats, merged newest first under one seek cursor:
(offset_rate = a date, offset_peer, offset_id) of the last result of the page before."""

from __future__ import annotations

from channels_app import tl_convert as channels_tl
from channels_app.actions import media_read
from channels_app.actions import search as channel_search
from channels_app.actions.common import message_refs as channel_message_refs
from edge_app.registry import rpc
from message_core import limits
from message_core import tl_convert as core_tl
from message_core.context import chats_for, users_for, viewer
from polls_app import actions as polls
from private_app import actions as private_actions
from private_app import search as private_search
from private_app import tl_convert as private_tl
from tl import functions, types
from tl.errors import FolderIdInvalidError, LimitInvalidError, SearchQueryEmptyError

from ..peers import checked_channel, is_user_peer, media_filter_kinds, peer_user_id

LAST_RANK = 2  # an offset_peer of no kind: every result at offset_rate is still to come


def _rank_key(kind: str, m: dict) -> tuple[int, int, int, int]:
    if kind == "c":
        return (m["date"], channel_search.CHANNEL_RANK, m["channel_id"], m["id"])
    return (m["date"], private_search.PRIVATE_RANK, m["peer_id"], m["id"])


async def _cursor(me: int, req) -> tuple[int, int, int, int] | None:
    if not req.offset_rate:
        return None
    peer = req.offset_peer
    if is_user_peer(peer):
        return (req.offset_rate, private_search.PRIVATE_RANK, peer_user_id(me, peer), req.offset_id)
    if isinstance(peer, types.InputPeerEmpty) or peer is None:
        return (req.offset_rate, LAST_RANK, 0, 0)
    channel, _ = await checked_channel(me, peer, preview=True)
    return (req.offset_rate, channel_search.CHANNEL_RANK, channel["id"], req.offset_id)


@rpc(functions.messages.SearchGlobal)
async def search_global(ctx, req: functions.messages.SearchGlobal):
    me = viewer(ctx)
    q = (req.q or "").strip()
    if len(req.q or "") > limits.SEARCH_QUERY_MAX or req.limit < 0:
        raise LimitInvalidError()
    kinds = media_filter_kinds(req.filter) or ()
    if not (q or kinds):
        raise SearchQueryEmptyError()  # a media filter alone lists that media
    if req.folder_id not in (None, 0, 1):
        raise FolderIdInvalidError()
    limit = min(req.limit or limits.SEARCH_GLOBAL_LIMIT, limits.SEARCH_GLOBAL_LIMIT)
    cursor = await _cursor(me, req)
    found: list[tuple[str, dict]] = []
    # The empty filter is text search, a media filter (text optional) that media; other
    # filters (geo, mentions, chat photos...) find nothing across chats.
    if isinstance(req.filter, types.InputMessagesFilterEmpty) or kinds:
        dates = {"min_date": req.min_date or 0, "max_date": req.max_date or 0, "media_kinds": kinds}
        if not req.users_only:
            rows = await channel_search.search_member_channels(
                me, q, broadcasts=not req.groups_only, groups=not req.broadcasts_only, folder_id=req.folder_id,
                cursor=cursor, limit=limit, **dates,
            )  # fmt: skip
            found += [("c", m) for m in rows]
        if not (req.broadcasts_only or req.groups_only) and not req.folder_id:
            rows = await private_search.search_global(me, q, cursor=cursor, limit=limit, **dates)
            found += [("p", m) for m in rows]
    found.sort(key=lambda item: _rank_key(*item), reverse=True)
    more = len(found) > limit or len(found) == limit
    found = found[:limit]
    await polls.attach_results_async(me, [m for _, m in found])
    for kind, m in found:  # a query only for a channel's voice note or round video
        if kind == "c":
            await media_read.attach(me, m["channel_id"], [m])
    user_ids, channel_ids = {me}, set()
    channel_message_refs([m for kind, m in found if kind == "c"], user_ids, channel_ids)
    private_actions.message_refs([m for kind, m in found if kind == "p"], user_ids, channel_ids)
    messages = [
        channels_tl.message_to_tl(m, me) if kind == "c" else private_tl.message_to_tl(m) for kind, m in found
    ]
    users, chats = await users_for(me, user_ids), await chats_for(me, sorted(channel_ids))
    next_rate = found[-1][1]["date"] if more and found else None
    return core_tl.search_results_to_tl(messages, chats, users, next_rate=next_rate)
