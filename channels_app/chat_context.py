"""The channels an answer carries, rendered as one viewer sees them."""

from __future__ import annotations

import logging

from message_core import db

from . import tl_convert
from .actions.common import CHANNEL_COLUMNS, MEMBER_COLUMNS
from .join_settings import join_flags

log = logging.getLogger("telesrv.channels.chats")


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
            # Never dropped: an update naming a chat it does not carry is "data not
            # found" to Telegram Desktop (edge_app.peer_check counts those).
            log.info("chat %s named for viewer %s has no row: sent as channelForbidden", cid, viewer_id)
            out.append(tl_convert.unknown_channel_to_tl(cid))
            continue
        ch, member = known[cid]
        is_min = member is None and not ch["username"]
        out.append(tl_convert.channel_to_tl(ch, member, min_=is_min, join=join.get(cid)))
    return out
