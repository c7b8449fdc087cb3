"""The migrated schema follows Citus's rules for the roles of telesrv_project/sharding.py,
so the store can be sharded by ``channel_id`` and ``user_id`` without changing a key.

Citus is not packaged where this project installs from, so the rules are checked on the
catalogue of the test database: every table has a role; a distributed table's primary
key and unique indexes include its distribution column, which is NOT NULL and of one
type across its colocation group; foreign keys go only between co-located tables
(through the distribution column) or to reference tables, and a reference table points
only at reference tables; every serial or identity column and its sequence is bigint
(Django's own tables excepted); one level of
partitioning. The checks run first on a throwaway schema that breaks each rule once, so
a check that could never fail is caught.
"""

from __future__ import annotations

import pytest
from django.db import connection

from telesrv_project import sharding
from telesrv_project.sharding import DISTRIBUTED, LOCAL, REFERENCE, Role


def _tables(cur, schema: str) -> set[str]:
    cur.execute(
        "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
        " WHERE n.nspname = %s AND c.relkind IN ('r', 'p') AND NOT c.relispartition",
        [schema],
    )
    return {row[0] for row in cur.fetchall()}


def _columns(cur, schema: str, table: str) -> dict[str, tuple[int, str, bool]]:
    """name -> (attnum, type, not null)"""
    cur.execute(
        "SELECT a.attname, a.attnum, format_type(a.atttypid, a.atttypmod), a.attnotnull"
        " FROM pg_attribute a WHERE a.attrelid = format('%%I.%%I', %s::text, %s::text)::regclass"
        " AND a.attnum > 0 AND NOT a.attisdropped",
        [schema, table],
    )
    return {name: (num, typ, notnull) for name, num, typ, notnull in cur.fetchall()}


def role_violations(cur, schema: str, tables: set[str], roles: dict[str, Role]) -> list[str]:
    problems = [f"{t}: no role in telesrv_project/sharding.py" for t in sorted(tables - set(roles))]
    problems += [f"{t}: has a role but no table" for t in sorted(set(roles) - tables)]
    return problems


def distribution_column_violations(cur, schema: str, roles: dict[str, Role]) -> list[str]:
    problems = []
    group_types: dict[str, dict[str, set[str]]] = {}
    for table, role in sorted(roles.items()):
        if role.kind != DISTRIBUTED:
            continue
        column = _columns(cur, schema, table).get(role.column)
        if column is None:
            problems.append(f"{table}: no distribution column {role.column}")
            continue
        _, typ, notnull = column
        if not notnull:
            problems.append(f"{table}.{role.column}: distribution column is nullable")
        group_types.setdefault(role.group, {}).setdefault(typ, set()).add(table)
    for group, types in group_types.items():
        if len(types) > 1:
            problems.append(f"group {group}: distribution columns of different types {types}")
    return problems


def unique_key_violations(cur, schema: str, roles: dict[str, Role]) -> list[str]:
    """Primary keys, unique constraints and unique indexes (partial, expression ones too)
    of distributed tables must hold the distribution column as a plain key column."""
    cur.execute(
        "SELECT c.relname, i.indexrelid::regclass::text, pg_get_indexdef(i.indexrelid),"
        " ARRAY(SELECT a.attname FROM unnest(i.indkey) k JOIN pg_attribute a"
        "       ON a.attrelid = c.oid AND a.attnum = k)"
        " FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid"
        " JOIN pg_namespace n ON n.oid = c.relnamespace"
        " WHERE n.nspname = %s AND NOT c.relispartition AND i.indisunique",
        [schema],
    )
    problems = []
    for table, index, definition, columns in cur.fetchall():
        role = roles.get(table)
        if role and role.kind == DISTRIBUTED and role.column not in columns:
            problems.append(f"{table}: unique {index} lacks {role.column}: {definition}")
    return problems


