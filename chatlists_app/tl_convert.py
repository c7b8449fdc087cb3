"""Shared folders as TL: folder links, link previews, updates (the only module of this
app that builds TL objects)."""

from __future__ import annotations

from channels_app import tl_convert as channels_tl
from message_core import tl_convert as core_tl
from messages_app import tl_convert as messages_tl
from tl import types

from .links import link_url


def _peers(channel_ids) -> list:
    return [types.PeerChannel(channel_id=c) for c in channel_ids]


def invite_to_tl(inv: dict):
    return types.ExportedChatlistInvite(
        title=inv["title"], url=link_url(inv["slug"]), peers=_peers(inv["peers"])
    )


def exported_to_tl(viewer_id: int, filter_id: int, folder: dict, inv: dict, chats: list):
    return types.chatlists.ExportedChatlistInvite(
        filter=messages_tl.dialog_filter_to_tl(viewer_id, filter_id, folder, chats), invite=invite_to_tl(inv)
    )


def exported_invites_to_tl(invites: list[dict], chats: list):
    return types.chatlists.ExportedInvites(invites=[invite_to_tl(i) for i in invites], chats=chats, users=[])


def channels_to_tl(found: dict[int, tuple[dict, dict | None]]) -> list:
    """The link's chats in full (not ``min``) even where the viewer is not a member: the
    link is what lets them see and join a private chat, as a chat invite link does."""
    return [channels_tl.channel_to_tl(ch, member) for ch, member in found.values()]


def check_to_tl(view, chats: list):
    if view.filter_id is not None:
        return types.chatlists.ChatlistInviteAlready(
            filter_id=view.filter_id, missing_peers=_peers(view.missing), already_peers=_peers(view.already),
            chats=chats, users=[],
        )  # fmt: skip
    folder = view.folder
    return types.chatlists.ChatlistInvite(
        title_noanimate=bool(folder.get("title_noanimate")),
        title=types.TextWithEntities(
            text=folder["title"], entities=core_tl.entities_to_tl(folder.get("title_entities") or [])
        ),
        emoticon=folder.get("emoticon") or None,
        peers=_peers(view.peers),
        chats=chats,
        users=[],
    )


def chatlist_updates_to_tl(missing: list[int], chats: list):
    return types.chatlists.ChatlistUpdates(missing_peers=_peers(missing), chats=chats, users=[])


def peers_to_tl(channel_ids: list[int]) -> list:
    return _peers(channel_ids)


def result_to_tl(viewer_id: int, result, channel_updates: list, users: list, chats: list):
    """The joiner's answer: the channels' updates, then the folder's."""
    ups = [
        *channel_updates,
        messages_tl.dialog_filter_update_to_tl(viewer_id, result.filter_id, result.folder, chats),
    ]
    return channels_tl.updates_to_tl(ups, users, chats)
