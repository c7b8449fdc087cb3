"""Channel statistics from what the store already holds: members, joins and leaves,
messages and posters per day, the busiest posters, moderators and inviters, muted
subscribers. Every read is bounded (the newest STATS_SCAN_MAX messages, one
partition's members and admin-log rows of the period); nothing is precomputed."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

from message_core import db
from message_core.clock import now

from ..errors import ChannelInvalidError, ChatAdminRequiredError, MessageIdInvalidError
from ..rights import is_admin
from .admin import load_for_actor

PERIOD_DAYS = 30
DAY = 86_400
STATS_SCAN_MAX = 50_000  # newest message ids a statistics page reads
TOP_MAX = 10
RECENT_POSTS = 20
MEMBERS_SAMPLE = 10_000


@dataclass(slots=True)
class ChannelStats:
    channel: dict
    min_date: int
    max_date: int
    members: int = 0
    members_before: int = 0
    joins_per_day: dict[int, int] = field(default_factory=dict)
    leaves_per_day: dict[int, int] = field(default_factory=dict)
    messages: int = 0
    messages_before: int = 0
    messages_per_day: dict[int, int] = field(default_factory=dict)
    posters: int = 0
    posters_before: int = 0
    top_posters: list[tuple[int, int, int]] = field(default_factory=list)  # user, messages, avg chars
    top_admins: list[tuple[int, int, int, int]] = field(default_factory=list)  # user, deleted, kicked, banned
    top_inviters: list[tuple[int, int]] = field(default_factory=list)
    unmuted: int = 0
    recent_post_ids: list[int] = field(default_factory=list)

    @property
    def user_ids(self) -> set[int]:
        return (
            {u for u, *_ in self.top_posters}
            | {u for u, *_ in self.top_admins}
            | {u for u, _ in self.top_inviters}
        )


async def load_for_stats(viewer_id: int, channel_id: int, *, megagroup: bool | None = None) -> dict:
    """The channel, if the viewer administers it; ``megagroup`` picks the kind the
    method is for (CHANNEL_INVALID for the other)."""
    channel, member = await load_for_actor(channel_id, viewer_id)
    if megagroup is not None and bool(channel["megagroup"]) != megagroup:
        raise ChannelInvalidError()
    if not is_admin(member):
        raise ChatAdminRequiredError()
    return channel


def _day(ts: int) -> int:
    return ts - ts % DAY


async def get_channel_stats(viewer_id: int, channel_id: int, *, megagroup: bool) -> ChannelStats:
    channel = await load_for_stats(viewer_id, channel_id, megagroup=megagroup)
    end = now()
    start, before = end - PERIOD_DAYS * DAY, end - 2 * PERIOD_DAYS * DAY
    s = ChannelStats(channel=channel, min_date=start, max_date=end, members=channel["participants_count"])
    # Statistics tolerate seconds of lag: a standby's reads, when there is one.
    async with db.read_connection() as conn:
        cur = await conn.execute(
            "SELECT date, sender_user_id, char_length(message) AS chars, post FROM channel_messages"
            " WHERE channel_id = %s AND id > %s AND date >= %s AND NOT deleted AND action IS NULL",
            (channel_id, channel["top_message_id"] - STATS_SCAN_MAX, before),
        )
        rows = await cur.fetchall()
        cur = await conn.execute(
            "SELECT user_id, status, joined_at, left_at, inviter_user_id FROM channel_members"
            " WHERE channel_id = %s AND (joined_at >= %s OR left_at >= %s)",
            (channel_id, start, start),
        )
        moves = await cur.fetchall()
        # Muted share from at most MEMBERS_SAMPLE active members (dialogs are partitioned
        # by user, so each is one primary-key probe).
        cur = await conn.execute(
            "SELECT count(*) AS sampled, count(*) FILTER (WHERE (d.notify_settings->>'mute_until')::bigint > %s)"
            " AS muted FROM (SELECT user_id FROM channel_members WHERE channel_id = %s AND status = 'active'"
            " LIMIT %s) m JOIN channel_dialogs d ON d.user_id = m.user_id AND d.channel_id = %s",
            (end, channel_id, MEMBERS_SAMPLE, channel_id),
        )
        sample = await cur.fetchone()
        cur = await conn.execute(
            "SELECT actor_user_id, event_type, count(*) AS n FROM channel_admin_log_events"
            " WHERE channel_id = %s AND date >= %s"
            " AND event_type IN ('delete_message', 'participant_kick', 'participant_ban')"
            " GROUP BY actor_user_id, event_type",
            (channel_id, start),
        )
        moderation = await cur.fetchall()
        cur = await conn.execute(
            "SELECT id FROM channel_messages WHERE channel_id = %s AND id > %s AND NOT deleted AND action IS NULL"
            " ORDER BY id DESC LIMIT %s",
            (channel_id, channel["top_message_id"] - STATS_SCAN_MAX, RECENT_POSTS),
        )
        s.recent_post_ids = [r["id"] for r in await cur.fetchall()]
    posters: Counter[int] = Counter()
    chars: Counter[int] = Counter()
    posters_before: set[int] = set()
    for r in rows:
        if r["date"] >= start:
            s.messages += 1
            s.messages_per_day[_day(r["date"])] = s.messages_per_day.get(_day(r["date"]), 0) + 1
            if r["sender_user_id"] and not r["post"]:
                posters[r["sender_user_id"]] += 1
                chars[r["sender_user_id"]] += r["chars"] or 0
        else:
            s.messages_before += 1
            if r["sender_user_id"] and not r["post"]:
                posters_before.add(r["sender_user_id"])
    s.posters, s.posters_before = len(posters), len(posters_before)
    s.top_posters = [(u, n, chars[u] // n) for u, n in posters.most_common(TOP_MAX)]
    joined = left = 0
    invited: Counter[int] = Counter()
    for m in moves:
        if m["joined_at"] >= start:
            joined += 1
            s.joins_per_day[_day(m["joined_at"])] = s.joins_per_day.get(_day(m["joined_at"]), 0) + 1
            if m["inviter_user_id"] and m["inviter_user_id"] != m["user_id"]:
                invited[m["inviter_user_id"]] += 1
        if m["status"] != "active" and m["left_at"] >= start:
            left += 1
            s.leaves_per_day[_day(m["left_at"])] = s.leaves_per_day.get(_day(m["left_at"]), 0) + 1
    s.members_before = max(0, s.members - joined + left)
    s.top_inviters = invited.most_common(TOP_MAX)
    by_admin: defaultdict[int, list[int]] = defaultdict(lambda: [0, 0, 0])
    slot = {"delete_message": 0, "participant_kick": 1, "participant_ban": 2}
    for r in moderation:
        by_admin[r["actor_user_id"]][slot[r["event_type"]]] += r["n"]
    ranked = sorted(by_admin.items(), key=lambda kv: -sum(kv[1]))[:TOP_MAX]
    s.top_admins = [(u, *counts) for u, counts in ranked if u]
    if sample["sampled"]:
        s.unmuted = round(s.members * (1 - sample["muted"] / sample["sampled"]))
    return s


async def check_message_stats(viewer_id: int, channel_id: int, msg_id: int) -> dict:
    """The channel of a message whose statistics an admin asks for (MESSAGE_ID_INVALID
    for a message that is not there)."""
    channel = await load_for_stats(viewer_id, channel_id)
    row = await db.fetchone(
        "SELECT 1 AS ok FROM channel_messages WHERE channel_id = %s AND id = %s AND NOT deleted",
        (channel_id, msg_id),
    )
    if row is None:
        raise MessageIdInvalidError()
    return channel
