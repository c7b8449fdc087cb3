"""Invite links and join requests.

An import locks its invite row (``SELECT ... FOR UPDATE``) and checks and counts the use
in that one transaction, so concurrent imports of a link with a usage limit never admit
more users than the limit. The membership itself is then activated by the channel
core (``membership.activate_members``: member row, service message, pts); if that fails the use
is given back.

Error codes are the ones TDesktop branches on: ``INVITE_HASH_INVALID`` (unknown link,
also for a banned user so a ban is not revealed), ``INVITE_HASH_EXPIRED`` (expired or
revoked), ``USERS_TOO_MUCH`` (usage limit reached), ``INVITE_REQUEST_SENT`` (a request-
needed link: a pending join request was recorded), ``USER_ALREADY_PARTICIPANT``.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass, field

from message_core import db, limits
from message_core.clock import now
from tl.errors import (
    ExpireDateInvalidError,
    InviteHashEmptyError,
    InviteHashExpiredError,
    InviteHashInvalidError,
    InviteRequestSentError,
    InviteRevokedMissingError,
    RpcError,
    UsageLimitInvalidError,
)

from .. import notify
from ..domain import ChannelChange
from ..errors import (
    ChannelsTooMuchError,
    LimitInvalidError,
    UserAlreadyParticipantError,
    UserKickedError,
    UsersTooMuchError,
)
from ..join_settings import get_join_settings
from ..rights import has_admin_right
from . import admin_log
from .admin import admin_ids, load_for_actor, require_right
from .common import is_active, load_channel, load_member
from .membership import activate_members, search_user_ids

INVITE_COLUMNS = (
    "channel_id, id, hash, admin_user_id, title, permanent, revoked, request_needed, expire_date,"
    " usage_limit, usage_count, requested_count, date"
)
USAGE_LIMIT_MAX = 99999
TITLE_MAX = 32
PAGE_MAX = 100
HIDE_ALL_PAGE = 1000
DELETE_REVOKED_PAGE = 1000
RECENT_REQUESTERS = 3
COUNT_CAP = 10000
_HASH_RE = re.compile(r"[A-Za-z0-9_-]{1,32}")


class HideRequesterMissingError(RpcError):
    def __init__(self):
        super().__init__(400, "HIDE_REQUESTER_MISSING")


class ChatInvitePermanentError(RpcError):
    def __init__(self):
        super().__init__(400, "CHAT_INVITE_PERMANENT")


def hash_of(link: str) -> str:
    """The hash of ``https://t.me/+HASH``, ``t.me/joinchat/HASH``, ``+HASH`` or ``HASH``."""
    link = (link or "").strip().rstrip("/")
    tail = link.rsplit("/", 1)[-1]
    return tail[1:] if tail.startswith("+") else tail


def _valid_hash(h: str) -> bool:
    return bool(_HASH_RE.fullmatch(h))


@dataclass(slots=True)
class InviteCheck:
    """checkChatInvite: ``already`` (a member: the channel) or ``invite`` (a preview)."""

    kind: str
    channel: dict
    member: dict | None
    invite: dict
    participant_ids: list[int] = field(default_factory=list)


# ---- storage helpers ----


async def _insert_invite(conn, channel_id: int, admin_user_id: int, **f) -> dict:
    await conn.execute("SELECT 1 FROM channels WHERE id = %s FOR UPDATE", (channel_id,))
    cur = await conn.execute(
        "SELECT COALESCE(max(id), 0) + 1 AS n FROM channel_invites WHERE channel_id = %s", (channel_id,)
    )
    invite_id = (await cur.fetchone())["n"]
    for _ in range(5):
        h = secrets.token_urlsafe(12)
        cur = await conn.execute(
            "INSERT INTO channel_invite_hashes (hash, channel_id, invite_id) VALUES (%s, %s, %s)"
            " ON CONFLICT DO NOTHING RETURNING hash",
            (h, channel_id, invite_id),
        )
        if await cur.fetchone():
            break
    else:  # pragma: no cover - 96 random bits colliding five times
        raise RuntimeError("could not allocate an invite hash")
    row = {
        "channel_id": channel_id, "id": invite_id, "hash": h, "admin_user_id": admin_user_id,
        "title": f.get("title", ""), "permanent": f.get("permanent", False), "revoked": False,
        "request_needed": f.get("request_needed", False), "expire_date": f.get("expire_date", 0),
        "usage_limit": f.get("usage_limit", 0), "usage_count": 0, "requested_count": 0, "date": now(),
    }  # fmt: skip
    cols = [c.strip() for c in INVITE_COLUMNS.split(",")]
    await conn.execute(
        f"INSERT INTO channel_invites ({', '.join(cols)}) VALUES ({', '.join(['%s'] * len(cols))})",
        [row[c] for c in cols],
    )
    return row


