"""Logging in with a phone code: sending codes, checking them, authorizations.

Codes are kept in :class:`LoginCode` (operators see them in the admin) and sent by
accounts_app.code_delivery: in-app to the account's other sessions, else by e-mail,
an SMS webhook or the log, as configured. Telegram's test numbers
(``99966XYYYY`` logs in with ``XXXXX``) work only with ``settings.TEST_PHONE_NUMBERS``.

Limits (all overridable in settings): a code lives ``LOGIN_CODE_TTL`` seconds; after
``LOGIN_MAX_ATTEMPTS`` wrong codes the phone is locked for ``LOGIN_LOCK_SECONDS``
(``FLOOD_WAIT_X``); at most ``LOGIN_CODES_PER_HOUR`` codes are sent to one phone per hour.
"""

from __future__ import annotations

import logging
import re
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts_app import two_step
from accounts_app.actions import do_create_user
from accounts_app.models import Authorization, LoginCode, User
from accounts_app.origin import of_authorization, origin
from accounts_app.phones import normalize_phone
from tl.errors import (
    AuthKeyUnregisteredError,
    AuthRestartError,
    FloodWaitError,
    PhoneCodeEmptyError,
    PhoneCodeExpiredError,
    PhoneCodeHashEmptyError,
    PhoneCodeInvalidError,
    PhoneNumberBannedError,
    PhoneNumberOccupiedError,
    SessionPasswordNeededError,
)

log = logging.getLogger("telesrv.login")

CODE_LENGTH = 5
_TEST_PHONE = re.compile(r"99966(\d)\d{4}")


def _setting(name: str, default: int) -> int:
    return int(getattr(settings, name, default))


def code_ttl() -> int:
    return _setting("LOGIN_CODE_TTL", 600)


def max_attempts() -> int:
    return _setting("LOGIN_MAX_ATTEMPTS", 5)


def lock_seconds() -> int:
    return _setting("LOGIN_LOCK_SECONDS", 300)


def codes_per_hour() -> int:
    return _setting("LOGIN_CODES_PER_HOUR", 10)


def max_resends() -> int:
    return _setting("LOGIN_MAX_RESENDS", 5)


@dataclass(frozen=True, slots=True)
class DeviceInfo:
    """What the client told ``initConnection``, stored on its authorization."""

    api_id: int = 0
    device_model: str = ""
    platform: str = ""
    system_version: str = ""
    app_name: str = ""
    app_version: str = ""
    ip: str = ""
    lang_code: str = ""  # initConnection's: the language the device shows

    def origin(self) -> str:
        """Where a login came from, for the log lines operators trace abuse with."""
        return origin(self.ip, self.app_name, self.app_version)


@dataclass(frozen=True, slots=True)
class SignInResult:
    """Either the user signed in (``user``), or the phone has no account yet and the
    client must show the sign-up form (``user is None``)."""

    user: User | None


def test_phone_code(phone: str) -> str | None:
    """The fixed code of a Telegram test number, if test numbers are enabled."""
    if not settings.TEST_PHONE_NUMBERS:
        return None
    match = _TEST_PHONE.fullmatch(phone)
    return match.group(1) * CODE_LENGTH if match else None


def _new_code(phone: str) -> str:
    return test_phone_code(phone) or "".join(secrets.choice("0123456789") for _ in range(CODE_LENGTH))


def _seconds_until(moment: datetime, now: datetime) -> int:
    return max(1, int((moment - now).total_seconds() + 0.999))


def _check_not_locked(phone: str, now: datetime) -> None:
    locked = (
        LoginCode.objects.filter(phone=phone, locked_until__gt=now)
        .order_by("-locked_until")
        .values_list("locked_until", flat=True)
        .first()
    )
    if locked is not None:
        raise FloodWaitError(seconds=_seconds_until(locked, now))


