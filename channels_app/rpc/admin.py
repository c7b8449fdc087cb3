"""channels.editAdmin / editBanned / deleteChannel / getAdminLog, and the online pushes
of the administration surface (updateChannelParticipant, updatePendingJoinRequests)."""

from __future__ import annotations

from edge_app.push import push_to_users, renderer
from edge_app.registry import rpc
from message_core.context import origin as push_origin
from message_core.context import resolve_input_user, users_for, viewer
from tl import functions

from .. import actions, notify, rights, tl_convert, tl_convert_admin
from ..access import channel_ref
from ..actions import admin, admin_log, invites
from ..actions.common import participant_refs
from ..chat_context import chats_for
from ..errors import ChannelPrivateError, LimitInvalidError
from .context import context_for

PARTICIPANT = "channel_admin.participant"
PENDING = "channel_admin.pending"


async def checked_channel(me: int, input_channel, *, preview: bool = False) -> tuple[dict, dict | None]:
    cid, access_hash = channel_ref(input_channel)
    return await actions.get_channel_for_viewer(me, cid, access_hash, preview=preview)


async def state_updates(me: int, channel_id: int, *, extra=()):
    """Updates{[extra..., updateChannel]} with the channel as ``me`` now sees it."""
    chats = await chats_for(me, [channel_id])
    return tl_convert.updates_to_tl([*extra, tl_convert.update_channel_to_tl(channel_id)], [], chats)


async def change_updates(me: int, change, *, extra=()):
    """A ChannelChange (events that took pts) + updateChannel, with users and chats."""
    msgs = [e.message for e in change.events if e.message and e.type in ("new_message", "edit_message")]
    users, chats = await context_for(me, msgs, change.user_ids, [change.channel["id"]])
    ups = [tl_convert.event_to_update(ev, me) for ev in change.events]
    return tl_convert.updates_to_tl(
        [*ups, *extra, tl_convert.update_channel_to_tl(change.channel["id"])], users, chats
    )


async def _member_of(viewer_id: int, channel_id: int) -> dict | None:
    try:
        _, member = await actions.get_channel_for_viewer(viewer_id, channel_id, 0)
    except ChannelPrivateError:
        return None
    return member


async def member_update_to_tl(me: int, up: admin.MemberUpdate):
    cid = up.channel["id"]
    payload = {
        "channel_id": cid, "actor_user_id": up.actor_user_id, "user_id": up.user_id, "date": up.date,
        "prev": up.prev, "new": up.new,
    }  # fmt: skip
    viewer_member = await _member_of(me, cid)
    msgs = [e.message for e in up.events if e.message]
    users, chats = await context_for(me, msgs, participant_refs([up.prev, up.new], up.user_ids | {me}), [cid])
    ups = [tl_convert.event_to_update(e, me) for e in up.events]
    ups += [
        tl_convert_admin.participant_update_to_tl(payload, me, viewer_member),
        tl_convert.update_channel_to_tl(cid),
    ]
    return tl_convert.updates_to_tl(ups, users, chats)


def _peer_user_id(me: int, peer) -> int:
    from accounts_app.access import check_input_peer_user

    # channels as participants (send-as peers) are not modelled: PEER_ID_INVALID
    return check_input_peer_user(me, peer)


@rpc(functions.channels.EditAdmin)
async def edit_admin(ctx, req: functions.channels.EditAdmin):
    me = viewer(ctx)
    channel, _ = await checked_channel(me, req.channel)
    user_id = resolve_input_user(me)(req.user_id)
    mask = rights.names_to_flags(req.admin_rights, rights.ADMIN_FLAGS)
    up = await admin.do_edit_admin(me, channel["id"], user_id, mask, req.rank or "")
    return await member_update_to_tl(me, up)


