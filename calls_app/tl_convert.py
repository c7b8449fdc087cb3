"""TL objects of private calls: one ``PhoneCall`` constructor per state, as each side
sees it (the callee gets ``g_a``, the caller ``g_b``; each its own TURN credentials)."""

from __future__ import annotations

import json

from private_app.tl_convert import call_reason_to_tl
from tl import types

from . import turn


def protocol_to_tl(p: dict):
    return types.PhoneCallProtocol(
        udp_p2p=p.get("udp_p2p", False), udp_reflector=p.get("udp_reflector", False),
        min_layer=p.get("min_layer", 0), max_layer=p.get("max_layer", 0),
        library_versions=list(p.get("library_versions") or []),
    )  # fmt: skip


def protocol_from_tl(p) -> dict:
    return {
        "udp_p2p": bool(p.udp_p2p), "udp_reflector": bool(p.udp_reflector),
        "min_layer": p.min_layer, "max_layer": p.max_layer, "library_versions": list(p.library_versions or []),
    }  # fmt: skip


REASONS_FROM_TL = {
    types.PhoneCallDiscardReasonHangup: "hangup",
    types.PhoneCallDiscardReasonBusy: "busy",
    types.PhoneCallDiscardReasonMissed: "missed",
    types.PhoneCallDiscardReasonDisconnect: "disconnect",
}


def reason_from_tl(reason) -> str:
    return REASONS_FROM_TL.get(type(reason), "hangup")


def connections_to_tl(viewer_id: int, at: int) -> list:
    return [_connection(r) for r in turn.relays_for(viewer_id, at)]


def _connection(r: turn.Relay):
    return types.PhoneConnectionWebrtc(
        id=r.id, ip=r.host, ipv6="", port=r.port, username=r.username, password=r.password,
        turn=r.turn, stun=r.stun,
    )  # fmt: skip


def phone_call_to_tl(c: dict, view: str, viewer_id: int, at: int):
    """``view``: requested, waiting, accepted, active, discarded, or ``gone`` (the
    discarded call as a callee device that did not answer sees it: no reason, no rating)."""
    common = {
        "id": c["id"], "access_hash": c["access_hash"], "date": c["date"], "admin_id": c["admin_id"],
        "participant_id": c["participant_id"], "video": c["video"],
    }  # fmt: skip
    proto = protocol_to_tl(c["protocol"])
    if view == "requested":
        return types.PhoneCallRequested(**common, g_a_hash=bytes.fromhex(c["g_a_hash"]), protocol=proto)
    if view == "waiting":
        return types.PhoneCallWaiting(**common, protocol=proto, receive_date=c["receive_date"] or None)
    if view == "accepted":
        return types.PhoneCallAccepted(**common, g_b=bytes.fromhex(c["g_b"]), protocol=proto)
    if view == "active":
        caller = viewer_id == c["admin_id"]
        return types.PhoneCall(
            **common, p2p_allowed=c["p2p_allowed"], g_a_or_b=bytes.fromhex(c["g_b"] if caller else c["g_a"]),
            key_fingerprint=c["key_fingerprint"], protocol=proto, connections=connections_to_tl(viewer_id, at),
            start_date=c["start_date"],
        )  # fmt: skip
    if view == "gone":
        return types.PhoneCallDiscarded(id=c["id"], video=c["video"])
    answered = bool(c["start_date"])
    return types.PhoneCallDiscarded(
        id=c["id"], video=c["video"], need_rating=answered, reason=call_reason_to_tl(c["reason"]),
        duration=c["duration"] if answered else None,
    )  # fmt: skip


def phone_call_answer(c: dict, view: str, viewer_id: int, at: int, users: list):
    return types.phone.PhoneCall(phone_call=phone_call_to_tl(c, view, viewer_id, at), users=users)


def call_updates(c: dict, view: str, viewer_id: int, at: int, users: list):
    update = types.UpdatePhoneCall(phone_call=phone_call_to_tl(c, view, viewer_id, at))
    return types.Updates(updates=[update], users=users, chats=[], date=at, seq=0)


def signaling_update(call_id: int, data: bytes, at: int):
    return types.UpdateShort(
        update=types.UpdatePhoneCallSignalingData(phone_call_id=call_id, data=data), date=at
    )


def call_config_to_tl(config: dict):
    return types.DataJSON(data=json.dumps(config, separators=(",", ":")))


def debug_from_tl(debug) -> str:
    return getattr(debug, "data", "") or ""
