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


def test_operator_cannot_give_a_taken_or_malformed_username(operator, alice, bob):
    url = f"/admin/accounts_app/user/{bob.id}/change/"
    base = {"phone": bob.phone, "first_name": "Bob", "last_name": "", "about": "", "lang_code": ""}
    # Other apps may add inlines to the user page (bob has no rows in them).
    for inline in operator.get(url).context["inline_admin_formsets"]:
        prefix = inline.formset.prefix
        base.update({f"{prefix}-TOTAL_FORMS": 0, f"{prefix}-INITIAL_FORMS": 0})
    taken = operator.post(url, {**base, "username": "ALICE_A"})
    assert taken.status_code == 200 and b"This username is taken" in taken.content
    bad = operator.post(url, {**base, "username": "b_"})
    assert bad.status_code == 200 and b"starting with a letter" in bad.content
    phone = operator.post(url, {**base, "phone": alice.phone, "username": "bobby"})
    assert b"Another account has this phone number" in phone.content
    ok = operator.post(url, {**base, "username": "bob_new"})
    assert ok.status_code == 302
    bob.refresh_from_db()
    assert bob.username == "bob_new"
