"""A group call on Janus: one AudioBridge room per call, one participant per member.

AudioBridge is the Janus plugin that fits Telegram's single-transport client: each
member's one PeerConnection both sends its microphone and receives the room's mix
(everyone but itself) as one Opus stream, which ntgcalls plays as an unknown incoming
SSRC of payload type 111. Room id = group call id, participant id = the member's audio
SSRC (``source``), so leave / mute / end need no state beyond Janus itself.
"""

from __future__ import annotations

import logging

from calls_app.sfu import janus_api, nodes, sdp
from calls_app.sfu.errors import SfuUnavailable

log = logging.getLogger(__name__)

PLUGIN = "janus.plugin.audiobridge"
ROOM_EXISTS = 486
NO_SUCH_ROOM = 485
NO_SUCH_USER = 488
ID_EXISTS = 491

_control = janus_api.Control(PLUGIN)


def _room(call_id: int) -> int:
    # Janus' numeric ids are JSON numbers it keeps as 64-bit unsigned: call ids fit.
    return int(call_id) & 0x7FFFFFFFFFFFFFFF


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


async def _drop(node: str, call_id: int, participant: dict) -> None:
    """End a participant's own Janus session (its PeerConnection goes with it)."""
    base = _base(node)
    session = str(participant.get("display") or "")
    if session.isdigit():
        try:
            await janus_api.destroy_session(base, int(session))
            return
        except janus_api.JanusError:
            pass
        except janus_api.JanusUnreachable as e:
            raise SfuUnavailable(str(e)) from e
    try:
        await _ask(node, {"request": "kick", "room": _room(call_id), "id": participant["id"]})
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
    for p in await _participants(node, call_id):
        if p.get("id") == pid:
            await _drop(node, call_id, p)
    try:
        session = await janus_api.create_session(base)
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
    pid = int(source) & 0xFFFFFFFF
    for p in await _participants(node, call_id):
        if p.get("id") == pid:
            await _drop(node, call_id, p)


async def set_muted(node: str, call_id: int, source: int, muted: bool) -> None:
    pid = int(source) & 0xFFFFFFFF
    try:
        await _ask(node, {"request": "mute" if muted else "unmute", "room": _room(call_id), "id": pid})
    except janus_api.JanusError as e:
        if e.code not in (NO_SUCH_ROOM, NO_SUCH_USER):
            raise SfuUnavailable(f"audiobridge mute: {e}") from e


async def end_call(node: str, call_id: int) -> None:
    for p in await _participants(node, call_id):
        await _drop(node, call_id, p)
    try:
        await _ask(node, {"request": "destroy", "room": _room(call_id)})
    except janus_api.JanusError as e:
        if e.code != NO_SUCH_ROOM:
            raise SfuUnavailable(f"audiobridge destroy: {e}") from e
