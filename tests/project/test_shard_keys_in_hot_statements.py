"""The hot paths' statements name the distribution column of every distributed table they
read (telesrv_project/sharding.py), so that under Citus each goes to the shards holding
its rows instead of to every shard.

Sends, history, differences, dialog lists and reads of both chat kinds run with every
statement captured (the async pool's and the ORM's); each statement is then planned
with its parameters, and every scan of a distributed table (or of one of its hash
partitions) must carry a condition on the table's distribution column, by value or
joined to another row. A statement that finds rows by another key alone would become a
query of every shard.
"""

from __future__ import annotations

import json
import re
from contextlib import contextmanager

import psycopg
import pytest
from asgiref.sync import sync_to_async
from django.db import connection, transaction
from django.db.backends import utils as db_utils

from accounts_app import updates
from accounts_app.actions import do_create_user
from channels_app import actions as channels
from message_core import db
from private_app import actions as private
from private_app import dialogs as private_dialogs
from telesrv_project.sharding import DISTRIBUTED, TABLES
from tests.channels_app.conftest import chan  # noqa: F401  (clean channel + pool state)

_DML = re.compile(r"^\s*\(?\s*(SELECT|WITH|INSERT|UPDATE|DELETE)\b", re.IGNORECASE)
_CONDITIONS = ("Index Cond", "Filter", "Recheck Cond", "Join Filter", "Hash Cond", "Merge Cond")


class Captured:
    def __init__(self):
        self.pool: list[tuple[str, object]] = []
        self.orm: list[tuple[str, object]] = []


@contextmanager
def capture(monkeypatch):
    """Every statement the pool's and Django's cursors run until the block ends."""
    seen = Captured()
    pool_execute = psycopg.AsyncCursor.execute
    orm_execute = db_utils.CursorWrapper._execute

    async def on_pool(self, query, params=None, **kw):
        text = query if isinstance(query, str) else query.as_string(self.connection)
        seen.pool.append((text, params))
        return await pool_execute(self, query, params, **kw)

    def on_orm(self, sql, params, *ignored):
        seen.orm.append((sql, params))
        return orm_execute(self, sql, params, *ignored)

    monkeypatch.setattr(psycopg.AsyncCursor, "execute", on_pool)
    monkeypatch.setattr(db_utils.CursorWrapper, "_execute", on_orm)
    try:
        yield seen
    finally:
        monkeypatch.undo()


def _nodes(plan: dict):
    yield plan
    for child in plan.get("Plans", []):
        yield from _nodes(child)


def _roots() -> dict[str, str]:
    """relation name -> the table it is a partition of (itself for plain tables)."""
    with connection.cursor() as cur:
        cur.execute(
            "SELECT c.relname, COALESCE(pg_partition_root(c.oid), c.oid)::regclass::text FROM pg_class c"
            " WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p')"
        )
        return dict(cur.fetchall())


# One side of an equality in a plan's condition: a column (``m.channel_id``), a value
# (``'5'::bigint``, ``42``, ``$1``), or an array of values (``ANY ('{1,2}'::bigint[])``).
_SIDE = r"(?:ANY \((?:'[^']*'|\$\d+)[^)]*\)|'[^']*'(?:::[\w\[\] ]+)?|\$\d+|-?\d+|[\w.]+)"
_EQUALITY = re.compile(rf"\(*({_SIDE})\)* = \(*({_SIDE})")


def _is_value(side: str) -> bool:
    return side[0] in "'$-0123456789" or side.startswith("ANY (")


def _carries(conditions: str, column: str, alias: str, colocated: set[str]) -> bool:
    """``conditions`` compare this scan's ``column`` with values (what Citus prunes shards
    by) or with the distribution column of a co-located table (``colocated``: such
    ``alias.column`` names in the plan). A join to a function's rows (``unnest``) does
    not count: Citus cannot prune by it."""
    own = {column, f"{alias}.{column}"}
    for left, right in _EQUALITY.findall(conditions):
        for mine, other in ((left, right), (right, left)):
            if mine in own and (_is_value(other) or other in colocated):
                return True
    return False


