"""Channel settings: title, about, photo (stub), default rights, toggles, slow mode, pins.

Each returns the channel after the change (and, where a visible message or pin event
took a pts, a ``ChannelChange`` with that event). Settings are channel state, not pts
events: clients get ``updateChannel`` online and re-read the channel. Plain members
never change settings here; admins need the right the design names for each.
``actor_user_id`` None is the operator console.
"""

from __future__ import annotations

from media_app import actions as media_actions
from message_core import db, limits
from message_core.clock import now
from stickers_app import groups as sticker_groups
from tl.errors import (
    ChatAboutNotModifiedError,
    ChatNotModifiedError,
    ColorInvalidError,
    EmojiStatusInvalidError,
    RpcError,
    StarsAmountInvalidError,
    StickersetInvalidError,
)

from .. import notify
from ..domain import ChannelChange, ChannelEvent
from ..errors import (
    ChannelInvalidError,
    ChatAboutTooLongError,
    ChatTitleEmptyError,
    MessageIdInvalidError,
)
from ..join_settings import forget_join_flags, get_join_settings
from ..rights import BANNED_FLAGS
from . import admin_log
from .admin import load_for_actor, publish_channel_updated, require_creator, require_right
from .common import (
    MESSAGE_COLUMNS,
    insert_event,
    insert_service_message,
    jsonb,
    load_channel,
    message_snapshot,
    with_pts,
)

SLOWMODE_SECONDS = (0, 10, 30, 60, 300, 900, 3600)
# Accent colors clients offer (Telegram's app config lists the palette; ids stay small).
PEER_COLOR_MAX = 20
PAID_MESSAGE_STARS_MAX = 10_000  # TDesktop's default app config
BROADCAST_MESSAGES_OFF = -1  # updatePaidMessagesPrice on a broadcast: direct messages off
UNPIN_ALL_PAGE = 1000


class SecondsInvalidError(RpcError):
    def __init__(self):
        super().__init__(400, "SECONDS_INVALID")


async def _fresh(channel_id: int) -> dict:
    async with db.connection() as conn:
        return await load_channel(conn, channel_id)


async def _set_columns(
    channel_id: int,
    actor_user_id: int | None,
    values: dict,
    log_type: str | None,
    log_data: dict,
    query: str = "",
) -> dict:
    """UPDATE channels + the admin log entry in one transaction, then updateChannel."""
    sets = ", ".join(f"{k} = %({k})s" for k in values)
    async with db.connection() as conn, conn.transaction():
        await conn.execute(f"UPDATE channels SET {sets} WHERE id = %(id)s", {**values, "id": channel_id})
        if log_type:
            await admin_log.record(conn, channel_id, actor_user_id, log_type, data=log_data, query=query)
    await publish_channel_updated(channel_id, [admin_log.actor_id(actor_user_id)])
    return await _fresh(channel_id)


# ---- title / about / photo ----


async def do_edit_title(actor_user_id: int | None, channel_id: int, title: str) -> ChannelChange:
    """channels.editTitle: change_info; a visible chatEditTitle service message (pts)."""
    title = (title or "").strip()
    if not title:
        raise ChatTitleEmptyError()
    title = title[: limits.TITLE_MAX]
    channel, member = await load_for_actor(channel_id, actor_user_id)
    require_right(actor_user_id, member, "change_info")
    if title == channel["title"]:
        raise ChatNotModifiedError()
    date = now()

    async def body(conn, msg_id, pts):
        locked = await load_channel(conn, channel_id, lock=True)
        await conn.execute("UPDATE channels SET title = %s WHERE id = %s", (title, channel_id))
        await admin_log.record(
            conn, channel_id, actor_user_id, "change_title",
            data={"prev": locked["title"], "new": title}, query=f"{locked['title']} {title}", date=date,
        )  # fmt: skip
        locked["title"] = title
        sender = admin_log.actor_id(actor_user_id)  # 0 = the operator: the group's own message
        return await insert_service_message(
            conn, locked, msg_id, pts, sender, {"_": "chatEditTitle", "title": title}, date
        )

    event = await with_pts(channel_id, 1, body, message_ids=1)
    await notify.publish(
        "channel.event",
        {
            "event": event.to_payload(),
            "extra_user_ids": [],
            "exclude_user_id": admin_log.actor_id(actor_user_id),
        },
    )
    await publish_channel_updated(channel_id)
    return ChannelChange(
        channel=await _fresh(channel_id), events=[event], user_ids={event.message["sender_user_id"]}
    )


