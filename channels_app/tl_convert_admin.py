"""TL objects of the administration surface: invite links, importers, join requests,
admin log events, pins. Channels, users, messages and participants are rendered by
``channels_app.tl_convert`` (reused here, never rebuilt)."""

from __future__ import annotations

from media_app.tl_convert import photo_to_tl
from tl import types

from . import tl_convert


def exported_invites_to_tl(count: int, invites: list[dict], users: list):
    return types.messages.ExportedChatInvites(
        count=count, invites=[tl_convert.exported_invite_to_tl(i) for i in invites], users=users
    )


def exported_invite_result_to_tl(inv: dict, replacement: dict | None, users: list):
    if replacement is not None:
        return types.messages.ExportedChatInviteReplaced(
            invite=tl_convert.exported_invite_to_tl(inv),
            new_invite=tl_convert.exported_invite_to_tl(replacement),
            users=users,
        )
    return types.messages.ExportedChatInvite(invite=tl_convert.exported_invite_to_tl(inv), users=users)


def admins_with_invites_to_tl(rows: list[dict], users: list):
    return types.messages.ChatAdminsWithInvites(
        admins=[
            types.ChatAdminWithInvites(
                admin_id=r["admin_user_id"],
                invites_count=r["invites_count"],
                revoked_invites_count=r["revoked_invites_count"],
            )
            for r in rows
        ],
        users=users,
    )


def importer_to_tl(row: dict):
    return types.ChatInviteImporter(
        requested=row["requested"],
        user_id=row["user_id"],
        date=row["date"],
        about=row["about"] or None,
        approved_by=row["approved_by"] or None,
    )


def importers_to_tl(count: int, rows: list[dict], users: list):
    return types.messages.ChatInviteImporters(
        count=count, importers=[importer_to_tl(r) for r in rows], users=users
    )


def chat_invite_to_tl(check, chat, participants: list):
    """messages.checkChatInvite: chatInviteAlready for a member, else the preview."""
    if check.kind == "already":
        return types.ChatInviteAlready(chat=chat)
    ch = check.channel
    return types.ChatInvite(
        channel=True,
        broadcast=ch["broadcast"],
        public=bool(ch["username"]),
        megagroup=ch["megagroup"],
        request_needed=check.invite["request_needed"],
        title=ch["title"],
        about=ch["about"] or None,
        photo=types.PhotoEmpty(id=0),
        participants_count=ch["participants_count"],
        participants=participants or None,
        color=0,
    )


def join_result_to_tl(updates, layer: int):
    """messages.importChatInvite answers chatInviteJoinResultOk from layer 229 on, the
    bare Updates before."""
    if layer >= 229:
        return types.messages.ChatInviteJoinResultOk(updates=updates)
    return updates


def pending_requests_to_tl(channel_id: int, pending: int, recent: list[int]):
    return types.UpdatePendingJoinRequests(
        peer=types.PeerChannel(channel_id=channel_id),
        requests_pending=pending,
        recent_requesters=list(recent),
    )


# --- participants / admin log ----------------------------------------------------------

_PARTICIPANT_DEFAULTS = {
    "user_id": 0,
    "inviter_user_id": 0,
    "role": "member",
    "status": "left",
    "joined_at": 0,
    "left_at": 0,
    "admin_rights": 0,
    "promoted_by": 0,
    "banned_rights": 0,
    "banned_until": 0,
    "kicked_by": 0,
    "rank": "",
}


def participant_snapshot_to_tl(snap: dict | None, viewer_id: int, viewer_member: dict | None):
    row = {**_PARTICIPANT_DEFAULTS, **(snap or {})}
    if row["status"] == "none":
        row["status"] = "left"
    return tl_convert.participant_to_tl(row, viewer_id, viewer_member)


def participant_update_to_tl(payload: dict, viewer_id: int, viewer_member: dict | None):
    """updateChannelParticipant (no pts: TDesktop applies it without a pts check)."""
    prev, new = payload.get("prev"), payload.get("new")

    def shown(snap):
        if not snap or snap.get("status") in ("none", "left"):
            return None
        return participant_snapshot_to_tl(snap, viewer_id, viewer_member)

    return types.UpdateChannelParticipant(
        channel_id=payload["channel_id"],
        date=payload["date"],
        actor_id=payload["actor_user_id"],
        user_id=payload["user_id"],
        prev_participant=shown(prev),
        new_participant=shown(new),
        qts=0,
    )