@rpc(functions.channels.EditBanned)
async def edit_banned(ctx, req: functions.channels.EditBanned):
    me = viewer(ctx)
    channel, _ = await checked_channel(me, req.channel)
    user_id = _peer_user_id(me, req.participant)
    mask = rights.names_to_flags(req.banned_rights, rights.BANNED_FLAGS)
    up = await admin.do_edit_banned(me, channel["id"], user_id, mask, req.banned_rights.until_date or 0)
    return await member_update_to_tl(me, up)


@rpc(functions.channels.DeleteChannel)
async def delete_channel(ctx, req: functions.channels.DeleteChannel):
    me = viewer(ctx)
    channel, _ = await checked_channel(me, req.channel)
    await admin.do_delete_channel(me, channel["id"])
    return await state_updates(me, channel["id"])  # the chat is channelForbidden now


_FILTER_FLAGS = tuple(admin_log.FILTER_TYPES)


@rpc(functions.channels.GetAdminLog)
async def get_admin_log(ctx, req: functions.channels.GetAdminLog):
    me = viewer(ctx)
    channel, member = await checked_channel(me, req.channel)
    if req.limit < 0:
        raise LimitInvalidError()
    filters = None
    if req.events_filter is not None:
        filters = {f for f in _FILTER_FLAGS if getattr(req.events_filter, f, False)}
        # A filter naming only kinds this server does not record (group calls, forums,
        # subscriptions) selects nothing rather than everything.
        filters = filters or {"__none__"}
    admin_ids = None
    if req.admins:
        resolve = resolve_input_user(me)
        admin_ids = []
        for u in req.admins[: admin_log.ADMINS_MAX]:
            try:
                admin_ids.append(resolve(u))
            except Exception:  # an unresolvable admin simply matches nothing
                continue
        admin_ids = admin_ids or [-1]
    page = await admin_log.get_admin_log(
        me, channel["id"], q=req.q, filters=filters, admin_ids=admin_ids,
        max_id=req.max_id, min_id=req.min_id, limit=req.limit,
    )  # fmt: skip
    msgs = []
    for e in page.events:
        d = e["data"] or {}
        msgs += [d[k] for k in ("message", "prev_message", "new_message") if isinstance(d.get(k), dict)]
    # A linked-chat change names both discussion groups (or broadcasts).
    linked = [d[k] for e in page.events if e["event_type"] == "change_linked_chat" for d in [e["data"] or {}]
              for k in ("prev", "new") if d.get(k)]  # fmt: skip
    users, chats = await context_for(
        me, msgs, page.user_ids, [channel["id"], *linked], {channel["id"]: (channel, member)}
    )
    return tl_convert_admin.admin_log_to_tl(page.events, me, member, chats, users)


# --- online pushes -------------------------------------------------------------------


async def _sink(kind: str, payload: dict) -> None:
    if kind not in (PARTICIPANT, PENDING):
        return
    origin = push_origin.get()
    await push_to_users(payload["user_ids"], kind, payload, exclude=origin)


@renderer(PARTICIPANT)
async def _render_participant(payload: dict, viewer_id: int):
    cid = payload["channel_id"]
    member = await _member_of(viewer_id, cid)
    users = await users_for(
        viewer_id,
        participant_refs(
            [payload.get("prev"), payload.get("new")], {payload["actor_user_id"], payload["user_id"]}
        ),
    )
    chats = await chats_for(viewer_id, [cid])
    ups = [
        tl_convert_admin.participant_update_to_tl(payload, viewer_id, member),
        tl_convert.update_channel_to_tl(cid),
    ]
    return tl_convert.updates_to_tl(ups, users, chats)


@renderer(PENDING)
async def _render_pending(payload: dict, viewer_id: int):
    cid = payload["channel_id"]
    pending, recent = await invites.pending_requests(cid)
    users = await users_for(viewer_id, recent)
    chats = await chats_for(viewer_id, [cid])
    return tl_convert.updates_to_tl(
        [tl_convert_admin.pending_requests_to_tl(cid, pending, recent)], users, chats
    )


notify.add_sink(_sink)
