"""Exporting one's data: account.initTakeoutSession / finishTakeoutSession (the
invokeWithTakeout check is accounts_app.takeout.check), messages.getSplitRanges, and
account.get/setContactSignUpNotification, which Telegram Desktop's settings read."""

from __future__ import annotations

from asgiref.sync import sync_to_async

from accounts_app import account_settings, takeout
from accounts_app.rpc.context import viewer_id
from edge_app.registry import rpc
from tl import functions, types

MESSAGE_ID_MAX = 2**31 - 1


@rpc(functions.account.InitTakeoutSession)
async def init_takeout_session(ctx, req: functions.account.InitTakeoutSession):
    scopes = {name: getattr(req, name) for name in takeout.SCOPES}
    scopes["file_max_size"] = req.file_max_size or 0
    row = await sync_to_async(takeout.do_init_takeout)(viewer_id(ctx), ctx.perm_auth_key_id, scopes)
    return types.account.Takeout(id=row.id)


@rpc(functions.account.FinishTakeoutSession)
async def finish_takeout_session(ctx, req: functions.account.FinishTakeoutSession):
    await sync_to_async(takeout.do_finish_takeout)(viewer_id(ctx), ctx.takeout_id, bool(req.success))
    return True


@rpc(functions.messages.GetSplitRanges)
async def get_split_ranges(ctx, req):
    # One range: message ids here are per account (private) or per channel and never
    # split by time, so an export reads each chat in one pass.
    viewer_id(ctx)
    return [types.MessageRange(min_id=1, max_id=MESSAGE_ID_MAX)]


@rpc(functions.account.GetContactSignUpNotification)
async def get_contact_sign_up_notification(ctx, req):
    return (await sync_to_async(account_settings.get)(viewer_id(ctx))).contact_signup_silent


@rpc(functions.account.SetContactSignUpNotification)
async def set_contact_sign_up_notification(ctx, req: functions.account.SetContactSignUpNotification):
    await sync_to_async(account_settings.do_set_contact_signup_silent)(viewer_id(ctx), bool(req.silent))
    return True
