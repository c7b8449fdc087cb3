"""The rules of group calls (voice chats in supergroups, live streams in channels).

A call belongs to one chat; members with the ``manage_call`` admin right start it (now
or scheduled), end it, mute others, change its settings and start a scheduled one. A
member kicked or banned from the chat cannot see or join it (CHANNEL_PRIVATE). The
chat's ``join_muted`` holds for non-admins: they join muted and cannot unmute
themselves until an admin lets them (``can_self_unmute``).

Media go through an SFU node (``calls_app.sfu``): the call is pinned to one node at its
first join, and every change the media plane must know of (a join, a leave, an admin's
mute, the end) is asked of the node before it is written, so a node that does not answer
changes nothing. The chat shows the call through ``channels_app.actions.group_calls``
(its flags, channelFull.call, the service messages).

``version`` counts the changes of the participant list (joins, leaves, edits):
updateGroupCallParticipants carries it and clients apply them in order.

Participants who stop showing signs of life are dropped (``drop_stale``): a client that
calls phone.checkGroupCall must keep doing so; one that never does is judged by whether
its user still has a session on some listener.

Call and participant dicts (``call_dict``, ``participant_dict``) are what the renderers
read; nothing here builds TL.
"""

from __future__ import annotations

import logging
import secrets
import time
from dataclasses import dataclass, field

from django.db import IntegrityError, transaction

from channels_app.actions.common import is_active, load_channel_and_member
from channels_app.actions.group_calls import do_set_call_state
from channels_app.rights import has_admin_right, is_admin
from edge_app.orm_threads import in_thread
from message_core import db
from message_core.clock import now
from tl.errors import (
    ChannelInvalidError,
    ChannelPrivateError,
    ChatAdminRequiredError,
    CreateCallFailedError,
    DataJsonInvalidError,
    GroupcallAddParticipantsFailedError,
    GroupcallAlreadyDiscardedError,
    GroupcallAlreadyStartedError,
    GroupcallForbiddenError,
    GroupcallInvalidError,
    GroupcallJoinMissingError,
    GroupcallNotModifiedError,
    GroupcallSsrcDuplicateMuchError,
    JoinAsPeerInvalidError,
    ParticipantJoinMissingError,
    PeerIdInvalidError,
    ScheduleDateInvalidError,
    UserVolumeInvalidError,
)

from . import sfu
from .models import GroupCall, GroupCallJoinAs, GroupCallParticipant, GroupCallSubscriber

log = logging.getLogger("telesrv.calls.group")

LIVE = ("scheduled", "active")
TITLE_MAX = 64
SCHEDULE_AHEAD_MAX = 7 * 86400  # Telegram schedules voice chats up to a week ahead
PAGE_DEFAULT = 100  # participants per page when a client asks 0 or a negative limit
PAGE_MAX = 500
VOLUME_MIN, VOLUME_MAX = 1, 20000  # 1..200.00 %
UNMUTED_VIDEO_LIMIT = 30
JOIN_AS_MAX = 100
# A participant without a sign of life for this long is dropped (Telegram: 30-60 s).
LIVENESS_SECONDS = 45


def call_dict(c: GroupCall) -> dict:
    return {
        "id": c.id, "access_hash": c.access_hash, "channel_id": c.channel_id, "creator_id": c.creator_id,
        "node": c.node, "title": c.title, "state": c.state, "date": c.date, "schedule_date": c.schedule_date,
        "start_date": c.start_date, "end_date": c.end_date, "duration": c.duration, "join_muted": c.join_muted,
        "version": c.version, "rtmp_stream": c.rtmp_stream, "record_start_date": c.record_start_date,
        "invite_hash": c.invite_hash, "participants_count": getattr(c, "count", None),
    }  # fmt: skip


def participant_dict(p: GroupCallParticipant, *, left: bool = False, just_joined: bool = False) -> dict:
    return {
        "user_id": p.user_id, "peer_kind": p.peer_kind, "peer_id": p.peer_id, "source": p.source,
        "presentation_source": p.presentation_source, "muted": p.muted, "can_self_unmute": p.can_self_unmute,
        "volume": p.volume, "volume_by_admin": p.volume_by_admin, "raise_hand_rating": p.raise_hand_rating,
        "video": p.video, "presentation": p.presentation, "date": p.date, "active_date": p.active_date,
        "left": left, "just_joined": just_joined,
    }  # fmt: skip