async def do_edit_about(actor_user_id: int | None, channel_id: int, about: str) -> dict:
    """messages.editChatAbout: change_info; no message, no pts."""
    about = about or ""
    if len(about) > limits.ABOUT_MAX:
        raise ChatAboutTooLongError()
    channel, member = await load_for_actor(channel_id, actor_user_id)
    require_right(actor_user_id, member, "change_info")
    if about == channel["about"]:
        raise ChatAboutNotModifiedError()
    return await _set_columns(
        channel_id, actor_user_id, {"about": about}, "change_about",
        {"prev": channel["about"], "new": about}, query=about,
    )  # fmt: skip


async def do_edit_photo(actor_user_id: int | None, channel_id: int, photo: dict | None) -> ChannelChange:
    """channels.editPhoto / messages.editChatPhoto: change_info; ``photo`` (a media_app
    photo) becomes the chat photo with a chatEditPhoto service message, ``None``
    removes it (chatDeletePhoto; removing no photo changes nothing)."""
    channel, member = await load_for_actor(channel_id, actor_user_id)
    require_right(actor_user_id, member, "change_info")
    if photo is None and not channel["photo"]:
        return ChannelChange(channel=channel, events=[], user_ids=set())
    date = now()
    action = {"_": "chatEditPhoto", "photo": photo} if photo else {"_": "chatDeletePhoto"}
    if photo:
        await media_actions.do_add_holders([("p", photo["id"])], "c", [channel_id])

    async def body(conn, msg_id, pts):
        locked = await load_channel(conn, channel_id, lock=True)
        await conn.execute("UPDATE channels SET photo = %s WHERE id = %s", (jsonb(photo), channel_id))
        await admin_log.record(
            conn, channel_id, actor_user_id, "change_photo",
            data={"prev": locked["photo"], "new": photo}, date=date,
        )  # fmt: skip
        locked["photo"] = photo
        sender = admin_log.actor_id(actor_user_id) or locked["creator_user_id"]
        return await insert_service_message(conn, locked, msg_id, pts, sender, action, date)

    event = await with_pts(channel_id, 1, body, message_ids=1)
    await notify.publish(
        "channel.event",
        {
            "event": event.to_payload(),
            "extra_user_ids": [],
            "exclude_user_id": admin_log.actor_id(actor_user_id),
        },
    )
    await publish_channel_updated(channel_id)
    return ChannelChange(
        channel=await _fresh(channel_id), events=[event], user_ids={event.message["sender_user_id"]}
    )


# ---- rights and toggles ----


async def do_edit_default_banned_rights(
    actor_user_id: int | None, channel_id: int, banned_rights: int
) -> dict:
    """messages.editChatDefaultBannedRights: megagroups only, ban_users. The send and
    invite paths read channels.default_banned_rights (rights.effective_banned)."""
    channel, member = await load_for_actor(channel_id, actor_user_id)
    if channel["broadcast"]:
        raise ChannelInvalidError()
    require_right(actor_user_id, member, "ban_users")
    # view_messages cannot be a default: it would ban everyone.
    banned_rights &= ~(1 << BANNED_FLAGS["view_messages"])
    if banned_rights == channel["default_banned_rights"]:
        raise ChatNotModifiedError()
    return await _set_columns(
        channel_id, actor_user_id, {"default_banned_rights": banned_rights}, "default_banned_rights",
        {"prev": channel["default_banned_rights"], "new": banned_rights},
    )  # fmt: skip


