"""Permission-checked lookups of channels by what a client sent.

Rules (design, "Input Hash And Visibility"): a non-zero ``access_hash`` must match the
channel's (CHANNEL_PRIVATE otherwise, or skipped inside a vector); ``*FromMessage``
inputs carry none and need membership; ``InputPeerChat`` / ``InputChat`` ids are the
same-id megagroup, resolved internally with hash 0 (so membership decides).

A client's ``inputChannel`` / ``inputPeerChannel`` with access_hash 0 is refused here
with CHANNEL_INVALID, as Telegram does: hash 0 means "resolved internally" past this
point, and accepting it from a client let anyone read and join a public group by its
numeric id without ever having been shown it. :func:`channel_ref` is the one place a
client's channel reference becomes (id, hash).
"""

from __future__ import annotations

from tl import types

from .errors import ChannelInvalidError, ChatIdInvalidError, PeerIdInvalidError


def channel_ref(obj) -> tuple[int, int]:
    """(channel_id, access_hash or 0) of an InputChannel / InputPeer naming a channel."""
    if isinstance(obj, types.InputChannel | types.InputPeerChannel):
        if obj.channel_id <= 0:
            raise ChannelInvalidError()
        if not obj.access_hash:
            raise ChannelInvalidError()
        return obj.channel_id, obj.access_hash
    if isinstance(obj, types.InputChannelFromMessage | types.InputPeerChannelFromMessage):
        if obj.channel_id <= 0:
            raise ChannelInvalidError()
        return obj.channel_id, 0
    if isinstance(obj, types.InputPeerChat):
        if obj.chat_id <= 0:
            raise ChatIdInvalidError()
        return obj.chat_id, 0
    if isinstance(obj, types.InputChannelEmpty):
        raise ChannelInvalidError()
    raise PeerIdInvalidError()


def is_channel_peer(peer) -> bool:
    return isinstance(
        peer,
        types.InputPeerChannel
        | types.InputPeerChannelFromMessage
        | types.InputPeerChat
        | types.InputChannel
        | types.InputChannelFromMessage,
    )


def dialog_peer_channel(obj) -> tuple[int, int] | None:
    """The channel of an InputDialogPeer / InputPeer, or None for a user peer."""
    peer = getattr(obj, "peer", obj) if isinstance(obj, types.InputDialogPeer) else obj
    if is_channel_peer(peer):
        return channel_ref(peer)
    return None
