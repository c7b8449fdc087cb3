"""account.sendVerifyEmailCode / verifyEmail for the login e-mail."""

from __future__ import annotations

from asgiref.sync import sync_to_async

from accounts_app import login_email, tl_convert
from accounts_app.rpc.context import viewer_id
from edge_app.registry import rpc
from tl import functions, types
from tl.errors import EmailNotAllowedError


def _check_purpose(purpose) -> None:
    # Sign-up-time setup (emailVerifyPurposeLoginSetup) and Passport are not offered:
    # the login e-mail is set from a logged-in device.
    if not isinstance(purpose, types.EmailVerifyPurposeLoginChange):
        raise EmailNotAllowedError()


@rpc(functions.account.SendVerifyEmailCode)
async def send_verify_email_code(ctx, req: functions.account.SendVerifyEmailCode):
    _check_purpose(req.purpose)
    pattern, length = await sync_to_async(login_email.do_send_verify_code)(viewer_id(ctx), req.email)
    return tl_convert.sent_email_code_to_tl(pattern, length)


@rpc(functions.account.VerifyEmail)
async def verify_email(ctx, req: functions.account.VerifyEmail):
    _check_purpose(req.purpose)
    code = tl_convert.email_verification_code(req.verification)
    email = await sync_to_async(login_email.do_verify)(viewer_id(ctx), code)
    return tl_convert.email_verified_to_tl(email)
