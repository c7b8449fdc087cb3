"""account.*NotifySettings / getNotifyExceptions: mute and notification settings."""

from __future__ import annotations

from asgiref.sync import sync_to_async

from accounts_app import notify_settings as ns
from accounts_app import tl_convert, tl_convert_settings
from accounts_app.access import check_input_peer_user
from accounts_app.rpc.context import own_session, viewer_id
from accounts_app.updates import push_user_updates
from edge_app.registry import rpc
from tl import functions, types
from tl.errors import PeerIdInvalidError

_USER_PEERS = (types.InputPeerUser, types.InputPeerSelf)


async def _peer_target(me: int, notify_peer) -> tuple[str, int, ns.PeerStore | None]:
    """``(scope, peer_id, store)`` an InputNotifyPeer names (store None: kept here)."""
    kind = tl_convert_settings.input_notify_kind(notify_peer)
    if kind is not None:
        return kind, 0, None
    if isinstance(notify_peer, types.InputNotifyForumTopic):
        # Topics have no settings of their own here: they follow their forum's.
        notify_peer = types.InputNotifyPeer(peer=notify_peer.peer)
    if not isinstance(notify_peer, types.InputNotifyPeer):
        raise PeerIdInvalidError()
    peer = notify_peer.peer
    if isinstance(peer, _USER_PEERS):
        return ns.USER, check_input_peer_user(me, peer), None
    for store in ns.peer_stores():
        peer_id = await store.resolve(me, peer)
        if peer_id is not None:
            return store.scope, peer_id, store
    raise PeerIdInvalidError()


@rpc(functions.account.UpdateNotifySettings)
async def update_notify_settings(ctx, req: functions.account.UpdateNotifySettings):
    me = viewer_id(ctx)
    scope, peer_id, store = await _peer_target(me, req.peer)
    settings = ns.clean_settings(tl_convert_settings.notify_settings_from_tl(req.settings))
    if store is None:
        event = await sync_to_async(ns.set_settings)(me, scope, peer_id, settings)
    else:
        await store.write(me, peer_id, settings)
        event = await sync_to_async(ns.log_settings_change)(me, scope, peer_id, settings)
    await push_user_updates([event], exclude=own_session(ctx))
    return True


@rpc(functions.account.GetNotifySettings)
async def get_notify_settings(ctx, req: functions.account.GetNotifySettings):
    me = viewer_id(ctx)
    scope, peer_id, store = await _peer_target(me, req.peer)
    if scope in ns.KINDS:
        return tl_convert_settings.kind_notify_settings_to_tl(await sync_to_async(ns.get_settings)(me, scope))
    if store is None:
        settings = await sync_to_async(ns.get_settings)(me, scope, peer_id)
    else:
        settings = (await store.read(me, [peer_id])).get(peer_id, {})
    return tl_convert_settings.peer_notify_settings_to_tl(settings)


@rpc(functions.account.GetNotifyExceptions)
async def get_notify_exceptions(ctx, req: functions.account.GetNotifyExceptions):
    me = viewer_id(ctx)
    only = tl_convert_settings.input_notify_kind(req.peer) if req.peer is not None else None
    items: list[tuple[str, int, dict]] = []
    if only in (None, "users"):
        rows = await sync_to_async(ns.user_peer_exceptions)(me, ns.EXCEPTIONS_CAP)
        items += [(ns.USER, pid, s) for pid, s in rows]
    chats: list = []
    for store in ns.peer_stores():
        rows = [r for r in await store.exceptions(me, ns.EXCEPTIONS_CAP) if only in (None, r[1])]
        if rows:
            chats += await store.chats(me, [pid for pid, _, _ in rows])
            items += [(store.scope, pid, s) for pid, _, s in rows]
    items = items[: ns.EXCEPTIONS_CAP]
    updates = [
        tl_convert_settings.notify_settings_update_to_tl({"scope": scope, "peer_id": pid, "settings": s})
        for scope, pid, s in items
    ]
    users = await tl_convert.users_to_tl([pid for scope, pid, _ in items if scope == ns.USER], me)
    return tl_convert.updates_to_tl(updates, users, chats)


@rpc(functions.account.ResetNotifySettings)
async def reset_notify_settings(ctx, req: functions.account.ResetNotifySettings):
    events = await ns.do_reset_all(viewer_id(ctx))
    await push_user_updates(events, exclude=own_session(ctx))
    return True
