"""Finding people by phone and by contact link: contacts.resolvePhone (t.me/+phone
links) and contacts.exportContactToken / importContactToken (tg://contact?token=...).

Both honour the "who can find me by my number" privacy rule (``added_by_phone``) as
contacts.importContacts does. Contact tokens are signed (user id, time) strings, valid
``CONTACT_TOKEN_TTL`` seconds: nothing to store, and a token cannot name anybody else.
"""

from __future__ import annotations

import time

from django.core import signing

from accounts_app import privacy
from accounts_app.models import User
from accounts_app.phones import normalize_phone
from tl.errors import ImportTokenInvalidError, PhoneNotOccupiedError, PhoneNumberInvalidError

CONTACT_TOKEN_TTL = 86400
_SALT = "telesrv.contact-token"


def findable_by_phone(viewer_id: int, user_ids: list[int]) -> set[int]:
    """Those of ``user_ids`` whose ``added_by_phone`` rule lets ``viewer_id`` find them."""
    return privacy.visibility(viewer_id, user_ids, (privacy.ADDED_BY_PHONE,))[privacy.ADDED_BY_PHONE]


def resolve_phone(viewer_id: int, phone: str) -> int:
    """contacts.resolvePhone: the user with this number, if their rule lets the viewer
    find them. PHONE_NOT_OCCUPIED otherwise (the same answer: the rule must not leak)."""
    try:
        digits = normalize_phone(phone)
    except PhoneNumberInvalidError:
        raise PhoneNotOccupiedError() from None
    user_id = User.objects.filter(phone=digits, deleted=False).values_list("id", flat=True).first()
    if user_id is None or user_id not in findable_by_phone(viewer_id, [user_id]):
        raise PhoneNotOccupiedError()
    return user_id


def export_contact_token(user_id: int) -> tuple[str, int]:
    """(token, expiry) of a link that shows this user to whoever opens it."""
    token = signing.TimestampSigner(salt=_SALT).sign(str(user_id))
    return token.replace(":", "."), int(time.time()) + CONTACT_TOKEN_TTL


def import_contact_token(token: str) -> int:
    try:
        value = signing.TimestampSigner(salt=_SALT).unsign(token.replace(".", ":"), max_age=CONTACT_TOKEN_TTL)
    except (signing.BadSignature, ValueError):
        raise ImportTokenInvalidError() from None
    user_id = int(value)
    if not User.objects.filter(id=user_id, deleted=False).exists():
        raise ImportTokenInvalidError()
    return user_id