def foreign_key_violations(cur, schema: str, roles: dict[str, Role]) -> list[str]:
    cur.execute(
        "SELECT con.conname, src.relname, dst.relname,"
        " ARRAY(SELECT a.attname FROM unnest(con.conkey) WITH ORDINALITY k(num, pos)"
        "       JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.num ORDER BY pos),"
        " ARRAY(SELECT a.attname FROM unnest(con.confkey) WITH ORDINALITY k(num, pos)"
        "       JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.num ORDER BY pos)"
        " FROM pg_constraint con JOIN pg_class src ON src.oid = con.conrelid"
        " JOIN pg_class dst ON dst.oid = con.confrelid JOIN pg_namespace n ON n.oid = src.relnamespace"
        " WHERE n.nspname = %s AND con.contype = 'f' AND con.conparentid = 0"
        " AND NOT src.relispartition AND NOT dst.relispartition",
        [schema],
    )
    problems = []
    for name, src, dst, columns, ref_columns in cur.fetchall():
        here, there = roles.get(src), roles.get(dst)
        if here is None or there is None:
            continue  # reported as a table without a role
        if there.kind == REFERENCE:
            ok = True  # any table may point at a reference table
        elif here.kind == DISTRIBUTED and there.kind == DISTRIBUTED:
            ok = here.group == there.group and (here.column, there.column) in zip(
                columns, ref_columns, strict=True
            )
        elif here.kind == LOCAL:
            ok = there.kind == LOCAL
        else:
            ok = False
        if not ok:
            problems.append(
                f"{src} ({here.label()}) -> {dst} ({there.label()}): foreign key {name}"
                f" ({', '.join(columns)}) -> ({', '.join(ref_columns)}) is not co-located"
            )
    return problems


# Django's own tables (contrib apps keep AutoField whatever DEFAULT_AUTO_FIELD says).
DJANGO_OWN = ("auth_", "django_")


def sequence_violations(cur, schema: str, roles: dict[str, Role]) -> list[str]:
    """Every serial and identity column, of any kind (identity ALWAYS or BY DEFAULT,
    serial, smallserial, a default that calls nextval() on any sequence, owned or not),
    is bigint and so is its sequence, whatever the table's role: an int id runs out on a
    busy table, and Citus refuses one on a shared table. Django's own tables excepted."""
    cur.execute(
        "SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod),"
        " (SELECT format_type(s.seqtypid, NULL) FROM pg_sequence s"
        "   WHERE s.seqrelid = COALESCE("
        "     pg_get_serial_sequence(format('%%I.%%I', n.nspname, c.relname), a.attname)::regclass,"
        "     substring(pg_get_expr(d.adbin, d.adrelid) FROM 'nextval[(]''([^'']+)''')::regclass))"
        " FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid"
        " JOIN pg_namespace n ON n.oid = c.relnamespace"
        " LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum"
        " WHERE n.nspname = %s AND c.relkind IN ('r', 'p') AND NOT c.relispartition"
        " AND a.attnum > 0 AND NOT a.attisdropped"
        " AND (a.attidentity <> '' OR pg_get_expr(d.adbin, d.adrelid) LIKE '%%nextval(%%')",
        [schema],
    )
    problems = []
    for table, column, typ, seq_type in cur.fetchall():
        if table.startswith(DJANGO_OWN):
            continue
        if typ != "bigint" or seq_type != "bigint":
            problems.append(f"{table}.{column}: {typ} column on a {seq_type} sequence")
    return problems


def partitioning_violations(cur, schema: str) -> list[str]:
    cur.execute(
        "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
        " WHERE n.nspname = %s AND c.relkind = 'p' AND c.relispartition",
        [schema],
    )
    return [f"{t}: partitioned partition (Citus takes one level)" for (t,) in cur.fetchall()]


def violations(cur, schema: str, roles: dict[str, Role]) -> list[str]:
    tables = _tables(cur, schema)
    known = {t: r for t, r in roles.items() if t in tables}
    return [
        *role_violations(cur, schema, tables, roles),
        *distribution_column_violations(cur, schema, known),
        *unique_key_violations(cur, schema, known),
        *foreign_key_violations(cur, schema, known),
        *sequence_violations(cur, schema, known),
        *partitioning_violations(cur, schema),
    ]


# --- the real schema ---------------------------------------------------------------


@pytest.mark.django_db
def test_migrated_schema_follows_citus_rules():
    with connection.cursor() as cur:
        problems = violations(cur, "public", sharding.TABLES)
    assert problems == [], "\n".join(problems)


