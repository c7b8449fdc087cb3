import pytest

from channels_app import counters, notify
from message_core import db
from tests.channel_state import forget_channel_state


@pytest.fixture
async def chan(transactional_db):
    """Clean channel storage: empty tables (transactional_db), no per-channel state under
    our Redis prefix, a recorder of published pushes; the pool is closed after the test."""
    forget_channel_state()
    published: list[tuple[str, dict]] = []

    async def record(kind, payload):
        published.append((kind, payload))

    notify.add_sink(record)
    yield published
    notify.remove_sink(record)
    await db.close_pools()
    await counters.close_clients()