@dataclass(slots=True)
class Change:
    """A call after a change: the participants it concerns (left ones flagged) and the
    chat's side (service message events, for the actor's answer)."""

    call: dict
    participants: list[dict] = field(default_factory=list)
    chat_change: object | None = None  # channels_app ChannelChange
    connection: dict | None = None  # the SFU's transport for the joining session
    presentation: bool = False


# ---- lookups ----


async def chat_for(user_id: int, channel_id: int, access_hash: int | None) -> tuple[dict, dict | None]:
    """The chat of a call as ``user_id`` may see it: kicked / banned members and
    strangers to a private chat get CHANNEL_PRIVATE."""
    channel, member = await load_channel_and_member(channel_id, user_id)
    if channel["deleted"] or (access_hash and access_hash != channel["access_hash"]):
        raise ChannelPrivateError()
    if member is not None and member["status"] in ("kicked", "banned"):
        raise ChannelPrivateError()
    if not is_active(member) and not channel["username"]:
        raise ChannelPrivateError()
    return channel, member


@in_thread
def _load_call(call_id: int, access_hash: int) -> dict:
    c = GroupCall.objects.filter(id=call_id, access_hash=access_hash).first()
    if c is None:
        raise GroupcallInvalidError()
    c.count = c.participants.count()
    return call_dict(c)


async def call_for(user_id: int, call_id: int, access_hash: int) -> tuple[dict, dict, dict | None]:
    """(call, chat, member) of an InputGroupCall the user may see."""
    call = await _load_call(call_id, access_hash)
    channel, member = await chat_for(user_id, call["channel_id"], None)
    return call, channel, member


def may_manage(member: dict | None) -> bool:
    return has_admin_right(member, "manage_call")


def _require_manage(member: dict | None) -> None:
    if not may_manage(member):
        raise ChatAdminRequiredError()


def _live(call: dict) -> None:
    if call["state"] == "discarded":
        raise GroupcallAlreadyDiscardedError()


# ---- create / start / end ----


@in_thread
def _insert_call(
    channel_id: int, user_id: int, random_id: int, title: str, schedule_date: int
) -> tuple[dict, bool]:
    at = now()
    try:
        with transaction.atomic():
            c = GroupCall.objects.create(
                id=secrets.randbits(63) or 1, access_hash=secrets.randbits(63), channel_id=channel_id,
                creator_id=user_id, title=title, random_id=random_id, date=at, schedule_date=schedule_date,
                state="scheduled" if schedule_date else "active", start_date=0 if schedule_date else at,
            )  # fmt: skip
    except IntegrityError:  # the chat has a live call already: that one is the answer
        c = GroupCall.objects.filter(channel_id=channel_id, state__in=LIVE).first()
        if c is None:
            raise CreateCallFailedError() from None
        c.count = c.participants.count()
        return call_dict(c), False
    c.count = 0
    return call_dict(c), True


async def do_create_group_call(
    user_id: int, channel_id: int, access_hash: int | None, random_id: int, *,
    title: str = "", schedule_date: int | None = None, rtmp_stream: bool = False,
) -> Change:  # fmt: skip
    """phone.createGroupCall in a supergroup or a broadcast channel (manage_call). A
    chat with a live call answers that one."""
    channel, member = await chat_for(user_id, channel_id, access_hash)
    if not (channel["megagroup"] or channel["broadcast"]):
        raise PeerIdInvalidError()
    _require_manage(member)
    if rtmp_stream:
        # Streams from an RTMP encoder need an ingest this server does not run.
        raise CreateCallFailedError("RTMP streams are not supported")
    at = now()
    if schedule_date and (schedule_date <= at or schedule_date > at + SCHEDULE_AHEAD_MAX):
        raise ScheduleDateInvalidError()
    call, fresh = await _insert_call(
        channel_id, user_id, random_id, (title or "")[:TITLE_MAX], schedule_date or 0
    )
    if not fresh:
        return Change(call)
    ref = {"call_id": call["id"], "call_access_hash": call["access_hash"]}
    if schedule_date:
        action = {"_": "groupCallScheduled", **ref, "schedule_date": schedule_date}
    else:
        action = {"_": "groupCall", **ref}
    columns = {**ref, "call_not_empty": False}
    change = await do_set_call_state(channel_id, user_id, columns, action)
    return Change(call, chat_change=change)


