import pytest

from accounts_app import login
from accounts_app.models import Authorization


@pytest.fixture
def operator(admin_client):
    return admin_client


def test_operators_read_login_codes(operator, db):
    code = login.do_send_code("15557770001")
    page = operator.get("/admin/accounts_app/logincode/")
    assert page.status_code == 200
    assert code.code.encode() in page.content and b"15557770001" in page.content


def test_authorizations_page_hides_the_auth_key(operator, alice):
    login.do_sign_in(
        0x1234_5678_9ABC,
        alice.phone,
        (c := login.do_send_code(alice.phone)).phone_code_hash,
        c.code,
        login.DeviceInfo(device_model="Pixel Test"),
    )
    auth = Authorization.objects.get(user=alice)
    listing = operator.get("/admin/accounts_app/authorization/")
    detail = operator.get(f"/admin/accounts_app/authorization/{auth.pk}/change/")
    for page in (listing, detail):
        assert page.status_code == 200
        assert b"Pixel Test" in page.content
        assert str(auth.perm_auth_key_id).encode() not in page.content
        assert b"perm_auth_key_id" not in page.content


def test_user_pages(operator, alice):
    assert operator.get("/admin/accounts_app/user/").status_code == 200
    page = operator.get(f"/admin/accounts_app/user/{alice.id}/change/")
    assert page.status_code == 200 and b"alice_a" in page.content
    assert operator.get("/admin/accounts_app/userupdateevent/").status_code == 200
    assert operator.get("/admin/accounts_app/contact/").status_code == 200


def test_user_list_shows_sessions_and_two_step_and_operator_resets_it(operator, alice, bob):
    from django.contrib.admin.models import LogEntry

    from accounts_app.models import TwoStepPassword

    secret = bytes(range(1, 200))
    TwoStepPassword.objects.create(user=alice, salt1=b"s" * 40, salt2=b"t", verifier=secret)
    Authorization.objects.create(perm_auth_key_id=77, user=alice, hash=7, device_model="Phone A")
    listing = operator.get("/admin/accounts_app/user/")
    assert listing.status_code == 200
    assert b"icon-yes" in listing.content and b"icon-no" in listing.content  # alice on, bob off
    page = operator.get(f"/admin/accounts_app/user/{alice.id}/change/")
    assert b"Phone A" in page.content and secret.hex().encode() not in page.content
    assert b"verifier" not in page.content and b"login_email_code" not in page.content
    # the console asks first (issue 37): nothing is removed before "Yes, I'm sure"
    asked = operator.post(
        "/admin/accounts_app/user/",
        {"action": "reset_two_step_password", "_selected_action": [alice.id, bob.id], "index": 0},
    )
    assert asked.status_code == 200 and b'id="console-confirm-yes"' in asked.content
    assert TwoStepPassword.objects.filter(user=alice).exists()
    done = operator.post(
        "/admin/accounts_app/user/",
        {"action": "reset_two_step_password", "_selected_action": [alice.id, bob.id], "post": "yes"},
    )
    assert done.status_code == 302
    assert not TwoStepPassword.objects.filter(user=alice).exists()
    entry = LogEntry.objects.get(object_id=str(alice.id))
    assert "two-step" in entry.get_change_message()


def test_user_pages_are_read_only_even_for_a_superuser(operator, alice):
    """Edits in place would skip the account log and the pushes: the console's actions
    (console_app) are the only way to change a user."""
    url = f"/admin/accounts_app/user/{alice.id}/change/"
    page = operator.get(url)
    assert page.status_code == 200 and b"alice_a" in page.content
    assert b'name="_save"' not in page.content and b"deletelink" not in page.content
    posted = operator.post(url, {"phone": alice.phone, "first_name": "Mallory", "username": "mallory"})
    assert posted.status_code == 403
    assert operator.post(f"/admin/accounts_app/user/{alice.id}/delete/", {"post": "yes"}).status_code == 403
    assert operator.get("/admin/accounts_app/user/add/").status_code == 403
    alice.refresh_from_db()
    assert (alice.first_name, alice.username, alice.deleted) == ("Alice", "alice_a", False)
    contact = operator.get("/admin/accounts_app/contact/add/")
    assert contact.status_code == 403