async def _toggle(
    actor_user_id: int | None,
    channel_id: int,
    column: str,
    enabled: bool,
    *,
    right: str | None,
    log_type: str | None,
    megagroup_only: bool = False,
    broadcast_only: bool = False,
) -> dict:
    channel, member = await load_for_actor(channel_id, actor_user_id)
    if (megagroup_only and not channel["megagroup"]) or (broadcast_only and not channel["broadcast"]):
        raise ChannelInvalidError()
    if right is None:
        require_creator(actor_user_id, member)
    else:
        require_right(actor_user_id, member, right)
    if bool(channel[column]) == bool(enabled):
        raise ChatNotModifiedError()
    return await _set_columns(
        channel_id, actor_user_id, {column: bool(enabled)}, log_type, {"new": bool(enabled)}
    )


async def do_toggle_signatures(actor_user_id: int | None, channel_id: int, enabled: bool) -> dict:
    return await _toggle(
        actor_user_id, channel_id, "signatures", enabled, right="change_info", log_type="toggle_signatures",
        broadcast_only=True,
    )  # fmt: skip


async def do_toggle_pre_history_hidden(actor_user_id: int | None, channel_id: int, enabled: bool) -> dict:
    """Creator only (the design). Later joiners get available_min_id = the top message
    at their join (the join path reads channels.pre_history_hidden)."""
    return await _toggle(
        actor_user_id, channel_id, "pre_history_hidden", enabled, right=None,
        log_type="toggle_prehistory_hidden", megagroup_only=True,
    )  # fmt: skip


async def do_toggle_participants_hidden(actor_user_id: int | None, channel_id: int, enabled: bool) -> dict:
    return await _toggle(
        actor_user_id, channel_id, "participants_hidden", enabled, right="ban_users", log_type=None,
        megagroup_only=True,
    )  # fmt: skip


async def do_toggle_noforwards(actor_user_id: int | None, channel_id: int, enabled: bool) -> dict:
    return await _toggle(
        actor_user_id, channel_id, "noforwards", enabled, right="change_info", log_type="toggle_noforwards"
    )


async def do_toggle_slow_mode(actor_user_id: int | None, channel_id: int, seconds: int) -> dict:
    """channels.toggleSlowMode: megagroups, change_info; only Telegram's steps. The send
    path answers SLOWMODE_WAIT_X from channel_members.slowmode_last_send_date."""
    if seconds not in SLOWMODE_SECONDS:
        raise SecondsInvalidError()
    channel, member = await load_for_actor(channel_id, actor_user_id)
    if not channel["megagroup"]:
        raise ChannelInvalidError()
    require_right(actor_user_id, member, "change_info")
    if seconds == channel["slowmode_seconds"]:
        raise ChatNotModifiedError()
    return await _set_columns(
        channel_id, actor_user_id, {"slowmode_seconds": seconds}, "toggle_slow_mode",
        {"prev": channel["slowmode_seconds"], "new": seconds},
    )  # fmt: skip


async def _set_join_setting(
    actor_user_id,
    channel_id: int,
    column: str,
    enabled: bool,
    *,
    need_public: bool,
    log: tuple[str, bool] | None = None,
) -> dict:
    """One switch of ``channel_join_settings`` (megagroups, ban_users); ``log`` is the
    admin-log (type, new value) the switch records, if it has one in TL."""
    channel, member = await load_for_actor(channel_id, actor_user_id)
    if not channel["megagroup"]:
        raise ChannelInvalidError()
    require_right(actor_user_id, member, "ban_users")
    if need_public and enabled and not channel["username"]:
        raise ChannelInvalidError()  # join requests of a private group go through request-needed links
    current = (await get_join_settings([channel_id])).get(channel_id) or {}
    if bool(current.get(column)) == bool(enabled):
        raise ChatNotModifiedError()
    async with db.connection() as conn, conn.transaction():
        await conn.execute(
            f"INSERT INTO channel_join_settings (channel_id, {column}) VALUES (%s, %s)"
            f" ON CONFLICT (channel_id) DO UPDATE SET {column} = EXCLUDED.{column}",
            (channel_id, bool(enabled)),
        )
        if log is not None:
            await admin_log.record(conn, channel_id, actor_user_id, log[0], data={"new": log[1]})
    forget_join_flags(channel_id)  # after the commit, so no reader caches the old value
    await publish_channel_updated(channel_id, [admin_log.actor_id(actor_user_id)])
    return await _fresh(channel_id)


