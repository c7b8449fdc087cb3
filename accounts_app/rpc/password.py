"""Two-step verification: account.*Password*, auth.checkPassword and recovery."""

from __future__ import annotations

from asgiref.sync import sync_to_async

from accounts_app import login, srp, tl_convert, tl_convert_settings, two_step
from accounts_app.rpc.context import bind_session, refusals_logged, viewer_id
from edge_app import registry
from edge_app.registry import rpc
from tl import functions
from tl.errors import AuthKeyUnregisteredError


def _proof(check) -> two_step.SrpProof | None:
    parts = tl_convert_settings.srp_proof_from_tl(check)
    return two_step.SrpProof(*parts) if parts else None


def _new_settings(s) -> two_step.NewSettings:
    return two_step.NewSettings(**tl_convert_settings.new_password_settings_from_tl(s))


async def _logged_in_user(ctx) -> int | None:
    # auth=False handlers: the dispatcher did not look the key's user up.
    return ctx.app.get("user_id") or await registry.authorize(ctx)


async def _account_user(ctx) -> int:
    """The logged-in user, or the one whose sign-in on this key waits for the password."""
    user_id = await _logged_in_user(ctx)
    if user_id is None:
        user_id = await sync_to_async(login.pending_password_user)(ctx.perm_auth_key_id)
    if user_id is None:
        raise AuthKeyUnregisteredError()
    return user_id


async def _signed_in(ctx, user):
    bind_session(ctx, user.id)
    (me,) = await tl_convert.users_to_tl([user.id], user.id)
    return tl_convert.authorization_to_tl(me)


@rpc(functions.account.GetPassword, auth=False)
async def get_password(ctx, req: functions.account.GetPassword):
    state = await sync_to_async(two_step.get_state)(await _account_user(ctx))
    return tl_convert_settings.password_to_tl(state, srp.G, srp.P_BYTES)


@rpc(functions.account.UpdatePasswordSettings)
async def update_password_settings(ctx, req: functions.account.UpdatePasswordSettings):
    await sync_to_async(two_step.do_update_settings)(
        viewer_id(ctx), _proof(req.password), _new_settings(req.new_settings)
    )
    return True


@rpc(functions.account.GetPasswordSettings)
async def get_password_settings(ctx, req: functions.account.GetPasswordSettings):
    email = await sync_to_async(two_step.get_email)(viewer_id(ctx), _proof(req.password))
    return tl_convert_settings.password_settings_to_tl(email)


@rpc(functions.account.ConfirmPasswordEmail)
async def confirm_password_email(ctx, req: functions.account.ConfirmPasswordEmail):
    await sync_to_async(two_step.do_confirm_email)(viewer_id(ctx), req.code)
    return True


@rpc(functions.account.ResendPasswordEmail)
async def resend_password_email(ctx, req: functions.account.ResendPasswordEmail):
    await sync_to_async(two_step.do_resend_email)(viewer_id(ctx))
    return True


@rpc(functions.account.CancelPasswordEmail)
async def cancel_password_email(ctx, req: functions.account.CancelPasswordEmail):
    await sync_to_async(two_step.do_cancel_email)(viewer_id(ctx))
    return True


@rpc(functions.auth.CheckPassword, auth=False)
async def check_password(ctx, req: functions.auth.CheckPassword):
    with refusals_logged(ctx, "sign-in with the two-step password"):
        user = await sync_to_async(login.do_check_password)(ctx.perm_auth_key_id, _proof(req.password))
    return await _signed_in(ctx, user)


@rpc(functions.auth.RequestPasswordRecovery, auth=False)
async def request_password_recovery(ctx, req: functions.auth.RequestPasswordRecovery):
    pattern = await sync_to_async(two_step.do_request_recovery)(await _account_user(ctx))
    return tl_convert_settings.password_recovery_to_tl(pattern)


@rpc(functions.auth.CheckRecoveryPassword, auth=False)
async def check_recovery_password(ctx, req: functions.auth.CheckRecoveryPassword):
    await sync_to_async(two_step.check_recovery_code)(await _account_user(ctx), req.code)
    return True


@rpc(functions.auth.RecoverPassword, auth=False)
async def recover_password(ctx, req: functions.auth.RecoverPassword):
    new = _new_settings(req.new_settings) if req.new_settings is not None else None
    user_id = await _logged_in_user(ctx)
    if user_id is not None:
        await sync_to_async(two_step.do_recover)(user_id, req.code, new)
        user = await sync_to_async(lambda: login.User.objects.get(id=user_id))()
    else:
        user = await sync_to_async(login.do_recover_password_login)(ctx.perm_auth_key_id, req.code, new)
    return await _signed_in(ctx, user)


@rpc(functions.account.ResetPassword)
async def reset_password(ctx, req: functions.account.ResetPassword):
    answer = await sync_to_async(two_step.do_reset_password)(viewer_id(ctx))
    return tl_convert_settings.reset_password_to_tl(answer)


@rpc(functions.account.DeclinePasswordReset)
async def decline_password_reset(ctx, req: functions.account.DeclinePasswordReset):
    await sync_to_async(two_step.do_decline_password_reset)(viewer_id(ctx))
    return True
