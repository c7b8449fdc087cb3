"""The channels an answer carries, rendered as one viewer sees them."""

from __future__ import annotations

from message_core import db

from . import tl_convert
from .actions.common import CHANNEL_COLUMNS, MEMBER_COLUMNS
from .join_settings import join_flags


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