def multi_shard_scans(plan: dict, roots: dict[str, str]) -> list[str]:
    """Scans of distributed tables in ``plan`` whose conditions (their own, or those of
    the hash or merge joins above them) do not pin the distribution column."""
    found = []
    groups: dict[str, set[str]] = {}  # group -> "alias.column" of its scans in the plan
    scans = []
    for node in _nodes(plan):
        relation = node.get("Relation Name")
        role = TABLES.get(roots.get(relation, relation)) if relation else None
        if role and role.kind == DISTRIBUTED and node.get("Node Type") != "ModifyTable":
            alias = node.get("Alias", relation)
            # A partition's scan is "c_18"; conditions above the Append name it "c".
            for name in {alias, re.sub(r"_\d+$", "", alias)}:
                groups.setdefault(role.group, set()).add(f"{name}.{role.column}")
            scans.append(node)

    def walk(node: dict, join_conditions: str) -> None:
        if any(node is scan for scan in scans):
            relation = node["Relation Name"]
            table = roots.get(relation, relation)
            role = TABLES[table]
            alias = node.get("Alias", relation)
            text = " ".join([*(node.get(k, "") for k in _CONDITIONS), join_conditions])
            colocated = groups[role.group] - {
                f"{name}.{role.column}" for name in (alias, re.sub(r"_\d+$", "", alias))
            }
            if not _carries(text, role.column, alias, colocated):
                found.append(f"{table} ({node['Node Type']} as {alias}) without {role.column}")
        conditions = " ".join(node.get(k, "") for k in ("Hash Cond", "Merge Cond"))
        for child in node.get("Plans", []):
            walk(child, (join_conditions + " " + conditions).strip())

    walk(plan, "")
    return found


# The test tables hold a few rows, where a scan of the whole table is the cheapest plan
# for any statement; planned without sequential scans, a statement shows the key it
# looks rows up by, as it would on tables of real size.
NO_SEQSCAN = "SET LOCAL enable_seqscan = off"


def _plan_orm(sql: str, params) -> dict:
    with transaction.atomic(), connection.cursor() as cur:
        cur.execute(NO_SEQSCAN)
        cur.execute("EXPLAIN (FORMAT JSON) " + sql, params)
        (row,) = cur.fetchall()
    plan = row[0]
    return (plan if isinstance(plan, list) else json.loads(plan))[0]["Plan"]


async def _plan_pool(sql: str, params) -> dict:
    async with db.connection() as conn, conn.transaction():
        await conn.execute(NO_SEQSCAN)
        cur = await conn.execute("EXPLAIN (FORMAT JSON) " + sql, params, prepare=False)
        row = await cur.fetchone()
    return row["QUERY PLAN"][0]["Plan"]


async def findings(seen: Captured) -> dict[str, list[str]]:
    """statement -> its multi-shard scans, for every captured statement that has some."""
    roots = await sync_to_async(_roots)()
    out: dict[str, list[str]] = {}
    for sql, params in dict.fromkeys((s, _hashable(p)) for s, p in seen.pool):
        if _DML.match(sql):
            scans = multi_shard_scans(await _plan_pool(sql, _unhash(params)), roots)
            if scans:
                out[sql] = scans
    for sql, params in dict.fromkeys((s, _hashable(p)) for s, p in seen.orm):
        if _DML.match(sql):
            plan = await sync_to_async(_plan_orm)(sql, _unhash(params))
            scans = multi_shard_scans(plan, roots)
            if scans:
                out[sql] = scans
    return out


def _hashable(params):
    if isinstance(params, dict):
        return ("dict", tuple((k, _hashable(v)) for k, v in params.items()))
    if isinstance(params, list | tuple):
        return ("seq", tuple(_hashable(v) for v in params))
    return (
        params
        if isinstance(params, int | str | float | bytes | type(None) | bool)
        else ("obj", id(params), params)
    )


def _unhash(value):
    if isinstance(value, tuple) and value and value[0] == "dict":
        return {k: _unhash(v) for k, v in value[1]}
    if isinstance(value, tuple) and value and value[0] == "seq":
        return [_unhash(v) for v in value[1]]
    if isinstance(value, tuple) and value and value[0] == "obj":
        return value[2]
    return value


# Multi-shard scans that remain, each listed in docs/scaling.md ("Statements that stay
# multi-shard"): (table, alias, a piece of the statement) -> why.
_DIALOG_PAGE = "WITH k AS MATERIALIZED"
_PRIVATE_CONTEXT = "FROM unnest(%(owners)s::bigint[]) AS o"
KNOWN = {
    # channels
    ("channels", "c", _DIALOG_PAGE): "a user's dialog page joins their dialogs (user group)"
    " to each channel's row, membership and top message (channel group)",
    ("channel_members", "m", _DIALOG_PAGE): "as above",
    ("channel_messages", "x", _DIALOG_PAGE): "as above",
    ("channel_messages", "t", _DIALOG_PAGE): "as above",
    ("channel_messages", "u", _DIALOG_PAGE): "as above",
    ("bots", "u0", 'FROM "bots" U0'): "the Bot API's send hook finds the bots among a channel's"
    " members through a subquery over all bots",
    # private chats
    ("private_messages", "m", "JOIN private_messages m ON m.id = b.message_id"): "a private"
    " message is stored once, on its sender's shard, and read through each side's box on the"
    " owner's shard: the join crosses shards for incoming messages",
    ("private_messages", "private_messages", 'INNER JOIN "private_messages"'): "the same join,"
    " as the ORM writes it",
    ("private_message_boxes", "b", _PRIVATE_CONTEXT): "the private send's context statement"
    " reads both sides (sender and recipient) in one statement over unnest(owners)",
    ("blocks", "k", _PRIVATE_CONTEXT): "the same statement",
    ("account_settings", "st", _PRIVATE_CONTEXT): "the same statement",
    ("contacts", "ct", _PRIVATE_CONTEXT): "the same statement",
}