@pytest.mark.django_db
def test_citus_calls_create_referenced_tables_first():
    """create_distributed_table / create_reference_table refuse a foreign key to a table
    that is not sharded yet: the documented order creates every referenced table first."""
    order = {}
    for position, call in enumerate(sharding.citus_calls()):
        order[call.split("'")[1]] = position
    assert set(order) == {t for t, r in sharding.TABLES.items() if r.kind != LOCAL}
    with connection.cursor() as cur:
        cur.execute(
            "SELECT src.relname, dst.relname FROM pg_constraint con"
            " JOIN pg_class src ON src.oid = con.conrelid JOIN pg_class dst ON dst.oid = con.confrelid"
            " WHERE con.contype = 'f' AND con.conparentid = 0 AND src.relnamespace = 'public'::regnamespace"
        )
        edges = [(s, d) for s, d in cur.fetchall() if s in order and s != d]
    assert edges, "no foreign key between sharded tables: the check checks nothing"
    late = [(s, d) for s, d in edges if order[d] > order[s]]
    assert late == []


def test_group_heads_are_distributed_by_their_group():
    for group, head in sharding.GROUP_HEADS.items():
        role = sharding.TABLES[head]
        assert (role.kind, role.group) == (DISTRIBUTED, group)


# --- the checks catch what they are for ------------------------------------------------

PROBE = "citus_probe"


@pytest.fixture
def probe(db):
    """A schema of small tables, each breaking one rule, dropped with the test's
    transaction."""
    with connection.cursor() as cur:
        cur.execute(f"CREATE SCHEMA {PROBE}")
        cur.execute(f"SET LOCAL search_path = {PROBE}")
        yield cur


def _probe_roles(**roles: Role) -> dict[str, Role]:
    return {
        "heads": sharding.by_channel("id"),
        "users_": sharding.by_user("id"),
        "refs": sharding.reference("probe"),
        **roles,
    }


def _base(cur):
    cur.execute("CREATE TABLE heads (id bigint PRIMARY KEY)")
    cur.execute("CREATE TABLE users_ (id bigint PRIMARY KEY)")
    cur.execute("CREATE TABLE refs (id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY)")


def test_probe_that_follows_the_rules_passes(probe):
    _base(probe)
    probe.execute(
        "CREATE TABLE msgs (channel_id bigint NOT NULL REFERENCES heads (id),"
        " id bigint GENERATED BY DEFAULT AS IDENTITY, ref_id bigint REFERENCES refs (id),"
        " PRIMARY KEY (channel_id, id)) PARTITION BY HASH (channel_id)"
    )
    probe.execute("CREATE TABLE msgs_0 PARTITION OF msgs FOR VALUES WITH (MODULUS 1, REMAINDER 0)")
    probe.execute("CREATE TABLE cfg (id bigserial PRIMARY KEY, ref_id bigint REFERENCES refs (id))")
    roles = _probe_roles(msgs=sharding.by_channel(), cfg=sharding.local("probe"))
    assert violations(probe, PROBE, roles) == []


def test_table_without_role_is_reported(probe):
    _base(probe)
    probe.execute("CREATE TABLE newcomer (id bigint)")
    assert violations(probe, PROBE, _probe_roles()) == ["newcomer: no role in telesrv_project/sharding.py"]


def test_unique_key_without_distribution_column_is_reported(probe):
    _base(probe)
    probe.execute("CREATE TABLE msgs (channel_id bigint NOT NULL, id bigint PRIMARY KEY)")
    probe.execute("CREATE UNIQUE INDEX msgs_rnd ON msgs (id) WHERE id > 0")
    found = violations(probe, PROBE, _probe_roles(msgs=sharding.by_channel()))
    assert len(found) == 2 and all("lacks channel_id" in p for p in found), found


def test_foreign_keys_across_groups_and_from_reference_tables_are_reported(probe):
    _base(probe)
    probe.execute(
        "CREATE TABLE msgs (channel_id bigint NOT NULL REFERENCES heads (id),"
        " author_id bigint REFERENCES users_ (id), PRIMARY KEY (channel_id))"
    )
    probe.execute("CREATE TABLE badref (id bigint PRIMARY KEY, head_id bigint REFERENCES heads (id))")
    probe.execute("CREATE TABLE loc (id bigint PRIMARY KEY, user_id bigint REFERENCES users_ (id))")
    roles = _probe_roles(
        msgs=sharding.by_channel(), badref=sharding.reference("probe"), loc=sharding.local("probe")
    )
    found = sorted(p.split(":")[0] for p in violations(probe, PROBE, roles))
    assert found == [
        "badref (reference) -> heads (distributed by `channel_id` (column `id`))",
        "loc (local) -> users_ (distributed by `user_id` (column `id`))",
        "msgs (distributed by `channel_id`) -> users_ (distributed by `user_id` (column `id`))",
    ]


