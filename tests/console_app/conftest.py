import asyncio

import pytest
from django.contrib.auth.models import User as StaffUser
from django.core.management import call_command

from channels_app import counters, notify
from message_core import db
from tests.channel_state import forget_channel_state


def run(coro_fn, *args, **kwargs):
    """Run a channel domain coroutine on a loop of its own (as the console does)."""

    async def call():
        try:
            return await coro_fn(*args, **kwargs)
        finally:
            await db.close_pools()
            await counters.close_clients()

    return asyncio.run(call())


@pytest.fixture
def console(transactional_db):
    """Committed tables (the domain's own pool must see them), no per-channel state under
    our Redis prefix, the staff groups, and a recorder of what the domain published."""
    forget_channel_state()
    call_command("create_staff_groups", stdout=open("/dev/null", "w"))  # noqa: SIM115
    published: list[tuple[str, dict]] = []

    async def record(kind, payload):
        published.append((kind, payload))

    notify.add_sink(record)
    yield published
    notify.remove_sink(record)


def staff(username: str, group: str | None) -> StaffUser:
    from django.contrib.auth.models import Group

    user = StaffUser.objects.create_user(
        username, f"{username}@example.invalid", "pw-" + username, is_staff=True
    )
    if group:
        user.groups.add(Group.objects.get(name=group))
    return user


@pytest.fixture
def moderator_client(console, client):
    client.force_login(staff("mod", "moderator"))
    return client


@pytest.fixture
def operator_client(console):
    from django.test import Client

    c = Client()
    c.force_login(staff("op", "operator"))
    return c
