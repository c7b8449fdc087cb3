"""users.*"""

from __future__ import annotations

from asgiref.sync import sync_to_async

from accounts_app import account_settings, full_user, tl_convert
from accounts_app.access import check_input_user
from accounts_app.rpc.context import viewer_id
from edge_app.registry import rpc
from tl import functions
from tl.errors import UserIdInvalidError

GET_USERS_CAP = 200


@rpc(functions.users.GetUsers)
async def get_users(ctx, req: functions.users.GetUsers):
    me = viewer_id(ctx)
    ids = []
    for input_user in req.id[:GET_USERS_CAP]:
        try:
            ids.append(check_input_user(me, input_user))
        except UserIdInvalidError:
            # Telegram leaves out the users a vector names wrongly.
            continue
    return await tl_convert.users_to_tl(ids, me)


@rpc(functions.users.GetFullUser)
async def get_full_user(ctx, req: functions.users.GetFullUser):
    me = viewer_id(ctx)
    user_id = check_input_user(me, req.id)
    common = await full_user.common_chats_count(me, user_id)
    settings = await sync_to_async(account_settings.get)(user_id)
    chats, top = await full_user.personal_channel(me, settings.personal_channel_id)
    full = await tl_convert.user_full_to_tl(
        user_id, me, common_chats_count=common, chats=chats, settings=settings,
        personal_channel=(settings.personal_channel_id, top) if chats else None,
    )  # fmt: skip
    if full is None:
        raise UserIdInvalidError()
    return full