def do_send_code(phone: str) -> LoginCode:
    """auth.sendCode: make a new code (accounts_app.code_delivery sends it). Raises
    PHONE_NUMBER_INVALID, FLOOD_WAIT_X."""
    phone = normalize_phone(phone)
    now = timezone.now()
    with transaction.atomic():
        _check_not_locked(phone, now)
        hour_ago = now - timedelta(hours=1)
        recent = list(
            LoginCode.objects.filter(phone=phone, created__gt=hour_ago)
            .order_by("created")
            .values_list("created", flat=True)[: codes_per_hour()]
        )
        if len(recent) >= codes_per_hour():
            raise FloodWaitError(seconds=_seconds_until(recent[0] + timedelta(hours=1), now))
        code = LoginCode.objects.create(
            phone=phone,
            phone_code_hash=secrets.token_hex(16),
            code=_new_code(phone),
            expires=now + timedelta(seconds=code_ttl()),
        )
    return code


def _live_code(phone: str, phone_code_hash: str, now: datetime) -> LoginCode:
    """The code row for ``(phone, phone_code_hash)``, locked for update, still usable."""
    if not phone_code_hash:
        raise PhoneCodeHashEmptyError()
    phone = normalize_phone(phone)
    _check_not_locked(phone, now)
    code = LoginCode.objects.select_for_update().filter(phone_code_hash=phone_code_hash).first()
    if code is None or code.phone != phone or code.used or code.expires <= now:
        raise PhoneCodeExpiredError()
    return code


def do_resend_code(phone: str, phone_code_hash: str) -> LoginCode:
    """auth.resendCode: the same code, its life extended, to be delivered again."""
    now = timezone.now()
    with transaction.atomic():
        code = _live_code(phone, phone_code_hash, now)
        if code.resends >= max_resends():
            raise FloodWaitError(seconds=_seconds_until(code.expires, now))
        code.resends += 1
        code.expires = now + timedelta(seconds=code_ttl())
        code.save(update_fields=["resends", "expires"])
    return code


def do_cancel_code(phone: str, phone_code_hash: str) -> None:
    """auth.cancelCode: the code stops working."""
    now = timezone.now()
    with transaction.atomic():
        code = _live_code(phone, phone_code_hash, now)
        code.used = True
        code.save(update_fields=["used"])


def _check_code(
    phone: str, phone_code_hash: str, phone_code: str, now: datetime
) -> tuple[LoginCode, Exception | None]:
    """The code row and, for a wrong code, the error to raise once the attempt count
    is committed (raising inside the transaction would roll the count back)."""
    if not phone_code:
        raise PhoneCodeEmptyError()
    code = _live_code(phone, phone_code_hash, now)
    if secrets.compare_digest(code.code.encode(), phone_code.strip().encode()):
        return code, None
    code.attempts += 1
    if code.attempts >= max_attempts():
        # Guessing stops here: the code is burnt and the phone waits.
        code.used = True
        code.locked_until = now + timedelta(seconds=lock_seconds())
        code.save(update_fields=["attempts", "used", "locked_until"])
        log.warning("login for +%s locked after %d wrong codes", code.phone, code.attempts)
        return code, FloodWaitError(seconds=lock_seconds())
    code.save(update_fields=["attempts"])
    return code, PhoneCodeInvalidError()


