"""The account self-destruct job: accounts inactive past their TTL (and waited-for
deletions) are deleted, each exactly once when several workers run the job at once;
active accounts and accounts inside their TTL stay."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from accounts_app import account_deletion, account_settings
from accounts_app.models import AccountSettings, Authorization, User

pytestmark = pytest.mark.django_db(transaction=True)


def _user(phone: str, *, idle_days: int, ttl: int | None = None) -> User:
    user = User.objects.create(phone=phone, first_name="U")
    seen = timezone.now() - timedelta(days=idle_days)
    User.objects.filter(id=user.id).update(created=seen, last_seen=seen)
    if ttl:
        account_settings.do_set_account_ttl(user.id, ttl)
    return user


def test_expired_accounts_are_deleted_exactly_once_by_concurrent_workers():
    expired = [_user(f"1555000{i:04d}", idle_days=400) for i in range(30)]
    short = _user("15550009001", idle_days=40, ttl=30)
    kept = _user("15550009002", idle_days=40)  # default 365 days
    active = _user("15550009003", idle_days=400)
    Authorization.objects.create(perm_auth_key_id=77, user=active, hash=77)  # its device was active now

    results: list[list[int]] = []
    barrier = threading.Barrier(3)

    def worker():
        barrier.wait()
        try:
            done = []
            while batch := account_deletion.delete_expired_batch(batch=7):
                done += [d.user.id for d in batch]
            results.append(done)
        finally:
            connection.close()

    threads = [threading.Thread(target=worker) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    deleted = [uid for r in results for uid in r]
    assert sorted(deleted) == sorted([u.id for u in expired] + [short.id])  # no id twice
    assert set(User.objects.filter(deleted=True).values_list("id", flat=True)) == set(deleted)
    assert not User.objects.get(id=kept.id).deleted and not User.objects.get(id=active.id).deleted


def test_a_waited_for_deletion_runs_when_due_and_a_password_login_stops_it():
    user = _user("15550009100", idle_days=1)
    AccountSettings.objects.create(user=user, delete_at=timezone.now() + timedelta(days=1))
    assert account_deletion.delete_expired_batch() == []
    assert account_deletion.do_cancel_scheduled_deletion(user.id)
    AccountSettings.objects.filter(user=user).update(delete_at=timezone.now() - timedelta(seconds=1))
    assert [d.user.id for d in account_deletion.delete_expired_batch()] == [user.id]


def test_idle_devices_past_the_authorization_ttl_are_logged_out():
    user = _user("15550009200", idle_days=1)
    account_settings.do_set_authorization_ttl(user.id, 7)
    fresh = Authorization.objects.create(perm_auth_key_id=201, user=user, hash=201)
    idle = Authorization.objects.create(perm_auth_key_id=202, user=user, hash=202)
    Authorization.objects.filter(id=idle.id).update(active=timezone.now() - timedelta(days=8))
    assert account_deletion.expire_authorizations_batch() == [202]
    assert list(Authorization.objects.filter(user=user).values_list("id", flat=True)) == [fresh.id]