async def _load_invite(conn, channel_id: int, invite_id: int, *, lock: bool = False) -> dict | None:
    cur = await conn.execute(
        f"SELECT {INVITE_COLUMNS} FROM channel_invites WHERE channel_id = %s AND id = %s"
        + (" FOR UPDATE" if lock else ""),
        (channel_id, invite_id),
    )
    return await cur.fetchone()


async def _by_hash(conn, h: str) -> dict | None:
    if not _valid_hash(h):
        return None
    cur = await conn.execute("SELECT channel_id, invite_id FROM channel_invite_hashes WHERE hash = %s", (h,))
    ref = await cur.fetchone()
    if ref is None:
        return None
    return await _load_invite(conn, ref["channel_id"], ref["invite_id"])


async def _invite_in_channel(conn, channel_id: int, link: str) -> dict:
    inv = await _by_hash(conn, hash_of(link))
    if inv is None or inv["channel_id"] != channel_id:
        raise InviteHashInvalidError()
    return inv


def _expired(inv: dict, t: int) -> bool:
    return inv["revoked"] or (inv["expire_date"] and inv["expire_date"] <= t)


def _validate(
    expire_date: int | None, usage_limit: int | None, title: str | None, request_needed: bool
) -> None:
    if expire_date and expire_date <= now():
        raise ExpireDateInvalidError()
    if usage_limit is not None and not 0 <= usage_limit <= USAGE_LIMIT_MAX:
        raise UsageLimitInvalidError()
    if request_needed and usage_limit:
        raise UsageLimitInvalidError()  # a request-needed link admits through admins, not by count


def _can_manage_other(actor_user_id: int | None, member: dict | None) -> bool:
    return actor_user_id is None or has_admin_right(member, "add_admins")


def _require_owner_or_manager(actor_user_id: int | None, member: dict | None, inv: dict) -> None:
    if (
        actor_user_id is not None
        and inv["admin_user_id"] != actor_user_id
        and not _can_manage_other(actor_user_id, member)
    ):
        raise InviteHashInvalidError()


# ---- export / check / import ----


async def get_permanent_invite(channel_id: int, admin_user_id: int, *, create: bool = True) -> dict | None:
    """The admin's current permanent link (made on first use): channelFull.exported_invite."""
    async with db.connection() as conn:
        cur = await conn.execute(
            f"SELECT {INVITE_COLUMNS} FROM channel_invites WHERE channel_id = %s AND admin_user_id = %s"
            " AND permanent AND NOT revoked ORDER BY id DESC LIMIT 1",
            (channel_id, admin_user_id),
        )
        inv = await cur.fetchone()
        if inv is not None or not create:
            return inv
        async with conn.transaction():
            return await _insert_invite(conn, channel_id, admin_user_id, permanent=True)


async def do_export_invite(
    actor_user_id: int | None,
    channel_id: int,
    *,
    expire_date: int | None = None,
    usage_limit: int | None = None,
    request_needed: bool = False,
    title: str | None = None,
    legacy_revoke_permanent: bool = False,
) -> dict:
    """messages.exportChatInvite: invite_users. ``legacy_revoke_permanent`` replaces the
    actor's permanent link; otherwise a new additional link is made."""
    _channel, member = await load_for_actor(channel_id, actor_user_id)
    require_right(actor_user_id, member, "invite_users")
    _validate(expire_date, usage_limit, title, request_needed)
    owner = admin_log.actor_id(actor_user_id)
    async with db.connection() as conn, conn.transaction():
        if legacy_revoke_permanent:
            cur = await conn.execute(
                f"UPDATE channel_invites SET revoked = true WHERE channel_id = %s AND admin_user_id = %s"
                f" AND permanent AND NOT revoked RETURNING {INVITE_COLUMNS}",
                (channel_id, owner),
            )
            for old in await cur.fetchall():
                await admin_log.record(conn, channel_id, actor_user_id, "invite_revoke", data={"invite": old})
            return await _insert_invite(conn, channel_id, owner, permanent=True)
        return await _insert_invite(
            conn, channel_id, owner, title=(title or "")[:TITLE_MAX], request_needed=bool(request_needed),
            expire_date=expire_date or 0, usage_limit=usage_limit or 0,
        )  # fmt: skip


