"""Public usernames of channels, public search and resolve, left / inactive channels.

Users and channels share one case-insensitive namespace (``accounts_app.usernames``):
a claim takes the same advisory lock as a user's claim, then checks both the ``users``
table and ``channel_usernames`` inside one transaction, so two owners can never hold
one name. ``channel_usernames(username_lower)`` is the unique index; ``channels.username``
keeps the display form.
"""

from __future__ import annotations

from message_core import db, limits
from message_core.text import like_pattern
from tl.errors import RpcError, UsernameInvalidError, UsernameNotModifiedError, UsernameOccupiedError

from ..errors import OffsetInvalidError
from . import admin_log
from .admin import load_for_actor, publish_channel_updated, require_creator, require_right
from .common import CHANNEL_COLUMNS, MEMBER_COLUMNS, load_channel

PUBLIC_CHANNELS_PER_USER_MAX = 10
SEARCH_LIMIT_MAX = 50
SEARCH_Q_MAX = 64
LEFT_PAGE = 100
LEFT_OFFSET_MAX = 10000
INACTIVE_MAX = 100


class ChannelsAdminPublicTooMuchError(RpcError):
    def __init__(self):
        super().__init__(400, "CHANNELS_ADMIN_PUBLIC_TOO_MUCH")


def _format_ok(name: str) -> bool:
    from accounts_app.usernames import is_valid_username

    return is_valid_username(name)


def _lock_key(name: str) -> str:
    # The key accounts_app.usernames.lock_username takes for the same name.
    return "telesrv/username/" + name.lower()


async def _taken(conn, key: str, except_channel_id: int) -> bool:
    cur = await conn.execute("SELECT 1 FROM users WHERE lower(username) = %s LIMIT 1", (key,))
    if await cur.fetchone():
        return True
    cur = await conn.execute("SELECT channel_id FROM channel_usernames WHERE username_lower = %s", (key,))
    row = await cur.fetchone()
    return row is not None and row["channel_id"] != except_channel_id


async def check_username(actor_user_id: int | None, channel_id: int, username: str) -> bool:
    """channels.checkUsername: True when this channel may take the name."""
    _channel, member = await load_for_actor(channel_id, actor_user_id)
    require_right(actor_user_id, member, "change_info")
    if not _format_ok(username):
        raise UsernameInvalidError()
    async with db.connection() as conn:
        return not await _taken(conn, username.lower(), channel_id)


async def do_update_username(actor_user_id: int | None, channel_id: int, username: str) -> dict:
    """channels.updateUsername: the creator sets or (with "") clears the public name."""
    username = username or ""
    channel, member = await load_for_actor(channel_id, actor_user_id)
    require_creator(actor_user_id, member)
    if username and not _format_ok(username):
        raise UsernameInvalidError()
    if username.lower() == channel["username"].lower():
        raise UsernameNotModifiedError()
    new_claim = username and not channel["username"] and actor_user_id is not None
    if (
        new_claim
        and len(await _admined_public(actor_user_id, creator_only=True)) >= PUBLIC_CHANNELS_PER_USER_MAX
    ):
        raise ChannelsAdminPublicTooMuchError()
    key = username.lower()
    async with db.connection() as conn, conn.transaction():
        if username:
            await conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (_lock_key(username),))
            if await _taken(conn, key, channel_id):
                raise UsernameOccupiedError()
        await conn.execute("DELETE FROM channel_usernames WHERE channel_id = %s", (channel_id,))
        if username:
            await conn.execute(
                "INSERT INTO channel_usernames (username_lower, channel_id) VALUES (%s, %s)",
                (key, channel_id),
            )
        await conn.execute("UPDATE channels SET username = %s WHERE id = %s", (username, channel_id))
        await admin_log.record(
            conn, channel_id, actor_user_id, "change_username",
            data={"prev": channel["username"], "new": username}, query=f"{channel['username']} {username}",
        )  # fmt: skip
    await publish_channel_updated(channel_id, [admin_log.actor_id(actor_user_id)])
    async with db.connection() as conn:
        return await load_channel(conn, channel_id)


