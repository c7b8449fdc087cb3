import pytest

from channels_app import counters, db, notify


@pytest.fixture
async def chan(transactional_db):
    """Clean channel storage: empty tables (transactional_db), no counters under our
    Redis prefix, a recorder of published pushes; the pool is closed after the test."""
    client, _ = counters.redis_client()
    keys = [k async for k in client.scan_iter(match=f"{counters.prefix()}:counter:*", count=1000)]
    keys += [k async for k in client.scan_iter(match=f"{counters.prefix()}:pts_pending*", count=1000)]
    if keys:
        await client.delete(*keys)
    published: list[tuple[str, dict]] = []

    async def record(kind, payload):
        published.append((kind, payload))

    notify.add_sink(record)
    yield published
    notify.remove_sink(record)
    await db.close_pools()
    await counters.close_clients()
