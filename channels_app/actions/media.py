"""Media in channel messages: who may send which kind."""

from __future__ import annotations

from message_core.clock import now
from tl.errors import ChatSendMediaForbiddenError

from ..rights import banned_bit, effective_banned, is_admin

# A media kind and the banned right that forbids it besides send_media.
KIND_RIGHT = {
    "photo": "send_photos",
    "video": "send_videos",
    "round": "send_roundvideos",
    "music": "send_audios",
    "voice": "send_voices",
    "gif": "send_gifs",
    "sticker": "send_stickers",
    "document": "send_docs",
}


def check_media_rights(channel: dict, member: dict, media: dict) -> None:
    if channel["broadcast"] or is_admin(member):
        return
    banned = effective_banned(member, channel, now())
    right = KIND_RIGHT.get(media.get("kind") or "document", "send_docs")
    if banned & (banned_bit("send_media") | banned_bit(right)):
        raise ChatSendMediaForbiddenError()


async def can_view(viewer_id: int, channel_ids: list[int]) -> bool:
    """Whether the viewer may read any of these channels (a file one of them holds is
    theirs to download)."""
    from tl.errors import RpcError

    from .common import load_channel_and_member, require_visible

    for cid in channel_ids:
        try:
            channel, member = await load_channel_and_member(cid, viewer_id)
            require_visible(channel, member, allow_public_preview=True)
        except RpcError:
            continue
        return True
    return False
