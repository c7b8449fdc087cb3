"""account.*: profile, username, status, password, authorizations."""

from __future__ import annotations

from asgiref.sync import sync_to_async

from accounts_app import account_settings, actions, push, tl_convert
from accounts_app.models import Authorization
from accounts_app.rpc.context import own_session, viewer_id
from accounts_app.updates import push_user_updates
from edge_app import registry
from edge_app.registry import rpc
from tl import functions
from tl.errors import HashInvalidError

AUTHORIZATIONS_CAP = 100


async def _self_after(ctx, change: actions.ProfileChange):
    await push_user_updates(change.events, exclude=own_session(ctx))
    for event in change.events:
        if event.type == actions.USER_NAME_UPDATE:
            await push.push_name_to_watchers(change.user.id, event.payload)
    (me,) = await tl_convert.users_to_tl([change.user.id], change.user.id)
    return me


@rpc(functions.account.UpdateProfile)
async def update_profile(ctx, req: functions.account.UpdateProfile):
    change = await sync_to_async(actions.do_update_profile)(
        viewer_id(ctx), first_name=req.first_name, last_name=req.last_name, about=req.about
    )
    return await _self_after(ctx, change)


@rpc(functions.account.CheckUsername)
async def check_username(ctx, req: functions.account.CheckUsername):
    return await sync_to_async(actions.check_username_available)(viewer_id(ctx), req.username)


@rpc(functions.account.UpdateUsername)
async def update_username(ctx, req: functions.account.UpdateUsername):
    change = await sync_to_async(actions.do_update_username)(viewer_id(ctx), req.username)
    return await _self_after(ctx, change)


@rpc(functions.account.UpdateStatus)
async def update_status(ctx, req: functions.account.UpdateStatus):
    user = await sync_to_async(actions.do_update_status)(
        viewer_id(ctx), offline=bool(req.offline), online_for=tl_convert.ONLINE_FOR
    )
    await push.push_status_to_watchers(user.id, tl_convert.status_payload(user))
    return True


@rpc(functions.account.GetAuthorizations)
async def get_authorizations(ctx, req: functions.account.GetAuthorizations):
    rows = await sync_to_async(
        lambda: list(
            Authorization.objects.filter(user_id=viewer_id(ctx)).order_by("-active")[:AUTHORIZATIONS_CAP]
        )
    )()
    ttl = await sync_to_async(account_settings.authorization_ttl_days)(viewer_id(ctx))
    return tl_convert.authorizations_to_tl(rows, ctx.perm_auth_key_id, ttl)


@rpc(functions.account.ResetAuthorization)
async def reset_authorization(ctx, req: functions.account.ResetAuthorization):
    key_id = await sync_to_async(actions.do_reset_authorization)(
        viewer_id(ctx), req.hash, ctx.perm_auth_key_id
    )
    if key_id is None:
        raise HashInvalidError()
    registry.forget_authorization(key_id)
    return True


@rpc(functions.account.ToggleUsername)
async def toggle_username(ctx, req: functions.account.ToggleUsername):
    await sync_to_async(actions.do_toggle_username)(viewer_id(ctx), req.username, bool(req.active))
    return True


@rpc(functions.account.ReorderUsernames)
async def reorder_usernames(ctx, req: functions.account.ReorderUsernames):
    await sync_to_async(actions.do_reorder_usernames)(viewer_id(ctx), list(req.order))
    return True