@in_thread
def _start(call_id: int) -> dict:
    with transaction.atomic():
        c = GroupCall.objects.select_for_update().get(id=call_id)
        if c.state == "discarded":
            raise GroupcallAlreadyDiscardedError()
        if c.state != "scheduled":
            raise GroupcallAlreadyStartedError()
        c.state, c.start_date = "active", now()
        c.save(update_fields=["state", "start_date"])
        c.count = 0
        return call_dict(c)


async def do_start_scheduled_group_call(user_id: int, call_id: int, access_hash: int) -> Change:
    call, _, member = await call_for(user_id, call_id, access_hash)
    _require_manage(member)
    call = await _start(call_id)
    ref = {"call_id": call["id"], "call_access_hash": call["access_hash"]}
    change = await do_set_call_state(call["channel_id"], user_id, {}, {"_": "groupCall", **ref})
    return Change(call, chat_change=change)


@in_thread
def _discard(call_id: int, by: int) -> tuple[dict, list[dict]]:
    with transaction.atomic():
        c = GroupCall.objects.select_for_update().filter(id=call_id).first()
        if c is None:
            raise GroupcallInvalidError()
        if c.state == "discarded":
            raise GroupcallAlreadyDiscardedError()
        at = now()
        c.duration = max(0, at - c.start_date) if c.start_date else 0
        c.state, c.end_date, c.ended_by = "discarded", at, by
        c.version += 1
        c.save(update_fields=["state", "end_date", "ended_by", "duration", "version"])
        gone = [participant_dict(p, left=True) for p in c.participants.all()]
        c.participants.all().delete()
        c.subscribers.all().delete()
        c.count = 0
        return call_dict(c), gone


async def do_discard_group_call(
    actor_user_id: int | None, call_id: int, access_hash: int | None = None
) -> Change:
    """phone.discardGroupCall (manage_call) or the operator's "end call" (actor None):
    the node drops the room, the chat's flags go and an "ended" message with the
    duration stays in history."""
    if actor_user_id is not None:
        call, _, member = await call_for(actor_user_id, call_id, access_hash or 0)
        _live(call)
        _require_manage(member)
    call, gone = await _discard(call_id, actor_user_id or 0)
    if call["node"]:
        try:
            await sfu.end_call(call["node"], call_id)
        except sfu.SfuUnavailable as exc:
            # The call is over for signalling either way; the node drops idle rooms.
            log.warning("group call %s: node %s did not end the room: %s", call_id, call["node"], exc)
    ref = {"call_id": call["id"], "call_access_hash": call["access_hash"]}
    action = {"_": "groupCall", **ref, "duration": call["duration"]}
    sender = actor_user_id or call["creator_id"]
    columns = {"call_id": 0, "call_access_hash": 0, "call_not_empty": False}
    change = await do_set_call_state(call["channel_id"], sender, columns, action)
    return Change(call, gone, chat_change=change)


# ---- settings ----


@in_thread
def _set_settings(call_id: int, join_muted: bool | None, reset_invite_hash: bool) -> dict:
    with transaction.atomic():
        c = GroupCall.objects.select_for_update().get(id=call_id)
        fields = []
        if join_muted is not None and join_muted != c.join_muted:
            c.join_muted = join_muted
            fields.append("join_muted")
        if reset_invite_hash:
            c.invite_hash = secrets.token_hex(8)
            fields.append("invite_hash")
        if not fields:
            raise GroupcallNotModifiedError()
        c.save(update_fields=fields)
        c.count = c.participants.count()
        return call_dict(c)


async def do_toggle_group_call_settings(
    user_id: int, call_id: int, access_hash: int, *, join_muted: bool | None, reset_invite_hash: bool
) -> Change:
    call, _, member = await call_for(user_id, call_id, access_hash)
    _live(call)
    _require_manage(member)
    return Change(await _set_settings(call_id, join_muted, reset_invite_hash))


