"""Group calls as TL: groupCall / groupCallDiscarded, participants, the updates and the
answers of phone.* group-call methods. ``view``: what depends on the viewer (may they
change join_muted, did they subscribe to the start, which participant is them)."""

from __future__ import annotations

import json

from tl import types

from . import group_actions


def input_call(call: dict):
    return types.InputGroupCall(id=call["id"], access_hash=call["access_hash"])


def peer_to_tl(kind: str, peer_id: int):
    return types.PeerChannel(channel_id=peer_id) if kind == "channel" else types.PeerUser(user_id=peer_id)


def call_to_tl(call: dict, *, can_manage: bool = False, subscribed: bool = False, viewer_id: int = 0):
    if call["state"] == "discarded":
        return types.GroupCallDiscarded(
            id=call["id"], access_hash=call["access_hash"], duration=call["duration"]
        )
    return types.GroupCall(
        join_muted=call["join_muted"],
        can_change_join_muted=can_manage,
        schedule_start_subscribed=subscribed if call["state"] == "scheduled" else None,
        can_start_video=True,
        creator=viewer_id == call["creator_id"],
        id=call["id"],
        access_hash=call["access_hash"],
        participants_count=call["participants_count"] or 0,
        title=call["title"] or None,
        schedule_date=call["schedule_date"] if call["state"] == "scheduled" else None,
        record_start_date=call["record_start_date"] or None,
        unmuted_video_limit=group_actions.UNMUTED_VIDEO_LIMIT,
        version=call["version"],
    )


def _video_to_tl(v: dict | None):
    if not v:
        return None
    return types.GroupCallParticipantVideo(
        paused=bool(v.get("paused")),
        endpoint=v["endpoint"],
        source_groups=[
            types.GroupCallParticipantVideoSourceGroup(semantics=g["semantics"], sources=list(g["sources"]))
            for g in v.get("source_groups") or []
        ],
        audio_source=v.get("audio_source"),
    )


def participant_to_tl(p: dict, viewer_id: int):
    return types.GroupCallParticipant(
        muted=p["muted"],
        left=p["left"],
        can_self_unmute=p["can_self_unmute"],
        just_joined=p["just_joined"],
        versioned=True,
        volume_by_admin=p["volume_by_admin"],
        self=p["user_id"] == viewer_id,
        video_joined=bool(p["video"]),
        peer=peer_to_tl(p["peer_kind"], p["peer_id"]),
        date=p["date"],
        active_date=p["active_date"] or None,
        source=p["source"],
        volume=p["volume"] if p["volume"] != 10000 else None,
        raise_hand_rating=p["raise_hand_rating"] or None,
        video=_video_to_tl(p["video"]),
        presentation=_video_to_tl(p["presentation"]),
    )


def refs(participants: list[dict]) -> tuple[set[int], set[int]]:
    """(user ids, channel ids) the participants name."""
    users = {p["peer_id"] for p in participants if p["peer_kind"] == "user"}
    chats = {p["peer_id"] for p in participants if p["peer_kind"] == "channel"}
    return users, chats


def call_updates(
    call: dict, participants: list[dict], viewer_id: int, date: int, users: list, chats: list, *,
    can_manage: bool = False, subscribed: bool = False, connection: dict | None = None, presentation: bool = False,
):  # fmt: skip
    """updateGroupCallConnection (the joining session's answer only), then
    updateGroupCallParticipants (when participants changed) and updateGroupCall."""
    ups = []
    if connection is not None:
        ups.append(
            types.UpdateGroupCallConnection(
                presentation=presentation, params=types.DataJSON(data=json.dumps(connection))
            )
        )
    if participants:
        ups.append(
            types.UpdateGroupCallParticipants(
                call=input_call(call),
                participants=[participant_to_tl(p, viewer_id) for p in participants],
                version=call["version"],
            )
        )
    ups.append(
        types.UpdateGroupCall(
            peer=types.PeerChannel(channel_id=call["channel_id"]),
            call=call_to_tl(call, can_manage=can_manage, subscribed=subscribed, viewer_id=viewer_id),
        )
    )
    return types.Updates(updates=ups, users=users, chats=chats, date=date, seq=0)


def group_call_to_tl(
    call: dict, participants: list[dict], next_offset: str, viewer_id: int, users, chats, **view
):
    return types.phone.GroupCall(
        call=call_to_tl(call, viewer_id=viewer_id, **view),
        participants=[participant_to_tl(p, viewer_id) for p in participants],
        participants_next_offset=next_offset,
        users=users,
        chats=chats,
    )


def group_participants_to_tl(call: dict, count: int, participants: list[dict], next_offset: str, viewer_id: int,
                             users, chats):  # fmt: skip
    return types.phone.GroupParticipants(
        count=count,
        participants=[participant_to_tl(p, viewer_id) for p in participants],
        next_offset=next_offset,
        users=users,
        chats=chats,
        version=call["version"],
    )


def join_as_to_tl(peers: list[tuple[str, int]], users, chats):
    return types.phone.JoinAsPeers(peers=[peer_to_tl(k, i) for k, i in peers], users=users, chats=chats)


def invite_to_tl(link: str):
    return types.phone.ExportedGroupCallInvite(link=link)


def sources_to_tl(sources: list[int]) -> list[int]:
    return list(sources)
