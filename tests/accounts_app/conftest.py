import asyncio
from dataclasses import dataclass, field
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.db import connections

from accounts_app.actions import do_create_user


@dataclass
class FakeSession:
    user_id: int | None = None
    pushed: list = field(default_factory=list)

    async def push(self, obj):
        self.pushed.append(obj)


@dataclass
class FakeContext:
    """The RequestContext fields accounts handlers read."""

    perm_auth_key_id: int
    auth_key_id: int = 0
    session_id: int = 1
    msg_id: int = 0
    layer: int = 229
    client: Any = None
    session: FakeSession = field(default_factory=FakeSession)
    no_updates: bool = False
    app: dict = field(default_factory=dict)
    ip: str = ""


@pytest.fixture
def make_ctx():
    counter = iter(range(1000, 10**6))

    def make(user_id=None, key_id=None):
        key = key_id if key_id is not None else next(counter)
        ctx = FakeContext(perm_auth_key_id=key, auth_key_id=key)
        if user_id is not None:
            ctx.app["user_id"] = user_id
            ctx.session.user_id = user_id
        return ctx

    return make


@pytest.fixture
def alice(db):
    return do_create_user("15550000001", "Alice", "A", username="alice_a")


@pytest.fixture
def bob(db):
    return do_create_user("15550000002", "Bob", "B", username="bobby")


@pytest.fixture(scope="session", autouse=True)
def _close_executor_connections(django_db_setup, django_db_blocker):
    """sync_to_async runs the ORM in asgiref's executor thread, whose connection would
    keep the test database open past teardown."""
    yield
    with django_db_blocker.unblock():
        asyncio.run(sync_to_async(connections.close_all)())


@pytest.fixture(autouse=True)
def _only_accounts_contributors(monkeypatch):
    """Difference contributors of other apps (the channel nudges) query their own
    storage; these tests are about the account log alone."""
    from accounts_app import updates

    monkeypatch.setattr(updates, "_contributors", [])
