"""The pts state of one channel, as an operator checks it: the pts PostgreSQL holds on the
channel row, the Redis counter that allocates the next one, the highest pts in the
durable log (``channel_update_events``), and the holes or overlaps in the newest part
of that log (a hole means clients asking for that range get nothing; a ``noop`` row is
the designed filler for a pts whose transaction failed).

Everything reads one partition through the ``(channel_id, pts)`` primary key, and the
gap scan looks only at the newest ``WINDOW`` events.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db import connection

from channels_app import counters
from edge_app import redis_conn

WINDOW = 10_000
SHOWN_MAX = 100


@dataclass
class PtsState:
    channel_id: int
    found: bool
    title: str = ""
    deleted: bool = False
    pg_pts: int = 0
    top_message_id: int = 0
    redis_pts: int | None = None
    redis_msg_id: int | None = None
    log_max_pts: int = 0
    log_min_pts: int = 0
    window_events: int = 0
    window_complete: bool = True
    noop_count: int = 0
    noops: list[tuple[int, int]] = field(default_factory=list)  # (first pts, last pts)
    gaps: list[tuple[int, int]] = field(default_factory=list)  # missing (first, last)
    overlaps: list[tuple[int, int]] = field(default_factory=list)  # (pts, previous event's pts)
    problems: list[str] = field(default_factory=list)


def _redis_int(client, key: str) -> int | None:
    raw = client.get(key)
    return None if raw is None else int(raw)


def read_counters(channel_id: int) -> tuple[int | None, int | None]:
    client = redis_conn.sync_client()
    return _redis_int(client, counters.pts_key(channel_id)), _redis_int(
        client, counters.msg_id_key(channel_id)
    )


def channel_pts_state(channel_id: int, window: int = WINDOW) -> PtsState:
    with connection.cursor() as cur:
        cur.execute("SELECT title, deleted, pts, top_message_id FROM channels WHERE id = %s", [channel_id])
        row = cur.fetchone()
        if row is None:
            return PtsState(channel_id, found=False)
        state = PtsState(channel_id, True, row[0], row[1], row[2], row[3])
        cur.execute(
            "SELECT COALESCE(MAX(pts), 0), COALESCE(MIN(pts - pts_count + 1), 0)"
            " FROM channel_update_events WHERE channel_id = %s",
            [channel_id],
        )
        state.log_max_pts, state.log_min_pts = cur.fetchone()
        cur.execute(
            "SELECT pts, pts_count, type, lag(pts) OVER (ORDER BY pts) FROM"
            " (SELECT pts, pts_count, type FROM channel_update_events WHERE channel_id = %s"
            "  ORDER BY pts DESC LIMIT %s) newest ORDER BY pts",
            [channel_id, window],
        )
        events = cur.fetchall()
    state.redis_pts, state.redis_msg_id = read_counters(channel_id)
    state.window_events = len(events)
    state.window_complete = len(events) < window
    for i, (pts, count, kind, prev) in enumerate(events):
        first = pts - count + 1
        if kind == "noop":
            state.noop_count += 1
            if len(state.noops) < SHOWN_MAX:
                state.noops.append((first, pts))
        if prev is None:
            # The oldest event in the window: a hole before it only shows when the window
            # reaches back to the start of the log.
            if i == 0 and state.window_complete and first > 1:
                state.gaps.append((1, first - 1))
            continue
        if first > prev + 1 and len(state.gaps) < SHOWN_MAX:
            state.gaps.append((prev + 1, first - 1))
        elif first <= prev and len(state.overlaps) < SHOWN_MAX:
            state.overlaps.append((pts, prev))
    _judge(state)
    return state


def _judge(s: PtsState) -> None:
    if s.pg_pts != s.log_max_pts:
        s.problems.append(
            f"channels.pts is {s.pg_pts} but the log's highest pts is {s.log_max_pts}:"
            " clients are told a pts the log does not match"
        )
    if s.redis_pts is None:
        pass  # recovered from PostgreSQL (MAX) on the next allocation: nothing lost
    elif s.redis_pts < s.log_max_pts:
        s.problems.append(
            f"the Redis counter ({s.redis_pts}) is behind the log ({s.log_max_pts}):"
            " the next allocations would reuse pts already taken"
        )
    if s.gaps:
        s.problems.append(f"{len(s.gaps)} hole(s) in the newest {s.window_events} events")
    if s.overlaps:
        s.problems.append(f"{len(s.overlaps)} overlapping event(s) in the newest {s.window_events} events")
