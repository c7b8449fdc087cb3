"""Running a pool statement on its generic plan and reading the plan (the shape the
listener's prepared statements take: message_core.db.PLAN_CACHE_MODE)."""

from __future__ import annotations

import re

from message_core import db

_NAMED = re.compile(r"%\((\w+)\)s")


def _literal(value) -> str:
    if isinstance(value, list):
        return "ARRAY[" + ", ".join(str(x) for x in value) + "]::bigint[]"
    return f"'{value}'" if isinstance(value, str) else str(value)


async def generic_plan(sql: str, params: dict, types: dict[str, str] | None = None) -> dict:
    """EXPLAIN (ANALYZE, FORMAT JSON) of ``sql`` (``%(name)s`` placeholders) executed
    with ``params`` on its generic plan; ``types``: parameter types where the statement
    does not settle them. The statement runs (ANALYZE): what it writes stays."""
    names = list(dict.fromkeys(_NAMED.findall(sql)))
    for i, name in enumerate(names, 1):
        sql = sql.replace(f"%({name})s", f"${i}")
    declared = f" ({', '.join(types[n] for n in names)})" if types else ""
    args = ", ".join(_literal(params[n]) for n in names)
    async with db.connection() as conn:
        await conn.execute("SET plan_cache_mode = force_generic_plan", prepare=False)
        await conn.execute(f"PREPARE generic_probe{declared} AS {sql}", prepare=False)
        cur = await conn.execute(
            f"EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE generic_probe ({args})", prepare=False
        )
        plan = (await cur.fetchone())["QUERY PLAN"]
        await conn.execute("DEALLOCATE generic_probe; RESET plan_cache_mode", prepare=False)
    return plan[0]["Plan"]


def nodes(plan: dict):
    """Every node of a JSON plan, depth first."""
    yield plan
    for child in plan.get("Plans", []):
        yield from nodes(child)


def member_scans(plan: dict) -> list[dict]:
    """The plan's scans of channel_members."""
    return [n for n in nodes(plan) if n.get("Relation Name", "").startswith("channel_members")]


async def add_active_members(channel_id: int, n: int, inviter: int) -> None:
    """``n`` more active members (ids from 100001), who have read nothing: a big group."""
    async with db.connection() as conn:
        await conn.execute(
            "INSERT INTO channel_members (channel_id, user_id, inviter_user_id, role, status, joined_at, left_at,"
            " admin_rights, promoted_by, banned_rights, banned_until, kicked_by, rank, available_min_id,"
            " available_min_pts, read_inbox_max_id, read_inbox_date, read_outbox_max_id, slowmode_last_send_date)"
            " SELECT %s, 100000 + n, %s, 'member', 'active', 1, 0, 0, 0, 0, 0, 0, '', 0, 0, 0, 0, 0, 0"
            " FROM generate_series(1, %s) n",
            (channel_id, inviter, n),
        )
