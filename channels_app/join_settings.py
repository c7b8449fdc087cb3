"""Join switches of megagroups (``channel_join_settings``): the store read and the
short-lived cache every channel rendering goes through."""

from __future__ import annotations

import time

from message_core import db


async def get_join_settings(channel_ids: list[int]) -> dict[int, dict]:
    """join_to_send / join_request / gigagroup per channel (absent: all off); the
    channel conversion reads this for Channel flags 26/28/29."""
    if not channel_ids:
        return {}
    async with db.connection() as conn:
        cur = await conn.execute(
            "SELECT channel_id, join_to_send, join_request, antispam, gigagroup FROM channel_join_settings"
            " WHERE channel_id = ANY(%s)",
            (list(channel_ids),),
        )
        return {r["channel_id"]: r for r in await cur.fetchall()}


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