async def do_toggle_join_to_send(actor_user_id: int | None, channel_id: int, enabled: bool) -> dict:
    """Members must join a (discussion) group before writing; the send path checks it."""
    return await _set_join_setting(actor_user_id, channel_id, "join_to_send", enabled, need_public=False)


async def do_toggle_join_request(actor_user_id: int | None, channel_id: int, enabled: bool) -> dict:
    """Public megagroups only: a joinChannel becomes a pending request (invites.py)."""
    return await _set_join_setting(
        actor_user_id, channel_id, "join_request", enabled, need_public=True,
        log=("toggle_invites", not enabled),
    )  # fmt: skip


async def do_toggle_antispam(actor_user_id: int | None, channel_id: int, enabled: bool) -> dict:
    """channels.toggleAntiSpam: megagroups, ban_users (the design: the switch and its
    admin-log entry only; no spam-deleting pipeline sits behind it)."""
    return await _set_join_setting(
        actor_user_id,
        channel_id,
        "antispam",
        enabled,
        need_public=False,
        log=("toggle_antispam", bool(enabled)),
    )


async def do_toggle_forum(
    actor_user_id: int | None, channel_id: int, enabled: bool, tabs: bool | None = None
) -> dict:
    """channels.toggleForum: megagroups, the creator only; ``tabs`` (topics shown as
    tabs) is stored with it. Logged when the forum flag itself changes (the topics
    live in ``actions.topics`` and survive turning the flag off)."""
    channel, member = await load_for_actor(channel_id, actor_user_id)
    if not channel["megagroup"]:
        raise ChannelInvalidError()
    require_creator(actor_user_id, member)
    tabs = bool(tabs) and bool(enabled)
    if bool(channel["forum"]) == bool(enabled) and bool(channel["forum_tabs"]) == tabs:
        raise ChatNotModifiedError()
    changed = bool(channel["forum"]) != bool(enabled)
    return await _set_columns(
        channel_id, actor_user_id, {"forum": bool(enabled), "forum_tabs": tabs},
        "toggle_forum" if changed else None, {"new": bool(enabled)},
    )  # fmt: skip


async def do_set_sticker_set(actor_user_id: int | None, channel_id: int, kind: str, ref) -> bool:
    """channels.setStickers ("stickers") / setEmojiStickers ("emojis"): megagroups, the
    change_info right; ``ref`` (a stickers_app SetRef) None clears it. Members see the
    set in channelFull. Returns whether it changed."""
    channel, member = await load_for_actor(channel_id, actor_user_id)
    if not channel["megagroup"]:
        raise ChannelInvalidError()
    require_right(actor_user_id, member, "change_info")
    if ref is not None and ref.special:
        raise StickersetInvalidError()
    changed = await sticker_groups.do_set_group_set(channel_id, kind, ref)
    if changed is None:
        return False
    prev, new = changed
    log_type = "change_emoji_sticker_set" if kind == "emojis" else "change_sticker_set"
    async with db.connection() as conn, conn.transaction():
        await admin_log.record(conn, channel_id, actor_user_id, log_type, data={"prev": prev, "new": new})
    return True


# ---- appearance and paid settings ----


