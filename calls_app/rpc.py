"""phone.* of private calls and messages.getDhConfig: thin handlers over
``calls_app.actions``; the pushes after each change (``calls_app.push``); the history
message each ended call leaves (``private_app.call_messages``)."""

from __future__ import annotations

import asyncio
import logging
import os

from accounts_app.access import check_input_user
from accounts_app.rpc.context import viewer_id
from edge_app.dc import Limits
from edge_app.registry import rpc
from message_core.clock import now
from message_core.context import users_for
from mtproto.crypto.dh import DH_G, DH_PRIME
from private_app.call_messages import do_record_call
from tl import functions, types
from tl.errors import CallPeerInvalidError

from . import actions, push, tl_convert

log = logging.getLogger("telesrv.calls")

DH_VERSION = 1
RANDOM_MAX = 1024  # bytes of messages.getDhConfig's random
BUSY_NOTICE_DELAY = 0.2  # s: the caller's client knows the call from the answer first

_signal_locks: dict[int, list] = {}  # call id -> [lock, requests holding or awaiting it]
_background: set[asyncio.Task] = set()


def _ref(peer) -> tuple[int, int]:
    if not isinstance(peer, types.InputPhoneCall):
        raise CallPeerInvalidError()
    return peer.id, peer.access_hash


async def _users(me: int, call: dict) -> list:
    return await users_for(me, [call["admin_id"], call["participant_id"]])


async def after_end(ended: actions.Ended, acting_key: int = 0) -> None:
    """Tell both sides' devices (but the one whose request ended it: its answer does)
    and write the call into both histories."""
    c = ended.call
    targets = []
    if c["admin_key_id"] != acting_key:
        targets.append((c["admin_id"], c["admin_key_id"], 0, "discarded"))
    if ended.rang_devices_of_callee:
        targets.append((c["participant_id"], 0, acting_key, "discarded"))
    elif c["participant_key_id"] != acting_key:
        targets.append((c["participant_id"], c["participant_key_id"], 0, "discarded"))
    await push.push_state(c, targets)
    try:
        await do_record_call(
            c["admin_id"],
            c["participant_id"],
            c["id"],
            video=c["video"],
            reason=c["reason"],
            duration=c["duration"],
        )
    except Exception:
        # The call has ended for both sides either way; only its history line is lost.
        log.exception("call %s: the history message was not written", c["id"])


async def _busy_later(ended: actions.Ended) -> None:
    await asyncio.sleep(BUSY_NOTICE_DELAY)
    await after_end(ended)


@rpc(functions.messages.GetDhConfig)
async def get_dh_config(ctx, req: functions.messages.GetDhConfig):
    # Always the full config: call stacks ask with version 0 and keep no copy.
    random = os.urandom(max(0, min(req.random_length, RANDOM_MAX)))
    return types.messages.DhConfig(g=DH_G, p=DH_PRIME.to_bytes(256, "big"), version=DH_VERSION, random=random)


@rpc(functions.phone.GetCallConfig)
async def get_call_config(ctx, req: functions.phone.GetCallConfig):
    viewer_id(ctx)
    limits = Limits()
    return tl_convert.call_config_to_tl({
        "call_receive_timeout_ms": limits.call_receive_timeout_ms, "call_ring_timeout_ms": limits.call_ring_timeout_ms,
        "call_connect_timeout_ms": limits.call_connect_timeout_ms, "call_packet_timeout_ms": limits.call_packet_timeout_ms,
    })  # fmt: skip


@rpc(functions.phone.RequestCall)
async def request_call(ctx, req: functions.phone.RequestCall):
    me = viewer_id(ctx)
    callee = check_input_user(me, req.user_id)
    r = await actions.do_request_call(
        me, callee, req.random_id, req.g_a_hash, tl_convert.protocol_from_tl(req.protocol),
        video=bool(req.video), key_id=ctx.perm_auth_key_id,
    )  # fmt: skip
    if r.busy is not None:
        task = asyncio.get_running_loop().create_task(_busy_later(r.busy))
        _background.add(task)
        task.add_done_callback(_background.discard)
    elif r.fresh:
        await push.push_state(r.call, [(callee, 0, 0, "requested")])
    return tl_convert.phone_call_answer(r.call, "waiting", me, now(), await _users(me, r.call))