async def check_invite(viewer_id: int, link: str) -> InviteCheck:
    """messages.checkChatInvite."""
    h = hash_of(link)
    if not h:
        raise InviteHashEmptyError()
    async with db.connection() as conn:
        inv = await _by_hash(conn, h)
        if inv is None:
            raise InviteHashInvalidError()
        channel = await load_channel(conn, inv["channel_id"])
        member = await load_member(conn, inv["channel_id"], viewer_id)
        if channel is None or channel["deleted"]:
            raise InviteHashInvalidError()
        if is_active(member):
            return InviteCheck("already", channel, member, inv)
        if member is not None and member["status"] in ("kicked", "banned"):
            raise InviteHashInvalidError()
        if _expired(inv, now()):
            raise InviteHashExpiredError()
        participants: list[int] = []
        if channel["megagroup"] and not channel["participants_hidden"]:
            cur = await conn.execute(
                "SELECT user_id FROM channel_members WHERE channel_id = %s AND status = 'active'"
                " ORDER BY joined_at DESC, user_id LIMIT 10",
                (channel["id"],),
            )
            participants = [r["user_id"] for r in await cur.fetchall()]
    return InviteCheck("invite", channel, member, inv, participants)


async def do_import_invite(user_id: int, link: str) -> ChannelChange:
    """messages.importChatInvite: join through a link, or leave a join request."""
    h = hash_of(link)
    if not h:
        raise InviteHashEmptyError()
    async with db.connection() as conn:
        inv = await _by_hash(conn, h)
        if inv is None:
            raise InviteHashInvalidError()
        channel_id = inv["channel_id"]
        channel = await load_channel(conn, channel_id)
        member = await load_member(conn, channel_id, user_id)
        if channel is None or channel["deleted"]:
            raise InviteHashInvalidError()
        if is_active(member):
            raise UserAlreadyParticipantError()
        if member is not None and member["status"] in ("kicked", "banned"):
            raise InviteHashInvalidError()
        cur = await conn.execute(
            "SELECT count(*) AS n FROM user_channel_member_index WHERE user_id = %s AND status = 'active'",
            (user_id,),
        )
        if (await cur.fetchone())["n"] >= limits.CHANNELS_PER_USER_MAX:
            raise ChannelsTooMuchError()
        date = now()
        async with conn.transaction():
            locked = await _load_invite(conn, channel_id, inv["id"], lock=True)
            if _expired(locked, date):
                raise InviteHashExpiredError()
            requested = locked["request_needed"]
            if not requested and locked["usage_limit"] and locked["usage_count"] >= locked["usage_limit"]:
                raise UsersTooMuchError()
            if requested:
                await _record_request(conn, channel_id, user_id, locked["id"], date)
            else:
                await conn.execute(
                    "UPDATE channel_invites SET usage_count = usage_count + 1 WHERE channel_id = %s AND id = %s",
                    (channel_id, locked["id"]),
                )
                await conn.execute(
                    "INSERT INTO channel_invite_importers (channel_id, user_id, invite_id, requested, date)"
                    " VALUES (%s, %s, %s, false, %s) ON CONFLICT (channel_id, user_id) DO UPDATE SET"
                    " invite_id = EXCLUDED.invite_id, requested = false, date = EXCLUDED.date, approved_by = 0",
                    (channel_id, user_id, locked["id"], date),
                )
    if requested:
        await publish_pending(channel_id, {"user_id": user_id, "date": date, "invite_id": locked["id"]})
        raise InviteRequestSentError()
    try:
        change = await activate_members(
            channel, [user_id], inviter=locked["admin_user_id"], actor_id=user_id, join=True, log=False
        )
    except BaseException:
        async with db.connection() as conn, conn.transaction():
            await conn.execute(
                "UPDATE channel_invites SET usage_count = GREATEST(0, usage_count - 1) WHERE channel_id = %s AND id = %s",
                (channel_id, locked["id"]),
            )
            await conn.execute(
                "DELETE FROM channel_invite_importers WHERE channel_id = %s AND user_id = %s AND NOT requested",
                (channel_id, user_id),
            )
        raise
    locked["usage_count"] += 1
    await admin_log.log_event(
        channel_id, user_id, "participant_join_by_invite", target_user_id=user_id, data={"invite": locked}
    )
    return change


