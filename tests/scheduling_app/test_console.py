"""The console lists scheduled messages and the link preview cache (read-only)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User as StaffUser

from scheduling_app.actions import WHEN_ONLINE
from scheduling_app.models import ScheduledMessage
from webpages_app.models import WebPage


@pytest.fixture
def root_client(transactional_db, client):
    client.force_login(StaffUser.objects.create_superuser("root", "root@example.invalid", "pw-root"))
    return client


def test_console_lists_scheduled_messages_and_pages(root_client):
    ScheduledMessage.objects.create(
        owner_id=5,
        peer_kind="p",
        peer_id=6,
        date=WHEN_ONLINE,
        random_id=1,
        message="when you are back",
        created=1,
    )
    WebPage.objects.create(id=7, url="https://ex.org/", state="ready", data={"title": "Example"}, date=1)
    page = root_client.get("/admin/scheduling_app/scheduledmessage/")
    assert page.status_code == 200
    assert b"when you are back" in page.content and b"when online" in page.content
    page = root_client.get("/admin/webpages_app/webpage/")
    assert page.status_code == 200 and b"Example" in page.content
    assert root_client.get("/admin/scheduling_app/scheduledmessage/add/").status_code == 403
