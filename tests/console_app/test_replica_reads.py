"""Console list pages read the lag-tolerant alias (settings.READ_DATABASE: the standby of
TELESRV_DB_REPLICA_HOSTS, docs/operations.md); actions and list edits, which are POSTs,
stay on the primary."""

from django.contrib.admin.views.main import ChangeList
from django.test import RequestFactory, override_settings

from console_app.models import Message
from console_app.pagination import KeysetChangeList


def listed_on(method: str, monkeypatch) -> str:
    monkeypatch.setattr(
        ChangeList, "get_queryset", lambda self, request, exclude_parameters=None: Message.objects.all()
    )
    changelist = KeysetChangeList.__new__(KeysetChangeList)  # only its queryset is asked for
    request = getattr(RequestFactory(), method)("/admin/console_app/message/")
    with override_settings(READ_DATABASE="replica"):
        return KeysetChangeList.get_queryset(changelist, request).db


def test_list_pages_read_the_replica_alias(monkeypatch):
    assert listed_on("get", monkeypatch) == "replica"
    assert listed_on("head", monkeypatch) == "replica"


def test_actions_on_a_list_use_the_primary(monkeypatch):
    assert listed_on("post", monkeypatch) == "default"
