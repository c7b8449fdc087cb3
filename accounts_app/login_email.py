"""The account's login e-mail: where login codes go when LOGIN_CODE_DELIVERY is
"email" (account.sendVerifyEmailCode / account.verifyEmail with
emailVerifyPurposeLoginChange)."""

from __future__ import annotations

import secrets

from django.db import transaction

from accounts_app.delivery import send_email
from accounts_app.models import User
from accounts_app.two_step import CODE_LENGTH, EMAIL_MAX, email_pattern
from tl.errors import CodeInvalidError, EmailInvalidError


def do_send_verify_code(user_id: int, email: str) -> tuple[str, int]:
    """Mail a code to ``email``; ``(pattern, code length)``."""
    email = (email or "").strip()
    if "@" not in email or len(email) > EMAIL_MAX:
        raise EmailInvalidError()
    code = "".join(secrets.choice("0123456789") for _ in range(CODE_LENGTH))
    User.objects.filter(id=user_id).update(login_email_pending=email, login_email_code=code)
    send_email(email, "Confirm your login e-mail", f"Your confirmation code: {code}")
    return email_pattern(email), CODE_LENGTH


def do_verify(user_id: int, code: str) -> str:
    """The mailed code makes the pending address the login e-mail; returns it."""
    with transaction.atomic():
        user = User.objects.select_for_update().get(id=user_id)
        if not user.login_email_pending or not secrets.compare_digest(
            user.login_email_code.encode(), (code or "").strip().encode()
        ):
            raise CodeInvalidError()
        user.login_email, user.login_email_pending, user.login_email_code = user.login_email_pending, "", ""
        user.save(update_fields=["login_email", "login_email_pending", "login_email_code"])
    return user.login_email