@in_thread
def _subscribe(call_id: int, user_id: int, subscribed: bool) -> dict:
    with transaction.atomic():
        c = GroupCall.objects.select_for_update().get(id=call_id)
        if c.state != "scheduled":
            raise GroupcallAlreadyStartedError()
        if subscribed:
            GroupCallSubscriber.objects.get_or_create(call=c, user_id=user_id)
        else:
            GroupCallSubscriber.objects.filter(call=c, user_id=user_id).delete()
        c.count = 0
        return call_dict(c)


async def do_toggle_start_subscription(
    user_id: int, call_id: int, access_hash: int, subscribed: bool
) -> Change:
    call, _, _ = await call_for(user_id, call_id, access_hash)
    _live(call)
    return Change(await _subscribe(call_id, user_id, subscribed))


@in_thread
def is_subscribed(call_id: int, user_id: int) -> bool:
    return GroupCallSubscriber.objects.filter(call_id=call_id, user_id=user_id).exists()


@in_thread
def subscriber_ids(call_id: int) -> list[int]:
    return list(GroupCallSubscriber.objects.filter(call_id=call_id).values_list("user_id", flat=True))


# ---- join as ----


async def join_as_choices(user_id: int) -> list[tuple[str, int]]:
    """phone.getGroupCallJoinAs: the user, then the channels and groups they own or
    administer (they may speak as those)."""
    async with db.connection() as conn:
        cur = await conn.execute(
            "SELECT m.channel_id FROM channel_members m JOIN channels c ON c.id = m.channel_id"
            " WHERE m.user_id = %s AND m.status = 'active' AND m.role IN ('creator', 'admin')"
            " AND NOT c.deleted ORDER BY (m.role = 'creator') DESC, m.channel_id LIMIT %s",
            (user_id, JOIN_AS_MAX),
        )
        ids = [r["channel_id"] for r in await cur.fetchall()]
    return [("user", user_id), *(("channel", cid) for cid in ids)]


async def check_join_as(user_id: int, peer: tuple[str, int]) -> tuple[str, int]:
    kind, peer_id = peer
    if kind == "user":
        if peer_id != user_id:
            raise JoinAsPeerInvalidError()
        return peer
    try:
        _, member = await load_channel_and_member(peer_id, user_id)
    except ChannelInvalidError:
        raise JoinAsPeerInvalidError() from None
    if not is_admin(member):
        raise JoinAsPeerInvalidError()
    return peer


async def do_save_default_join_as(
    user_id: int, channel_id: int, access_hash: int | None, peer: tuple[str, int]
) -> None:
    await chat_for(user_id, channel_id, access_hash)
    kind, peer_id = await check_join_as(user_id, peer)
    await _save_join_as(user_id, channel_id, kind, peer_id)


@in_thread
def _save_join_as(user_id: int, channel_id: int, kind: str, peer_id: int) -> None:
    GroupCallJoinAs.objects.update_or_create(
        user_id=user_id, channel_id=channel_id, defaults={"peer_kind": kind, "peer_id": peer_id}
    )


@in_thread
def default_join_as(channel_id: int, user_id: int) -> tuple[str, int] | None:
    row = GroupCallJoinAs.objects.filter(user_id=user_id, channel_id=channel_id).first()
    return (row.peer_kind, row.peer_id) if row else None


# ---- participants ----


def source_of(ssrc) -> int:
    """A JSON SSRC (unsigned 32-bit) as the TL ``int`` source (signed)."""
    if isinstance(ssrc, bool) or not isinstance(ssrc, int) or not 0 < ssrc < 2**32:
        raise DataJsonInvalidError()
    return ssrc - 2**32 if ssrc >= 2**31 else ssrc


def clean_params(params: dict) -> tuple[int, list]:
    """(source, its video source groups) of a client's join JSON; DATA_JSON_INVALID if
    it lacks what the SFU needs to reach the client."""
    if not isinstance(params, dict) or not params.get("ufrag") or not params.get("pwd"):
        raise DataJsonInvalidError()
    if not isinstance(params.get("fingerprints"), list) or not params["fingerprints"]:
        raise DataJsonInvalidError()
    source = source_of(params.get("ssrc"))
    groups = []
    for g in params.get("ssrc-groups") or []:
        if not isinstance(g, dict) or not isinstance(g.get("sources"), list):
            raise DataJsonInvalidError()
        groups.append(
            {"semantics": str(g.get("semantics", "")), "sources": [source_of(s) for s in g["sources"]]}
        )
    return source, groups


