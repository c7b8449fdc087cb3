"""Domain actions on accounts: plain Python, transactional, raising ``tl.errors``.

What RPC handlers, the admin, management commands and other apps' tests call. They
are synchronous (Django ORM in a transaction); async callers wrap them with
``asgiref.sync.sync_to_async``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import timedelta

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.db.models.functions import Lower
from django.utils import timezone

from accounts_app import usernames
from accounts_app.models import Authorization, Contact, User
from accounts_app.origin import of_authorization
from accounts_app.phones import normalize_phone
from accounts_app.render_changes import user_render_changed
from accounts_app.updates import UserUpdate, append_user_update
from tl.errors import (
    AboutTooLongError,
    FirstnameInvalidError,
    LastnameInvalidError,
    OrderInvalidError,
    PhoneNumberInvalidError,
    PhoneNumberOccupiedError,
    RpcError,
    UserIdInvalidError,
    UsernameInvalidError,
    UsernameNotModifiedError,
    UsernameOccupiedError,
)

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


# --- profile -----------------------------------------------------------------------

USER_NAME_UPDATE = "user_name"  # payload: user_id, first_name, last_name, username
# Something of the profile without its own update type (the bio): clients refetch it.
USER_PROFILE_UPDATE = "user_profile"  # payload: user_id


def _name_payload(user: User) -> dict:
    return {
        "user_id": user.id,
        "first_name": user.first_name,
        "last_name": user.last_name,
        "username": user.username,
    }


log = logging.getLogger("telesrv.login")


@dataclass(slots=True)
class ProfileChange:
    """The user after an edit, and the account update to push to its other sessions."""

    user: User
    events: list[UserUpdate]


def do_update_profile(
    user_id: int,
    *,
    first_name: str | None = None,
    last_name: str | None = None,
    about: str | None = None,
) -> ProfileChange:
    """account.updateProfile: only the given fields change."""
    with transaction.atomic():
        user = User.objects.select_for_update().get(id=user_id)
        before = (user.first_name, user.last_name)
        about_before = user.about
        if first_name is not None:
            user.first_name = clean_first_name(first_name)
        if last_name is not None:
            user.last_name = clean_last_name(last_name)
        if about is not None:
            user.about = clean_about(about)
        user.save(update_fields=["first_name", "last_name", "about"])
        events = []
        if (user.first_name, user.last_name) != before:
            events.append(append_user_update(user.id, USER_NAME_UPDATE, _name_payload(user)))
        if user.about != about_before:
            events.append(append_user_update(user.id, USER_PROFILE_UPDATE, {"user_id": user.id}))
    user_render_changed(user_id)
    return ProfileChange(user, events)


def check_username_available(user_id: int, username: str) -> bool:
    """account.checkUsername: False when someone else holds it (USERNAME_INVALID if malformed)."""
    username = usernames.strip_at(username)
    usernames.check_username_format(username)
    return not usernames.is_username_taken(username, except_user_id=user_id)


def do_update_username(user_id: int, username: str) -> ProfileChange:
    """account.updateUsername; ``""`` removes the username."""
    username = usernames.strip_at(username or "")
    if username:
        usernames.check_username_format(username)
    with transaction.atomic():
        user = User.objects.select_for_update().get(id=user_id)
        if (user.username or "") == username:
            raise UsernameNotModifiedError()
        if username:
            usernames.lock_username(username)
            if usernames.is_username_taken(username, except_user_id=user_id):
                raise UsernameOccupiedError()
        user.username = username or None
        try:
            with transaction.atomic():
                user.save(update_fields=["username"])
        except IntegrityError as exc:
            raise UsernameOccupiedError() from exc
        event = append_user_update(user.id, USER_NAME_UPDATE, _name_payload(user))
    user_render_changed(user_id)
    return ProfileChange(user, [event])


def _own_usernames(user_id: int) -> list[str]:
    username = User.objects.values_list("username", flat=True).get(id=user_id)
    return [username] if username else []


def do_toggle_username(user_id: int, username: str, active: bool) -> None:
    """account.toggleUsername. A user here has one, editable, username (collectible
    ones do not exist): it is always active and only account.updateUsername changes it,
    so toggling it is USERNAME_NOT_MODIFIED; any other name is USERNAME_INVALID."""
    name = usernames.normalize(usernames.strip_at(username or ""))
    if name not in [usernames.normalize(u) for u in _own_usernames(user_id)]:
        raise UsernameInvalidError()
    raise UsernameNotModifiedError()


def do_reorder_usernames(user_id: int, order: list[str]) -> None:
    """account.reorderUsernames: the only order of one username is itself (kept);
    anything but the user's active usernames is ORDER_INVALID."""
    given = [usernames.normalize(usernames.strip_at(u or "")) for u in order[:64]]
    if len(order) > 64 or given != [usernames.normalize(u) for u in _own_usernames(user_id)]:
        raise OrderInvalidError()


