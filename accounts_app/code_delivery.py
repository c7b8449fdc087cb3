"""How a login code reaches its owner.

1. In-app: when the account is logged in on another device, the code arrives there as
   a message from the service user ("Telegram", id 777000), as on Telegram. Private
   chats (above accounts) register the sender with :func:`register_in_app_sender`.
2. Otherwise the backend chosen by ``settings.LOGIN_CODE_DELIVERY``:
   ``"email"`` — to the account's login e-mail through Django's e-mail framework
   (accounts without one fall back to the log); ``"webhook"`` — an HTTP POST of
   ``{"phone", "code", "text"}`` as JSON to ``LOGIN_CODE_WEBHOOK_URL`` (an SMS gateway);
   ``"log"`` — the ``telesrv.login`` log and the console's login codes page, for closed
   deployments where an operator hands codes out.
"""

from __future__ import annotations

import json
import logging
import urllib.request
from collections.abc import Awaitable, Callable

from asgiref.sync import sync_to_async
from django.conf import settings

from accounts_app.delivery import send_email
from accounts_app.models import Authorization, LoginCode, User
from accounts_app.two_step import email_pattern

log = logging.getLogger("telesrv.login")

SERVICE_USER_ID = 777000  # the "Telegram" service account clients recognise
SERVICE_USER_PHONE = "42777"
WEBHOOK_TIMEOUT = 10

APP, EMAIL, SMS, LOG = "app", "email", "sms", "log"

InAppSender = Callable[[int, str], Awaitable[None]]  # (user_id, text)
_in_app_sender: list[InAppSender] = []


def register_in_app_sender(fn: InAppSender) -> InAppSender:
    _in_app_sender[:] = [fn]
    return fn


async def send_service_text(user_id: int, text: str) -> bool:
    """A message from the service account to the user's chats, where the messaging
    layer registered its sender; False when it did not (or the send failed)."""
    if not _in_app_sender:
        return False
    try:
        await _in_app_sender[0](user_id, text)
    except Exception:
        log.exception("service message to user %d failed", user_id)
        return False
    return True


def ensure_service_user() -> User:
    """The service account the in-app codes come from (created on first use)."""
    user, _ = User.objects.get_or_create(
        id=SERVICE_USER_ID, defaults={"phone": SERVICE_USER_PHONE, "first_name": "Telegram"}
    )
    return user


def code_text(code: str) -> str:
    return (
        f"Login code: {code}. Do not give this code to anyone, even if they say they are from "
        "this server's operators.\n\nIf you didn't request this code by trying to log in on "
        "another device, simply ignore this message."
    )


def _account_for_app(phone: str) -> int | None:
    """The account of ``phone`` if it is logged in (password done) somewhere."""
    return (
        Authorization.objects.filter(user__phone=phone, user__deleted=False, password_pending=False)
        .values_list("user_id", flat=True)
        .first()
    )


def _login_email(phone: str) -> str:
    return User.objects.filter(phone=phone, deleted=False).values_list("login_email", flat=True).first() or ""


def _post_webhook(url: str, phone: str, code: str) -> None:
    body = json.dumps({"phone": f"+{phone}", "code": code, "text": code_text(code)}).encode()
    request = urllib.request.Request(
        url, data=body, headers={"Content-Type": "application/json"}, method="POST"
    )
    with urllib.request.urlopen(request, timeout=WEBHOOK_TIMEOUT) as response:
        response.read()


def _record(code: LoginCode, via: str) -> None:
    LoginCode.objects.filter(id=code.id).update(via=via)
    code.via = via


async def deliver(code: LoginCode, why: str, *, in_app: bool = True) -> tuple[str, str]:
    """Send ``code`` the best way there is; ``(via, e-mail pattern or "")``. A resend
    (``in_app=False``) skips the app: the user asked because the app did not help."""
    user_id = await sync_to_async(_account_for_app)(code.phone) if in_app else None
    if user_id is not None and _in_app_sender:
        try:
            await _in_app_sender[0](user_id, code_text(code.code))
            await sync_to_async(_record)(code, APP)
            log.info("login code for user %d %s in-app", user_id, why)
            return APP, ""
        except Exception:
            log.exception("in-app login code for user %d failed; using the backend", user_id)
    backend = getattr(settings, "LOGIN_CODE_DELIVERY", LOG)
    if backend == EMAIL:
        address = await sync_to_async(_login_email)(code.phone)
        if address:
            await sync_to_async(send_email)(address, "Your login code", code_text(code.code))
            await sync_to_async(_record)(code, EMAIL)
            return EMAIL, email_pattern(address)
    elif backend == "webhook" and getattr(settings, "LOGIN_CODE_WEBHOOK_URL", ""):
        try:
            await sync_to_async(_post_webhook)(settings.LOGIN_CODE_WEBHOOK_URL, code.phone, code.code)
            await sync_to_async(_record)(code, SMS)
            log.info("login code for +%s %s through the webhook", code.phone, why)
            return SMS, ""
        except Exception:
            log.exception("login code webhook for +%s failed; the code is in the log", code.phone)
    # Operators copy the code from the admin's login codes page, or from the log where
    # LOG_LOGIN_CODES allows it (development: a production log keeps no secrets).
    if getattr(settings, "LOG_LOGIN_CODES", False):
        log.info("login code for +%s: %s (%s)", code.phone, code.code, why)
    else:
        log.info("login code for +%s %s: on the console's login codes page", code.phone, why)
    await sync_to_async(_record)(code, LOG)
    return LOG, ""