async def _member_channel_ids(user_id: int, status: str) -> list[int]:
    async with db.connection() as conn:
        cur = await conn.execute(
            "SELECT channel_id FROM user_channel_member_index WHERE user_id = %s AND status = %s AND NOT deleted"
            " ORDER BY channel_id LIMIT %s",
            (user_id, status, limits.CHANNELS_PER_USER_MAX),
        )
        return [r["channel_id"] for r in await cur.fetchall()]


async def _admined_public(user_id: int, *, creator_only: bool = False) -> list[dict]:
    ids = await _member_channel_ids(user_id, "active")
    if not ids:
        return []
    roles = ("creator",) if creator_only else ("creator", "admin")
    async with db.connection() as conn:
        cur = await conn.execute(
            # One key probe per channel, the status checked above it (see actions.mentions).
            "SELECT c.id AS channel_id FROM unnest(%s::bigint[]) AS c(id) CROSS JOIN LATERAL (SELECT status, role"
            " FROM channel_members WHERE channel_id = c.id AND user_id = %s LIMIT 1) m"
            " WHERE m.status = 'active' AND m.role = ANY(%s)",
            (ids, user_id, list(roles)),
        )
        mine = [r["channel_id"] for r in await cur.fetchall()]
        if not mine:
            return []
        cur = await conn.execute(
            f"SELECT {CHANNEL_COLUMNS} FROM channels WHERE id = ANY(%s) AND username <> '' AND NOT deleted"
            " ORDER BY id",
            (mine,),
        )
        return await cur.fetchall()


async def get_admined_public_channels(user_id: int) -> list[dict]:
    """channels.getAdminedPublicChannels: public channels the user created (the ones
    that count against the public-link limit)."""
    return await _admined_public(user_id, creator_only=True)


# ---- public search / resolve (hooks for accounts_app.peer_search) ----


async def resolve_public_channel(viewer_id: int, key: str) -> tuple[dict, dict | None] | None:
    """contacts.resolveUsername for channels: the live public channel holding ``key``
    (lowercased) and the viewer's member row, or None. A user banned from it still
    resolves it (the chat renders as channelForbidden for them): the ban blocks reading
    and joining, not finding the name."""
    async with db.connection() as conn:
        cur = await conn.execute("SELECT channel_id FROM channel_usernames WHERE username_lower = %s", (key,))
        row = await cur.fetchone()
        if row is None:
            return None
        channel = await load_channel(conn, row["channel_id"])
        if channel is None or channel["deleted"]:
            return None
        cur = await conn.execute(
            f"SELECT {MEMBER_COLUMNS} FROM channel_members WHERE channel_id = %s AND user_id = %s",
            (channel["id"], viewer_id),
        )
        member = await cur.fetchone()
    return channel, member


