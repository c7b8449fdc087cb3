"""auth.*: phone-code login, sign-up, log-out."""

from __future__ import annotations

from asgiref.sync import sync_to_async

from accounts_app import actions, code_delivery, login, push, qr_login, tl_convert
from accounts_app.rpc.context import bind_session, device_info, refusals_logged, viewer_id
from edge_app import registry
from edge_app.registry import rpc
from tl import functions


@rpc(functions.auth.SendCode, auth=False)
async def send_code(ctx, req: functions.auth.SendCode):
    code = await sync_to_async(login.do_send_code)(req.phone_number)
    via, email_pattern = await code_delivery.deliver(code, "sent")
    return tl_convert.sent_code_to_tl(code, via, email_pattern)


@rpc(functions.auth.ResendCode, auth=False)
async def resend_code(ctx, req: functions.auth.ResendCode):
    code = await sync_to_async(login.do_resend_code)(req.phone_number, req.phone_code_hash)
    via, email_pattern = await code_delivery.deliver(code, "resent", in_app=False)
    return tl_convert.sent_code_to_tl(code, via, email_pattern)


@rpc(functions.auth.CancelCode, auth=False)
async def cancel_code(ctx, req: functions.auth.CancelCode):
    await sync_to_async(login.do_cancel_code)(req.phone_number, req.phone_code_hash)
    return True


@rpc(functions.auth.SignIn, auth=False)
async def sign_in(ctx, req: functions.auth.SignIn):
    code = req.phone_code or tl_convert.email_verification_code(req.email_verification)
    with refusals_logged(ctx, "sign-in", req.phone_number):
        result = await sync_to_async(login.do_sign_in)(
            ctx.perm_auth_key_id, req.phone_number, req.phone_code_hash, code, device_info(ctx)
        )
    if result.user is None:
        return tl_convert.sign_up_required_to_tl()
    bind_session(ctx, result.user.id)
    (me,) = await tl_convert.users_to_tl([result.user.id], result.user.id)
    return tl_convert.authorization_to_tl(me)


@rpc(functions.auth.SignUp, auth=False)
async def sign_up(ctx, req: functions.auth.SignUp):
    with refusals_logged(ctx, "sign-up", req.phone_number):
        user = await sync_to_async(login.do_sign_up)(
            ctx.perm_auth_key_id,
            req.phone_number,
            req.phone_code_hash,
            req.first_name,
            req.last_name,
            device_info(ctx),
        )
    bind_session(ctx, user.id)
    (me,) = await tl_convert.users_to_tl([user.id], user.id)
    return tl_convert.authorization_to_tl(me)


@rpc(functions.auth.LogOut)
async def log_out(ctx, req: functions.auth.LogOut):
    await sync_to_async(login.do_log_out)(ctx.perm_auth_key_id)
    bind_session(ctx, None)
    return tl_convert.logged_out_to_tl()


async def _login_token_answer(ctx, state: qr_login.LoginTokenState):
    if state.user is None:
        return tl_convert.login_token_to_tl(state.token, int(state.expires.timestamp()))
    bind_session(ctx, state.user.id)
    (me,) = await tl_convert.users_to_tl([state.user.id], state.user.id)
    return tl_convert.login_token_success_to_tl(me)


@rpc(functions.auth.ExportLoginToken, auth=False)
async def export_login_token(ctx, req: functions.auth.ExportLoginToken):
    state = await sync_to_async(qr_login.do_export_login_token)(
        ctx.perm_auth_key_id, device_info(ctx), list(req.except_ids or [])
    )
    return await _login_token_answer(ctx, state)


@rpc(functions.auth.ImportLoginToken, auth=False)
async def import_login_token(ctx, req: functions.auth.ImportLoginToken):
    with refusals_logged(ctx, "login token import"):
        state = await sync_to_async(qr_login.do_import_login_token)(ctx.perm_auth_key_id, req.token)
    return await _login_token_answer(ctx, state)


@rpc(functions.auth.AcceptLoginToken)
async def accept_login_token(ctx, req: functions.auth.AcceptLoginToken):
    with refusals_logged(ctx, "login token acceptance"):
        accepted = await sync_to_async(qr_login.do_accept_login_token)(
            viewer_id(ctx), req.token, ctx.perm_auth_key_id
        )
    await push.push_login_token_accepted(accepted.perm_auth_key_id)
    return tl_convert.authorization_row_to_tl(accepted.authorization, ctx.perm_auth_key_id)


@rpc(functions.auth.ResetAuthorizations)
async def reset_authorizations(ctx, req: functions.auth.ResetAuthorizations):
    key_ids = await sync_to_async(actions.do_reset_other_authorizations)(viewer_id(ctx), ctx.perm_auth_key_id)
    for key_id in key_ids:
        registry.forget_authorization(key_id)
    return True