async def do_update_color(
    actor_user_id: int | None,
    channel_id: int,
    *,
    for_profile: bool,
    color: int | None,
    background_emoji_id: int | None,
) -> dict:
    """channels.updateColor: the name color or the profile color, each with an optional
    background emoji; an explicit color 0 is kept (it is not "no color")."""
    channel, member = await load_for_actor(channel_id, actor_user_id)
    require_right(actor_user_id, member, "change_info")
    if color is not None and not 0 <= color <= PEER_COLOR_MAX:
        raise ColorInvalidError()
    keys = (
        ("profile_color", "profile_background_emoji_id")
        if for_profile
        else ("color", "color_background_emoji_id")
    )
    new = {keys[0]: color, keys[1]: background_emoji_id or None}
    if all(channel[k] == v for k, v in new.items()):
        raise ChatNotModifiedError()
    log_type = "change_profile_peer_color" if for_profile else "change_peer_color"
    return await _set_columns(
        channel_id, actor_user_id, new, log_type,
        {"prev": [channel[k] for k in keys], "new": [new[k] for k in keys]},
    )  # fmt: skip


async def do_update_emoji_status(
    actor_user_id: int | None, channel_id: int, document_id: int | None, until: int | None
) -> dict:
    """channels.updateEmojiStatus: a custom emoji (document id, optional expiry) or none."""
    channel, member = await load_for_actor(channel_id, actor_user_id)
    require_right(actor_user_id, member, "change_info")
    if document_id is not None and (document_id == 0 or (until is not None and until < 0)):
        raise EmojiStatusInvalidError()
    new = {"emoji_status_document_id": document_id, "emoji_status_until": until if document_id else None}
    if all(channel[k] == v for k, v in new.items()):
        raise ChatNotModifiedError()
    prev = [channel["emoji_status_document_id"], channel["emoji_status_until"]]
    return await _set_columns(
        channel_id, actor_user_id, new, "change_emoji_status", {"prev": prev, "new": list(new.values())}
    )


async def do_toggle_autotranslation(actor_user_id: int | None, channel_id: int, enabled: bool) -> dict:
    return await _toggle(
        actor_user_id, channel_id, "autotranslation", enabled, right="change_info",
        log_type="toggle_autotranslation", broadcast_only=True,
    )  # fmt: skip


async def do_restrict_sponsored_messages(
    actor_user_id: int | None, channel_id: int, restricted: bool
) -> dict:
    """Sponsored messages are shown in broadcasts; this server shows none, but the
    switch is the owner's to keep and see (ChannelFull.restricted_sponsored)."""
    return await _toggle(
        actor_user_id, channel_id, "restricted_sponsored", restricted, right="change_info", log_type=None,
        broadcast_only=True,
    )  # fmt: skip


async def do_update_paid_messages_price(
    actor_user_id: int | None, channel_id: int, stars: int, *, broadcast_messages_allowed: bool
) -> dict:
    """channels.updatePaidMessagesPrice: a megagroup's price per message (0 is free), or
    a broadcast's direct messages (allowed, with a price; -1 turns them off)."""
    channel, member = await load_for_actor(channel_id, actor_user_id)
    require_right(actor_user_id, member, "change_info")
    if channel["broadcast"] and stars == BROADCAST_MESSAGES_OFF:
        new = {"send_paid_messages_stars": None, "broadcast_messages_allowed": False}
    elif not 0 <= stars <= PAID_MESSAGE_STARS_MAX:
        raise StarsAmountInvalidError()
    elif channel["broadcast"]:
        new = {
            "send_paid_messages_stars": stars,
            "broadcast_messages_allowed": bool(broadcast_messages_allowed),
        }
    else:
        new = {"send_paid_messages_stars": stars or None}
    if all(channel[k] == v for k, v in new.items()):
        raise ChatNotModifiedError()
    return await _set_columns(channel_id, actor_user_id, new, None, {})