async def _record_request(conn, channel_id: int, user_id: int, invite_id: int, date: int) -> None:
    cur = await conn.execute(
        "SELECT requested, invite_id FROM channel_invite_importers WHERE channel_id = %s AND user_id = %s FOR UPDATE",
        (channel_id, user_id),
    )
    old = await cur.fetchone()
    await conn.execute(
        "INSERT INTO channel_invite_importers (channel_id, user_id, invite_id, requested, date)"
        " VALUES (%s, %s, %s, true, %s) ON CONFLICT (channel_id, user_id) DO UPDATE SET"
        " invite_id = EXCLUDED.invite_id, requested = true, date = EXCLUDED.date, approved_by = 0",
        (channel_id, user_id, invite_id, date),
    )
    if old is not None and old["requested"] and old["invite_id"]:
        await conn.execute(
            "UPDATE channel_invites SET requested_count = GREATEST(0, requested_count - 1)"
            " WHERE channel_id = %s AND id = %s",
            (channel_id, old["invite_id"]),
        )
    if invite_id:
        await conn.execute(
            "UPDATE channel_invites SET requested_count = requested_count + 1 WHERE channel_id = %s AND id = %s",
            (channel_id, invite_id),
        )


async def request_join_if_needed(channel: dict, user_id: int) -> None:
    """Hook for channels.joinChannel: with join requests on (a public megagroup), the join
    becomes a pending request (invite 0) and INVITE_REQUEST_SENT is raised; otherwise
    this returns and the join goes on."""
    settings = (await get_join_settings([channel["id"]])).get(channel["id"])
    if not settings or not settings["join_request"]:
        return
    date = now()
    async with db.connection() as conn, conn.transaction():
        await _record_request(conn, channel["id"], user_id, 0, date)
    await publish_pending(channel["id"], {"user_id": user_id, "date": date, "invite_id": 0})
    raise InviteRequestSentError()


# ---- management ----


async def list_invites(
    actor_user_id: int | None,
    channel_id: int,
    admin_user_id: int,
    *,
    revoked: bool = False,
    offset_date: int = 0,
    offset_link: str = "",
    limit: int = 50,
) -> tuple[int, list[dict]]:
    """messages.getExportedChatInvites: (count, page), newest first, seek on (date, hash)."""
    if limit < 0:
        raise LimitInvalidError()
    limit = min(limit or PAGE_MAX, PAGE_MAX)
    _channel, member = await load_for_actor(channel_id, actor_user_id)
    require_right(actor_user_id, member, "invite_users")
    if admin_user_id != admin_log.actor_id(actor_user_id) and not _can_manage_other(actor_user_id, member):
        from ..errors import ChatAdminRequiredError

        raise ChatAdminRequiredError()
    where = "channel_id = %(c)s AND admin_user_id = %(a)s AND revoked = %(r)s"
    params = {"c": channel_id, "a": admin_user_id, "r": bool(revoked), "lim": limit}
    async with db.connection() as conn:
        cur = await conn.execute(
            f"SELECT count(*) AS n FROM (SELECT 1 FROM channel_invites WHERE {where} LIMIT {COUNT_CAP}) s",
            params,
        )
        count = (await cur.fetchone())["n"]
        if offset_date:
            where += " AND (date, hash) < (%(od)s, %(oh)s)"
            params.update(od=offset_date, oh=hash_of(offset_link))
        cur = await conn.execute(
            f"SELECT {INVITE_COLUMNS} FROM channel_invites WHERE {where} ORDER BY date DESC, hash DESC LIMIT %(lim)s",
            params,
        )
        return count, await cur.fetchall()


async def get_invite(actor_user_id: int | None, channel_id: int, link: str) -> dict:
    """messages.getExportedChatInvite (also for revoked links)."""
    _channel, member = await load_for_actor(channel_id, actor_user_id)
    require_right(actor_user_id, member, "invite_users")
    async with db.connection() as conn:
        inv = await _invite_in_channel(conn, channel_id, link)
    _require_owner_or_manager(actor_user_id, member, inv)
    return inv


