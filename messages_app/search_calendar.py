"""Shared-media calendars and positions (messages.getSearchResultsCalendar /
getSearchResultsPositions) from the (id, date) list of a filter's messages, newest
first: days with their first and last message and count, and each message's index."""

from __future__ import annotations

from dataclasses import dataclass, field

DAY = 86400
SCAN_MAX = 5000  # messages of one filter read for a calendar or positions
PERIODS_MAX = 100  # days in one calendar answer
POSITIONS_MAX = 100


@dataclass
class Calendar:
    count: int
    inexact: bool
    min_date: int
    min_msg_id: int
    offset_id_offset: int | None
    periods: list[dict] = field(default_factory=list)  # {date, min_msg_id, max_msg_id, count}


def calendar(dates: list[tuple[int, int]], offset_id: int, offset_date: int, *, capped: bool) -> Calendar:
    """Days (UTC) with matching messages, newest first, older than the offset
    (``offset_id`` or ``offset_date``; neither: from the newest)."""
    skip = 0
    for i, (mid, date) in enumerate(dates):
        if (offset_id and mid >= offset_id) or (offset_date and date >= offset_date):
            skip = i + 1
        else:
            break
    window = dates[skip:]
    periods: list[dict] = []
    for mid, date in window:
        day = date - date % DAY
        if periods and periods[-1]["date"] == day:
            p = periods[-1]
            p["min_msg_id"], p["count"] = min(p["min_msg_id"], mid), p["count"] + 1
            continue
        if len(periods) == PERIODS_MAX:
            break
        periods.append({"date": day, "min_msg_id": mid, "max_msg_id": mid, "count": 1})
    oldest = periods[-1] if periods else None
    return Calendar(
        count=len(dates),
        inexact=capped,
        min_date=oldest["date"] if oldest else offset_date,
        min_msg_id=oldest["min_msg_id"] if oldest else offset_id,
        offset_id_offset=skip if (offset_id or offset_date) else None,
        periods=periods,
    )


def positions(dates: list[tuple[int, int]], offset_id: int, limit: int) -> list[tuple[int, int, int]]:
    """(msg_id, date, index from the newest) of the messages older than ``offset_id``
    (0: from the newest), at most ``limit``."""
    out = []
    for index, (mid, date) in enumerate(dates):
        if offset_id and mid >= offset_id:
            continue
        out.append((mid, date, index))
        if len(out) >= min(limit, POSITIONS_MAX):
            break
    return out
