"""TL objects of channel statistics (stats.*) and of the boost answers (premium.*)."""

from __future__ import annotations

import json

from tl import types

from .actions.stats import DAY, ChannelStats

# A graph the store cannot draw (views, shares, languages, sources...): what Telegram
# answers for a graph without enough data, which clients show as such.
NO_DATA = "Not enough data to display."
BOOST_URL_PREFIX = "https://t.me/boost/"


def _graph(stats: ChannelStats, series: dict[str, tuple[str, dict[int, int]]]):
    """A line graph over the period's days: ``series`` name -> (label, {day: value})."""
    days = list(range(stats.min_date - stats.min_date % DAY, stats.max_date + 1, DAY))
    if not any(values for _, values in series.values()):
        return types.StatsGraphError(error=NO_DATA)
    columns = [["x", *(d * 1000 for d in days)]]
    for key, (_, values) in series.items():
        columns.append([key, *(values.get(d, 0) for d in days)])
    data = {
        "columns": columns,
        "types": {"x": "x", **{key: "line" for key in series}},
        "names": {key: label for key, (label, _) in series.items()},
        "colors": {key: color for key, color in zip(series, ("#3497ED", "#F34C44", "#4BD04B"), strict=False)},
    }
    return types.StatsGraph(json=types.DataJSON(data=json.dumps(data, separators=(",", ":"))))


def _no_graph():
    return types.StatsGraphError(error=NO_DATA)


def _abs(current: float, previous: float):
    return types.StatsAbsValueAndPrev(current=float(current), previous=float(previous))


def broadcast_stats_to_tl(s: ChannelStats):
    growth = _graph(s, {"y0": ("Joined", s.joins_per_day), "y1": ("Left", s.leaves_per_day)})
    return types.stats.BroadcastStats(
        period=types.StatsDateRangeDays(min_date=s.min_date, max_date=s.max_date),
        followers=_abs(s.members, s.members_before),
        views_per_post=_abs(0, 0),
        shares_per_post=_abs(0, 0),
        reactions_per_post=_abs(0, 0),
        views_per_story=_abs(0, 0),
        shares_per_story=_abs(0, 0),
        reactions_per_story=_abs(0, 0),
        enabled_notifications=types.StatsPercentValue(part=float(s.unmuted), total=float(max(s.members, 1))),
        growth_graph=growth,
        followers_graph=growth,
        mute_graph=_no_graph(),
        top_hours_graph=_no_graph(),
        interactions_graph=_graph(s, {"y0": ("Posts", s.messages_per_day)}),
        iv_interactions_graph=_no_graph(),
        views_by_source_graph=_no_graph(),
        new_followers_by_source_graph=_no_graph(),
        languages_graph=_no_graph(),
        reactions_by_emotion_graph=_no_graph(),
        story_interactions_graph=_no_graph(),
        story_reactions_by_emotion_graph=_no_graph(),
        recent_posts_interactions=[
            types.PostInteractionCountersMessage(msg_id=i, views=0, forwards=0, reactions=0)
            for i in s.recent_post_ids
        ],
    )


def megagroup_stats_to_tl(s: ChannelStats, users: list):
    return types.stats.MegagroupStats(
        period=types.StatsDateRangeDays(min_date=s.min_date, max_date=s.max_date),
        members=_abs(s.members, s.members_before),
        messages=_abs(s.messages, s.messages_before),
        viewers=_abs(0, 0),
        posters=_abs(s.posters, s.posters_before),
        growth_graph=_graph(s, {"y0": ("Joined", s.joins_per_day), "y1": ("Left", s.leaves_per_day)}),
        members_graph=_graph(s, {"y0": ("Joined", s.joins_per_day)}),
        new_members_by_source_graph=_no_graph(),
        languages_graph=_no_graph(),
        messages_graph=_graph(s, {"y0": ("Messages", s.messages_per_day)}),
        actions_graph=_no_graph(),
        top_hours_graph=_no_graph(),
        weekdays_graph=_no_graph(),
        top_posters=[
            types.StatsGroupTopPoster(user_id=u, messages=n, avg_chars=c) for u, n, c in s.top_posters
        ],
        top_admins=[
            types.StatsGroupTopAdmin(user_id=u, deleted=d, kicked=k, banned=b) for u, d, k, b in s.top_admins
        ],
        top_inviters=[types.StatsGroupTopInviter(user_id=u, invitations=n) for u, n in s.top_inviters],
        users=users,
    )


def message_stats_to_tl():
    return types.stats.MessageStats(views_graph=_no_graph(), reactions_by_emotion_graph=_no_graph())


def public_forwards_to_tl():
    return types.stats.PublicForwards(count=0, forwards=[], chats=[], users=[])


def boosts_status_to_tl(channel: dict):
    """No boosts exist here: level 0, nothing applied, one boost to the next level."""
    slug = channel["username"] or f"c/{channel['id']}"
    return types.premium.BoostsStatus(
        level=0, current_level_boosts=0, boosts=0, next_level_boosts=1, boost_url=BOOST_URL_PREFIX + slug
    )


def boosts_list_to_tl():
    return types.premium.BoostsList(count=0, boosts=[], users=[])


def my_boosts_to_tl():
    return types.premium.MyBoosts(my_boosts=[], chats=[], users=[])
