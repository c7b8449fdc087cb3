"""Which kind of chat an InputPeer names, resolved once per request.

A user peer is a private chat (``private_app``); a channel peer (including the legacy
``InputPeerChat``, which names the same-id megagroup) is a channel (``channels_app``).
Access hashes are checked the way each kind's real methods check them: a user's
through accounts (PEER_ID_INVALID), a channel's through the channel lookup
(CHANNEL_PRIVATE; hash 0 and ``*FromMessage`` forms need membership).
"""

from __future__ import annotations

from dataclasses import dataclass

from accounts_app.access import check_input_peer_user, is_input_user
from channels_app import actions as channel_actions
from channels_app.access import channel_ref, dialog_peer_channel, is_channel_peer
from message_core import limits
from tl import types
from tl.errors import PeerIdInvalidError, SendAsPeerInvalidError


def is_user_peer(peer) -> bool:
    # one rule with accounts_app.access: an InputUser form is taken where an InputPeer goes
    return is_input_user(peer)


def peer_user_id(me: int, peer) -> int:
    """The user an InputPeer names, access hash checked (PEER_ID_INVALID otherwise)."""
    return check_input_peer_user(me, peer)


def channel_peer(peer) -> tuple[int, int]:
    """(channel_id, access_hash) of a channel InputPeer; PEER_ID_INVALID for any other."""
    if not is_channel_peer(peer):
        raise PeerIdInvalidError()
    return channel_ref(peer)


async def checked_channel(me: int, peer, *, preview: bool = False) -> tuple[dict, dict | None]:
    """The channel a channel InputPeer names and the viewer's member row, visibility checked."""
    cid, access_hash = channel_peer(peer)
    return await channel_actions.get_channel_for_viewer(me, cid, access_hash, preview=preview)


def send_as_id(me: int, send_as) -> int | None:
    """What a send's ``send_as`` asks for: None (not given: the saved default), 0 (the
    user itself) or a channel id (the send re-checks it may be used)."""
    if send_as is None:
        return None
    if isinstance(send_as, types.InputPeerSelf):
        return 0
    if is_user_peer(send_as):
        try:
            if peer_user_id(me, send_as) == me:
                return 0
        except PeerIdInvalidError:
            pass
        raise SendAsPeerInvalidError()
    if is_channel_peer(send_as):
        try:
            return channel_ref(send_as)[0]
        except Exception:
            raise SendAsPeerInvalidError() from None
    raise SendAsPeerInvalidError()


@dataclass(slots=True)
class Peer:
    """A checked InputPeer: a user (``user_id``) or a channel (``channel``, ``member``)."""

    user_id: int = 0
    channel: dict | None = None
    member: dict | None = None

    @property
    def channel_id(self) -> int:
        return self.channel["id"] if self.channel else 0


async def resolve_peer(me: int, peer, *, preview: bool = True) -> Peer:
    """The peer as the real methods check it, whichever kind it is."""
    if is_user_peer(peer):
        return Peer(user_id=peer_user_id(me, peer))
    if is_channel_peer(peer):
        channel, member = await checked_channel(me, peer, preview=preview)
        return Peer(channel=channel, member=member)
    raise PeerIdInvalidError()


def dialog_user_peer(obj):
    """The user peer of an InputDialogPeer, or None for a channel / folder peer."""
    peer = getattr(obj, "peer", None) if isinstance(obj, types.InputDialogPeer) else None
    return peer if peer is not None and is_user_peer(peer) else None


async def dialog_ref(me: int, obj) -> tuple[str, int]:
    """("c", channel_id) / ("p", user_id) of an InputDialogPeer, hash-checked."""
    user_peer = dialog_user_peer(obj)
    if user_peer is not None:
        return "p", peer_user_id(me, user_peer)
    ref = dialog_peer_channel(obj)
    if ref is None:
        raise PeerIdInvalidError()
    channel, _ = await channel_actions.get_channel_for_viewer(me, *ref)
    return "c", channel["id"]


_FILTER_NAMES = {
    types.InputMessagesFilterPhotos: "photos",
    types.InputMessagesFilterVideo: "video",
    types.InputMessagesFilterPhotoVideo: "photo_video",
    types.InputMessagesFilterDocument: "document",
    types.InputMessagesFilterMusic: "music",
    types.InputMessagesFilterVoice: "voice",
    types.InputMessagesFilterRoundVoice: "round_voice",
    types.InputMessagesFilterRoundVideo: "round_video",
    types.InputMessagesFilterGif: "gif",
    types.InputMessagesFilterUrl: "url",
    types.InputMessagesFilterGeo: "geo",
    types.InputMessagesFilterContacts: "contacts",
    types.InputMessagesFilterPoll: "poll",
}


def media_filter_kinds(f) -> tuple[str, ...] | None:
    """The media kinds a messages.search filter finds (None: not a media filter)."""
    name = _FILTER_NAMES.get(type(f))
    return limits.MEDIA_FILTER_KINDS[name] if name else None
