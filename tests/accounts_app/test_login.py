import logging
from datetime import timedelta

import pytest
from django.utils import timezone

from accounts_app import login
from accounts_app.models import Authorization, LoginCode, User
from tl.errors import (
    FloodWaitError,
    PhoneCodeEmptyError,
    PhoneCodeExpiredError,
    PhoneCodeHashEmptyError,
    PhoneCodeInvalidError,
    PhoneNumberInvalidError,
)

DEVICE = login.DeviceInfo(api_id=1, device_model="pytest")
PHONE = "+1 555 010 2030"


def sign_in(key, code, phone=PHONE, code_text=None):
    return login.do_sign_in(
        key, phone, code.phone_code_hash, code.code if code_text is None else code_text, DEVICE
    )


def test_send_code_stores_it_and_the_log_backend_logs_it(db, caplog, settings):
    from asgiref.sync import async_to_sync

    from accounts_app import code_delivery

    settings.LOG_LOGIN_CODES = True  # development; production: tests/accounts_app/test_code_delivery.py
    code = login.do_send_code(PHONE)
    assert code.phone == "15550102030"
    assert len(code.code) == 5 and code.code.isdigit()
    assert LoginCode.objects.get(phone_code_hash=code.phone_code_hash).code == code.code
    with caplog.at_level(logging.INFO, logger="telesrv.login"):
        assert async_to_sync(code_delivery.deliver)(code, "sent") == (code_delivery.LOG, "")
    assert code.code in caplog.text and "+15550102030" in caplog.text
    assert LoginCode.objects.get(phone_code_hash=code.phone_code_hash).via == "log"


def test_invalid_phone(db):
    with pytest.raises(PhoneNumberInvalidError):
        login.do_send_code("call me maybe")


def test_test_numbers_only_when_enabled(db, settings):
    settings.TEST_PHONE_NUMBERS = False
    assert login.test_phone_code("9996621234") is None
    settings.TEST_PHONE_NUMBERS = True
    assert login.test_phone_code("9996621234") == "22222"
    assert login.test_phone_code("9996521234") is None
    assert login.do_send_code("+999 66 3 1234").code == "33333"


def test_unknown_phone_needs_sign_up_then_signs_up(db):
    code = login.do_send_code(PHONE)
    assert sign_in(7, code).user is None
    assert not Authorization.objects.exists()
    user = login.do_sign_up(7, PHONE, code.phone_code_hash, "New", "Person", DEVICE)
    assert (user.first_name, user.last_name, user.phone) == ("New", "Person", "15550102030")
    assert login.authorized_user_id(7) == user.id
    # The code was spent by the sign-up.
    with pytest.raises(PhoneCodeExpiredError):
        login.do_sign_up(8, PHONE, code.phone_code_hash, "Again", "", DEVICE)


def test_sign_up_needs_a_code_checked_by_sign_in(db):
    code = login.do_send_code(PHONE)
    with pytest.raises(PhoneCodeInvalidError):
        login.do_sign_up(7, PHONE, code.phone_code_hash, "New", "", DEVICE)
    assert not User.objects.exists()


def test_existing_user_signs_in_and_out(alice):
    code = login.do_send_code(alice.phone)
    assert sign_in(42, code, phone=alice.phone).user.id == alice.id
    auth = Authorization.objects.get(perm_auth_key_id=42)
    assert (auth.user_id, auth.device_model, auth.api_id) == (alice.id, "pytest", 1)
    assert login.authorized_user_id(42) == alice.id
    assert login.do_log_out(42) == alice.id
    assert login.authorized_user_id(42) is None
    assert login.do_log_out(42) is None
    # A code works once.
    with pytest.raises(PhoneCodeExpiredError):
        sign_in(43, code, phone=alice.phone)


def test_a_second_device_gets_its_own_authorization(alice):
    for key in (1, 2):
        code = login.do_send_code(alice.phone)
        sign_in(key, code, phone=alice.phone)
    assert Authorization.objects.filter(user=alice).count() == 2
    login.do_log_out(1)
    assert login.authorized_user_id(2) == alice.id


