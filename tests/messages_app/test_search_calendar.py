"""Shared-media calendars and positions from a filter's (id, date) list."""

from messages_app.search_calendar import DAY, PERIODS_MAX, calendar, positions

T0 = 1_700_000_000 - 1_700_000_000 % DAY


def test_days_grouped_newest_first_from_the_offset():
    dates = [(9, T0 + 2 * DAY + 5), (8, T0 + 2 * DAY + 1), (5, T0 + DAY), (2, T0 + 3), (1, T0 + 1)]
    cal = calendar(dates, 0, 0, capped=False)
    assert [(p["date"], p["min_msg_id"], p["max_msg_id"], p["count"]) for p in cal.periods] == [
        (T0 + 2 * DAY, 8, 9, 2),
        (T0 + DAY, 5, 5, 1),
        (T0, 1, 2, 2),
    ]
    assert (cal.count, cal.min_msg_id, cal.min_date, cal.offset_id_offset) == (5, 1, T0, None)
    older = calendar(dates, 8, 0, capped=True)
    assert (
        [p["max_msg_id"] for p in older.periods] == [5, 2] and older.offset_id_offset == 2 and older.inexact
    )
    by_date = calendar(dates, 0, T0 + DAY, capped=False)
    assert [p["max_msg_id"] for p in by_date.periods] == [2]
    empty = calendar([], 77, 123, capped=False)
    assert (empty.count, empty.min_msg_id, empty.min_date, empty.periods) == (0, 77, 123, [])


def test_periods_are_capped():
    dates = [(1000 - i, T0 - i * DAY) for i in range(PERIODS_MAX + 20)]
    assert len(calendar(dates, 0, 0, capped=False).periods) == PERIODS_MAX


def test_positions_index_from_the_newest():
    dates = [(9, 5), (8, 4), (5, 3), (2, 2)]
    assert positions(dates, 0, 2) == [(9, 5, 0), (8, 4, 1)]
    assert positions(dates, 8, 10) == [(5, 3, 2), (2, 2, 3)]