async def do_edit_invite(
    actor_user_id: int | None,
    channel_id: int,
    link: str,
    *,
    revoked: bool = False,
    expire_date: int | None = None,
    usage_limit: int | None = None,
    request_needed: bool | None = None,
    title: str | None = None,
) -> tuple[dict, dict | None]:
    """messages.editExportedChatInvite: (the invite after the edit, the replacement
    permanent link when a permanent one was revoked)."""
    _channel, member = await load_for_actor(channel_id, actor_user_id)
    require_right(actor_user_id, member, "invite_users")
    async with db.connection() as conn, conn.transaction():
        inv = await _invite_in_channel(conn, channel_id, link)
        _require_owner_or_manager(actor_user_id, member, inv)
        inv = await _load_invite(conn, channel_id, inv["id"], lock=True)
        if revoked:
            if inv["revoked"]:
                raise InviteHashExpiredError()
            await conn.execute(
                "UPDATE channel_invites SET revoked = true WHERE channel_id = %s AND id = %s",
                (channel_id, inv["id"]),
            )
            new = {**inv, "revoked": True}
            await admin_log.record(conn, channel_id, actor_user_id, "invite_revoke", data={"invite": new})
            replacement = None
            if inv["permanent"]:
                replacement = await _insert_invite(conn, channel_id, inv["admin_user_id"], permanent=True)
            return new, replacement
        if inv["revoked"]:
            raise InviteHashExpiredError()
        new = dict(inv)
        if expire_date is not None:
            if expire_date and expire_date <= now():
                raise ExpireDateInvalidError()
            new["expire_date"] = expire_date
        if usage_limit is not None:
            if not 0 <= usage_limit <= USAGE_LIMIT_MAX:
                raise UsageLimitInvalidError()
            new["usage_limit"] = usage_limit
        if request_needed is not None:
            new["request_needed"] = bool(request_needed)
            if request_needed:
                new["usage_limit"] = 0
        if title is not None:
            new["title"] = title[:TITLE_MAX]
        if new["request_needed"] and new["usage_limit"]:
            raise UsageLimitInvalidError()
        await conn.execute(
            "UPDATE channel_invites SET expire_date = %s, usage_limit = %s, request_needed = %s, title = %s"
            " WHERE channel_id = %s AND id = %s",
            (
                new["expire_date"],
                new["usage_limit"],
                new["request_needed"],
                new["title"],
                channel_id,
                inv["id"],
            ),
        )
        await admin_log.record(
            conn, channel_id, actor_user_id, "invite_edit", data={"prev_invite": inv, "new_invite": new}
        )
        return new, None


async def do_delete_invite(actor_user_id: int | None, channel_id: int, link: str) -> None:
    """messages.deleteExportedChatInvite: a live permanent link cannot be deleted."""
    _channel, member = await load_for_actor(channel_id, actor_user_id)
    require_right(actor_user_id, member, "invite_users")
    async with db.connection() as conn, conn.transaction():
        inv = await _invite_in_channel(conn, channel_id, link)
        _require_owner_or_manager(actor_user_id, member, inv)
        if inv["permanent"] and not inv["revoked"]:
            raise ChatInvitePermanentError()
        await _delete_rows(conn, channel_id, [inv])
        await admin_log.record(conn, channel_id, actor_user_id, "invite_delete", data={"invite": inv})


async def _delete_rows(conn, channel_id: int, invites: list[dict]) -> None:
    ids = [i["id"] for i in invites]
    await conn.execute(
        "DELETE FROM channel_invites WHERE channel_id = %s AND id = ANY(%s)", (channel_id, ids)
    )
    await conn.execute(
        "DELETE FROM channel_invite_hashes WHERE hash = ANY(%s)", ([i["hash"] for i in invites],)
    )


async def do_delete_revoked_invites(actor_user_id: int | None, channel_id: int, admin_user_id: int) -> int:
    """messages.deleteRevokedExportedChatInvites: up to 1000 per call; returns how many."""
    _channel, member = await load_for_actor(channel_id, actor_user_id)
    require_right(actor_user_id, member, "invite_users")
    if admin_user_id != admin_log.actor_id(actor_user_id) and not _can_manage_other(actor_user_id, member):
        raise InviteRevokedMissingError()
    async with db.connection() as conn, conn.transaction():
        cur = await conn.execute(
            f"SELECT {INVITE_COLUMNS} FROM channel_invites WHERE channel_id = %s AND admin_user_id = %s AND revoked"
            " ORDER BY id LIMIT %s",
            (channel_id, admin_user_id, DELETE_REVOKED_PAGE),
        )
        rows = await cur.fetchall()
        if rows:
            await _delete_rows(conn, channel_id, rows)
            for inv in rows:
                await admin_log.record(conn, channel_id, actor_user_id, "invite_delete", data={"invite": inv})
    return len(rows)