async def do_convert_to_gigagroup(actor_user_id: int | None, channel_id: int) -> dict:
    """channels.convertToGigagroup: a megagroup here already has no member cap, so this
    only records the choice (creator only); a second call is CHAT_NOT_MODIFIED."""
    channel, member = await load_for_actor(channel_id, actor_user_id)
    if not channel["megagroup"]:
        raise ChannelInvalidError()
    require_creator(actor_user_id, member)
    current = (await get_join_settings([channel_id])).get(channel_id) or {}
    if current.get("gigagroup"):
        raise ChatNotModifiedError()
    async with db.connection() as conn, conn.transaction():
        await conn.execute(
            "INSERT INTO channel_join_settings (channel_id, gigagroup) VALUES (%s, true)"
            " ON CONFLICT (channel_id) DO UPDATE SET gigagroup = true",
            (channel_id,),
        )
    await publish_channel_updated(channel_id)
    return await _fresh(channel_id)


async def do_migrate_chat(actor_user_id: int | None, chat_id: int) -> dict:
    """messages.migrateChat: no legacy chats exist, a chat id *is* its megagroup; after
    the creator/change_info check the answer is that channel (updateChannel)."""
    channel, member = await load_for_actor(chat_id, actor_user_id)
    if not channel["megagroup"]:
        raise ChannelInvalidError()
    require_right(actor_user_id, member, "change_info")
    return channel


# ---- pins ----


async def do_update_pinned_message(
    actor_user_id: int | None, channel_id: int, message_id: int, *, unpin: bool = False, silent: bool = False
) -> ChannelChange:
    """messages.updatePinnedMessage: pin_messages (broadcast: edit_messages). One
    ``pin_messages`` pts event (updatePinnedChannelMessages, pts_count 1); a no-op when
    the message already is in that state (no pts)."""
    channel, member = await load_for_actor(channel_id, actor_user_id)
    require_right(actor_user_id, member, "edit_messages" if channel["broadcast"] else "pin_messages")
    async with db.connection() as conn:
        cur = await conn.execute(
            f"SELECT {MESSAGE_COLUMNS} FROM channel_messages WHERE channel_id = %s AND id = %s AND NOT deleted",
            (channel_id, message_id),
        )
        message = await cur.fetchone()
        if message is None or message.get("action"):
            raise MessageIdInvalidError()
        cur = await conn.execute(
            "SELECT 1 FROM channel_pinned_messages WHERE channel_id = %s AND message_id = %s",
            (channel_id, message_id),
        )
        is_pinned = await cur.fetchone() is not None
    if is_pinned == (not unpin):
        return ChannelChange(channel=channel)
    date = now()

    async def body(conn, _mid, pts):
        if unpin:
            await conn.execute(
                "DELETE FROM channel_pinned_messages WHERE channel_id = %s AND message_id = %s",
                (channel_id, message_id),
            )
        else:
            await conn.execute(
                "INSERT INTO channel_pinned_messages (channel_id, message_id, date) VALUES (%s, %s, %s)"
                " ON CONFLICT DO NOTHING",
                (channel_id, message_id, date),
            )
        await _refresh_pinned_top(conn, channel_id, pts)
        payload = {"channel_id": channel_id, "pinned": not unpin, "messages": [message_id], "silent": silent}
        await _insert_pin_event(conn, channel_id, pts, 1, date, [message_id], payload)
        await admin_log.record(
            conn, channel_id, actor_user_id, "update_pinned", data={"message": _loggable(message), "pinned": not unpin},
            query=message["message"], date=date,
        )  # fmt: skip
        return ChannelEvent(channel_id, pts, 1, "pin_messages", date, payload, [message_id])

    event = await with_pts(channel_id, 1, body)
    await notify.publish(
        "channel.event", {"event": event.to_payload(), "extra_user_ids": [], "exclude_user_id": 0}
    )
    return ChannelChange(channel=await _fresh(channel_id), events=[event])


