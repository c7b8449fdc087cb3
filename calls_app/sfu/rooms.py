"""A group call on Janus: one AudioBridge room per call, one participant per member.

AudioBridge is the Janus plugin that fits Telegram's single-transport client: each
member's one PeerConnection both sends its microphone and receives the room's mix
(everyone but itself) as one Opus stream, which ntgcalls plays as an unknown incoming
SSRC of payload type 111. Room id = group call id, participant id = the member's audio
SSRC (``source``), and the participant's own Janus session id is derived from both, so
leave / mute / end need no state beyond Janus itself: any listener can do them, and a
member whose connection already died (Janus then takes it out of the room) still has its
session ended by the leave signalling sends.
"""

from __future__ import annotations

import hashlib
import logging

from calls_app.sfu import janus_api, nodes, sdp
from calls_app.sfu.errors import SfuUnavailable

log = logging.getLogger(__name__)

PLUGIN = "janus.plugin.audiobridge"
# janus_audiobridge.c error codes
ROOM_EXISTS = 486
NO_SUCH_ROOM = 485
NO_SUCH_USER = 492
ID_EXISTS = 490

_control = janus_api.Control(PLUGIN)


def _room(call_id: int) -> int:
    # Janus' numeric ids are JSON numbers it keeps as 64-bit unsigned: call ids fit.
    return int(call_id) & 0x7FFFFFFFFFFFFFFF


def _session_id(call_id: int, pid: int) -> int:
    """The participant's Janus session id: JSON-safe (53 bits), never 0."""
    digest = hashlib.blake2b(f"{call_id}:{pid}".encode(), digest_size=8).digest()
    return (int.from_bytes(digest) & (2**53 - 1)) or 1


async def _end_session(base: str, session: int) -> None:
    try:
        await janus_api.destroy_session(base, session)
    except janus_api.JanusError as e:
        if e.code != janus_api.SESSION_NOT_FOUND:
            raise SfuUnavailable(f"destroy session: {e}") from e
    except janus_api.JanusUnreachable as e:
        raise SfuUnavailable(str(e)) from e


def _base(node: str) -> str:
    try:
        return nodes.url_of(node)
    except nodes.UnknownNode as e:
        raise SfuUnavailable(f"SFU node {node!r} is not configured") from e


async def _ask(node: str, body: dict) -> dict:
    try:
        return await _control.request(_base(node), body)
    except janus_api.JanusUnreachable as e:
        raise SfuUnavailable(str(e)) from e


async def _ensure_room(node: str, call_id: int) -> None:
    try:
        await _ask(node, {
            "request": "create", "room": _room(call_id), "permanent": False, "is_private": True,
            "sampling_rate": 48000, "audiolevel_ext": True, "audiolevel_event": False,
            "record": False,
        })  # fmt: skip
    except janus_api.JanusError as e:
        if e.code != ROOM_EXISTS:
            raise SfuUnavailable(f"audiobridge create: {e}") from e


async def _participants(node: str, call_id: int) -> list[dict]:
    try:
        data = await _ask(node, {"request": "listparticipants", "room": _room(call_id)})
    except janus_api.JanusError as e:
        if e.code == NO_SUCH_ROOM:
            return []
        raise SfuUnavailable(f"audiobridge listparticipants: {e}") from e
    return data.get("participants") or []


async def _drop(node: str, call_id: int, pid: int) -> None:
    """End a participant's own Janus session (its PeerConnection goes with it), and
    take it out of the room should it still be there."""
    await _end_session(_base(node), _session_id(call_id, pid))
    try:
        await _ask(node, {"request": "kick", "room": _room(call_id), "id": pid})
    except janus_api.JanusError as e:
        if e.code not in (NO_SUCH_ROOM, NO_SUCH_USER):
            raise SfuUnavailable(f"audiobridge kick: {e}") from e


async def join(
    node: str, call_id: int, source: int, params: dict, *, muted: bool, video: bool, presentation: bool
) -> dict:
    try:
        client = sdp.JoinParams.parse(params)
    except sdp.BadJoinParams as e:
        raise ValueError(f"bad join params: {e}") from e
    base = _base(node)
    await _ensure_room(node, call_id)
    pid = int(source) & 0xFFFFFFFF
    # A member joining again (another device, a reconnect) replaces its old connection.
    await _drop(node, call_id, pid)
    try:
        session = await janus_api.create_session(base, _session_id(call_id, pid))
        handle = await janus_api.attach(base, session, PLUGIN)
        body = {
            "request": "join", "room": _room(call_id), "id": pid, "display": str(session),
            "muted": bool(muted), "codec": "opus", "generate_offer": True,
        }  # fmt: skip
        data, jsep = await janus_api.request_async(base, session, handle, body)
        if not jsep or jsep.get("type") != "offer":
            raise SfuUnavailable(f"audiobridge join gave no offer: {data}")
        offer = sdp.ServerSdp.parse(jsep["sdp"])
        answer = sdp.answer_for(client, offer)
        await janus_api.request_async(
            base, session, handle, {"request": "configure"}, {"type": "answer", "sdp": answer}
        )
    except janus_api.JanusUnreachable as e:
        raise SfuUnavailable(str(e)) from e
    except janus_api.JanusError as e:
        raise SfuUnavailable(f"audiobridge join: {e}") from e
    log.debug("sfu join call=%s source=%s offer=%s answer=%s", call_id, pid, jsep["sdp"], answer)
    return sdp.telegram_json(offer)


async def leave(node: str, call_id: int, source: int) -> None:
    await _drop(node, call_id, int(source) & 0xFFFFFFFF)


async def set_muted(node: str, call_id: int, source: int, muted: bool) -> None:
    pid = int(source) & 0xFFFFFFFF
    try:
        await _ask(node, {"request": "mute" if muted else "unmute", "room": _room(call_id), "id": pid})
    except janus_api.JanusError as e:
        if e.code not in (NO_SUCH_ROOM, NO_SUCH_USER):
            raise SfuUnavailable(f"audiobridge mute: {e}") from e


async def end_call(node: str, call_id: int) -> None:
    for p in await _participants(node, call_id):
        await _drop(node, call_id, int(p["id"]))
    try:
        await _ask(node, {"request": "destroy", "room": _room(call_id)})
    except janus_api.JanusError as e:
        if e.code != NO_SUCH_ROOM:
            raise SfuUnavailable(f"audiobridge destroy: {e}") from e
