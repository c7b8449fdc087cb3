"""Two-step verification: the account password (as an SRP verifier, accounts_app.srp),
its hint and recovery e-mail, the password check of sign-in and of sensitive actions
(ownership transfer), and recovery by an e-mailed code.

Limits (overridable in settings): after ``PASSWORD_MAX_ATTEMPTS`` wrong passwords in a
row the account waits ``PASSWORD_LOCK_SECONDS`` (FLOOD_WAIT_X); recovery and e-mail
confirmation codes live ``PASSWORD_EMAIL_CODE_TTL`` seconds.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import lru_cache

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from accounts_app import srp
from accounts_app.models import TwoStepPassword, User
from tl.errors import (
    CodeInvalidError,
    EmailInvalidError,
    EmailUnconfirmedError,
    FloodWaitError,
    HintTooLongError,
    NewSaltInvalidError,
    NewSettingsInvalidError,
    PasswordHashInvalidError,
    PasswordMissingError,
    PasswordRecoveryExpiredError,
    PasswordRecoveryNaError,
    PasswordRequiredError,
    ResetRequestMissingError,
    SrpIdInvalidError,
)

log = logging.getLogger("telesrv.two_step")

HINT_MAX = 128
EMAIL_MAX = 254
CODE_LENGTH = 6


def _setting(name: str, default: int) -> int:
    return int(getattr(settings, name, default))


@lru_cache(maxsize=1)
def _server_key() -> bytes:
    return hashlib.sha256(b"telesrv/srp-ephemeral/" + settings.SECRET_KEY.encode()).digest()


@dataclass(frozen=True, slots=True)
class SrpProof:
    """``inputCheckPasswordSRP``: what the client proves the password with."""

    srp_id: int
    a: bytes
    m1: bytes


@dataclass(frozen=True, slots=True)
class NewSettings:
    """``account.passwordInputSettings``. ``set_password``: new_algo was given (with an
    empty ``verifier`` it removes the password); ``email`` None leaves it unchanged."""

    set_password: bool = False
    salt1: bytes = b""
    salt2: bytes = b""
    g: int = 0
    p: bytes = b""
    verifier: bytes = b""
    hint: str | None = None
    email: str | None = None


@dataclass(frozen=True, slots=True)
class PasswordState:
    """What account.getPassword answers (before TL conversion)."""

    has_password: bool
    salt1: bytes = b""
    salt2: bytes = b""
    srp_id: int = 0
    srp_b: bytes = b""
    hint: str = ""
    has_recovery: bool = False
    email_unconfirmed_pattern: str = ""
    new_salt1: bytes = b""
    new_salt2: bytes = b""
    new_secure_salt: bytes = b""
    secure_random: bytes = b""
    pending_reset_date: datetime | None = None


def email_pattern(email: str) -> str:
    """``a***@example.com``: enough for the owner to recognise it."""
    name, _, domain = email.partition("@")
    return f"{name[:1]}***@{domain}" if domain else "***"


def _new_code() -> str:
    return "".join(secrets.choice("0123456789") for _ in range(CODE_LENGTH))


def has_password(user_id: int) -> bool:
    return TwoStepPassword.objects.filter(user_id=user_id).exists()


def get_state(user_id: int) -> PasswordState:
    row = TwoStepPassword.objects.filter(user_id=user_id).first()
    fresh = {
        "new_salt1": secrets.token_bytes(srp.SALT_RANDOM),
        "new_salt2": secrets.token_bytes(16),
        "new_secure_salt": secrets.token_bytes(srp.SALT_RANDOM),
        "secure_random": secrets.token_bytes(32),
    }
    if row is None:
        return PasswordState(has_password=False, **fresh)
    verifier = bytes(row.verifier)
    srp_id = srp.new_srp_id()
    b = srp.ephemeral_secret(_server_key(), srp_id, user_id, verifier)
    return PasswordState(
        has_password=True,
        salt1=bytes(row.salt1),
        salt2=bytes(row.salt2),
        srp_id=srp_id,
        srp_b=srp.public_b(int.from_bytes(verifier, "big"), b),
        hint=row.hint,
        has_recovery=bool(row.email),
        email_unconfirmed_pattern=email_pattern(row.email_unconfirmed) if row.email_unconfirmed else "",
        pending_reset_date=row.reset_at,
        **fresh,
    )


def _seconds_until(moment: datetime, now: datetime) -> int:
    return max(1, int((moment - now).total_seconds() + 0.999))


def _verify_locked(row: TwoStepPassword, proof: SrpProof | None, now: datetime) -> Exception | None:
    """Check ``proof`` against the locked row; the error to raise once the attempt
    count is committed (raising inside the transaction would roll it back)."""
    if row.locked_until and row.locked_until > now:
        return FloodWaitError(seconds=_seconds_until(row.locked_until, now))
    if proof is None:
        return PasswordHashInvalidError()
    if not srp.srp_id_fresh(proof.srp_id):
        return SrpIdInvalidError()
    verifier = bytes(row.verifier)
    b = srp.ephemeral_secret(_server_key(), proof.srp_id, row.user_id, verifier)
    if srp.check(verifier, b, bytes(row.salt1), bytes(row.salt2), proof.a, proof.m1):
        if row.failed_attempts:
            row.failed_attempts = 0
            row.save(update_fields=["failed_attempts"])
        return None
    row.failed_attempts += 1
    if row.failed_attempts >= _setting("PASSWORD_MAX_ATTEMPTS", 5):
        row.failed_attempts = 0
        row.locked_until = now + timedelta(seconds=_setting("PASSWORD_LOCK_SECONDS", 300))
        row.save(update_fields=["failed_attempts", "locked_until"])
        log.warning("two-step password of user %d locked after repeated failures", row.user_id)
        return FloodWaitError(seconds=_setting("PASSWORD_LOCK_SECONDS", 300))
    row.save(update_fields=["failed_attempts"])
    return PasswordHashInvalidError()


def verify(user_id: int, proof: SrpProof | None) -> None:
    """Raise unless ``proof`` shows the user's password: PASSWORD_MISSING (no password),
    PASSWORD_HASH_INVALID, SRP_ID_INVALID, FLOOD_WAIT_X after too many failures."""
    with transaction.atomic():
        row = TwoStepPassword.objects.select_for_update().filter(user_id=user_id).first()
        if row is None:
            raise PasswordMissingError()
        error = _verify_locked(row, proof, timezone.now())
    if error is not None:
        raise error


def _clean_new(new: NewSettings) -> NewSettings:
    if new.hint is not None and len(new.hint) > HINT_MAX:
        raise HintTooLongError()
    if new.email is not None and new.email and ("@" not in new.email or len(new.email) > EMAIL_MAX):
        raise EmailInvalidError()
    if new.set_password and new.verifier:
        if new.g != srp.G or new.p != srp.P_BYTES:
            raise NewSettingsInvalidError()
        if not (srp.SALT_RANDOM <= len(new.salt1) <= 512) or not (0 < len(new.salt2) <= 512):
            raise NewSaltInvalidError()
        if not srp.valid_verifier(new.verifier):
            raise NewSettingsInvalidError()
    return new


def _start_email(row: TwoStepPassword, email: str) -> str:
    row.email_unconfirmed = email
    row.email_code = _new_code()
    return row.email_code


def do_update_settings(user_id: int, proof: SrpProof | None, new: NewSettings) -> None:
    """account.updatePasswordSettings: set, change or remove the password, its hint and
    recovery e-mail. With a password set, ``proof`` must show it. A new recovery e-mail
    is confirmed by a code sent to it: the password is saved and EMAIL_UNCONFIRMED_X
    raised (Telegram's answer) until account.confirmPasswordEmail."""
    new = _clean_new(new)
    send_to = code = None
    with transaction.atomic():
        User.objects.select_for_update().filter(id=user_id).first()
        row = TwoStepPassword.objects.select_for_update().filter(user_id=user_id).first()
        error = _verify_locked(row, proof, timezone.now()) if row is not None else None
        if error is None:
            if new.set_password and not new.verifier:
                if row is not None:
                    row.delete()
                    log.info("user %d removed the two-step password", user_id)
                return
            if row is None and not new.set_password:
                raise PasswordRequiredError()
            if row is None:
                row = TwoStepPassword(user_id=user_id)
            if new.set_password:
                row.salt1, row.salt2, row.verifier = new.salt1, new.salt2, new.verifier
                row.failed_attempts, row.locked_until = 0, None
            if new.hint is not None:
                row.hint = new.hint
            if new.email is not None:
                if new.email:
                    code = _start_email(row, new.email)
                    send_to = new.email
                else:
                    row.email = row.email_unconfirmed = row.email_code = ""
            row.save()
    if error is not None:
        raise error
    if send_to is not None:
        from accounts_app.delivery import send_email

        send_email(send_to, "Confirm your recovery e-mail", f"Your confirmation code: {code}")
        raise EmailUnconfirmedError(len(code))


def get_email(user_id: int, proof: SrpProof | None) -> str:
    """account.getPasswordSettings: the recovery e-mail, after the password check."""
    verify(user_id, proof)
    return TwoStepPassword.objects.filter(user_id=user_id).values_list("email", flat=True).first() or ""


def do_confirm_email(user_id: int, code: str) -> None:
    with transaction.atomic():
        row = TwoStepPassword.objects.select_for_update().filter(user_id=user_id).first()
        if row is None or not row.email_unconfirmed:
            raise PasswordMissingError() if row is None else CodeInvalidError()
        if not secrets.compare_digest(row.email_code.encode(), (code or "").strip().encode()):
            raise CodeInvalidError()
        row.email, row.email_unconfirmed, row.email_code = row.email_unconfirmed, "", ""
        row.save(update_fields=["email", "email_unconfirmed", "email_code"])


def do_resend_email(user_id: int) -> None:
    row = TwoStepPassword.objects.filter(user_id=user_id).first()
    if row is None or not row.email_unconfirmed:
        raise EmailInvalidError()
    from accounts_app.delivery import send_email

    send_email(
        row.email_unconfirmed, "Confirm your recovery e-mail", f"Your confirmation code: {row.email_code}"
    )


def do_cancel_email(user_id: int) -> None:
    TwoStepPassword.objects.filter(user_id=user_id).update(email_unconfirmed="", email_code="")


def do_request_recovery(user_id: int) -> str:
    """auth.requestPasswordRecovery: e-mail a code; the address's pattern."""
    code_ttl = _setting("PASSWORD_EMAIL_CODE_TTL", 3600)
    with transaction.atomic():
        row = TwoStepPassword.objects.select_for_update().filter(user_id=user_id).first()
        if row is None:
            raise PasswordMissingError()
        if not row.email:
            raise PasswordRecoveryNaError()
        row.recovery_code = _new_code()
        row.recovery_expires = timezone.now() + timedelta(seconds=code_ttl)
        row.save(update_fields=["recovery_code", "recovery_expires"])
    from accounts_app.delivery import send_email

    send_email(row.email, "Password recovery", f"Your recovery code: {row.recovery_code}")
    return email_pattern(row.email)


def _recovery_row(user_id: int, code: str) -> TwoStepPassword:
    row = TwoStepPassword.objects.select_for_update().filter(user_id=user_id).first()
    if row is None:
        raise PasswordMissingError()
    if not row.recovery_code or not row.recovery_expires or row.recovery_expires <= timezone.now():
        raise PasswordRecoveryExpiredError()
    if not secrets.compare_digest(row.recovery_code.encode(), (code or "").strip().encode()):
        raise CodeInvalidError()
    return row


def check_recovery_code(user_id: int, code: str) -> None:
    with transaction.atomic():
        _recovery_row(user_id, code)


def do_recover(user_id: int, code: str, new: NewSettings | None) -> None:
    """auth.recoverPassword: the e-mailed code replaces the password (or removes it)."""
    if new is not None:
        new = _clean_new(new)
    with transaction.atomic():
        row = _recovery_row(user_id, code)
        if new is None or not new.set_password or not new.verifier:
            row.delete()
            log.info("user %d recovered the account; two-step password removed", user_id)
            return
        row.salt1, row.salt2, row.verifier = new.salt1, new.salt2, new.verifier
        row.hint = new.hint or ""
        row.recovery_code, row.recovery_expires = "", None
        row.failed_attempts, row.locked_until = 0, None
        row.save()


def do_operator_reset(user_id: int, operator: str) -> bool:
    """The console's "forgot password": remove the password; True if there was one."""
    removed = TwoStepPassword.objects.filter(user_id=user_id).delete()[0] > 0
    if removed:
        log.warning("operator %s removed the two-step password of user %d", operator, user_id)
    return removed


# --- reset without the password (account.resetPassword) -------------------------------


@dataclass(frozen=True, slots=True)
class ResetAnswer:
    """account.resetPassword's outcome: ``done`` (the password is gone), else the moment
    the requested reset happens (``until``) or a new request is allowed (``retry``)."""

    done: bool = False
    until: datetime | None = None
    retry: datetime | None = None


def reset_wait_seconds() -> int:
    return _setting("PASSWORD_RESET_WAIT_SECONDS", 7 * 86400)


def do_reset_password(user_id: int) -> ResetAnswer:
    """Request the password's removal; after Telegram's week the same call removes it.
    A reset the owner declined bars new requests for as long again."""
    now = timezone.now()
    with transaction.atomic():
        row = TwoStepPassword.objects.select_for_update().filter(user_id=user_id).first()
        if row is None:
            raise PasswordMissingError()
        if row.reset_at is not None:
            if row.reset_at > now:
                return ResetAnswer(until=row.reset_at)
            row.delete()
            log.warning("user %d reset their two-step password after the waiting period", user_id)
            return ResetAnswer(done=True)
        if row.reset_retry_at is not None and row.reset_retry_at > now:
            return ResetAnswer(retry=row.reset_retry_at)
        row.reset_at = now + timedelta(seconds=reset_wait_seconds())
        row.save(update_fields=["reset_at", "updated"])
        log.info("user %d requested a two-step password reset", user_id)
        return ResetAnswer(until=row.reset_at)


def do_decline_password_reset(user_id: int) -> None:
    """The owner (logged in elsewhere) refuses a pending reset: RESET_REQUEST_MISSING
    when none waits."""
    now = timezone.now()
    with transaction.atomic():
        row = TwoStepPassword.objects.select_for_update().filter(user_id=user_id).first()
        if row is None or row.reset_at is None:
            raise ResetRequestMissingError()
        row.reset_at = None
        row.reset_retry_at = now + timedelta(seconds=reset_wait_seconds())
        row.save(update_fields=["reset_at", "reset_retry_at", "updated"])
