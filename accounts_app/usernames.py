"""Public usernames: Telegram's format rules and one namespace for users and channels.

Users and channels share one case-insensitive namespace. Each owner kind keeps its own
index (``users`` here, the channel module its ``channel_usernames`` table); other kinds
plug their lookup in with :func:`register_username_owner`. A writer that claims a name
calls :func:`lock_username` inside its transaction first, so two kinds cannot claim the
same name at the same moment.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from django.db import connection
from django.db.models.functions import Lower

from accounts_app.models import User
from tl.errors import UsernameInvalidError

MIN_LENGTH = 5
MAX_LENGTH = 32
# A letter first, then letters, digits and single underscores, not ending in one.
_FORMAT = re.compile(r"[a-zA-Z](?:[a-zA-Z0-9]|_(?!_))*")

# fn(lowercased name) -> bool: is the name held by an owner of that kind?
OwnerLookup = Callable[[str], bool]
_owner_lookups: list[OwnerLookup] = []


def register_username_owner(fn: OwnerLookup) -> OwnerLookup:
    """Add an owner kind's lookup (sync; may use the Django connection). Idempotent."""
    if fn not in _owner_lookups:
        _owner_lookups.append(fn)
    return fn


def normalize(name: str) -> str:
    """The key names are compared by (Telegram usernames are ASCII)."""
    return name.lower()


def strip_at(name: str) -> str:
    return name[1:] if name.startswith("@") else name


def is_valid_username(name: str) -> bool:
    return (
        MIN_LENGTH <= len(name) <= MAX_LENGTH
        and _FORMAT.fullmatch(name) is not None
        and not name.endswith("_")
    )


def check_username_format(name: str) -> None:
    if not is_valid_username(name):
        raise UsernameInvalidError()


def is_username_taken(name: str, *, except_user_id: int | None = None) -> bool:
    """Whether any user (other than ``except_user_id``) or other owner holds ``name``."""
    key = normalize(name)
    # LOWER(username) = key is what the users_username_lower index serves.
    users = User.objects.annotate(username_key=Lower("username")).filter(username_key=key)
    if except_user_id is not None:
        users = users.exclude(id=except_user_id)
    if users.exists():
        return True
    return any(lookup(key) for lookup in _owner_lookups)


def lock_username(name: str) -> None:
    """Serialize claims of one name across owner kinds, until the transaction ends."""
    with connection.cursor() as cur:
        cur.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", ["telesrv/username/" + normalize(name)])
