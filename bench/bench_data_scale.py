"""Data-scale benchmark: the same everyday calls against a SMALL and a BIG database
(prints figures; not a test). Cost must follow the answer, not the data
(docs/performance.md, "Data scale").

Each size gets its own database (``<TELESRV_DB_NAME>_small`` / ``_big``), migrated, then
loaded through the real tables:

- three real accounts (viewer, poster, peer) made by the domain actions, with logged-in
  auth keys, and the hot group made by ``do_create_channel`` / ``do_invite_to_channel``;
- filler users (``INSERT ... SELECT generate_series``; ids from the users' own identity
  sequence, as the server allocates them), the hot group's members (members, the
  per-user index, dialogs, ``participants_count``), its messages with consecutive ids and
  one ``new_message`` update event per pts (``channels.pts`` / ``top_message_id`` set to
  the last), and groups the viewer is in (ids allocated past ``MAX(channels.id)``, as the
  channel counter recovers), each with a message and the viewer's dialog;
- the viewer's private chat with the peer (``load_private``: contents, a box on each
  side, the dialog rows, one account-log event per pts, both users' pts), and one of
  the same size between two other users where the viewer's rare word is common;
- then ``ANALYZE`` and ``rebuild_redis_state --yes`` (counters from PostgreSQL).

A listener is started on each database and a real Telethon client, logged in with the
viewer's key, runs each call ``--rounds`` times: p50 / p99, the BIG / SMALL ratio of the
p50s, and the listener's and PostgreSQL's CPU per call (the CPU of this database's
backends only: the box is shared).

    TELESRV_DB_NAME=telesrv_bench TELESRV_REDIS_PREFIX=bench \\
        .venv/bin/python bench/bench_data_scale.py --scale 1

``--scale 1``: SMALL = 10k users, 1k members, 10k messages, a 1k-message private chat;
BIG = 100k users, 20k members, a 1M-message hot group, the viewer in 1,000 groups, a
100k-message private chat (the issue's BIG is 5x
more messages and 10x more users on a dedicated box). ``--scale 0.1`` is the CI size
(tests/bench/test_data_scale.py: a small database against one ten times larger).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

# Words the loader plants, and how often: COMMON in a tenth of the messages, RARE
# about twenty times over the whole history, OLD twenty times in the oldest tenth only
# (below any recent window).
COMMON, RARE, OLD = "hello", "quokka", "ammonite"
# The private chat's own words (so searchGlobal's matches stay the groups'): P_COMMON in
# a tenth of its messages, P_RARE twenty times over its whole history.
P_COMMON, P_RARE = "goodnight", "wombat"


def sizes(scale: float) -> dict[str, dict[str, int]]:
    def n(x: float) -> int:
        return max(10, int(x))

    return {
        "small": {"users": n(10_000 * scale), "members": n(1_000 * scale), "messages": n(10_000 * scale),
                  "groups": n(100 * scale), "private": n(1_000 * scale)},
        "big": {"users": n(100_000 * scale), "members": n(20_000 * scale), "messages": n(1_000_000 * scale),
                "groups": n(1_000 * scale), "private": n(100_000 * scale)},
    }  # fmt: skip


# --- loading (runs in a child process with TELESRV_DB_NAME set to the size's database) ---


async def load(spec: dict[str, int], out: Path) -> None:
    from bench.rawload import make_users
    from channels_app import actions
    from message_core import db

    real = await make_users(3, tag="Scale")
    (viewer, vkeys), (poster, _), (peer, _) = real
    hot = (await actions.do_create_channel(poster, "hot group", megagroup=True)).channel["id"]
    await actions.do_invite_to_channel(poster, hot, [viewer, peer])
    now = int(time.time())
    t0 = time.perf_counter()
    async with db.connection() as conn:
        await conn.execute(
            "INSERT INTO users (phone, first_name, last_name, about, lang_code, created, deleted, pts, login_email,"
            " login_email_code, login_email_pending, last_seen)"
            " SELECT '8' || lpad(n::text, 10, '0'), 'member' || n, 'scale', '', 'en', now(), false, 1, '', '', '',"
            " now() - make_interval(secs => n %% 86400)"
            " FROM generate_series(1, %s) n",
            (spec["users"],),
        )
        await conn.execute(
            "CREATE TEMP TABLE filler AS SELECT id, row_number() OVER (ORDER BY id) AS n FROM users"
            " WHERE phone LIKE '8%%' ORDER BY id LIMIT %s",
            (spec["members"],),
        )
        # The hot group's members: membership, the per-user index and a dialog each.
        await conn.execute(
            "INSERT INTO channel_members (channel_id, user_id, inviter_user_id, role, status, joined_at, left_at,"
            " admin_rights, promoted_by, banned_rights, banned_until, kicked_by, rank, available_min_id,"
            " available_min_pts, read_inbox_max_id, read_inbox_date, read_outbox_max_id, slowmode_last_send_date)"
            " SELECT %s, id, %s, 'member', 'active', %s - n::int, 0, 0, 0, 0, 0, 0, '', 0, 0, 0, 0, 0, 0 FROM filler",
            (hot, poster, now),
        )
        await conn.execute(
            "INSERT INTO user_channel_member_index (user_id, channel_id, status, megagroup, broadcast, deleted,"
            " joined_at) SELECT id, %s, 'active', true, false, false, %s - n::int FROM filler",
            (hot, now),
        )
        await conn.execute(
            "INSERT INTO channel_dialogs (user_id, channel_id, notify_settings) SELECT id, %s, '{}' FROM filler",
            (hot,),
        )
        await conn.execute(
            "UPDATE channels SET participants_count = (SELECT count(*) FROM channel_members"
            " WHERE channel_id = %s AND status = 'active') WHERE id = %s",
            (hot, hot),
        )
        # The hot group's history: ids and pts continue the channel's own.
        cur = await conn.execute("SELECT top_message_id, pts FROM channels WHERE id = %s", (hot,))
        top, pts = (await cur.fetchone()).values()
        m = spec["messages"]
        rare_every, old_every = max(1, m // 20), max(1, m // 200)
        await conn.execute(
            "INSERT INTO channel_messages (channel_id, id, sender_user_id, date, message, entities, pts)"
            " SELECT %(c)s, %(top)s + k, f.id, %(now)s - %(m)s + k, concat_ws(' ', 'message', k,"
            "   CASE WHEN k %% 10 = 0 THEN %(common)s END, CASE WHEN k %% %(re)s = 7 THEN %(rare)s END,"
            "   CASE WHEN k <= %(m)s / 10 AND k %% %(oe)s = 3 THEN %(old)s END, md5(k::text)), '[]', %(pts)s + k"
            " FROM generate_series(1, %(m)s) g(k) JOIN filler f ON f.n = 1 + k %% %(members)s",
            {"c": hot, "top": top, "pts": pts, "now": now, "m": m, "common": COMMON, "rare": RARE, "old": OLD,
             "re": rare_every, "oe": old_every, "members": spec["members"]},
        )  # fmt: skip
        await conn.execute(
            "INSERT INTO channel_update_events (channel_id, pts, pts_count, type, date, message_id, message_ids,"
            " sender_user_id, user_ids) SELECT channel_id, pts, 1, 'new_message', date, id, '[]', sender_user_id,"
            " jsonb_build_array(sender_user_id) FROM channel_messages WHERE channel_id = %s AND id > %s",
            (hot, top),
        )
        await conn.execute(
            "UPDATE channels SET top_message_id = %s, top_message_date = %s, pts = %s WHERE id = %s",
            (top + m, now, pts + m, hot),
        )
        await conn.execute(
            "UPDATE channel_dialogs SET top_message_id = %s, top_message_date = %s WHERE channel_id = %s",
            (top + m, now, hot),
        )
        # The viewer's other groups (created by the poster): one message and a dialog each.
        g = spec["groups"]
        await conn.execute(
            "CREATE TEMP TABLE groups AS SELECT n, (SELECT max(id) FROM channels) + n AS id"
            " FROM generate_series(1, %s) n",
            (g,),
        )
        await conn.execute(
            "INSERT INTO channels (id, access_hash, title, creator_user_id, megagroup, date, participants_count,"
            " admins_count, top_message_id, top_message_date, pts, bot_members)"
            " SELECT id, (random() * 9e18)::bigint, 'group ' || n, %(p)s, true, %(now)s - n, 2, 1, 1, %(now)s - n,"
            " 1, 0 FROM groups",
            {"p": poster, "now": now},
        )
        await conn.execute(
            "INSERT INTO channel_members (channel_id, user_id, inviter_user_id, role, status, joined_at, left_at,"
            " admin_rights, promoted_by, banned_rights, banned_until, kicked_by, rank, available_min_id,"
            " available_min_pts, read_inbox_max_id, read_inbox_date, read_outbox_max_id, slowmode_last_send_date)"
            " SELECT g.id, u.id, %(p)s, CASE WHEN u.id = %(p)s THEN 'creator' ELSE 'member' END, 'active',"
            " %(now)s - g.n, 0, CASE WHEN u.id = %(p)s THEN 1 ELSE 0 END, 0, 0, 0, 0, '', 0, 0, 0, 0, 0, 0"
            " FROM groups g CROSS JOIN (VALUES (%(p)s::bigint), (%(v)s::bigint)) u(id)",
            {"p": poster, "v": viewer, "now": now},
        )
        await conn.execute(
            "INSERT INTO user_channel_member_index (user_id, channel_id, status, megagroup, broadcast, deleted,"
            " joined_at) SELECT u.id, g.id, 'active', true, false, false, %(now)s - g.n"
            " FROM groups g CROSS JOIN (VALUES (%(p)s::bigint), (%(v)s::bigint)) u(id)",
            {"p": poster, "v": viewer, "now": now},
        )
        await conn.execute(
            "INSERT INTO channel_messages (channel_id, id, sender_user_id, date, message, entities, pts)"
            " SELECT id, 1, %(p)s, %(now)s - n, 'welcome ' || %(common)s || ' ' || n, '[]', 1 FROM groups",
            {"p": poster, "now": now, "common": COMMON},
        )
        await conn.execute(
            "INSERT INTO channel_update_events (channel_id, pts, pts_count, type, date, message_id, message_ids,"
            " sender_user_id, user_ids) SELECT id, 1, 1, 'new_message', %(now)s - n, 1, '[]', %(p)s,"
            " jsonb_build_array(%(p)s) FROM groups",
            {"p": poster, "now": now},
        )
        await conn.execute(
            "INSERT INTO channel_dialogs (user_id, channel_id, top_message_id, top_message_date, notify_settings)"
            " SELECT u.id, g.id, 1, %(now)s - g.n, '{}' FROM groups g"
            " CROSS JOIN (VALUES (%(p)s::bigint), (%(v)s::bigint)) u(id)",
            {"p": poster, "v": viewer, "now": now},
        )
        await load_private(conn, viewer, peer, spec["private"], now)
        # Two other users' chat of the same size, where the viewer's rare word is common:
        # a search in the viewer's chat must not read their matches.
        cur = await conn.execute("SELECT id FROM filler WHERE n IN (1, 2) ORDER BY n")
        others = [r["id"] for r in await cur.fetchall()]
        await load_private(conn, *others, spec["private"], now, common=P_RARE, rare=P_COMMON)
        # As autovacuum would after such a load (this box runs PostgreSQL with it off).
        await conn.execute("ANALYZE")
    print(f"loaded {spec} in {time.perf_counter() - t0:.1f}s", flush=True)
    out.write_text(
        json.dumps({"viewer": viewer, "key": vkeys[0].hex(), "hot": hot, "poster": poster, "peer": peer})
    )
    await db.close_pools()


async def load_private(
    conn, viewer: int, peer: int, m: int, now: int, common: str = P_COMMON, rare: str = P_RARE
) -> None:
    """The viewer's private chat with the peer: ``m`` messages written in turn, one
    content row and a box on each side per message (box ids continue each owner's own),
    the dialog rows first (their ``message_count`` is kept by the boxes' triggers), one
    ``private.new_message`` event per pts on each side, and both users' pts. ``common``
    is in every tenth message, ``rare`` twenty times."""
    cur = await conn.execute(
        "SELECT u.id, u.pts, COALESCE((SELECT max(box_id) FROM private_message_boxes b WHERE b.owner_id = u.id), 0)"
        " AS top FROM users u WHERE u.id = ANY(%s)",
        ([viewer, peer],),
    )
    base = {r["id"]: (r["pts"], r["top"]) for r in await cur.fetchall()}
    await conn.execute(
        "CREATE TEMP TABLE pm AS SELECT k, nextval(pg_get_serial_sequence('private_messages', 'id')) AS id,"
        " CASE WHEN k %% 2 = 0 THEN %(v)s ELSE %(p)s END AS sender FROM generate_series(1, %(m)s) k",
        {"v": viewer, "p": peer, "m": m},
    )
    await conn.execute(
        "INSERT INTO private_messages (id, sender_id, date, message, entities, grouped_id, via_bot_id, edit_date,"
        " silent, media_read) SELECT id, sender, %(now)s - %(m)s + k, concat_ws(' ', 'private', k,"
        "   CASE WHEN k %% 10 = 0 THEN %(common)s END, CASE WHEN (k + 13) %% %(re)s = 0 THEN %(rare)s END, md5(k::text)),"
        " '[]', 0, 0, 0, false, false FROM pm",
        {"now": now, "m": m, "common": common, "rare": rare, "re": max(1, m // 20)},
    )
    sides = [(viewer, peer), (peer, viewer)] if viewer != peer else [(viewer, viewer)]
    for owner, other in sides:
        pts, top = base[owner]
        await conn.execute(
            "INSERT INTO private_dialogs (owner_id, peer_id, top_box_id, top_date, read_inbox_max_id,"
            " read_outbox_max_id, unread_mark, folder_id, pinned, pinned_order)"
            " VALUES (%(o)s, %(p)s, %(top)s, %(now)s, %(top)s, %(top)s, false, 0, false, 0)"
            " ON CONFLICT (owner_id, peer_id) DO UPDATE SET top_box_id = EXCLUDED.top_box_id,"
            " top_date = EXCLUDED.top_date, read_inbox_max_id = EXCLUDED.read_inbox_max_id",
            {"o": owner, "p": other, "top": top + m, "now": now},
        )
        await conn.execute(
            'INSERT INTO private_message_boxes (owner_id, box_id, peer_id, message_id, "out", reply_to_box_id,'
            " deleted, reaction_unread, saved_peer)"
            " SELECT %(o)s, %(top)s + k, %(p)s, id, sender = %(o)s, 0, false, false, 0 FROM pm",
            {"o": owner, "p": other, "top": top},
        )
        await conn.execute(
            "INSERT INTO user_update_events (user_id, pts, pts_count, type, payload, date)"
            " SELECT %(o)s, %(pts)s + k, 1, 'private.new_message', jsonb_build_object('box_id', %(top)s + k), now()"
            " FROM generate_series(1, %(m)s) k",
            {"o": owner, "pts": pts, "top": top, "m": m},
        )
        await conn.execute("UPDATE users SET pts = %s WHERE id = %s", (pts + m, owner))
    await conn.execute("DROP TABLE pm")


# --- measuring (a child process per size: one Telethon version, the size's database) ---


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * p / 100))]


def proc_cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def database_cpu(dbname: str) -> float:
    """CPU seconds of the backends connected to ``dbname`` (the listener's pool)."""
    import psycopg

    with psycopg.connect(host="127.0.0.1", user="postgres", dbname="postgres", autocommit=True) as conn:
        pids = [r[0] for r in conn.execute("SELECT pid FROM pg_stat_activity WHERE datname = %s", (dbname,))]
    total = 0.0
    for pid in pids:
        with contextlib.suppress(OSError):  # a backend that just ended
            total += proc_cpu(pid)
    return total


async def measure(info: dict, rounds: int, out: Path) -> None:
    from telethon import functions, types
    from telethon.crypto import AuthKey
    from telethon.sessions import MemorySession

    from bench.rawload import start_listener
    from tests.e2e import harness

    dbname = os.environ["TELESRV_DB_NAME"]
    server = start_listener()
    session = MemorySession()
    session.set_dc(2, server.host, server.port)
    session.auth_key = AuthKey(bytes.fromhex(info["key"]))
    client = harness.make_telethon(server, session=session)
    results: dict[str, dict] = {}
    try:
        await client.connect()
        me = await client.get_me()
        assert me.id == info["viewer"], me
        dialogs = await client(
            functions.messages.GetDialogsRequest(
                offset_date=0, offset_id=0, offset_peer=types.InputPeerEmpty(), limit=100, hash=0
            )
        )
        hot = next(c for c in dialogs.chats if c.id == info["hot"])
        other = next(u for u in dialogs.users if u.id == info["peer"])  # the private chat is on top
        private_peer = types.InputPeerUser(other.id, other.access_hash)
        hot_peer = types.InputPeerChannel(hot.id, hot.access_hash)
        hot_input = types.InputChannel(hot.id, hot.access_hash)
        last = dialogs.dialogs[-1]
        second_page = functions.messages.GetDialogsRequest(
            offset_date=next(
                m.date for m in dialogs.messages if m.id == last.top_message and m.peer_id == last.peer
            ),
            offset_id=last.top_message,
            offset_peer=await client.get_input_entity(last.peer),
            limit=100,
            hash=0,
        )
        empty = types.InputMessagesFilterEmpty()

        def search(q: str, peer=hot_peer):
            return functions.messages.SearchRequest(
                peer=peer, q=q, filter=empty, min_date=None, max_date=None, offset_id=0, add_offset=0,
                limit=20, max_id=0, min_id=0, hash=0,
            )  # fmt: skip

        def search_global(q: str):
            return functions.messages.SearchGlobalRequest(
                q=q, filter=empty, min_date=None, max_date=None, offset_rate=0,
                offset_peer=types.InputPeerEmpty(), offset_id=0, limit=20,
            )  # fmt: skip

        def participants(flt):
            return functions.channels.GetParticipantsRequest(
                channel=hot_input, filter=flt, offset=0, limit=100, hash=0
            )

        calls = {
            "getHistory(hot, 100)": lambda: functions.messages.GetHistoryRequest(
                peer=hot_peer,
                offset_id=0,
                offset_date=None,
                add_offset=0,
                limit=100,
                max_id=0,
                min_id=0,
                hash=0,
            ),
            "getHistory(private, 100)": lambda: functions.messages.GetHistoryRequest(
                peer=private_peer,
                offset_id=0,
                offset_date=None,
                add_offset=0,
                limit=100,
                max_id=0,
                min_id=0,
                hash=0,
            ),
            f"search in private rare '{P_RARE}'": lambda: search(P_RARE, private_peer),
            f"search in private common '{P_COMMON}'": lambda: search(P_COMMON, private_peer),
            "getDialogs page 1": lambda: functions.messages.GetDialogsRequest(
                offset_date=0, offset_id=0, offset_peer=types.InputPeerEmpty(), limit=100, hash=0
            ),
            "getDialogs page 2": lambda: second_page,
            f"searchGlobal rare '{RARE}'": lambda: search_global(RARE),
            f"searchGlobal common '{COMMON}'": lambda: search_global(COMMON),
            f"search in group rare '{RARE}'": lambda: search(RARE),
            f"search in group old '{OLD}'": lambda: search(OLD),
            f"search in group common '{COMMON}'": lambda: search(COMMON),
            "getParticipants recent": lambda: participants(types.ChannelParticipantsRecent()),
            "getParticipants search 'member12'": lambda: participants(
                types.ChannelParticipantsSearch("member12")
            ),
            "getFullChannel(hot)": lambda: functions.channels.GetFullChannelRequest(hot_input),
            "sendMessage(hot)": lambda: functions.messages.SendMessageRequest(
                peer=hot_peer,
                message="bench send",
                random_id=int.from_bytes(os.urandom(8), "little", signed=True),
            ),
        }
        for name, make in calls.items():
            answer = await client(make())  # warm-up; also the answer's count
            count = getattr(answer, "count", None)
            found = len(getattr(answer, "messages", None) or getattr(answer, "participants", None) or [])
            inexact = bool(getattr(answer, "inexact", False))
            times = []
            cpu0, db0 = proc_cpu(server.proc.pid), database_cpu(dbname)
            for _ in range(rounds):
                t = time.perf_counter()
                await client(make())
                times.append(time.perf_counter() - t)
            cpu1, db1 = proc_cpu(server.proc.pid), database_cpu(dbname)
            results[name] = {
                "p50": pct(times, 50) * 1000, "p99": pct(times, 99) * 1000,
                "listener_ms": (cpu1 - cpu0) * 1000 / rounds, "db_ms": (db1 - db0) * 1000 / rounds,
                "count": count, "found": found, "inexact": inexact,
            }  # fmt: skip
            print(f"  {name}: {results[name]}", flush=True)
    finally:
        await client.disconnect()
        server.stop()
    out.write_text(json.dumps(results))


# --- orchestration ---


def child_env(dbname: str, prefix: str) -> dict[str, str]:
    env = dict(os.environ)
    env["TELESRV_DB_NAME"] = dbname
    env["TELESRV_REDIS_PREFIX"] = prefix
    return env


PSQL = ["psql", "-h", "127.0.0.1", "-U", "postgres", "-q", "-d", "postgres", "-c"]


def migrated_template(base: str) -> str:
    """An empty migrated database the sizes are copied from (migrating costs more than
    loading the small size)."""
    dbname = f"{base}_template"
    subprocess.run([*PSQL, f"DROP DATABASE IF EXISTS {dbname} WITH (FORCE)"], check=True)
    env = child_env(dbname, "unused")
    subprocess.run([sys.executable, "-m", "telesrv_project.database"], cwd=ROOT, env=env, check=True)
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    return dbname


def redis_prefix(base: str, size: str) -> str:
    return f"{os.environ.get('TELESRV_REDIS_PREFIX', 'bench')}{base.rsplit('_', 1)[-1]}{size}"


def prepare(size: str, spec: dict[str, int], base: str, tmp: Path, template: str) -> tuple[str, str, Path]:
    dbname, prefix = f"{base}_{size}", redis_prefix(base, size)
    subprocess.run([*PSQL, f"DROP DATABASE IF EXISTS {dbname} WITH (FORCE)"], check=True)
    subprocess.run([*PSQL, f"CREATE DATABASE {dbname} TEMPLATE {template}"], check=True)
    env = child_env(dbname, prefix)
    info = tmp / f"{size}.json"
    subprocess.run(
        [sys.executable, __file__, "--child-load", json.dumps(spec), "--out", str(info)],
        cwd=ROOT,
        env=env,
        check=True,
    )
    subprocess.run(
        [sys.executable, "manage.py", "rebuild_redis_state", "--yes"], cwd=ROOT, env=env, check=True,
        stdout=subprocess.DEVNULL,
    )  # fmt: skip
    return dbname, prefix, info


def reuse(size: str, base: str, tmp: Path) -> tuple[str, str, Path]:
    """A database kept by an earlier ``--keep`` run: migrated (new indexes) and its
    Redis state rebuilt; the loader's notes are in ``<database>.json`` beside it."""
    dbname, prefix = f"{base}_{size}", redis_prefix(base, size)
    env = child_env(dbname, prefix)
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    subprocess.run(
        [sys.executable, "manage.py", "rebuild_redis_state", "--yes"], cwd=ROOT, env=env, check=True,
        stdout=subprocess.DEVNULL,
    )  # fmt: skip
    subprocess.run(
        ["psql", "-h", "127.0.0.1", "-U", "postgres", "-q", "-d", dbname, "-c", "ANALYZE"], check=True
    )
    return dbname, prefix, Path(tempfile.gettempdir()) / f"{dbname}.json"


def run(
    scale: float, rounds: int, keep: bool = False, reuse_kept: bool = False, tag: str = ""
) -> dict[str, dict]:
    """Loads (or reuses) and measures both sizes; {size: {call: figures}}. The
    databases are named after TELESRV_DB_NAME (+ ``tag``) and the size."""
    base = os.environ.get("TELESRV_DB_NAME", "telesrv_bench") + tag
    tmp = Path(tempfile.mkdtemp(prefix="datascale-"))
    figures: dict[str, dict] = {}
    template = None if reuse_kept else migrated_template(base)
    for size, spec in sizes(scale).items():
        if reuse_kept:
            dbname, prefix, info = reuse(size, base, tmp)
        else:
            dbname, prefix, info = prepare(size, spec, base, tmp, template)
            if keep:
                Path(tempfile.gettempdir(), f"{dbname}.json").write_text(info.read_text())
        out = tmp / f"{size}.out.json"
        subprocess.run(
            [sys.executable, __file__, "--child-measure", str(info), "--rounds", str(rounds), "--out", str(out)],
            cwd=ROOT, env=child_env(dbname, prefix), check=True,
        )  # fmt: skip
        figures[size] = json.loads(out.read_text())
        if not (keep or reuse_kept):
            subprocess.run([*PSQL, f"DROP DATABASE IF EXISTS {dbname} WITH (FORCE)"], check=True)
    if template:
        subprocess.run([*PSQL, f"DROP DATABASE IF EXISTS {template} WITH (FORCE)"], check=True)
    return figures


def table(figures: dict[str, dict]) -> str:
    small, big = figures["small"], figures["big"]
    lines = [
        "| call | SMALL p50 / p99 ms | BIG p50 / p99 ms | p50 ratio | BIG listener / PG CPU ms per call | BIG count |",
        "|---|---|---|---|---|---|",
    ]
    for name, b in big.items():
        s = small[name]
        count = "" if b["count"] is None else f"{b['count']}{' (inexact)' if b['inexact'] else ''}"
        lines.append(
            f"| {name} | {s['p50']:.1f} / {s['p99']:.1f} | {b['p50']:.1f} / {b['p99']:.1f}"
            f" | {b['p50'] / max(s['p50'], 0.001):.2f} | {b['listener_ms']:.1f} / {b['db_ms']:.1f} | {count} |"
        )
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--keep", action="store_true", help="keep the two databases (to EXPLAIN on them)")
    ap.add_argument("--reuse", action="store_true", help="measure the databases a --keep run left")
    ap.add_argument("--child-load")
    ap.add_argument("--child-measure")
    ap.add_argument("--out")
    args = ap.parse_args()
    import bench.env  # noqa: F401  (before Django)

    if args.child_load:
        import django

        django.setup()
        asyncio.run(load(json.loads(args.child_load), Path(args.out)))
        return
    if args.child_measure:
        import django

        django.setup()
        asyncio.run(measure(json.loads(Path(args.child_measure).read_text()), args.rounds, Path(args.out)))
        return
    figures = run(args.scale, args.rounds, args.keep, args.reuse)
    Path(tempfile.gettempdir(), "datascale-last.json").write_text(json.dumps(figures))
    print(table(figures))


if __name__ == "__main__":
    main()