def _video(user_id: int, source: int, groups: list, kind: str = "video") -> dict | None:
    if not groups:
        return None
    return {"endpoint": f"{kind}-{user_id}-{source & 0xFFFFFFFF}", "source_groups": groups, "paused": False}


@in_thread
def _participant(call_id: int, user_id: int) -> GroupCallParticipant | None:
    return GroupCallParticipant.objects.filter(call_id=call_id, user_id=user_id).first()


@in_thread
def _source_taken(call_id: int, user_id: int, source: int) -> bool:
    return (
        GroupCallParticipant.objects.filter(call_id=call_id, source=source).exclude(user_id=user_id).exists()
    )


@in_thread
def _pin(call_id: int) -> str:
    with transaction.atomic():
        c = GroupCall.objects.select_for_update().get(id=call_id)
        if not c.node:
            c.node = sfu.node_for_call(call_id)
            c.save(update_fields=["node"])
        return c.node


@in_thread
def _write_join(call_id: int, row: dict) -> tuple[dict, dict, dict | None]:
    """(call, the new participant, the one it replaced or None)."""
    with transaction.atomic():
        c = GroupCall.objects.select_for_update().get(id=call_id)
        if c.state != "active":
            raise GroupcallForbiddenError()
        old = GroupCallParticipant.objects.filter(call=c, user_id=row["user_id"]).first()
        replaced = participant_dict(old, left=True) if old else None
        if old:
            old.delete()
        if GroupCallParticipant.objects.filter(call=c, source=row["source"]).exists():
            raise GroupcallSsrcDuplicateMuchError()
        p = GroupCallParticipant.objects.create(call=c, **row)
        c.version += 1
        c.save(update_fields=["version"])
        c.count = c.participants.count()
        return call_dict(c), participant_dict(p, just_joined=True), replaced


async def do_join_group_call(
    user_id: int, key_id: int, call_id: int, access_hash: int, join_as: tuple[str, int], params: dict, *,
    muted: bool, video_stopped: bool, invite_hash: str = "",
) -> Change:  # fmt: skip
    """phone.joinGroupCall: the node connects the client (its transport answers in
    updateGroupCallConnection), then the participant is written. Joining again (a
    reconnect, another device) replaces the user's previous participation."""
    call, channel, member = await call_for(user_id, call_id, access_hash)
    if call["state"] == "discarded":
        raise GroupcallForbiddenError()
    if call["state"] != "active":
        raise GroupcallInvalidError()
    kind, peer_id = await check_join_as(user_id, join_as)
    source, groups = clean_params(params)
    if await _source_taken(call_id, user_id, source):
        raise GroupcallSsrcDuplicateMuchError()
    admin = may_manage(member)
    speaker_link = bool(invite_hash) and invite_hash == call["invite_hash"]
    can_self_unmute = admin or speaker_link or not call["join_muted"]
    muted = muted or not can_self_unmute
    video = None if video_stopped else _video(user_id, source, groups)
    old = await _participant(call_id, user_id)
    try:
        node = call["node"] or await _pin(call_id)
        if old is not None:
            await _leave_node(node, call_id, old.source)
        transport = await sfu.join(node, call_id, source, params, muted=muted, video=video is not None)
    except ValueError:  # the node could not read the client's JSON
        raise DataJsonInvalidError() from None
    except sfu.SfuUnavailable as exc:
        log.warning("group call %s: no SFU node took the join: %s", call_id, exc)
        raise GroupcallAddParticipantsFailedError() from None
    at = now()
    row = {
        "user_id": user_id, "peer_kind": kind, "peer_id": peer_id, "auth_key_id": key_id, "source": source,
        "muted": muted, "can_self_unmute": can_self_unmute, "video": video, "params": params, "date": at,
        "active_date": at, "alive_at": at,
    }  # fmt: skip
    try:
        call, joined, replaced = await _write_join(call_id, row)
    except GroupcallSsrcDuplicateMuchError:
        raise  # the source is another participant's on the node now: not ours to drop
    except Exception:
        await _leave_node(node, call_id, source)
        raise
    if not channel["call_not_empty"]:
        await do_set_call_state(call["channel_id"], user_id, {"call_not_empty": True})
    gone = [replaced] if replaced and replaced["source"] != source else []
    return Change(call, [*gone, joined], connection=transport)