def test_wrong_code_counts_attempts_then_floods(db, settings):
    settings.LOGIN_MAX_ATTEMPTS = 3
    settings.LOGIN_LOCK_SECONDS = 120
    code = login.do_send_code(PHONE)
    wrong = "00000" if code.code != "00000" else "11111"
    for attempt in (1, 2):
        with pytest.raises(PhoneCodeInvalidError):
            sign_in(5, code, code_text=wrong)
        assert LoginCode.objects.get(pk=code.pk).attempts == attempt
    with pytest.raises(FloodWaitError) as exc:
        sign_in(5, code, code_text=wrong)
    assert exc.value.message == "FLOOD_WAIT_120"
    # Locked: even the right code and a new code wait.
    with pytest.raises(FloodWaitError):
        sign_in(5, code)
    with pytest.raises(FloodWaitError) as exc:
        login.do_send_code(PHONE)
    assert 100 < int(exc.value.message.rsplit("_", 1)[1]) <= 120
    # After the lock the phone can log in again (with a new code).
    LoginCode.objects.filter(pk=code.pk).update(locked_until=timezone.now() - timedelta(seconds=1))
    fresh = login.do_send_code(PHONE)
    assert sign_in(5, fresh).user is None


def test_expired_code(db):
    code = login.do_send_code(PHONE)
    LoginCode.objects.filter(pk=code.pk).update(expires=timezone.now() - timedelta(seconds=1))
    with pytest.raises(PhoneCodeExpiredError):
        sign_in(5, code)


def test_hash_of_another_phone_or_unknown_hash(db):
    code = login.do_send_code(PHONE)
    with pytest.raises(PhoneCodeExpiredError):
        sign_in(5, code, phone="15559999999")
    with pytest.raises(PhoneCodeExpiredError):
        login.do_sign_in(5, PHONE, "nope", code.code, DEVICE)
    with pytest.raises(PhoneCodeHashEmptyError):
        login.do_sign_in(5, PHONE, "", code.code, DEVICE)
    with pytest.raises(PhoneCodeEmptyError):
        login.do_sign_in(5, PHONE, code.phone_code_hash, "", DEVICE)


def test_too_many_codes_per_hour(db, settings):
    settings.LOGIN_CODES_PER_HOUR = 2
    login.do_send_code(PHONE)
    login.do_send_code(PHONE)
    with pytest.raises(FloodWaitError) as exc:
        login.do_send_code(PHONE)
    assert 3500 < int(exc.value.message.rsplit("_", 1)[1]) <= 3600
    login.do_send_code("15550102031")  # other phones are not affected


def test_resend_keeps_the_code_and_cancel_kills_it(db):
    code = login.do_send_code(PHONE)
    again = login.do_resend_code(PHONE, code.phone_code_hash)
    assert (again.code, again.phone_code_hash, again.resends) == (code.code, code.phone_code_hash, 1)
    login.do_cancel_code(PHONE, code.phone_code_hash)
    with pytest.raises(PhoneCodeExpiredError):
        sign_in(5, code)
    with pytest.raises(PhoneCodeExpiredError):
        login.do_resend_code(PHONE, code.phone_code_hash)


def test_authorization_lookup_marks_the_device_active(alice):
    code = login.do_send_code(alice.phone)
    sign_in(77, code, phone=alice.phone)
    long_ago = timezone.now() - timedelta(days=3)
    Authorization.objects.filter(perm_auth_key_id=77).update(active=long_ago)
    assert login.authorized_user_id(77) == alice.id
    assert Authorization.objects.get(perm_auth_key_id=77).active > timezone.now() - timedelta(minutes=1)


def test_a_deleted_account_cannot_sign_in_or_sign_up_again(alice):
    from tl.errors import PhoneNumberBannedError

    User.objects.filter(pk=alice.pk).update(deleted=True)
    code = login.do_send_code(alice.phone)
    with pytest.raises(PhoneNumberBannedError):
        sign_in(9, code, phone=alice.phone)
    assert login.authorized_user_id(9) is None
