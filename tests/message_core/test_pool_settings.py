"""The messages pool's session settings (message_core.db.POOL_OPTIONS)."""

import pytest

from message_core import db


@pytest.fixture
async def pool(transactional_db):
    yield
    await db.close_pools()


async def test_statements_run_on_generic_plans_without_jit(pool):
    # JIT compiled a getDialogs page's expressions on every execution once its generic
    # plan's estimate passed jit_above_cost: 200 ms instead of 10.
    async with db.connection() as conn:
        jit = (await (await conn.execute("SHOW jit")).fetchone())["jit"]
        mode = (await (await conn.execute("SHOW plan_cache_mode")).fetchone())["plan_cache_mode"]
    assert jit == "off" and mode == "force_generic_plan"