def _known(sql: str, scan: str) -> bool:
    """Whether ``scan`` ("channels (Index Scan as c_18) without id"; a partition's alias is
    the statement's with a number added) of ``sql`` is one of KNOWN."""
    table = scan.split(" ")[0]
    alias = re.sub(r"_\d+$", "", scan.split(" as ")[1].split(")")[0])
    return any(t == table and a == alias and piece in sql for t, a, piece in KNOWN)


def unknown(found: dict[str, list[str]]) -> dict[str, list[str]]:
    out = {}
    for sql, scans in found.items():
        rest = [s for s in scans if not _known(sql, s)]
        if rest:
            out[sql] = rest
    return out


def _report(found: dict[str, list[str]]) -> str:
    return "\n\n".join(f"{scans}\n{sql}" for sql, scans in found.items())


# --- the detector detects ---------------------------------------------------------


@pytest.mark.django_db
def test_a_lookup_by_another_key_is_found():
    roots = _roots()
    by_key = _plan_orm("SELECT 1 FROM channel_messages WHERE channel_id = %s AND id = %s", [5, 7])
    by_id = _plan_orm("SELECT 1 FROM channel_messages WHERE id = %s", [7])
    joined = _plan_orm(
        "SELECT 1 FROM channel_members m JOIN channel_messages x"
        " ON x.channel_id = m.channel_id AND x.id = 3 WHERE m.channel_id = %s AND m.user_id = 2",
        [5],
    )
    private_by_box = _plan_orm("SELECT 1 FROM private_message_boxes WHERE box_id = %s", [7])
    by_unnest = _plan_orm(
        "SELECT 1 FROM unnest(%s::bigint[]) AS s(u) JOIN channel_dialogs d ON d.user_id = s.u"
        " WHERE d.channel_id = 5",
        [[1, 2]],
    )
    pinned_too = _plan_orm(
        "SELECT 1 FROM unnest(%s::bigint[]) AS s(u) JOIN channel_dialogs d ON d.user_id = s.u"
        " WHERE d.channel_id = 5 AND d.user_id = ANY(%s::bigint[])",
        [[1, 2], [1, 2]],
    )
    assert multi_shard_scans(pinned_too, roots) == []
    assert multi_shard_scans(by_unnest, roots) and all(
        s.startswith("channel_dialogs") for s in multi_shard_scans(by_unnest, roots)
    )
    assert multi_shard_scans(by_key, roots) == []
    assert multi_shard_scans(joined, roots) == []
    assert multi_shard_scans(by_id, roots) and all(
        s.startswith("channel_messages") for s in multi_shard_scans(by_id, roots)
    )
    (scan,) = multi_shard_scans(private_by_box, roots)
    assert scan.startswith("private_message_boxes") and scan.endswith("without owner_id")


# --- the hot paths ----------------------------------------------------------------


@pytest.mark.usefixtures("chan")
async def test_channel_hot_paths_carry_channel_and_user_ids(monkeypatch):
    a, b = 41, 42
    g = (await channels.do_create_channel(a, "g", invite_user_ids=[b], from_create_chat=True)).channel
    cid = g["id"]
    await channels.do_send_message(a, cid, "warm", random_id=1)
    with capture(monkeypatch) as seen:
        sent = await channels.do_send_message(a, cid, "hello", random_id=2)
        await channels.get_history(b, cid, limit=20)
        await channels.get_channel_difference(b, cid, 1, 100)
        await channels.get_dialogs(b)
        await channels.do_read_history(b, cid, sent.events[0].message["id"])
    assert seen.pool, "nothing captured: the check checks nothing"
    found = unknown(await findings(seen))
    assert found == {}, _report(found)


@pytest.mark.usefixtures("chan")
async def test_private_hot_paths_carry_user_ids(monkeypatch):
    mk = sync_to_async(do_create_user)
    a, b = (await mk("99966300001", "A")).id, (await mk("99966300002", "B")).id
    await private.do_send_private_message(a, b, "warm", 1)
    with capture(monkeypatch) as seen:
        await private.do_send_private_message(a, b, "hello", 2)
        history = await private.get_history(b, a)
        await sync_to_async(updates.get_account_difference)(b, 1)
        await private_dialogs.get_dialogs(b, limit=20)
        await private.do_read_history(b, a, history.messages[0]["id"])
    assert seen.orm, "nothing captured: the check checks nothing"
    found = unknown(await findings(seen))
    assert found == {}, _report(found)
