"""Deleting accounts: account.deleteAccount and the account's time to live.

An account without a password is deleted at once. One with a two-step password is
deleted at once with the password; without it the deletion waits
``DELETE_WAIT_SECONDS`` (Telegram's week, ``2FA_CONFIRM_WAIT_X``) so the owner can stop
it by logging in with the password meanwhile.

The self-destruct job deletes accounts inactive for longer than their TTL
(account.setAccountTTL, 365 days by default) and the waited-for deletions. Several
listener processes (and machines) run it: each batch claims its users with ``FOR
UPDATE SKIP LOCKED`` in the transaction that deletes them, so every account is deleted
exactly once.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import timedelta

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from accounts_app import two_step
from accounts_app.account_settings import DEFAULT_TTL_DAYS
from accounts_app.deactivation import Deactivation, do_deactivate_user
from accounts_app.models import AccountSettings, User
from tl.errors import TwofaConfirmWaitError

log = logging.getLogger("telesrv.accounts")

BATCH = 100


def delete_wait_seconds() -> int:
    return int(getattr(settings, "ACCOUNT_DELETE_WAIT_SECONDS", 7 * 86400))


def job_interval() -> float:
    return float(getattr(settings, "ACCOUNT_TTL_JOB_INTERVAL", 3600))


def do_delete_account(user_id: int, proof: two_step.SrpProof | None) -> Deactivation:
    """account.deleteAccount. Raises 2FA_CONFIRM_WAIT_X for an account with a
    password when none was given (the deletion is then scheduled), PASSWORD_HASH_INVALID
    for a wrong one."""
    if two_step.has_password(user_id):
        if proof is None:
            now = timezone.now()
            with transaction.atomic():
                row, _ = AccountSettings.objects.select_for_update().get_or_create(user_id=user_id)
                if row.delete_at is None:
                    row.delete_at = now + timedelta(seconds=delete_wait_seconds())
                    row.save(update_fields=["delete_at", "updated"])
                wait = max(1, int((row.delete_at - now).total_seconds()))
            raise TwofaConfirmWaitError(seconds=wait)
        two_step.verify(user_id, proof)
    log.info("user %d deleted their account", user_id)
    return _delete(user_id)


def _delete(user_id: int) -> Deactivation:
    """Deactivate the account and free its phone number: unlike an operator's ban, a
    deleted account's number may sign up again as a new account, as on Telegram. The
    placeholder starts with 0, which no country code does."""
    with transaction.atomic():
        result = do_deactivate_user(user_id)
        User.objects.filter(id=user_id).update(phone=f"0{user_id}")
    return result


def do_cancel_scheduled_deletion(user_id: int) -> bool:
    """A login with the password stops a waiting deletion (as Telegram's does)."""
    return AccountSettings.objects.filter(user_id=user_id, delete_at__isnull=False).update(delete_at=None) > 0


# Users past their TTL (the newest of their last-seen time, their devices' activity and
# their sign-up) or past a waited-for deletion, claimed for this transaction only. Only
# rows that may be due are read, each through an index: the waited-for deletions
# (account_settings_delete_at), the users idle past the default TTL (users_idle_idx, in
# the order they went idle) and the few accounts that chose a shorter TTL
# (account_settings_short_ttl_idx); never every user (2.2 s a run at 1M users).
_CLAIM = """
SELECT u.id
  FROM (
        (SELECT user_id AS id FROM account_settings WHERE delete_at IS NOT NULL AND delete_at <= %(now)s)
        UNION ALL
        (SELECT id FROM users WHERE NOT deleted
            AND GREATEST(created, last_seen) < %(now)s - make_interval(days => %(default_ttl)s))
        UNION ALL
        (SELECT user_id FROM account_settings WHERE ttl_days > 0 AND ttl_days < %(default_ttl)s)
       ) due
  JOIN users u ON u.id = due.id
  LEFT JOIN account_settings s ON s.user_id = u.id
 WHERE NOT u.deleted AND u.id <> %(service)s AND (
       (s.delete_at IS NOT NULL AND s.delete_at <= %(now)s)
    OR GREATEST(u.created, u.last_seen,
                (SELECT max(a.active) FROM authorizations a WHERE a.user_id = u.id))
       < %(now)s - make_interval(days => COALESCE(NULLIF(s.ttl_days, 0), %(default_ttl)s)))
 LIMIT %(batch)s
   FOR UPDATE OF u SKIP LOCKED
"""


def delete_expired_batch(now=None, batch: int = BATCH) -> list[Deactivation]:
    """Delete one batch of expired accounts; what each deletion did (for the pushes)."""
    from accounts_app.code_delivery import SERVICE_USER_ID

    now = now or timezone.now()
    done: list[Deactivation] = []
    with transaction.atomic():
        with connection.cursor() as cur:
            cur.execute(
                _CLAIM,
                {"now": now, "default_ttl": DEFAULT_TTL_DAYS, "batch": batch, "service": SERVICE_USER_ID},
            )
            ids = list(dict.fromkeys(r[0] for r in cur.fetchall()))  # a user may be due twice
        for user_id in ids:
            done.append(_delete(user_id))
        AccountSettings.objects.filter(user_id__in=ids).update(delete_at=None)
    if ids:
        log.info("self-destruct: deleted %d inactive or scheduled accounts", len(ids))
    return done


# Devices idle past their account's authorization TTL (account.setAuthorizationTTL).
_STALE_AUTHORIZATIONS = """
DELETE FROM authorizations a
 USING (SELECT a2.id FROM authorizations a2 LEFT JOIN account_settings s ON s.user_id = a2.user_id
         WHERE a2.active < %(now)s - make_interval(days => COALESCE(s.authorization_ttl_days, 180))
         ORDER BY a2.id LIMIT %(batch)s FOR UPDATE OF a2 SKIP LOCKED) stale
 WHERE a.id = stale.id
RETURNING a.perm_auth_key_id
"""


def expire_authorizations_batch(now=None, batch: int = BATCH) -> list[int]:
    """Log out one batch of idle devices; their permanent key ids."""
    with transaction.atomic(), connection.cursor() as cur:
        cur.execute(_STALE_AUTHORIZATIONS, {"now": now or timezone.now(), "batch": batch})
        return [r[0] for r in cur.fetchall()]


async def announce(result: Deactivation) -> None:
    """What a deletion tells the edges: forget its keys, contacts see it gone."""
    from accounts_app.push import push_name_to_watchers
    from edge_app import registry

    for key_id in result.key_ids:
        registry.forget_authorization(key_id)
    for event in result.events:
        await push_name_to_watchers(result.user.id, event.payload)


async def run_self_destruct_job() -> None:
    """The listener's background job (registered in AccountsConfig.ready)."""
    from asgiref.sync import sync_to_async

    from edge_app import registry

    while True:
        try:
            while True:
                done = await sync_to_async(delete_expired_batch, thread_sensitive=False)()
                for result in done:
                    await announce(result)
                if len(done) < BATCH:
                    break
            while True:
                keys = await sync_to_async(expire_authorizations_batch, thread_sensitive=False)()
                for key_id in keys:
                    registry.forget_authorization(key_id)
                if len(keys) < BATCH:
                    break
        except Exception as exc:
            log.warning("self-destruct job postponed: %s", exc)
        await asyncio.sleep(job_interval())