async def search_public_channels(viewer_id: int, q: str, limit: int) -> tuple[list[dict], list[dict]]:
    """contacts.search for channels: (the viewer's own channels, other public ones)
    whose username or title contains ``q``; bounded to ``limit`` (cap 50) each."""
    q = (q or "").strip().lstrip("@")[:SEARCH_Q_MAX]
    limit = max(0, min(limit, SEARCH_LIMIT_MAX))
    if len(q) < 2 or not limit:
        return [], []
    pattern = like_pattern(q.lower())
    prefix = pattern[1:]  # the same escaping, anchored at the start
    mine_ids = await _member_channel_ids(viewer_id, "active")
    async with db.connection() as conn:
        mine: list[dict] = []
        if mine_ids:
            cur = await conn.execute(
                f"SELECT {CHANNEL_COLUMNS} FROM channels WHERE id = ANY(%s) AND NOT deleted"
                " AND (lower(title) LIKE %s OR lower(username) LIKE %s) ORDER BY participants_count DESC, id LIMIT %s",
                (mine_ids, pattern, prefix, limit),
            )
            mine = await cur.fetchall()
        # Public channels by a title fragment or a username prefix (the trigram indexes
        # channels_public_title_trgm_idx / channels_public_username_trgm_idx).
        cur = await conn.execute(
            f"SELECT {CHANNEL_COLUMNS} FROM channels WHERE username <> '' AND NOT deleted"
            " AND (lower(title) LIKE %s OR lower(username) LIKE %s)"
            " ORDER BY participants_count DESC, id LIMIT %s",
            (pattern, prefix, limit * 2),
        )
        public = await cur.fetchall()
        cur = await conn.execute(
            "SELECT channel_id, status FROM channel_members WHERE channel_id = ANY(%s) AND user_id = %s",
            ([c["id"] for c in public] or [0], viewer_id),
        )
        states = {r["channel_id"]: r["status"] for r in await cur.fetchall()}
    mine_set = {c["id"] for c in mine}
    public = [
        c for c in public if c["id"] not in mine_set and states.get(c["id"]) not in ("kicked", "banned")
    ]
    return mine, public[:limit]


# ---- left / inactive ----


async def get_left_channels(user_id: int, offset: int) -> tuple[int, list[dict], bool]:
    """channels.getLeftChannels: (count, page, complete). Page 100, offset cap 10000;
    ``complete`` means the answer is messages.chats (TDesktop stops there)."""
    if offset < 0:
        raise OffsetInvalidError()
    offset = min(offset, LEFT_OFFSET_MAX)
    async with db.connection() as conn:
        cur = await conn.execute(
            "SELECT channel_id FROM user_channel_member_index WHERE user_id = %s AND status = 'left' AND NOT deleted"
            " ORDER BY channel_id DESC LIMIT %s",
            (user_id, LEFT_OFFSET_MAX + LEFT_PAGE),
        )
        ids = [r["channel_id"] for r in await cur.fetchall()]
        page_ids = ids[offset : offset + LEFT_PAGE]
        rows: list[dict] = []
        if page_ids:
            cur = await conn.execute(
                f"SELECT {CHANNEL_COLUMNS} FROM channels WHERE id = ANY(%s) AND NOT deleted", (page_ids,)
            )
            by_id = {r["id"]: r for r in await cur.fetchall()}
            rows = [by_id[i] for i in page_ids if i in by_id]
    complete = bool(rows) and offset + len(page_ids) >= len(ids)
    return len(ids), rows, complete


async def get_inactive_channels(user_id: int) -> list[tuple[dict, int]]:
    """channels.getInactiveChannels: the user's active channels, least recently active
    first, as (channel, last activity date); activity is the user's last post, else the
    join date."""
    ids = await _member_channel_ids(user_id, "active")
    if not ids:
        return []
    async with db.connection() as conn:
        cur = await conn.execute(
            # One key probe per channel, the status checked above it (see actions.mentions).
            "SELECT c.id AS channel_id, GREATEST(m.slowmode_last_send_date, m.joined_at) AS active_at"
            " FROM unnest(%s::bigint[]) AS c(id) CROSS JOIN LATERAL (SELECT status, slowmode_last_send_date,"
            "   joined_at FROM channel_members WHERE channel_id = c.id AND user_id = %s LIMIT 1) m"
            " WHERE m.status = 'active' ORDER BY active_at ASC, channel_id LIMIT %s",
            (ids, user_id, INACTIVE_MAX),
        )
        order = [(r["channel_id"], r["active_at"]) for r in await cur.fetchall()]
        cur = await conn.execute(
            f"SELECT {CHANNEL_COLUMNS} FROM channels WHERE id = ANY(%s) AND NOT deleted",
            ([c for c, _ in order],),
        )
        by_id = {r["id"]: r for r in await cur.fetchall()}
    return [(by_id[c], d) for c, d in order if c in by_id]
