"""searchGlobal reads a common word's page from the newest messages of the viewer's
most recently active channels, and a rare word's matches through the trigram index
(issue 48: the index's bitmap of every match made a common word cost its frequency)."""

from channels_app import actions
from channels_app.actions import search
from message_core import db


async def _group(title: str) -> int:
    return (await actions.do_create_channel(21, title, invite_user_ids=[22], from_create_chat=True)).channel[
        "id"
    ]


async def _spread_dates(channel_id: int, offset: int) -> None:
    """One date per message, ten seconds apart (sends in one test share a second)."""
    async with db.connection() as conn:
        await conn.execute(
            "UPDATE channel_messages SET date = 1700000000 + id * 10 + %s WHERE channel_id = %s",
            (offset, channel_id),
        )
        await conn.execute(
            "UPDATE channels SET top_message_date = (SELECT max(date) FROM channel_messages"
            " WHERE channel_id = %s) WHERE id = %s",
            (channel_id, channel_id),
        )


async def test_a_common_word_pages_from_the_walk_and_a_rare_one_from_the_index(chan, monkeypatch):
    monkeypatch.setattr(search, "WALK_ROWS", 4)
    monkeypatch.setattr(search, "WALK_DEEP_CHANNELS", 1)  # both channels are busy: no deeper walk
    a, b = await _group("a"), await _group("b")
    await actions.do_send_message(21, a, "an old zebra", random_id=1)
    for k in range(8):
        await actions.do_send_message(21, a, f"hello a{k}", random_id=10 + k)
        await actions.do_send_message(21, b, f"hello b{k}", random_id=10 + k)
    await _spread_dates(a, 0)
    await _spread_dates(b, 15)  # b's k-th hello (one id less: no zebra) is newer than a's
    indexed = []
    real = db.fetchall_planned_for_values

    async def capture(sql, params=None, **kw):
        indexed.append(sql)
        return await real(sql, params, **kw)

    monkeypatch.setattr(search.db, "fetchall_planned_for_values", capture)
    page = await search.search_member_channels(22, "hello", limit=3)
    assert [m["message"] for m in page] == ["hello b7", "hello a7", "hello b6"]
    assert indexed == []  # the walk proved the page
    older = await search.search_member_channels(
        22, "hello", limit=3, cursor=(page[-1]["date"], 1, b, page[-1]["id"])
    )
    assert [m["message"] for m in older] == ["hello a6", "hello b5", "hello a5"]
    # Past the walk's four newest messages per channel, the page is not proved: the index.
    deep = await search.search_member_channels(
        22, "hello", limit=6, cursor=(page[-1]["date"], 1, b, page[-1]["id"])
    )
    assert [m["message"] for m in deep] == [
        "hello a6",
        "hello b5",
        "hello a5",
        "hello b4",
        "hello a4",
        "hello b3",
    ]
    assert (await search.search_member_channels(22, "zebra"))[0]["message"] == "an old zebra"
    assert len(indexed) == 2
    # A few busy channels are read further back before the index is asked.
    monkeypatch.setattr(search, "WALK_DEEP_CHANNELS", 2)
    again = await search.search_member_channels(
        22, "hello", limit=6, cursor=(page[-1]["date"], 1, b, page[-1]["id"])
    )
    assert again == deep and len(indexed) == 2