def do_update_status(user_id: int, *, offline: bool, online_for: int) -> User:
    """account.updateStatus: online for ``online_for`` seconds, or offline now."""
    now = timezone.now()
    user = User.objects.get(id=user_id)
    user.last_seen = now
    user.online_until = None if offline else now + timedelta(seconds=online_for)
    user.save(update_fields=["last_seen", "online_until"])
    return user


# --- contacts ----------------------------------------------------------------------

IMPORT_CAP = 500  # contacts per contacts.importContacts call
CONTACTS_CAP = 10_000  # a contact list is returned whole (the API has no paging)


@dataclass(frozen=True, slots=True)
class PhoneContact:
    client_id: int
    phone: str
    first_name: str
    last_name: str


def do_import_contacts(owner_id: int, contacts: list[PhoneContact]) -> list[tuple[int, int]]:
    """contacts.importContacts: add the registered phones; ``[(user_id, client_id)]``.

    Phones without an account are skipped (there is nobody to add yet).
    """
    by_phone: dict[str, PhoneContact] = {}
    for c in contacts[:IMPORT_CAP]:
        try:
            by_phone[normalize_phone(c.phone)] = c
        except PhoneNumberInvalidError:
            continue
    if not by_phone:
        return []
    users = dict(
        User.objects.filter(phone__in=list(by_phone), deleted=False)
        .exclude(id=owner_id)
        .values_list("phone", "id")
    )
    # Only those whose "find me by my number" rule lets the importer find them.
    from accounts_app.contact_links import findable_by_phone

    findable = findable_by_phone(owner_id, list(users.values()))
    users = {phone: uid for phone, uid in users.items() if uid in findable}
    imported = []
    with transaction.atomic():
        for phone, user_id in users.items():
            c = by_phone[phone]
            Contact.objects.update_or_create(
                owner_id=owner_id,
                user_id=user_id,
                defaults={"first_name": c.first_name[:NAME_MAX], "last_name": c.last_name[:NAME_MAX]},
            )
            imported.append((user_id, c.client_id))
    user_render_changed(owner_id, *(u for u, _ in imported))
    return imported


def do_delete_contacts(owner_id: int, user_ids: list[int]) -> int:
    deleted = Contact.objects.filter(owner_id=owner_id, user_id__in=user_ids[:IMPORT_CAP]).delete()[0]
    user_render_changed(owner_id, *user_ids[:IMPORT_CAP])
    return deleted


def list_contacts(owner_id: int) -> list[tuple[int, bool]]:
    """``[(user_id, mutual)]`` of the owner's contacts, oldest first."""
    ids = list(
        Contact.objects.filter(owner_id=owner_id)
        .order_by("id")
        .values_list("user_id", flat=True)[:CONTACTS_CAP]
    )
    mutual = set(
        Contact.objects.filter(owner_id__in=ids, user_id=owner_id).values_list("owner_id", flat=True)
    )
    return [(uid, uid in mutual) for uid in ids]


def vector_hash(ids: list[int]) -> int:
    """Telegram's hash of an id list (what clients send back as ``hash``)."""
    acc = 0
    for value in ids:
        acc ^= acc >> 21
        acc ^= (acc << 35) & 0xFFFFFFFFFFFFFFFF
        acc ^= acc >> 4
        acc = (acc + value) & 0xFFFFFFFFFFFFFFFF
    return acc - (1 << 64) if acc >= 1 << 63 else acc


# --- lookups -----------------------------------------------------------------------

SEARCH_CAP = 50


def find_user_by_username(username: str) -> int | None:
    username = usernames.strip_at(username)
    if not usernames.is_valid_username(username):
        raise UsernameInvalidError()
    return (
        User.objects.annotate(username_key=Lower("username"))
        .filter(username_key=usernames.normalize(username), deleted=False)
        .values_list("id", flat=True)
        .first()
    )


