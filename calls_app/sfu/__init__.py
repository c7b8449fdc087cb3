"""The media plane of group calls: a selective forwarding unit (SFU) node per call.

This is the whole surface group-call signalling may use. Signalling pins each call to one
node (``node_for_call``), stores the node's name on the call, and calls the coroutines
below with it; everything about the SFU itself (its API, its terms for ICE/DTLS/SSRCs,
which rooms and handles exist) stays behind them.

``params`` is the client's ``phone.joinGroupCall`` JSON, decoded: ``ufrag``, ``pwd``,
``fingerprints`` [{hash, setup, fingerprint}], ``ssrc``, ``ssrc-groups``. ``join`` answers
the media-server JSON (decoded) that goes into ``updateGroupCallConnection.params``:
``transport {ufrag, pwd, fingerprints, candidates}`` plus the ``audio`` / ``video``
payload types and header extensions.

The engine is Janus (``calls_app/sfu/janus/``, ``manage.py runsfu``); how a call maps
onto it is in ``calls_app.sfu.rooms``.
"""

from __future__ import annotations

from calls_app.sfu import nodes, rooms
from calls_app.sfu.errors import SfuUnavailable

__all__ = ["SfuUnavailable", "end_call", "join", "leave", "node_for_call", "set_muted"]


def node_for_call(call_id: int) -> str:
    """The configured node a new call is pinned to (stable for a given call id)."""
    node = nodes.pick(call_id)
    if node is None:
        raise SfuUnavailable("no SFU node configured (TELESRV_SFU_NODES)")
    return node


async def join(
    node: str,
    call_id: int,
    source: int,
    params: dict,
    *,
    muted: bool,
    video: bool,
    presentation: bool = False,
) -> dict:
    return await rooms.join(
        node, call_id, source, params, muted=muted, video=video, presentation=presentation
    )


async def leave(node: str, call_id: int, source: int) -> None:
    await rooms.leave(node, call_id, source)


async def set_muted(node: str, call_id: int, source: int, muted: bool) -> None:
    await rooms.set_muted(node, call_id, source, muted)


async def end_call(node: str, call_id: int) -> None:
    await rooms.end_call(node, call_id)
