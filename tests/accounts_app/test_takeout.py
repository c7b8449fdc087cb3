"""Export sessions: the start delay for young devices, one user's session refused to
another, finished sessions refused."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from asgiref.sync import async_to_sync

from accounts_app import takeout
from accounts_app.models import Authorization, User
from tl.errors import TakeoutInitDelayError, TakeoutInvalidError, TakeoutRequiredError

pytestmark = pytest.mark.django_db(transaction=True)


def _ctx(user_id, takeout_id):
    return SimpleNamespace(app={"user_id": user_id}, takeout_id=takeout_id, perm_auth_key_id=1, session=None)


def test_delay_scopes_owner_and_finish(settings):
    alice = User.objects.create(phone="15550101001", first_name="A")
    bob = User.objects.create(phone="15550101002", first_name="B")
    Authorization.objects.create(perm_auth_key_id=11, user=alice, hash=11)
    settings.TAKEOUT_INIT_DELAY = 3600
    with pytest.raises(TakeoutInitDelayError) as err:
        takeout.do_init_takeout(alice.id, 11, {"files": True})
    assert 3590 < err.value.value <= 3601
    settings.TAKEOUT_INIT_DELAY = 0
    row = takeout.do_init_takeout(alice.id, 11, {"files": True, "file_max_size": 10**15})
    assert (
        row.scopes["files"]
        and not row.scopes["contacts"]
        and row.scopes["file_max_size"] == takeout.FILE_MAX_SIZE
    )

    async_to_sync(takeout.check)(_ctx(alice.id, row.id), "messages.getHistory")
    with pytest.raises(TakeoutInvalidError):
        async_to_sync(takeout.check)(_ctx(bob.id, row.id), "messages.getHistory")
    with pytest.raises(TakeoutInvalidError):
        async_to_sync(takeout.check)(_ctx(alice.id, row.id + 1), "messages.getHistory")
    with pytest.raises(TakeoutRequiredError):
        takeout.require_takeout(_ctx(alice.id, None))

    takeout.do_finish_takeout(alice.id, row.id, True)
    with pytest.raises(TakeoutInvalidError):
        async_to_sync(takeout.check)(_ctx(alice.id, row.id), "messages.getHistory")
    with pytest.raises(TakeoutRequiredError):
        takeout.do_finish_takeout(alice.id, None, True)
