import pytest
from django.contrib.auth import get_user_model


@pytest.mark.django_db
def test_superuser_logs_into_admin(client):
    get_user_model().objects.create_superuser("root", "root@example.invalid", "s3cret-pass")

    assert client.get("/admin/").status_code == 302  # anonymous: redirected to login
    response = client.post(
        "/admin/login/?next=/admin/", {"username": "root", "password": "s3cret-pass"}, follow=True
    )

    assert response.status_code == 200
    assert response.context["user"].is_superuser
    assert b"telesrv console" in response.content and b"Django administration" not in response.content


@pytest.mark.django_db
def test_wrong_password_is_refused(client):
    get_user_model().objects.create_superuser("root", "root@example.invalid", "s3cret-pass")
    response = client.post("/admin/login/?next=/admin/", {"username": "root", "password": "nope"})
    assert response.status_code == 200
    assert not response.wsgi_request.user.is_authenticated
