"""The timeout job ends each due call exactly once, however many workers claim at once,
and leaves calls that are still within their timeouts alone."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from calls_app import actions
from calls_app.models import PhoneCall
from message_core.clock import now

pytestmark = pytest.mark.django_db(transaction=True)


def _call(call_id: int, state: str, age: int) -> None:
    at = now() - age
    PhoneCall.objects.create(
        id=call_id, access_hash=1, admin_id=9000 + call_id, participant_id=9500 + call_id, random_id=call_id,
        g_a_hash=b"\\x01" * 32, date=at, accept_date=at if state == "accepted" else 0, state=state,
    )  # fmt: skip


def test_due_calls_end_once_across_workers():
    for i in range(1, 31):
        _call(i, ("requested", "received", "accepted")[i % 3], 3600)
    _call(100, "received", 5)  # still ringing
    _call(101, "active", 3600)  # a long call is not a timeout
    ended: list[list[int]] = []
    start = threading.Barrier(4)

    def worker():
        start.wait()
        mine = []
        while batch := actions.claim_timed_out(limit=4):
            mine += [e.call["id"] for e in batch]
        ended.append(mine)
        connection.close()

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    ids = [i for mine in ended for i in mine]
    assert sorted(ids) == list(range(1, 31))  # each once
    outcomes = dict(PhoneCall.objects.filter(id__lte=30).values_list("id", "reason"))
    assert outcomes[2] == "disconnect" and outcomes[1] == "missed" and outcomes[3] == "missed"
    assert set(PhoneCall.objects.filter(id__in=[100, 101]).values_list("state", flat=True)) == {
        "received",
        "active",
    }