def _authorize(
    perm_auth_key_id: int, user: User, device: DeviceInfo, *, password_pending: bool = False
) -> Authorization:
    """Bind the permanent key to ``user`` (replacing whatever it was bound to).
    ``password_pending``: the key authorizes nobody until the two-step password."""
    fields = {
        "user": user,
        "password_pending": password_pending,
        "api_id": device.api_id,
        "device_model": device.device_model[:128],
        "platform": device.platform[:64],
        "system_version": device.system_version[:128],
        "app_name": device.app_name[:128],
        "app_version": device.app_version[:64],
        "ip": device.ip[:64],
        "lang_code": device.lang_code[:16],
    }
    log.info(
        "new authorization: user %d on key %016x %s%s",
        user.id,
        perm_auth_key_id & 0xFFFFFFFFFFFFFFFF,
        device.origin(),
        " (waiting for the two-step password)" if password_pending else "",
    )
    existing = Authorization.objects.select_for_update().filter(perm_auth_key_id=perm_auth_key_id).first()
    if existing is not None:
        for name, value in fields.items():
            setattr(existing, name, value)
        existing.save()
        return existing
    for _ in range(3):
        try:
            with transaction.atomic():
                return Authorization.objects.create(
                    perm_auth_key_id=perm_auth_key_id,
                    hash=secrets.randbits(63) or 1,
                    **fields,
                )
        except IntegrityError:
            # Either a random hash collision (retry) or a concurrent sign-in on the
            # same key: the client restarts the login.
            if Authorization.objects.filter(perm_auth_key_id=perm_auth_key_id).exists():
                raise AuthRestartError() from None
    raise AuthRestartError()


def authorize_key(perm_auth_key_id: int, user: User, device: DeviceInfo) -> Authorization:
    """Log ``user`` in on a permanent key by other means than a phone code (a bot's
    token, bots_app). Call inside a transaction."""
    return _authorize(perm_auth_key_id, user, device)


def do_sign_in(
    perm_auth_key_id: int, phone: str, phone_code_hash: str, phone_code: str, device: DeviceInfo
) -> SignInResult:
    """auth.signIn. Raises PHONE_CODE_EMPTY / PHONE_CODE_HASH_EMPTY / PHONE_CODE_INVALID /
    PHONE_CODE_EXPIRED / FLOOD_WAIT_X; returns ``user=None`` for a phone without account."""
    now = timezone.now()
    pending = False
    with transaction.atomic():
        code, error = _check_code(phone, phone_code_hash, phone_code, now)
        if error is None:
            user = User.objects.filter(phone=code.phone).first()
            if user is not None and user.deleted:
                raise PhoneNumberBannedError()
            if user is None:
                code.verified = True
                code.save(update_fields=["verified"])
                return SignInResult(user=None)
            code.used = True
            code.save(update_fields=["used"])
            pending = two_step.has_password(user.id)
            _authorize(perm_auth_key_id, user, device, password_pending=pending)
    if error is not None:
        raise error
    if pending:
        # The code was right; the client now asks account.getPassword and proves the
        # password with auth.checkPassword on this key.
        raise SessionPasswordNeededError()
    log.info(
        "user %d signed in on key %016x %s", user.id, perm_auth_key_id & 0xFFFFFFFFFFFFFFFF, device.origin()
    )
    return SignInResult(user=user)


def pending_password_user(perm_auth_key_id: int) -> int | None:
    """The user whose login on this key waits for the two-step password."""
    return (
        Authorization.objects.filter(
            perm_auth_key_id=perm_auth_key_id, password_pending=True, user__deleted=False
        )
        .values_list("user_id", flat=True)
        .first()
    )


def do_check_password(perm_auth_key_id: int, proof) -> User:
    """auth.checkPassword: the password finishes the login waiting on this key."""
    user_id = pending_password_user(perm_auth_key_id)
    if user_id is None:
        raise AuthKeyUnregisteredError()
    two_step.verify(user_id, proof)
    return _finish_password_login(perm_auth_key_id, user_id)


def do_recover_password_login(perm_auth_key_id: int, code: str, new) -> User:
    """auth.recoverPassword at sign-in: the e-mailed code replaces the password."""
    user_id = pending_password_user(perm_auth_key_id)
    if user_id is None:
        raise AuthKeyUnregisteredError()
    two_step.do_recover(user_id, code, new)
    return _finish_password_login(perm_auth_key_id, user_id)