@rpc(functions.phone.ReceivedCall)
async def received_call(ctx, req: functions.phone.ReceivedCall):
    me = viewer_id(ctx)
    call = await actions.do_received_call(me, *_ref(req.peer))
    if call is not None:
        await push.push_state(call, [(call["admin_id"], call["admin_key_id"], 0, "waiting")])
    return True


@rpc(functions.phone.AcceptCall)
async def accept_call(ctx, req: functions.phone.AcceptCall):
    me = viewer_id(ctx)
    key = ctx.perm_auth_key_id
    call = await actions.do_accept_call(
        me, *_ref(req.peer), req.g_b, tl_convert.protocol_from_tl(req.protocol), key_id=key
    )
    # The caller gets g_b; the callee's other devices stop ringing.
    await push.push_state(
        call, [(call["admin_id"], call["admin_key_id"], 0, "accepted"), (me, 0, key, "gone")]
    )
    return tl_convert.phone_call_answer(call, "waiting", me, now(), await _users(me, call))


@rpc(functions.phone.ConfirmCall)
async def confirm_call(ctx, req: functions.phone.ConfirmCall):
    me = viewer_id(ctx)
    call = await actions.do_confirm_call(
        me, *_ref(req.peer), req.g_a, req.key_fingerprint, tl_convert.protocol_from_tl(req.protocol)
    )
    await push.push_state(call, [(call["participant_id"], call["participant_key_id"], 0, "active")])
    return tl_convert.phone_call_answer(call, "active", me, now(), await _users(me, call))


@rpc(functions.phone.DiscardCall)
async def discard_call(ctx, req: functions.phone.DiscardCall):
    me = viewer_id(ctx)
    key = ctx.perm_auth_key_id
    ended = await actions.do_discard_call(
        me, *_ref(req.peer), tl_convert.reason_from_tl(req.reason), key_id=key
    )
    if isinstance(ended, actions.Ended):
        await after_end(ended, acting_key=key)
        call = ended.call
    else:
        call = ended
    at = now()
    return tl_convert.call_updates(call, "discarded", me, at, await _users(me, call))


@rpc(functions.phone.SendSignalingData)
async def send_signaling_data(ctx, req: functions.phone.SendSignalingData):
    me = viewer_id(ctx)
    call_id, access_hash = _ref(req.peer)
    # Taken first thing: a device's signalling requests reach this listener in order
    # and are published in that order (asyncio.Lock wakes waiters first come, first served).
    entry = _signal_locks.setdefault(call_id, [asyncio.Lock(), 0])
    entry[1] += 1
    try:
        async with entry[0]:
            call = await actions.check_signaling(me, call_id, access_hash, req.data)
            if me == call["admin_id"]:
                to = (call["participant_id"], call["participant_key_id"])
            else:
                to = (call["admin_id"], call["admin_key_id"])
            await push.push_signaling(call_id, *to, req.data)
    finally:
        entry[1] -= 1
        if not entry[1]:
            del _signal_locks[call_id]
    return True


@rpc(functions.phone.SetCallRating)
async def set_call_rating(ctx, req: functions.phone.SetCallRating):
    me = viewer_id(ctx)
    await actions.do_rate_call(me, *_ref(req.peer), req.rating, req.comment)
    return types.Updates(updates=[], users=[], chats=[], date=now(), seq=0)


@rpc(functions.phone.SaveCallDebug)
async def save_call_debug(ctx, req: functions.phone.SaveCallDebug):
    me = viewer_id(ctx)
    await actions.do_save_debug(me, *_ref(req.peer), tl_convert.debug_from_tl(req.debug))
    return True


@rpc(functions.phone.SaveCallLog)
async def save_call_log(ctx, req: functions.phone.SaveCallLog):
    # The log file itself stays on the client: operators see that one was offered.
    me = viewer_id(ctx)
    await actions.do_save_debug(me, *_ref(req.peer), "", log=True)
    return True