async def _leave_node(node: str, call_id: int, source: int) -> None:
    if not node or not source:
        return
    try:
        await sfu.leave(node, call_id, source)
    except sfu.SfuUnavailable as exc:
        log.warning("group call %s: node %s did not drop source %s: %s", call_id, node, source, exc)


@in_thread
def _remove(call_id: int, user_id: int, source: int | None = None) -> tuple[dict, dict] | None:
    with transaction.atomic():
        c = GroupCall.objects.select_for_update().get(id=call_id)
        q = GroupCallParticipant.objects.filter(call=c, user_id=user_id)
        if source is not None:
            q = q.filter(source=source)
        p = q.first()
        if p is None:
            return None
        gone = participant_dict(p, left=True)
        p.delete()
        c.version += 1
        c.save(update_fields=["version"])
        c.count = c.participants.count()
        return call_dict(c), gone


async def _after_leave(call: dict, gone: dict) -> Change:
    await _leave_node(call["node"], call["id"], gone["source"])
    await _leave_node(call["node"], call["id"], gone["presentation_source"])
    if call["participants_count"] == 0 and call["state"] == "active":
        await do_set_call_state(call["channel_id"], gone["user_id"], {"call_not_empty": False})
    return Change(call, [gone])


async def do_leave_group_call(user_id: int, call_id: int, access_hash: int, source: int) -> Change:
    await _load_call(call_id, access_hash)
    removed = await _remove(call_id, user_id)
    if removed is None:
        raise GroupcallJoinMissingError()
    return await _after_leave(*removed)


async def do_check_group_call(user_id: int, call_id: int, access_hash: int, sources: list[int]) -> list[int]:
    """phone.checkGroupCall: the asked sources still joined (the main and the
    presentation connection); a sign of life for the liveness job."""
    call = await _load_call(call_id, access_hash)
    if call["state"] != "active":
        raise GroupcallJoinMissingError()
    p = await _touch(call_id, user_id, checks=True)
    if p is None:
        raise GroupcallJoinMissingError()
    present = {p.source, p.presentation_source} - {0}
    return [s for s in sources if s in present]


@in_thread
def _touch(call_id: int, user_id: int, *, checks: bool = False) -> GroupCallParticipant | None:
    fields = {"alive_at": now()}
    if checks:
        fields["checks"] = True
    if not GroupCallParticipant.objects.filter(call_id=call_id, user_id=user_id).update(**fields):
        return None
    return GroupCallParticipant.objects.get(call_id=call_id, user_id=user_id)


@dataclass(slots=True)
class Edit:
    muted: bool | None = None
    volume: int | None = None
    raise_hand: bool | None = None
    video_stopped: bool | None = None
    video_paused: bool | None = None
    presentation_paused: bool | None = None


def plan_edit(p: dict, e: Edit, *, self_: bool, admin: bool, at_ms: int) -> dict:
    """The participant fields an edit changes (rules only: no I/O). Others may only be
    muted, unmuted (allowed to speak), set a volume for everyone and have their hand
    lowered by an admin with manage_call; the rest is the participant's own."""
    out: dict = {}
    if e.muted is not None:
        if self_:
            if not e.muted and not p["can_self_unmute"]:
                raise GroupcallForbiddenError()
            out["muted"] = e.muted
        else:
            if not admin:
                raise ChatAdminRequiredError()
            if e.muted:
                out.update(muted=True, can_self_unmute=False)
            else:
                # Allowed to speak: the participant unmutes themselves when ready.
                out.update(can_self_unmute=True, raise_hand_rating=0)
    if e.volume is not None:
        if not VOLUME_MIN <= e.volume <= VOLUME_MAX:
            raise UserVolumeInvalidError()
        if self_:
            out["volume"] = e.volume
        elif admin:
            out.update(volume=e.volume, volume_by_admin=True)
    if e.raise_hand is not None:
        if self_:
            out["raise_hand_rating"] = at_ms if e.raise_hand else 0
        elif admin and not e.raise_hand:
            out["raise_hand_rating"] = 0
        else:
            raise ChatAdminRequiredError()
    own = (e.video_stopped, e.video_paused, e.presentation_paused)
    if any(v is not None for v in own):
        if not self_:
            raise ChatAdminRequiredError()
        if e.video_stopped is not None:
            out["video"] = None if e.video_stopped else _video(p["user_id"], p["source"], _groups(p))
        if e.video_paused is not None and (out.get("video", p["video"])):
            out["video"] = {**out.get("video", p["video"]), "paused": e.video_paused}
        if e.presentation_paused is not None and p["presentation"]:
            out["presentation"] = {**p["presentation"], "paused": e.presentation_paused}
    return {k: v for k, v in out.items() if p.get(k) != v}


