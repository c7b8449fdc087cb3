"""The console's calls page: a user's calls both ways, who / whom / when / how long /
how it ended, and nothing of the key exchange."""

from __future__ import annotations

import pytest

from calls_app.models import PhoneCall

pytestmark = pytest.mark.django_db


def _call(call_id: int, admin_id: int, participant_id: int, **fields) -> PhoneCall:
    return PhoneCall.objects.create(
        id=call_id, access_hash=1, admin_id=admin_id, participant_id=participant_id, random_id=call_id,
        g_a_hash=b"\\x01" * 32, g_a=b"SECRET-G-A", date=1_700_000_000 + call_id, state="discarded", **fields,
    )  # fmt: skip


def test_calls_of_a_user_both_ways(admin_client):
    from accounts_app.models import User

    User.objects.create(id=501, phone="15550501", first_name="Ada", last_name="L")
    _call(1, 501, 502, duration=61, outcome="completed", reason="hangup", start_date=1)
    _call(2, 503, 501, outcome="missed", reason="missed", video=True)
    _call(3, 503, 504, outcome="busy", reason="busy")
    page = admin_client.get("/admin/calls_app/phonecall/", {"q": "501"})
    assert page.status_code == 200
    rows = page.content.decode().split("<tbody>")[1].split("</tbody>")[0]
    assert rows.count("<tr") == 2 and "completed" in rows and "missed" in rows and "busy" not in rows
    assert "61" in rows and "video" in rows and "Ada L (501)" in rows
    detail = admin_client.get("/admin/calls_app/phonecall/1/change/").content.decode()
    assert "SECRET-G-A" not in detail and "502" in detail
