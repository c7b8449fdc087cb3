"""Channels' part of account notification settings: a channel's settings live on the
member's channel dialog (design: notify settings are per-user dialog state)."""

from __future__ import annotations

from accounts_app.notify_settings import PeerStore, register_peer_store

from .access import channel_ref, is_channel_peer
from .actions import get_channel_for_viewer
from .actions import notify_settings as store
from .chat_context import chats_for


async def _resolve(viewer_id: int, input_peer) -> int | None:
    if not is_channel_peer(input_peer):
        return None
    channel, _ = await get_channel_for_viewer(viewer_id, *channel_ref(input_peer))
    return channel["id"]


def install() -> None:
    register_peer_store(
        PeerStore(
            scope="channel",
            resolve=_resolve,
            write=store.write_dialog_notify_settings,
            read=store.read_dialog_notify_settings,
            exceptions=store.dialog_notify_exceptions,
            reset=store.reset_dialog_notify_settings,
            chats=chats_for,
        )
    )
