"""Domain rules of the account calls behind TDesktop's settings: the password reset's
waiting period and decline, the confirm-phone hash of a pending deletion, and the
one-username toggle/reorder rules."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone

from accounts_app import actions, confirm_phone, two_step
from accounts_app.models import AccountSettings, LoginCode, TwoStepPassword, User
from tl.errors import (
    HashInvalidError,
    OrderInvalidError,
    PasswordMissingError,
    PhoneCodeInvalidError,
    ResetRequestMissingError,
    UsernameInvalidError,
    UsernameNotModifiedError,
)

pytestmark = pytest.mark.django_db


def _with_password(phone: str) -> User:
    user = User.objects.create(phone=phone, first_name="U")
    TwoStepPassword.objects.create(user_id=user.id, salt1=b"s1", salt2=b"s2", verifier=b"v" * 256)
    return user


@override_settings(PASSWORD_RESET_WAIT_SECONDS=3600)
def test_reset_waits_then_removes_and_decline_bars_new_requests():
    user = _with_password("15550001001")
    requested = two_step.do_reset_password(user.id)
    assert not requested.done and requested.until > timezone.now() + timedelta(seconds=3500)
    assert two_step.do_reset_password(user.id).until == requested.until  # no new clock
    assert two_step.get_state(user.id).pending_reset_date == requested.until

    two_step.do_decline_password_reset(user.id)
    with pytest.raises(ResetRequestMissingError):
        two_step.do_decline_password_reset(user.id)
    barred = two_step.do_reset_password(user.id)
    assert barred.retry is not None and not barred.done
    assert TwoStepPassword.objects.get(user_id=user.id).reset_at is None  # nothing new requested

    TwoStepPassword.objects.filter(user_id=user.id).update(
        reset_retry_at=None, reset_at=timezone.now() - timedelta(seconds=1)
    )
    assert two_step.do_reset_password(user.id).done
    assert not two_step.has_password(user.id)
    with pytest.raises(PasswordMissingError):
        two_step.do_reset_password(user.id)


def test_confirm_phone_hash_names_one_pending_deletion():
    user = _with_password("15550001002")
    with pytest.raises(HashInvalidError):
        confirm_phone.do_send_confirm_phone_code(user.id, "x" * 32)
    assert confirm_phone.confirm_phone_link(user.id) is None
    AccountSettings.objects.create(user_id=user.id, delete_at=timezone.now() + timedelta(days=7))
    link = confirm_phone.confirm_phone_link(user.id)
    assert link.startswith("https://t.me/confirmphone?phone=15550001002&hash=")
    link_hash = link.rsplit("=", 1)[1]
    other = _with_password("15550001003")
    AccountSettings.objects.create(user_id=other.id, delete_at=timezone.now() + timedelta(days=7))
    with pytest.raises(HashInvalidError):  # another account's link
        confirm_phone.do_send_confirm_phone_code(other.id, link_hash)

    code = confirm_phone.do_send_confirm_phone_code(user.id, link_hash)
    assert code.phone == "15550001002"
    with pytest.raises(PhoneCodeInvalidError):
        confirm_phone.do_confirm_phone(user.id, code.phone_code_hash, "0" if code.code != "0" else "1")
    assert AccountSettings.objects.get(user_id=user.id).delete_at is not None
    confirm_phone.do_confirm_phone(user.id, code.phone_code_hash, code.code)
    assert AccountSettings.objects.get(user_id=user.id).delete_at is None
    assert LoginCode.objects.get(id=code.id).used
    with pytest.raises(HashInvalidError):
        confirm_phone.do_send_confirm_phone_code(user.id, link_hash)


def test_one_username_rules():
    user = User.objects.create(phone="15550001004", first_name="U")
    actions.do_reorder_usernames(user.id, [])
    with pytest.raises(OrderInvalidError):
        actions.do_reorder_usernames(user.id, ["anyname"])
    with pytest.raises(UsernameInvalidError):
        actions.do_toggle_username(user.id, "anyname", True)
    User.objects.filter(id=user.id).update(username="Someone")
    actions.do_reorder_usernames(user.id, ["@someone"])
    with pytest.raises(OrderInvalidError):
        actions.do_reorder_usernames(user.id, ["someone", "someone"])
    with pytest.raises(UsernameNotModifiedError):
        actions.do_toggle_username(user.id, "someone", False)
    assert User.objects.get(id=user.id).username == "Someone"