def search_users(viewer_id: int, query: str, limit: int) -> tuple[list[int], list[int]]:
    """contacts.search over users: ``(contacts matching, public usernames matching)``."""
    query = usernames.strip_at(query.strip())
    limit = max(1, min(limit, SEARCH_CAP))
    contact_ids = list(
        Contact.objects.filter(owner_id=viewer_id)
        .filter(
            Q(first_name__icontains=query)
            | Q(last_name__icontains=query)
            | Q(user__first_name__icontains=query)
            | Q(user__last_name__icontains=query)
            | Q(user__username__istartswith=query)
        )
        .order_by("id")
        .values_list("user_id", flat=True)[:limit]
    )
    public: list[int] = []
    if len(query) >= 3:
        public = list(
            User.objects.annotate(username_key=Lower("username"))
            .filter(username_key__startswith=usernames.normalize(query), deleted=False)
            .exclude(id__in=contact_ids)
            .exclude(id=viewer_id)
            .order_by("username_key")
            .values_list("id", flat=True)[:limit]
        )
    return contact_ids, public


def do_reset_authorization(user_id: int, auth_hash: int, current_key_id: int) -> int | None:
    """account.resetAuthorization: log out one other device; its permanent key id."""
    if auth_hash == 0:
        return None
    auth = (
        Authorization.objects.filter(user_id=user_id, hash=auth_hash)
        .exclude(perm_auth_key_id=current_key_id)
        .first()
    )
    if auth is None:
        return None
    auth.delete()
    _log_terminated(user_id, [auth])
    return auth.perm_auth_key_id


def _log_terminated(user_id: int, auths: list[Authorization]) -> None:
    for auth in auths:
        log.info(
            "user %d terminated the session on key %016x %s",
            user_id,
            auth.perm_auth_key_id & 0xFFFFFFFFFFFFFFFF,
            of_authorization(auth),
        )


def users_by_id(user_ids: list[int]) -> list[User]:
    return list(User.objects.filter(id__in=user_ids[:CONTACTS_CAP]))


def do_reset_other_authorizations(user_id: int, current_key_id: int) -> list[int]:
    """auth.resetAuthorizations: log out every other device; their permanent key ids."""
    with transaction.atomic():
        others = Authorization.objects.filter(user_id=user_id).exclude(perm_auth_key_id=current_key_id)
        gone = list(others)
        others.delete()
    _log_terminated(user_id, gone)
    return [a.perm_auth_key_id for a in gone]


def do_add_contact(owner_id: int, user_id: int, first_name: str, last_name: str) -> None:
    """contacts.addContact (by user, as from a profile page)."""
    if owner_id == user_id:
        raise RpcError(400, "CONTACT_ID_INVALID")  # no named class in tl/errors.csv
    if not User.objects.filter(id=user_id, deleted=False).exists():
        raise UserIdInvalidError()
    Contact.objects.update_or_create(
        owner_id=owner_id,
        user_id=user_id,
        defaults={"first_name": clean_first_name(first_name), "last_name": clean_last_name(last_name)},
    )
    user_render_changed(owner_id, user_id)


def contact_owners_of(user_id: int, limit: int) -> list[int]:
    """Users that have ``user_id`` in their contact list (at most ``limit``)."""
    return list(
        Contact.objects.filter(user_id=user_id).order_by("id").values_list("owner_id", flat=True)[:limit]
    )


def saved_contacts(owner_id: int) -> list[tuple[str, str, str, int]]:
    """contacts.getSaved (a data export's contact list): ``(phone, first name, last name,
    date added)`` of the owner's contacts; the phone only where its owner lets the
    viewer see it."""
    from accounts_app import privacy

    rows = list(
        Contact.objects.filter(owner_id=owner_id).select_related("user").order_by("id")[:CONTACTS_CAP]
    )
    seen = privacy.visibility(owner_id, [c.user_id for c in rows], (privacy.PHONE_NUMBER,))[
        privacy.PHONE_NUMBER
    ]
    return [
        (
            c.user.phone if c.user_id in seen else "",
            c.first_name or c.user.first_name,
            c.last_name or c.user.last_name,
            int(c.created.timestamp()),
        )
        for c in rows
        if not c.user.deleted
    ]