async def admins_with_invites(actor_user_id: int | None, channel_id: int) -> list[dict]:
    """messages.getAdminsWithInvites: per admin, live and revoked link counts (cap 100)."""
    _channel, member = await load_for_actor(channel_id, actor_user_id)
    require_right(actor_user_id, member, "invite_users")
    if not _can_manage_other(actor_user_id, member):
        from ..errors import ChatAdminRequiredError

        raise ChatAdminRequiredError()
    async with db.connection() as conn:
        cur = await conn.execute(
            "SELECT admin_user_id, count(*) FILTER (WHERE NOT revoked) AS invites_count,"
            " count(*) FILTER (WHERE revoked) AS revoked_invites_count FROM channel_invites"
            " WHERE channel_id = %s GROUP BY admin_user_id ORDER BY admin_user_id LIMIT %s",
            (channel_id, PAGE_MAX),
        )
        return await cur.fetchall()


async def list_importers(
    actor_user_id: int | None,
    channel_id: int,
    *,
    requested: bool = False,
    link: str | None = None,
    q: str = "",
    offset_date: int = 0,
    offset_user_id: int = 0,
    limit: int = 50,
) -> tuple[int, list[dict]]:
    """messages.getChatInviteImporters: joiners (or pending requesters), newest first,
    seek on (date, user_id); limit cap 100; ``q`` matches bounded user candidates."""
    if limit < 0:
        raise LimitInvalidError()
    limit = min(limit or PAGE_MAX, PAGE_MAX)
    _channel, member = await load_for_actor(channel_id, actor_user_id)
    require_right(actor_user_id, member, "invite_users")
    where = "channel_id = %(c)s AND requested = %(r)s"
    params: dict = {"c": channel_id, "r": bool(requested), "lim": limit}
    async with db.connection() as conn:
        if link:
            inv = await _invite_in_channel(conn, channel_id, link)
            where += " AND invite_id = %(i)s"
            params["i"] = inv["id"]
        q = (q or "").strip()[: limits.PARTICIPANTS_Q_MAX]
        if q:
            ids = await search_user_ids(q)
            if not ids:
                return 0, []
            where += " AND user_id = ANY(%(ids)s)"
            params["ids"] = ids
        cur = await conn.execute(
            f"SELECT count(*) AS n FROM (SELECT 1 FROM channel_invite_importers WHERE {where} LIMIT {COUNT_CAP}) s",
            params,
        )
        count = (await cur.fetchone())["n"]
        if offset_date or offset_user_id:
            where += " AND (date, user_id) < (%(od)s, %(ou)s)"
            params.update(od=offset_date or 2**31 - 1, ou=offset_user_id)
        cur = await conn.execute(
            "SELECT channel_id, user_id, invite_id, requested, date, about, approved_by FROM channel_invite_importers"
            f" WHERE {where} ORDER BY date DESC, user_id DESC LIMIT %(lim)s",
            params,
        )
        return count, await cur.fetchall()