def _message(m: dict | None, viewer_id: int):
    if not m:
        return types.MessageEmpty(id=0)
    return tl_convert.message_to_tl(m, viewer_id)


def _sticker_set_ref(ref: dict | None):
    if not ref:
        return types.InputStickerSetEmpty()
    return types.InputStickerSetID(id=ref["id"], access_hash=ref["access_hash"])


def admin_log_action_to_tl(event: dict, viewer_id: int, viewer_member: dict | None):
    kind = event["event_type"]
    d = event["data"] or {}

    def part(key):
        return participant_snapshot_to_tl(d.get(key), viewer_id, viewer_member)

    if kind == "participant_join":
        return types.ChannelAdminLogEventActionParticipantJoin()
    if kind == "participant_join_by_invite":
        return types.ChannelAdminLogEventActionParticipantJoinByInvite(
            invite=tl_convert.exported_invite_to_tl(d.get("invite"))
        )
    if kind == "participant_join_by_request":
        return types.ChannelAdminLogEventActionParticipantJoinByRequest(
            invite=tl_convert.exported_invite_to_tl(d.get("invite")), approved_by=d.get("approved_by") or 0
        )
    if kind == "participant_leave":
        return types.ChannelAdminLogEventActionParticipantLeave()
    if kind == "participant_invite":
        return types.ChannelAdminLogEventActionParticipantInvite(participant=part("participant"))
    if kind in ("participant_ban", "participant_unban", "participant_kick", "participant_unkick"):
        return types.ChannelAdminLogEventActionParticipantToggleBan(
            prev_participant=part("prev"), new_participant=part("new")
        )
    if kind in ("participant_promote", "participant_demote"):
        return types.ChannelAdminLogEventActionParticipantToggleAdmin(
            prev_participant=part("prev"), new_participant=part("new")
        )
    if kind == "change_title":
        return types.ChannelAdminLogEventActionChangeTitle(prev_value=d["prev"], new_value=d["new"])
    if kind == "change_about":
        return types.ChannelAdminLogEventActionChangeAbout(prev_value=d["prev"], new_value=d["new"])
    if kind == "change_username":
        return types.ChannelAdminLogEventActionChangeUsername(prev_value=d["prev"], new_value=d["new"])
    if kind == "change_photo":
        return types.ChannelAdminLogEventActionChangePhoto(
            prev_photo=photo_to_tl(d.get("prev")), new_photo=photo_to_tl(d.get("new"))
        )
    if kind in ("change_peer_color", "change_profile_peer_color"):
        cls = (
            types.ChannelAdminLogEventActionChangeProfilePeerColor
            if kind == "change_profile_peer_color"
            else types.ChannelAdminLogEventActionChangePeerColor
        )
        return cls(prev_value=_peer_color(d["prev"]), new_value=_peer_color(d["new"]))
    if kind == "change_emoji_status":
        return types.ChannelAdminLogEventActionChangeEmojiStatus(
            prev_value=_emoji_status(d["prev"]), new_value=_emoji_status(d["new"])
        )
    if kind in ("change_sticker_set", "change_emoji_sticker_set"):
        cls = (
            types.ChannelAdminLogEventActionChangeEmojiStickerSet
            if kind == "change_emoji_sticker_set"
            else types.ChannelAdminLogEventActionChangeStickerSet
        )
        return cls(
            prev_stickerset=_sticker_set_ref(d.get("prev")), new_stickerset=_sticker_set_ref(d.get("new"))
        )
    if kind == "toggle_autotranslation":
        return types.ChannelAdminLogEventActionToggleAutotranslation(new_value=bool(d["new"]))
    if kind == "toggle_signatures":
        return types.ChannelAdminLogEventActionToggleSignatures(new_value=bool(d["new"]))
    if kind == "toggle_prehistory_hidden":
        return types.ChannelAdminLogEventActionTogglePreHistoryHidden(new_value=bool(d["new"]))
    if kind == "toggle_noforwards":
        return types.ChannelAdminLogEventActionToggleNoForwards(new_value=bool(d["new"]))
    if kind == "toggle_invites":
        return types.ChannelAdminLogEventActionToggleInvites(new_value=bool(d["new"]))
    if kind == "toggle_antispam":
        return types.ChannelAdminLogEventActionToggleAntiSpam(new_value=bool(d["new"]))
    if kind == "change_linked_chat":
        return types.ChannelAdminLogEventActionChangeLinkedChat(prev_value=d["prev"], new_value=d["new"])
    if kind == "toggle_forum":
        return types.ChannelAdminLogEventActionToggleForum(new_value=bool(d["new"]))
    if kind == "change_available_reactions":
        return types.ChannelAdminLogEventActionChangeAvailableReactions(
            prev_value=tl_convert.chat_reactions_to_tl(d.get("prev")),
            new_value=tl_convert.chat_reactions_to_tl(d.get("new")),
        )
    if kind == "toggle_slow_mode":
        return types.ChannelAdminLogEventActionToggleSlowMode(prev_value=d["prev"], new_value=d["new"])
    if kind == "default_banned_rights":
        return types.ChannelAdminLogEventActionDefaultBannedRights(
            prev_banned_rights=tl_convert.banned_rights_to_tl(d["prev"]),
            new_banned_rights=tl_convert.banned_rights_to_tl(d["new"]),
        )
    if kind == "update_pinned":
        # The message as it stood after the change: pinned=true for a pin.
        message = {**d["message"], "pinned": bool(d.get("pinned"))} if d.get("message") else None
        return types.ChannelAdminLogEventActionUpdatePinned(message=_message(message, viewer_id))
    if kind == "edit_message":
        return types.ChannelAdminLogEventActionEditMessage(
            prev_message=_message(d.get("prev_message"), viewer_id),
            new_message=_message(d.get("new_message"), viewer_id),
        )
    if kind == "delete_message":
        return types.ChannelAdminLogEventActionDeleteMessage(message=_message(d.get("message"), viewer_id))
    if kind == "send_message":
        return types.ChannelAdminLogEventActionSendMessage(message=_message(d.get("message"), viewer_id))
    if kind == "invite_edit":
        return types.ChannelAdminLogEventActionExportedInviteEdit(
            prev_invite=tl_convert.exported_invite_to_tl(d.get("prev_invite")),
            new_invite=tl_convert.exported_invite_to_tl(d.get("new_invite")),
        )
    if kind == "invite_revoke":
        return types.ChannelAdminLogEventActionExportedInviteRevoke(
            invite=tl_convert.exported_invite_to_tl(d.get("invite"))
        )
    if kind == "invite_delete":
        return types.ChannelAdminLogEventActionExportedInviteDelete(
            invite=tl_convert.exported_invite_to_tl(d.get("invite"))
        )
    return None


def _peer_color(pair: list) -> object:
    """An admin-log side of a color change: [color, background emoji] (an empty PeerColor when unset)."""
    return tl_convert.peer_color_to_tl(*pair) or types.PeerColor()


def _emoji_status(pair: list) -> object:
    return tl_convert.emoji_status_to_tl(*pair) or types.EmojiStatusEmpty()


def admin_log_to_tl(events: list[dict], viewer_id: int, viewer_member: dict | None, chats: list, users: list):
    out = []
    for e in events:
        action = admin_log_action_to_tl(e, viewer_id, viewer_member)
        if action is None:
            continue
        out.append(
            types.ChannelAdminLogEvent(id=e["id"], date=e["date"], user_id=e["actor_user_id"], action=action)
        )
    return types.channels.AdminLogResults(events=out, chats=chats, users=users)


def inactive_chats_to_tl(dates: list[int], chats: list, users: list):
    return types.messages.InactiveChats(dates=dates, chats=chats, users=users)


def left_channels_to_tl(count: int, chats: list, complete: bool):
    """getLeftChannels: messages.chats ends TDesktop's loop; an empty slice does too."""
    if complete:
        return types.messages.Chats(chats=chats)
    return types.messages.ChatsSlice(count=count, chats=chats)
