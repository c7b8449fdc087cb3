"""Membership writes several actions share: activating members (invite, join, an
approved request) with their service message and admin-log entries, and the user
search that participant filters use."""

from __future__ import annotations

from message_core import db
from message_core.clock import now

from .. import notify
from ..domain import ChannelChange
from . import admin_log
from .common import insert_service_message, load_channel, with_pts


async def upsert_members(
    conn,
    channel: dict,
    user_ids: list[int],
    *,
    inviter: int,
    date: int,
    read_inbox: dict[int, int] | int,
    available_min_id: int,
    available_min_pts: int,
    role: str = "member",
    admin_rights: int = 0,
) -> None:
    """Activate ``user_ids`` (new or returning): member row, user index, dialog row."""
    if not user_ids:
        return
    reads = [read_inbox[u] if isinstance(read_inbox, dict) else read_inbox for u in user_ids]
    await conn.execute(
        "INSERT INTO channel_members (channel_id, user_id, inviter_user_id, role, status, joined_at, admin_rights,"
        " available_min_id, available_min_pts, read_inbox_max_id, read_inbox_date)"
        " SELECT %(c)s, u.user_id, %(inv)s, %(role)s, 'active', %(d)s, %(ar)s, %(amin)s, %(apts)s, u.read_id, 0"
        " FROM unnest(%(u)s::bigint[], %(r)s::int[]) AS u(user_id, read_id)"
        " ON CONFLICT (channel_id, user_id) DO UPDATE SET status = 'active', role = EXCLUDED.role,"
        " inviter_user_id = EXCLUDED.inviter_user_id, joined_at = EXCLUDED.joined_at, left_at = 0,"
        " admin_rights = EXCLUDED.admin_rights, banned_rights = 0, banned_until = 0, kicked_by = 0,"
        " available_min_id = EXCLUDED.available_min_id, available_min_pts = EXCLUDED.available_min_pts,"
        " read_inbox_max_id = EXCLUDED.read_inbox_max_id",
        {
            "c": channel["id"],
            "inv": inviter,
            "role": role,
            "d": date,
            "ar": admin_rights,
            "amin": available_min_id,
            "apts": available_min_pts,
            "u": user_ids,
            "r": reads,
        },
    )
    await conn.execute(
        "INSERT INTO user_channel_member_index (user_id, channel_id, status, megagroup, broadcast, deleted, joined_at)"
        " SELECT u, %(c)s, 'active', %(mg)s, %(bc)s, false, %(d)s FROM unnest(%(u)s::bigint[]) AS u"
        " ON CONFLICT (user_id, channel_id) DO UPDATE SET status = 'active', joined_at = EXCLUDED.joined_at",
        {
            "c": channel["id"],
            "mg": channel["megagroup"],
            "bc": channel["broadcast"],
            "d": date,
            "u": user_ids,
        },
    )
    await conn.execute(
        "INSERT INTO channel_dialogs (user_id, channel_id, top_message_id, top_message_date, read_inbox_max_id,"
        " notify_settings) SELECT u.user_id, %(c)s, %(top)s, %(topd)s, u.read_id, '{}'"
        " FROM unnest(%(u)s::bigint[], %(r)s::int[]) AS u(user_id, read_id)"
        " ON CONFLICT (user_id, channel_id) DO UPDATE SET read_inbox_max_id = EXCLUDED.read_inbox_max_id,"
        " unread_mark = false",
        {
            "c": channel["id"],
            "top": channel["top_message_id"],
            "topd": channel["top_message_date"],
            "u": user_ids,
            "r": reads,
        },
    )


async def activate_members(
    channel: dict,
    add: list[int],
    *,
    inviter: int,
    actor_id: int,
    join: bool,
    restored_kicked: int = 0,
    log: bool = True,
) -> ChannelChange:
    """Make ``add`` active members; a megagroup gets a visible service message (pts).
    ``log=False``: the caller writes its own admin-log entry (joins by invite link)."""
    date = now()
    channel_id = channel["id"]

    async def body(conn, msg_id, pts):
        locked = await load_channel(conn, channel_id, lock=True)
        top_before = locked["top_message_id"]
        amin = top_before if locked["pre_history_hidden"] else 0
        # A joiner has read their own join message; an invitee has it as their one unread.
        reads = {u: (msg_id if (join and msg_id) else top_before) for u in add}
        await upsert_members(
            conn, locked, add, inviter=inviter, date=date, read_inbox=reads,
            available_min_id=amin, available_min_pts=locked["pts"],
        )  # fmt: skip
        await conn.execute(
            "UPDATE channels SET participants_count = participants_count + %s,"
            " kicked_count = GREATEST(0, kicked_count - %s) WHERE id = %s",
            (len(add), restored_kicked, channel_id),
        )
        if log and join:
            await admin_log.record(
                conn, channel_id, actor_id, "participant_join", target_user_id=actor_id, date=date
            )
        elif log:
            for u in add:
                participant = {
                    "user_id": u,
                    "inviter_user_id": inviter,
                    "status": "active",
                    "joined_at": date,
                }
                await admin_log.record(
                    conn, channel_id, actor_id, "participant_invite", target_user_id=u,
                    data={"participant": participant}, date=date,
                )  # fmt: skip
        event = None
        if msg_id is not None:
            action = {"_": "chatAddUser", "users": add}
            event = await insert_service_message(conn, locked, msg_id, pts, actor_id, action, date)
            if join:
                await conn.execute(
                    "UPDATE channel_dialogs SET top_message_id = %s, top_message_date = %s"
                    " WHERE user_id = %s AND channel_id = %s",
                    (msg_id, date, actor_id, channel_id),
                )
        return event

    if channel["megagroup"]:
        event = await with_pts(channel_id, 1, body, message_ids=1)
    else:
        async with db.connection() as conn, conn.transaction():
            event = await body(conn, None, None)
    async with db.connection() as conn:
        fresh = await load_channel(conn, channel_id)
    change = ChannelChange(channel=fresh, events=[event] if event else [], user_ids={actor_id, *add})
    if event:
        await notify.publish(
            "channel.event", {"event": event.to_payload(), "extra_user_ids": add, "exclude_user_id": actor_id}
        )
    await notify.publish("channel.updated", {"channel_id": channel_id, "user_ids": sorted({actor_id, *add})})
    return change


async def search_user_ids(q: str) -> list[int] | None:
    """Bounded candidate user ids whose name or username contains ``q`` (accounts owns
    the user table; read through the ORM as this is not a hot path)."""
    try:
        from asgiref.sync import sync_to_async

        from accounts_app.models import User
    except ImportError:  # accounts not installed
        return None
    from django.db.models import Q

    fields = [f.name for f in User._meta.get_fields() if f.name in ("first_name", "last_name", "username")]
    if not fields:
        return None
    cond = Q()
    for f in fields:
        cond |= Q(**{f"{f}__icontains": q})

    def run():
        return list(User.objects.filter(cond).values_list("id", flat=True)[:1000])

    return await sync_to_async(run)()