async def do_hide_join_request(
    actor_user_id: int | None, channel_id: int, user_id: int, *, approved: bool
) -> ChannelChange | None:
    """messages.hideChatJoinRequest: approve (the user joins) or dismiss a request."""
    channel, member = await load_for_actor(channel_id, actor_user_id)
    require_right(actor_user_id, member, "invite_users")
    async with db.connection() as conn, conn.transaction():
        cur = await conn.execute(
            "SELECT invite_id FROM channel_invite_importers WHERE channel_id = %s AND user_id = %s AND requested"
            " FOR UPDATE",
            (channel_id, user_id),
        )
        row = await cur.fetchone()
        if row is None:
            raise HideRequesterMissingError()
        target = await load_member(conn, channel_id, user_id)
        if approved and target is not None and target["status"] in ("kicked", "banned"):
            raise UserKickedError()
        invite = (
            await _load_invite(conn, channel_id, row["invite_id"], lock=True) if row["invite_id"] else None
        )
        if invite is not None:
            await conn.execute(
                "UPDATE channel_invites SET requested_count = GREATEST(0, requested_count - 1),"
                " usage_count = usage_count + %s WHERE channel_id = %s AND id = %s",
                (1 if approved else 0, channel_id, invite["id"]),
            )
        if approved:
            await conn.execute(
                "UPDATE channel_invite_importers SET requested = false, approved_by = %s, date = %s"
                " WHERE channel_id = %s AND user_id = %s",
                (admin_log.actor_id(actor_user_id), now(), channel_id, user_id),
            )
        else:
            await conn.execute(
                "DELETE FROM channel_invite_importers WHERE channel_id = %s AND user_id = %s",
                (channel_id, user_id),
            )
    change = None
    if approved and not is_active(target):
        inviter = invite["admin_user_id"] if invite else admin_log.actor_id(actor_user_id)
        change = await activate_members(
            channel, [user_id], inviter=inviter, actor_id=user_id, join=True, log=False
        )
        await admin_log.log_event(
            channel_id, user_id, "participant_join_by_request", target_user_id=user_id,
            data={"invite": invite, "approved_by": admin_log.actor_id(actor_user_id)},
        )  # fmt: skip
    await publish_pending(channel_id)
    return change


async def do_hide_all_join_requests(
    actor_user_id: int | None, channel_id: int, *, approved: bool, link: str | None = None
) -> list[ChannelChange]:
    """messages.hideAllChatJoinRequests: at most 1000 requests per call."""
    _channel, member = await load_for_actor(channel_id, actor_user_id)
    require_right(actor_user_id, member, "invite_users")
    where, params = "channel_id = %s AND requested", [channel_id]
    async with db.connection() as conn:
        if link:
            inv = await _invite_in_channel(conn, channel_id, link)
            where += " AND invite_id = %s"
            params.append(inv["id"])
        cur = await conn.execute(
            f"SELECT user_id FROM channel_invite_importers WHERE {where} ORDER BY date, user_id LIMIT %s",
            (*params, HIDE_ALL_PAGE),
        )
        ids = [r["user_id"] for r in await cur.fetchall()]
    changes = []
    for uid in ids:
        try:
            change = await do_hide_join_request(actor_user_id, channel_id, uid, approved=approved)
        except (HideRequesterMissingError, UserKickedError):
            continue
        if change is not None:
            changes.append(change)
    return changes


async def pending_requests(channel_id: int) -> tuple[int, list[int]]:
    """(requests_pending, recent_requesters) for channelFull and updatePendingJoinRequests."""
    async with db.connection() as conn:
        cur = await conn.execute(
            f"SELECT count(*) AS n FROM (SELECT 1 FROM channel_invite_importers WHERE channel_id = %s AND requested"
            f" LIMIT {COUNT_CAP}) s",
            (channel_id,),
        )
        n = (await cur.fetchone())["n"]
        if not n:
            return 0, []
        cur = await conn.execute(
            "SELECT user_id FROM channel_invite_importers WHERE channel_id = %s AND requested"
            " ORDER BY date DESC, user_id DESC LIMIT %s",
            (channel_id, RECENT_REQUESTERS),
        )
        return n, [r["user_id"] for r in await cur.fetchall()]


async def full_channel_extras(viewer_id: int, channel: dict, member: dict | None) -> dict:
    """What channels.getFullChannel adds for an admin who may invite: the permanent
    link (exported_invite) and the pending join requests. Empty for everyone else."""
    if not has_admin_right(member, "invite_users") or channel["deleted"]:
        return {}
    invite = await get_permanent_invite(channel["id"], viewer_id)
    pending, recent = await pending_requests(channel["id"])
    return {"exported_invite": invite, "requests_pending": pending, "recent_requesters": recent}


async def publish_pending(channel_id: int, request: dict | None = None) -> None:
    """updatePendingJoinRequests to the channel's admins who may approve (bounded).
    ``request``: the new request that changed the list (user_id, date, invite_id), for
    listeners that tell of each (the Bot API's chat_join_request)."""
    recipients = await admin_ids(channel_id, "invite_users")
    payload = {"channel_id": channel_id, "user_ids": recipients}
    if request:
        payload["request"] = request
    await notify.publish("channel_admin.pending", payload)