def _groups(p: dict) -> list:
    try:
        return clean_params(p.get("params") or {})[1]
    except DataJsonInvalidError:
        return []


@in_thread
def _find(call_id: int, peer: tuple[str, int]) -> dict | None:
    p = GroupCallParticipant.objects.filter(call_id=call_id, peer_kind=peer[0], peer_id=peer[1]).first()
    if p is None:
        return None
    return {**participant_dict(p), "params": p.params, "pk": p.pk}


@in_thread
def _write_edit(call_id: int, pk: int, fields: dict) -> tuple[dict, dict]:
    with transaction.atomic():
        c = GroupCall.objects.select_for_update().get(id=call_id)
        p = GroupCallParticipant.objects.filter(pk=pk, call=c).first()
        if p is None:
            raise ParticipantJoinMissingError()
        for k, v in fields.items():
            setattr(p, k, v)
        p.alive_at = now()
        p.save()
        c.version += 1
        c.save(update_fields=["version"])
        c.count = c.participants.count()
        return call_dict(c), participant_dict(p)


async def do_edit_group_call_participant(
    user_id: int, call_id: int, access_hash: int, peer: tuple[str, int], edit: Edit
) -> Change:
    """phone.editGroupCallParticipant. An admin's mute is enforced by the node (the
    participant's audio is no longer forwarded), not only shown."""
    call, _, member = await call_for(user_id, call_id, access_hash)
    _live(call)
    p = await _find(call_id, peer)
    if p is None:
        raise ParticipantJoinMissingError()
    fields = plan_edit(
        p, edit, self_=p["user_id"] == user_id, admin=may_manage(member), at_ms=time.time_ns() // 10**6
    )
    if not fields:
        return Change(call)
    forced_before = p["muted"] and not p["can_self_unmute"]
    after = {**p, **fields}
    forced_after = after["muted"] and not after["can_self_unmute"]
    if forced_before != forced_after and call["node"]:
        try:
            await sfu.set_muted(call["node"], call_id, p["source"], forced_after)
        except sfu.SfuUnavailable as exc:
            log.warning("group call %s: the node did not take the mute: %s", call_id, exc)
            raise GroupcallAddParticipantsFailedError() from None
    call, edited = await _write_edit(call_id, p["pk"], fields)
    return Change(call, [edited])


async def do_join_presentation(user_id: int, call_id: int, access_hash: int, params: dict) -> Change:
    """phone.joinGroupCallPresentation: a second connection (screen sharing) on the node."""
    call, _, _ = await call_for(user_id, call_id, access_hash)
    _live(call)
    p = await _participant(call_id, user_id)
    if p is None:
        raise ParticipantJoinMissingError()
    source, groups = clean_params(params)
    if source == p.source or await _source_taken(call_id, user_id, source):
        raise GroupcallSsrcDuplicateMuchError()
    try:
        if p.presentation_source:
            await _leave_node(call["node"], call_id, p.presentation_source)
        transport = await sfu.join(
            call["node"], call_id, source, params, muted=True, video=True, presentation=True
        )
    except ValueError:
        raise DataJsonInvalidError() from None
    except sfu.SfuUnavailable as exc:
        log.warning("group call %s: no SFU node took the presentation: %s", call_id, exc)
        raise GroupcallAddParticipantsFailedError() from None
    video = _video(user_id, source, groups, "presentation") or {
        "endpoint": f"presentation-{user_id}-{source & 0xFFFFFFFF}", "source_groups": [], "paused": False,
    }  # fmt: skip
    video["audio_source"] = source
    call, edited = await _write_edit(call_id, p.pk, {"presentation_source": source, "presentation": video})
    return Change(call, [edited], connection=transport, presentation=True)


