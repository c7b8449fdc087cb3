"""Send-as: which identities a member may send with in a channel, the default they
chose (``channel_dialogs.default_send_as_peer_*``) and the check every send repeats.

Only the user and the channel itself are ever offered (no other channels of the user):
the channel for its creator, for a broadcast's admins who may post, and for a
megagroup's anonymous admins.
"""

from __future__ import annotations

from message_core import db

from ..errors import ChannelPrivateError, SendAsPeerInvalidError
from ..rights import has_admin_right
from .common import is_active, load_channel, load_member

SELF = 0  # the user itself, as a send_as value
CHANNEL_PEER = "channel"


def may_send_as_channel(channel: dict, member: dict | None) -> bool:
    if not is_active(member) or channel["deleted"]:
        return False
    if member["role"] == "creator":
        return True
    if channel["broadcast"]:
        return has_admin_right(member, "post_messages")
    return has_admin_right(member, "anonymous")


def resolve(channel: dict, member: dict | None, requested: int | None, default: int = SELF) -> int:
    """The channel id a send goes out as (SELF for the user). ``requested`` None: the
    saved default, quietly the user again when no longer allowed; an explicit request
    that is not allowed is SEND_AS_PEER_INVALID."""
    if requested is None:
        return default if default == channel["id"] and may_send_as_channel(channel, member) else SELF
    if requested == SELF:
        return SELF
    if requested != channel["id"] or not may_send_as_channel(channel, member):
        raise SendAsPeerInvalidError()
    # A broadcast's posts are the channel's anyway: nothing to mark.
    return SELF if channel["broadcast"] else requested


async def get_send_as(user_id: int, channel_id: int) -> tuple[dict, dict | None, list[int]]:
    """channels.getSendAs: the identities offered, SELF first."""
    async with db.connection() as conn:
        channel = await load_channel(conn, channel_id)
        if channel is None or channel["deleted"]:
            raise ChannelPrivateError()
        member = await load_member(conn, channel_id, user_id)
    if not is_active(member):
        raise ChannelPrivateError()
    peers = [SELF] + ([channel_id] if may_send_as_channel(channel, member) else [])
    return channel, member, peers


async def do_save_default(user_id: int, channel_id: int, send_as: int) -> None:
    """messages.saveDefaultSendAs: remember the choice in the user's dialog (SELF
    clears it); a channel the user may not send as is SEND_AS_PEER_INVALID."""
    _, _, peers = await get_send_as(user_id, channel_id)
    if send_as not in peers:
        raise SendAsPeerInvalidError()
    kind = CHANNEL_PEER if send_as else ""
    async with db.connection() as conn:
        await conn.execute(
            "UPDATE channel_dialogs SET default_send_as_peer_type = %s, default_send_as_peer_id = %s"
            " WHERE user_id = %s AND channel_id = %s",
            (kind, send_as, user_id, channel_id),
        )


async def saved_default(conn, user_id: int, channel_id: int) -> int:
    cur = await conn.execute(
        "SELECT default_send_as_peer_type, default_send_as_peer_id FROM channel_dialogs"
        " WHERE user_id = %s AND channel_id = %s",
        (user_id, channel_id),
    )
    return default_of(await cur.fetchone())


def default_of(dialog: dict | None) -> int:
    if dialog and dialog.get("default_send_as_peer_type") == CHANNEL_PEER:
        return dialog.get("default_send_as_peer_id") or SELF
    return SELF


def full_default(channel: dict, member: dict | None, dialog: dict | None) -> int | None:
    """ChannelFull.default_send_as: None when the user has no choice to make, else the
    identity a send without send_as takes now (SELF or the channel)."""
    if channel["broadcast"] or not may_send_as_channel(channel, member):
        return None
    return resolve(channel, member, None, default_of(dialog))