def test_foreign_key_in_one_group_not_through_the_distribution_column_is_reported(probe):
    _base(probe)
    probe.execute(
        "CREATE TABLE topics (channel_id bigint NOT NULL, id bigint NOT NULL, PRIMARY KEY (channel_id, id))"
    )
    probe.execute(
        "CREATE TABLE msgs (channel_id bigint NOT NULL, id bigint NOT NULL, topic_id bigint,"
        " PRIMARY KEY (channel_id, id), UNIQUE (channel_id, topic_id, id),"
        " FOREIGN KEY (topic_id, channel_id) REFERENCES topics (id, channel_id))"
    )
    probe.execute(
        "CREATE TABLE bad (channel_id bigint NOT NULL, other_channel bigint NOT NULL,"
        " topic_id bigint NOT NULL, PRIMARY KEY (channel_id),"
        " FOREIGN KEY (other_channel, topic_id) REFERENCES topics (channel_id, id))"
    )
    roles = _probe_roles(topics=sharding.by_channel(), msgs=sharding.by_channel(), bad=sharding.by_channel())
    found = violations(probe, PROBE, roles)
    assert len(found) == 1 and found[0].startswith("bad "), found


def test_int_serial_and_identity_columns_of_every_kind_are_reported(probe):
    _base(probe)
    probe.execute("CREATE TABLE msgs (channel_id bigint NOT NULL, id serial, PRIMARY KEY (channel_id, id))")
    probe.execute("CREATE TABLE small_ref (id int GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY)")
    probe.execute("CREATE TABLE cfg (id serial PRIMARY KEY)")  # local tables too (scheduled_messages was)
    probe.execute("CREATE TABLE tiny (id smallserial PRIMARY KEY)")
    probe.execute("CREATE TABLE always_ (id int GENERATED ALWAYS AS IDENTITY PRIMARY KEY)")
    probe.execute("CREATE SEQUENCE loose_seq AS integer")  # owned by nothing
    probe.execute("CREATE TABLE loose (id bigint DEFAULT nextval('loose_seq') PRIMARY KEY)")
    probe.execute("CREATE TABLE big (id bigserial PRIMARY KEY, n bigint GENERATED ALWAYS AS IDENTITY)")
    probe.execute("CREATE TABLE django_probe (id serial PRIMARY KEY)")  # Django's own: not ours
    local = sharding.local("probe")
    roles = _probe_roles(
        msgs=sharding.by_channel(), small_ref=sharding.reference("probe"), cfg=local, tiny=local,
        always_=local, loose=local, big=local, django_probe=local,
    )  # fmt: skip
    found = violations(probe, PROBE, roles)
    assert sorted(p.split(":")[0] for p in found) == [
        "always_.id", "cfg.id", "loose.id", "msgs.id", "small_ref.id", "tiny.id",
    ], found  # fmt: skip


def test_nullable_or_mistyped_distribution_columns_are_reported(probe):
    _base(probe)
    probe.execute("CREATE TABLE a (channel_id bigint)")
    probe.execute("CREATE TABLE b (channel_id int NOT NULL PRIMARY KEY)")
    roles = _probe_roles(a=sharding.by_channel(), b=sharding.by_channel())
    found = violations(probe, PROBE, roles)
    assert any(p == "a.channel_id: distribution column is nullable" for p in found), found
    assert any(p.startswith("group channel_id: distribution columns of different types") for p in found)
    assert len(found) == 2, found


def test_two_levels_of_partitioning_are_reported(probe):
    _base(probe)
    probe.execute(
        "CREATE TABLE msgs (channel_id bigint NOT NULL, id bigint NOT NULL,"
        " PRIMARY KEY (channel_id, id)) PARTITION BY HASH (channel_id)"
    )
    probe.execute(
        "CREATE TABLE msgs_0 PARTITION OF msgs FOR VALUES WITH (MODULUS 1, REMAINDER 0)"
        " PARTITION BY RANGE (id)"
    )
    found = violations(probe, PROBE, _probe_roles(msgs=sharding.by_channel()))
    assert found == ["msgs_0: partitioned partition (Citus takes one level)"]


def test_docs_list_the_roles_and_calls_of_the_registry():
    """docs/scaling.md shows what ``python -m telesrv_project.sharding`` prints."""
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "scaling.md").read_text()
    section = doc.split("## Sharding the store (Citus)", 1)[1]
    assert sharding.markdown_table() in section
    for call in sharding.citus_calls():
        assert call in section, call