def _finish_password_login(perm_auth_key_id: int, user_id: int) -> User:
    from accounts_app.account_deletion import do_cancel_scheduled_deletion

    Authorization.objects.filter(perm_auth_key_id=perm_auth_key_id, user_id=user_id).update(
        password_pending=False
    )
    # The owner proved the password: a deletion waiting for it stops.
    do_cancel_scheduled_deletion(user_id)
    auth = Authorization.objects.filter(perm_auth_key_id=perm_auth_key_id).first()
    log.info(
        "user %d signed in with its password on key %016x %s",
        user_id,
        perm_auth_key_id & 0xFFFFFFFFFFFFFFFF,
        of_authorization(auth),
    )
    return User.objects.get(id=user_id)


def do_sign_up(
    perm_auth_key_id: int,
    phone: str,
    phone_code_hash: str,
    first_name: str,
    last_name: str,
    device: DeviceInfo,
) -> User:
    """auth.signUp after auth.signIn said the phone has no account."""
    now = timezone.now()
    with transaction.atomic():
        code = _live_code(phone, phone_code_hash, now)
        if not code.verified:
            raise PhoneCodeInvalidError()
        if User.objects.filter(phone=code.phone).exists():
            raise PhoneNumberOccupiedError()
        user = do_create_user(code.phone, first_name, last_name)
        code.used = True
        code.save(update_fields=["used"])
        _authorize(perm_auth_key_id, user, device)
    log.info("user %d signed up (+%s) %s", user.id, user.phone, device.origin())
    return user


def do_log_out(perm_auth_key_id: int) -> int | None:
    """auth.logOut: the key stops authorizing. Returns the user id it was bound to."""
    with transaction.atomic():
        auth = Authorization.objects.select_for_update().filter(perm_auth_key_id=perm_auth_key_id).first()
        if auth is None:
            return None
        auth.delete()
    log.info(
        "user %d logged out on key %016x %s",
        auth.user_id,
        perm_auth_key_id & 0xFFFFFFFFFFFFFFFF,
        of_authorization(auth),
    )
    return auth.user_id


ACTIVE_RESOLUTION = timedelta(hours=1)


def authorized_user_id(perm_auth_key_id: int) -> int | None:
    """The user a permanent key is logged in as, if any (deleted users log out).

    The edge caches the answer per key, so this runs about once per key and edge
    process; it also marks the device active (at most hourly, to spare writes).
    """
    user_id = (
        Authorization.objects.filter(
            perm_auth_key_id=perm_auth_key_id, user__deleted=False, password_pending=False
        )
        .values_list("user_id", flat=True)
        .first()
    )
    if user_id is not None:
        now = timezone.now()
        Authorization.objects.filter(
            perm_auth_key_id=perm_auth_key_id, active__lt=now - ACTIVE_RESOLUTION
        ).update(active=now)
    return user_id


def do_use_code(phone: str, phone_code_hash: str, phone_code: str) -> LoginCode:
    """Check and burn a code sent to ``phone`` for something other than a sign-in
    (account.confirmPhone); the same attempt limits as sign-in."""
    now = timezone.now()
    with transaction.atomic():
        code, error = _check_code(phone, phone_code_hash, phone_code, now)
        if error is None:
            code.used = True
            code.save(update_fields=["used"])
    if error is not None:
        raise error
    return code


def do_change_phone(user_id: int, phone: str, phone_code_hash: str, phone_code: str) -> User:
    """account.changePhone with the code account.sendChangePhoneCode sent to the new
    number. PHONE_NUMBER_OCCUPIED when the number got an account meanwhile."""
    now = timezone.now()
    with transaction.atomic():
        code, error = _check_code(phone, phone_code_hash, phone_code, now)
        if error is None:
            if User.objects.filter(phone=code.phone).exists():
                raise PhoneNumberOccupiedError()
            code.used = True
            code.save(update_fields=["used"])
            user = User.objects.select_for_update().get(id=user_id)
            old = user.phone
            user.phone = code.phone
            user.save(update_fields=["phone"])
    if error is not None:
        raise error
    from accounts_app.render_changes import user_render_changed

    user_render_changed(user_id)
    log.info("user %d changed phone +%s -> +%s", user_id, old, user.phone)
    return user
