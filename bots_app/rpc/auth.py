"""auth.importBotAuthorization: a bot logs in with its token."""

from __future__ import annotations

from accounts_app import tl_convert as accounts_tl
from accounts_app.rpc.context import bind_session, device_info, refusals_logged
from bots_app import actions
from edge_app.orm_threads import in_thread
from edge_app.registry import rpc
from tl import functions


@rpc(functions.auth.ImportBotAuthorization, auth=False)
async def import_bot_authorization(ctx, req: functions.auth.ImportBotAuthorization):
    with refusals_logged(ctx, "bot sign-in"):
        user = await in_thread(actions.do_import_bot_authorization)(
            ctx.perm_auth_key_id, req.bot_auth_token, device_info(ctx)
        )
    bind_session(ctx, user.id)
    (me,) = await accounts_tl.users_to_tl([user.id], user.id)
    return accounts_tl.authorization_to_tl(me)
