"""An operator closing an account (the console's "deactivate"): the account logs out
everywhere, its username is freed, and it can no longer sign in (auth.signIn answers
PHONE_NUMBER_BANNED for a deleted user). Clients of other users show it as a deleted
account from their next fetch on, and contacts are told live by the caller's push."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction

from accounts_app.actions import USER_NAME_UPDATE, _name_payload
from accounts_app.models import Authorization, User
from accounts_app.updates import UserUpdate, append_user_update


@dataclass(slots=True)
class Deactivation:
    user: User
    # Permanent auth keys that were logged in: every edge must forget them.
    key_ids: list[int]
    events: list[UserUpdate]
    already: bool = False


def do_deactivate_user(user_id: int) -> Deactivation:
    with transaction.atomic():
        user = User.objects.select_for_update().get(id=user_id)
        sessions = Authorization.objects.filter(user_id=user_id)
        key_ids = list(sessions.values_list("perm_auth_key_id", flat=True))
        sessions.delete()
        if user.deleted:
            return Deactivation(user, key_ids, [], already=True)
        user.deleted = True
        user.username = None
        user.online_until = None
        user.save(update_fields=["deleted", "username", "online_until"])
        event = append_user_update(user.id, USER_NAME_UPDATE, _name_payload(user))
    return Deactivation(user, key_ids, [event])
