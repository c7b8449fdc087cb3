"""Permission-checked lookups of channels by what a client sent, and the chats/users
context every response carries.

Rules (design, "Input Hash And Visibility"): a non-zero ``access_hash`` must match the
channel's (CHANNEL_PRIVATE otherwise, or skipped inside a vector); ``*FromMessage``
inputs carry none and need membership; ``InputPeerChat`` / ``InputChat`` ids are the
same-id megagroup, resolved internally with hash 0 (so membership decides).
"""

from __future__ import annotations

import time

from tl import types

from . import db, tl_convert
from .actions.common import CHANNEL_COLUMNS, MEMBER_COLUMNS
from .errors import ChannelInvalidError, ChatIdInvalidError, PeerIdInvalidError


def channel_ref(obj) -> tuple[int, int]:
    """(channel_id, access_hash or 0) of an InputChannel / InputPeer naming a channel."""
    if isinstance(obj, types.InputChannel | types.InputPeerChannel):
        if obj.channel_id <= 0:
            raise ChannelInvalidError()
        return obj.channel_id, obj.access_hash
    if isinstance(obj, types.InputChannelFromMessage | types.InputPeerChannelFromMessage):
        if obj.channel_id <= 0:
            raise ChannelInvalidError()
        return obj.channel_id, 0
    if isinstance(obj, types.InputPeerChat):
        if obj.chat_id <= 0:
            raise ChatIdInvalidError()
        return obj.chat_id, 0
    if isinstance(obj, types.InputChannelEmpty):
        raise ChannelInvalidError()
    raise PeerIdInvalidError()


def is_channel_peer(peer) -> bool:
    return isinstance(
        peer,
        types.InputPeerChannel | types.InputPeerChannelFromMessage | types.InputPeerChat | types.InputChannel,
    )


def dialog_peer_channel(obj) -> tuple[int, int] | None:
    """The channel of an InputDialogPeer / InputPeer, or None for a user peer."""
    peer = getattr(obj, "peer", obj) if isinstance(obj, types.InputDialogPeer) else obj
    if is_channel_peer(peer):
        return channel_ref(peer)
    return None


async def chats_for(
    viewer_id: int, channel_ids, known: dict[int, tuple[dict, dict | None]] | None = None
) -> list:
    """TL chats for ``channel_ids`` as ``viewer_id`` sees them. Channels the viewer is
    not in (forward sources) go out as ``min`` channels unless public."""
    known = dict(known or {})
    missing = [c for c in dict.fromkeys(channel_ids) if c not in known]
    if missing:
        async with db.connection() as conn:
            cur = await conn.execute(f"SELECT {CHANNEL_COLUMNS} FROM channels WHERE id = ANY(%s)", (missing,))
            rows = {r["id"]: r for r in await cur.fetchall()}
            cur = await conn.execute(
                f"SELECT {MEMBER_COLUMNS} FROM channel_members WHERE channel_id = ANY(%s) AND user_id = %s",
                (missing, viewer_id),
            )
            members = {r["channel_id"]: r for r in await cur.fetchall()}
        for cid, row in rows.items():
            known[cid] = (row, members.get(cid))
    join = await join_flags([cid for cid, (ch, _) in known.items() if ch["megagroup"]])
    out = []
    for cid in dict.fromkeys(channel_ids):
        if cid not in known:
            continue
        ch, member = known[cid]
        is_min = member is None and not ch["username"]
        out.append(tl_convert.channel_to_tl(ch, member, min_=is_min, join=join.get(cid)))
    return out


# channel id -> (expiry, join settings row or None). Every push renders its channel for
# each recipient; these switches change rarely and a few seconds' lag is harmless, so a
# short-lived cache keeps that path at no extra query.
JOIN_FLAGS_SECONDS = 5.0
JOIN_FLAGS_MAX = 100_000
_join_flags_cache: dict[int, tuple[float, dict | None]] = {}


async def join_flags(channel_ids) -> dict[int, dict]:
    """join_to_send / join_request / antispam of these channels (absent: all off)."""
    now = time.monotonic()
    out, missing = {}, []
    for cid in dict.fromkeys(channel_ids):
        hit = _join_flags_cache.get(cid)
        if hit is not None and hit[0] > now:
            if hit[1]:
                out[cid] = hit[1]
        else:
            missing.append(cid)
    if missing:
        from .actions.settings import get_join_settings

        if len(_join_flags_cache) > JOIN_FLAGS_MAX:
            _join_flags_cache.clear()
        found = await get_join_settings(missing)
        for cid in missing:
            _join_flags_cache[cid] = (now + JOIN_FLAGS_SECONDS, found.get(cid))
            if cid in found:
                out[cid] = found[cid]
    return out


def forget_join_flags(channel_id: int) -> None:
    _join_flags_cache.pop(channel_id, None)


# (viewer, user) -> (expiry, TL user). Every message response and every push carries
# the sender; rendering it through accounts (an ORM query per viewer) would dominate a
# busy group, and a profile a few seconds stale in a push is harmless.
USER_CACHE_SECONDS = 5.0
USER_CACHE_MAX = 100_000
_user_cache: dict[tuple[int, int], tuple[float, object]] = {}


async def users_for(viewer_id: int, user_ids) -> list:
    ids = sorted({int(u) for u in user_ids if u})
    if not ids:
        return []
    now = time.monotonic()
    out, missing = {}, []
    for uid in ids:
        hit = _user_cache.get((viewer_id, uid))
        if hit is not None and hit[0] > now:
            out[uid] = hit[1]
        else:
            missing.append(uid)
    if missing:
        from accounts_app.tl_convert import users_to_tl

        if len(_user_cache) > USER_CACHE_MAX:
            _user_cache.clear()
        for user in await users_to_tl(missing, viewer_id):
            out[user.id] = user
            _user_cache[(viewer_id, user.id)] = (now + USER_CACHE_SECONDS, user)
    return [out[u] for u in ids if u in out]


def resolve_input_user(viewer_id: int):
    """``fn(input_user) -> user_id`` through accounts (raises USER_ID_INVALID)."""
    from accounts_app.access import check_input_user

    return lambda input_user: check_input_user(viewer_id, input_user)