async def do_leave_presentation(user_id: int, call_id: int, access_hash: int) -> Change:
    call, _, _ = await call_for(user_id, call_id, access_hash)
    p = await _participant(call_id, user_id)
    if p is None or not p.presentation_source:
        raise ParticipantJoinMissingError()
    await _leave_node(call["node"], call_id, p.presentation_source)
    call, edited = await _write_edit(call_id, p.pk, {"presentation_source": 0, "presentation": None})
    return Change(call, [edited])


# ---- reads ----


@in_thread
def participants_page(
    call_id: int,
    *,
    peers: list[tuple[str, int]] = (),
    sources: list[int] = (),
    offset: str = "",
    limit: int = 0,
) -> tuple[int, list[dict], str]:
    """(count, a page of participants in join order, next_offset). A client loops while
    next_offset is non-empty: the last page answers "". Filters by peers and sources
    answer every match at once."""
    limit = PAGE_DEFAULT if limit <= 0 else min(limit, PAGE_MAX)
    q = GroupCallParticipant.objects.filter(call_id=call_id)
    count = q.count()
    if peers or sources:
        from django.db.models import Q

        cond = Q(pk__in=[])
        for kind, pid in peers:
            cond |= Q(peer_kind=kind, peer_id=pid)
        if sources:
            cond |= Q(source__in=list(sources)) | Q(presentation_source__in=list(sources))
        return count, [participant_dict(p) for p in q.filter(cond).order_by("pk")], ""
    after = int(offset) if offset.isdigit() else 0
    rows = list(q.filter(pk__gt=after).order_by("pk")[: limit + 1])
    more = len(rows) > limit
    rows = rows[:limit]
    return count, [participant_dict(p) for p in rows], str(rows[-1].pk) if more else ""


async def invite_check(user_id: int, call_id: int, access_hash: int) -> dict:
    call, _, _ = await call_for(user_id, call_id, access_hash)
    if call["state"] == "discarded":
        raise GroupcallForbiddenError()
    return call


async def do_invite_to_group_call(
    user_id: int, call_id: int, access_hash: int, invitees: list[int]
) -> Change:
    """phone.inviteToGroupCall: an "invited to the voice chat" message in the chat."""
    call = await invite_check(user_id, call_id, access_hash)
    ref = {"call_id": call["id"], "call_access_hash": call["access_hash"]}
    action = {"_": "inviteToGroupCall", **ref, "users": sorted(set(invitees))}
    change = await do_set_call_state(call["channel_id"], user_id, {}, action)
    return Change(call, chat_change=change)


async def do_export_invite(user_id: int, call_id: int, access_hash: int, can_self_unmute: bool) -> str:
    """phone.exportGroupCallInvite: a listener link, or (manage_call) a speaker link
    whose hash lets its holder unmute in a join-muted call."""
    call, channel, member = await call_for(user_id, call_id, access_hash)
    _live(call)
    base = f"https://t.me/{channel['username']}" if channel["username"] else f"https://t.me/c/{channel['id']}"
    if not can_self_unmute:
        return f"{base}?voicechat"
    _require_manage(member)
    if not call["invite_hash"]:
        call = await _set_settings(call_id, None, True)
    return f"{base}?voicechat={call['invite_hash']}"


# ---- liveness ----


@in_thread
def stale_participants(at: int, limit: int = 200) -> list[tuple[int, int, bool]]:
    """(call id, user id, checks) of participants without a sign of life for
    ``LIVENESS_SECONDS`` before ``at``."""
    rows = GroupCallParticipant.objects.filter(alive_at__lt=at - LIVENESS_SECONDS).values_list(
        "call_id", "user_id", "checks"
    )[:limit]
    return list(rows)


@in_thread
def keep_alive(pairs: list[tuple[int, int]]) -> None:
    at = now()
    for call_id, user_id in pairs:
        GroupCallParticipant.objects.filter(call_id=call_id, user_id=user_id).update(alive_at=at)


async def do_drop_participant(call_id: int, user_id: int) -> Change | None:
    """The liveness job's leave (no RPC: the device is gone)."""
    removed = await _remove(call_id, user_id)
    if removed is None:
        return None
    return await _after_leave(*removed)


@in_thread
def live_calls_of(channel_ids: list[int]) -> dict[int, dict]:
    return {
        c.channel_id: call_dict(c)
        for c in GroupCall.objects.filter(channel_id__in=channel_ids, state__in=LIVE)
    }
