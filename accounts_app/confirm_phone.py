"""The "was it you?" link of a pending account deletion: account.sendConfirmPhoneCode
and account.confirmPhone.

While a deletion waits (accounts_app.account_deletion), the owner is sent (in-app, from
the service account) a t.me/confirmphone link whose hash names that pending deletion;
the code sendConfirmPhoneCode sends to the account's number through the login code
delivery, checked by confirmPhone, stops it. The hash is an HMAC of (user, scheduled
moment): nothing extra is stored, and it stops working once the deletion is cancelled or
rescheduled.
"""

from __future__ import annotations

import hashlib
import hmac
import logging

from django.conf import settings

from accounts_app import login
from accounts_app.account_deletion import do_cancel_scheduled_deletion
from accounts_app.models import AccountSettings, LoginCode, User
from tl.errors import HashInvalidError

log = logging.getLogger("telesrv.accounts")


def confirm_phone_hash(user_id: int, delete_at) -> str:
    msg = f"telesrv/confirmphone/{user_id}/{int(delete_at.timestamp())}".encode()
    return hmac.new(settings.SECRET_KEY.encode(), msg, hashlib.sha256).hexdigest()[:32]


def confirm_phone_link(user_id: int) -> str | None:
    """The link for a user's pending deletion, or None when none waits."""
    row = AccountSettings.objects.filter(user_id=user_id, delete_at__isnull=False).first()
    if row is None:
        return None
    phone = User.objects.values_list("phone", flat=True).get(id=user_id)
    return f"https://t.me/confirmphone?phone={phone}&hash={confirm_phone_hash(user_id, row.delete_at)}"


def do_send_confirm_phone_code(user_id: int, link_hash: str) -> LoginCode:
    """account.sendConfirmPhoneCode: a login code to the account's number, if
    ``link_hash`` names the user's pending deletion (HASH_INVALID otherwise)."""
    row = AccountSettings.objects.filter(user_id=user_id, delete_at__isnull=False).first()
    if row is None or not hmac.compare_digest(
        confirm_phone_hash(user_id, row.delete_at).encode(), (link_hash or "").encode()
    ):
        raise HashInvalidError()
    phone = User.objects.values_list("phone", flat=True).get(id=user_id)
    return login.do_send_code(phone)


def do_confirm_phone(user_id: int, phone_code_hash: str, phone_code: str) -> None:
    """account.confirmPhone: the right code stops the pending deletion."""
    phone = User.objects.values_list("phone", flat=True).get(id=user_id)
    login.do_use_code(phone, phone_code_hash, phone_code)
    do_cancel_scheduled_deletion(user_id)
    log.info("user %d confirmed their number; the pending deletion is cancelled", user_id)
