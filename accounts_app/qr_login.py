"""QR login: a key that is not logged in exports a token (shown as ``tg://login?token=``),
a logged-in device of the user accepts it, and the exporting key becomes an
authorization of that user.

The authorization is created when the token is accepted, so the accepting device sees
the new session in account.getAuthorizations at once (and can terminate it); the
exporting key learns it through updateLoginToken and collects auth.loginTokenSuccess on
its next export. An account with a two-step password gets a password-pending
authorization and SESSION_PASSWORD_NEEDED, as after a login code.
"""

from __future__ import annotations

import dataclasses
import logging
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from accounts_app import two_step
from accounts_app.login import DeviceInfo, _authorize
from accounts_app.models import Authorization, LoginToken, User
from tl.errors import (
    AuthTokenAlreadyAcceptedError,
    AuthTokenExpiredError,
    AuthTokenInvalidError,
    SessionPasswordNeededError,
)

log = logging.getLogger("telesrv.login")

TOKEN_BYTES = 32
EXCEPT_IDS_CAP = 100


def token_ttl() -> int:
    """Seconds a token lives; Telegram's are 30 s (clients re-export when it runs out)."""
    return int(getattr(settings, "LOGIN_TOKEN_TTL", 30))


@dataclass(frozen=True, slots=True)
class LoginTokenState:
    """What exportLoginToken / importLoginToken answer: a token to show, or the user
    the key is now logged in as."""

    token: bytes = b""
    expires: datetime | None = None
    user: User | None = None
    # The token was accepted for an account with a two-step password.
    password_needed: bool = False

    @property
    def logged_in(self) -> bool:
        return self.user is not None or self.password_needed


@dataclass(frozen=True, slots=True)
class Accepted:
    """acceptLoginToken's outcome: the new authorization and the key to tell."""

    authorization: Authorization
    perm_auth_key_id: int


def _collect(row: LoginToken) -> LoginTokenState:
    """The accepted token's login, if the authorization it made is still there (the
    accepting device may have terminated it meanwhile)."""
    row.consumed = True
    row.save(update_fields=["consumed"])
    auth = (
        Authorization.objects.select_related("user")
        .filter(perm_auth_key_id=row.perm_auth_key_id, user_id=row.accepted_by, user__deleted=False)
        .first()
    )
    if auth is None:
        return LoginTokenState()
    if auth.password_pending:
        return LoginTokenState(password_needed=True)
    return LoginTokenState(user=auth.user)


def _finish(state: LoginTokenState) -> LoginTokenState:
    if state.password_needed:
        # Raised outside the transaction, so the consumed flag stays.
        raise SessionPasswordNeededError()
    return state


def do_export_login_token(
    perm_auth_key_id: int, device: DeviceInfo, except_ids: list[int]
) -> LoginTokenState:
    """auth.exportLoginToken: the login an accepted token made, else a new token."""
    now = timezone.now()
    with transaction.atomic():
        accepted = (
            LoginToken.objects.select_for_update()
            .filter(perm_auth_key_id=perm_auth_key_id, accepted_by__isnull=False, consumed=False)
            .order_by("-accepted")
            .first()
        )
        state = _collect(accepted) if accepted is not None else LoginTokenState()
        if not state.logged_in:
            # One live token per key: an older one shown on screen stops working.
            LoginToken.objects.filter(perm_auth_key_id=perm_auth_key_id, accepted_by__isnull=True).delete()
            row = LoginToken.objects.create(
                token=secrets.token_bytes(TOKEN_BYTES),
                perm_auth_key_id=perm_auth_key_id,
                expires=now + timedelta(seconds=token_ttl()),
                device=dataclasses.asdict(device),
                except_ids=[int(u) for u in except_ids[:EXCEPT_IDS_CAP]],
            )
            state = LoginTokenState(token=bytes(row.token), expires=row.expires)
    return _finish(state)


def do_import_login_token(perm_auth_key_id: int, token: bytes) -> LoginTokenState:
    """auth.importLoginToken: the exporting key presents its token again (after a DC
    switch on Telegram; here every key lives in one DC)."""
    now = timezone.now()
    with transaction.atomic():
        row = (
            LoginToken.objects.select_for_update()
            .filter(token=bytes(token), perm_auth_key_id=perm_auth_key_id)
            .first()
        )
        if row is None or row.consumed:
            raise AuthTokenInvalidError()
        if row.accepted_by is None:
            if row.expires <= now:
                raise AuthTokenExpiredError()
            return LoginTokenState(token=bytes(row.token), expires=row.expires)
        state = _collect(row)
    if not state.logged_in:
        raise AuthTokenInvalidError()
    return _finish(state)


def do_accept_login_token(user_id: int, token: bytes, accepting_key_id: int) -> Accepted:
    """auth.acceptLoginToken from a logged-in device: the token's key logs in as
    ``user_id``. Raises AUTH_TOKEN_INVALID / AUTH_TOKEN_EXPIRED / AUTH_TOKEN_ALREADY_ACCEPTED."""
    now = timezone.now()
    with transaction.atomic():
        row = LoginToken.objects.select_for_update().filter(token=bytes(token)).first()
        if row is None or row.perm_auth_key_id == accepting_key_id:
            raise AuthTokenInvalidError()
        if row.accepted_by is not None or row.consumed:
            raise AuthTokenAlreadyAcceptedError()
        if row.expires <= now:
            raise AuthTokenExpiredError()
        if user_id in row.except_ids:
            # The device said it already has this account.
            raise AuthTokenAlreadyAcceptedError()
        user = User.objects.get(id=user_id)
        device = DeviceInfo(
            **{f.name: row.device.get(f.name, f.default) for f in dataclasses.fields(DeviceInfo)}
        )
        auth = _authorize(row.perm_auth_key_id, user, device, password_pending=two_step.has_password(user_id))
        row.accepted_by = user_id
        row.accepted = now
        row.save(update_fields=["accepted_by", "accepted"])
    log.info(
        "user %d accepted a login token for key %016x: the new device is %s",
        user_id,
        row.perm_auth_key_id & 0xFFFFFFFFFFFFFFFF,
        device.origin().removeprefix("from "),
    )
    return Accepted(authorization=auth, perm_auth_key_id=row.perm_auth_key_id)
