"""messages.sendMultiMedia into a channel: up to ten media messages, one grouped_id,
contiguous ids and pts in one statement."""

from __future__ import annotations

import secrets

from media_app import actions as media_holders
from message_core import db, limits, send_hooks
from message_core.clock import now
from message_core.text import validate_caption
from tl.errors import ChannelPrivateError, MultiMediaTooLongError, RandomIdInvalidError

from ..domain import ChannelChange
from . import discussion
from .common import load_channel, load_member, message_refs
from .media import check_media_rights
from .message_writes import write_messages
from .messages import (
    _check_can_send,
    _check_slowmode,
    _original_by_random_ids,
    _publish_new,
    resolve_username_mentions,
)


async def do_send_album(
    sender_id: int, channel_id: int, items: list[dict], *, silent: bool = False, sender_name: str = ""
) -> ChannelChange:
    """``items``: message, entities, media, random_id. A retry (the same random ids)
    returns the original messages."""
    if not items:
        raise RandomIdInvalidError()
    if len(items) > limits.ALBUM_MAX:
        raise MultiMediaTooLongError()
    random_ids = [it["random_id"] for it in items]
    if len(set(random_ids)) != len(random_ids) or not all(random_ids):
        raise RandomIdInvalidError()
    rows = []
    grouped_id = secrets.randbits(62) + 1
    for it in items:
        entities = await resolve_username_mentions(
            it["message"], validate_caption(it["message"], it.get("entities"))
        )
        rows.append({**it, "entities": entities, "grouped_id": grouped_id})
    async with db.connection() as conn:
        channel = await load_channel(conn, channel_id)
        if channel is None:
            raise ChannelPrivateError()
        member = await load_member(conn, channel_id, sender_id)
        _check_can_send(channel, member, plain=False)
        for it in items:
            check_media_rights(channel, member, it["media"])
        original = await _original_by_random_ids(conn, channel_id, sender_id, random_ids)
        if len(original) < len(random_ids):
            _check_slowmode(channel, member, now())
    rows = [r for r in rows if r["random_id"] not in original]
    if rows:
        await send_hooks.check(sender_id, "channel", channel_id, len(rows))
    post_author = (
        sender_name[: limits.POST_AUTHOR_MAX] if channel["broadcast"] and channel["signatures"] else ""
    )
    events = (
        await write_messages(channel, sender_id, rows, silent=silent, post_author=post_author) if rows else []
    )
    keys = [k for r in rows for k in media_holders.media_keys(r["media"])]
    await media_holders.do_add_holders(keys, "c", [channel_id])
    await _publish_new(events, sender_id)
    if channel["broadcast"]:
        await discussion.create_roots(channel, events)
    by_rid = {e.random_id: e for e in [*original.values(), *events]}
    ordered = [by_rid[r] for r in random_ids if r in by_rid]
    users, chans = {sender_id}, {channel_id}
    message_refs([e.message for e in ordered], users, chans)
    top = max([channel["top_message_id"], *(e.message["id"] for e in ordered)])
    return ChannelChange(
        channel={**channel, "top_message_id": top}, events=ordered, user_ids=users, duplicate=not events,
        member=member,
    )  # fmt: skip