async def do_unpin_all_messages(actor_user_id: int | None, channel_id: int) -> tuple[ChannelChange, int]:
    """messages.unpinAllMessages: one page (1000) per call; returns the change and the
    affectedHistory offset (non-zero while pins remain)."""
    channel, member = await load_for_actor(channel_id, actor_user_id)
    require_right(actor_user_id, member, "edit_messages" if channel["broadcast"] else "pin_messages")
    async with db.connection() as conn:
        cur = await conn.execute(
            "SELECT message_id FROM channel_pinned_messages WHERE channel_id = %s ORDER BY message_id DESC LIMIT %s",
            (channel_id, UNPIN_ALL_PAGE + 1),
        )
        ids = [r["message_id"] for r in await cur.fetchall()]
    more = len(ids) > UNPIN_ALL_PAGE
    ids = ids[:UNPIN_ALL_PAGE]
    if not ids:
        return ChannelChange(channel=channel), 0
    date = now()

    async def body(conn, _mid, pts):
        await conn.execute(
            "DELETE FROM channel_pinned_messages WHERE channel_id = %s AND message_id = ANY(%s)",
            (channel_id, ids),
        )
        await _refresh_pinned_top(conn, channel_id, pts)
        payload = {"channel_id": channel_id, "pinned": False, "messages": ids, "silent": True}
        await _insert_pin_event(conn, channel_id, pts, 1, date, ids, payload)
        return ChannelEvent(channel_id, pts, 1, "pin_messages", date, payload, ids)

    event = await with_pts(channel_id, 1, body)
    await notify.publish(
        "channel.event", {"event": event.to_payload(), "extra_user_ids": [], "exclude_user_id": 0}
    )
    return ChannelChange(channel=await _fresh(channel_id), events=[event]), (1 if more else 0)


async def pinned_message_ids(channel_id: int, limit: int = 100) -> list[int]:
    async with db.connection() as conn:
        cur = await conn.execute(
            "SELECT message_id FROM channel_pinned_messages WHERE channel_id = %s ORDER BY message_id DESC LIMIT %s",
            (channel_id, min(limit, 100)),
        )
        return [r["message_id"] for r in await cur.fetchall()]


async def _refresh_pinned_top(conn, channel_id: int, pts: int) -> None:
    await conn.execute(
        "UPDATE channels SET pinned_message_id = COALESCE((SELECT max(message_id) FROM channel_pinned_messages"
        " WHERE channel_id = %(c)s), 0), pts = GREATEST(pts, %(p)s) WHERE id = %(c)s",
        {"c": channel_id, "p": pts},
    )


async def _insert_pin_event(conn, channel_id, pts, pts_count, date, ids, payload) -> None:
    await insert_event(
        conn, channel_id=channel_id, pts=pts, pts_count=pts_count, type="pin_messages", date=date,
        message_ids=ids, payload=payload,
    )  # fmt: skip


def _loggable(message: dict) -> dict:
    return message_snapshot(message)


# ---- reactions ----


async def do_set_available_reactions(
    actor_user_id: int | None, channel_id: int, kind: str, reactions: list[str], reactions_limit: int | None
) -> dict:
    """messages.setChatAvailableReactions: change_info; all / some (standard emoji only,
    REACTION_INVALID otherwise) / none, and the distinct-reactions cap per message
    (1..reactions_uniq_max; absent keeps the current one)."""
    from message_core import reactions as rx

    from .common import jsonb

    policy = rx.normalize_policy(kind, reactions)
    if reactions_limit is not None and not 1 <= reactions_limit <= rx.UNIQ_MAX:
        from tl.errors import ReactionsTooManyError

        raise ReactionsTooManyError()
    channel, member = await load_for_actor(channel_id, actor_user_id)
    require_right(actor_user_id, member, "change_info")
    limit = channel.get("reactions_limit") or 0 if reactions_limit is None else reactions_limit
    if policy == channel.get("available_reactions") and limit == (channel.get("reactions_limit") or 0):
        raise ChatNotModifiedError()
    return await _set_columns(
        channel_id, actor_user_id, {"available_reactions": jsonb(policy), "reactions_limit": limit},
        "change_available_reactions", {"prev": channel.get("available_reactions"), "new": policy},
    )  # fmt: skip
