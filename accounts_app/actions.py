"""Domain actions on accounts: plain Python, transactional, raising ``tl.errors``.

What RPC handlers, the admin, management commands and other apps' tests call. They
are synchronous (Django ORM in a transaction); async callers wrap them with
``asgiref.sync.sync_to_async``.
"""

from __future__ import annotations

from django.db import IntegrityError, transaction
from tl.errors import (
    AboutTooLongError,
    FirstnameInvalidError,
    LastnameInvalidError,
    PhoneNumberOccupiedError,
    UsernameOccupiedError,
)

from accounts_app import usernames
from accounts_app.models import User
from accounts_app.phones import normalize_phone

NAME_MAX = 64
ABOUT_MAX = 70  # Telegram's limit for non-premium bios


def clean_first_name(value: str) -> str:
    value = (value or "").strip()
    if not value or len(value) > NAME_MAX:
        raise FirstnameInvalidError()
    return value


def clean_last_name(value: str) -> str:
    value = (value or "").strip()
    if len(value) > NAME_MAX:
        raise LastnameInvalidError()
    return value


def clean_about(value: str) -> str:
    value = (value or "").strip()
    if len(value) > ABOUT_MAX:
        raise AboutTooLongError()
    return value


def do_create_user(
    phone: str,
    first_name: str,
    last_name: str = "",
    *,
    username: str | None = None,
    about: str = "",
) -> User:
    """Register a new account. Raises PHONE_NUMBER_OCCUPIED, FIRSTNAME_INVALID,
    LASTNAME_INVALID, USERNAME_INVALID, USERNAME_OCCUPIED."""
    phone = normalize_phone(phone)
    first_name = clean_first_name(first_name)
    last_name = clean_last_name(last_name)
    about = clean_about(about)
    if username:
        username = usernames.strip_at(username)
        usernames.check_username_format(username)
    with transaction.atomic():
        if username:
            usernames.lock_username(username)
            if usernames.is_username_taken(username):
                raise UsernameOccupiedError()
        if User.objects.filter(phone=phone).exists():
            raise PhoneNumberOccupiedError()
        try:
            with transaction.atomic():
                return User.objects.create(
                    phone=phone,
                    first_name=first_name,
                    last_name=last_name,
                    username=username or None,
                    about=about,
                )
        except IntegrityError as exc:
            # A concurrent sign-up of the same phone won the race.
            raise PhoneNumberOccupiedError() from exc
