import asyncio
from datetime import UTC, datetime

import pytest
from asgiref.sync import sync_to_async

from accounts_app import tl_convert, updates
from accounts_app.models import UserUpdateEvent
from tl import types


def append(user, n=1, kind="test_kind"):
    return [updates.append_user_update(user.id, kind, {"i": i}) for i in range(n)]


def test_pts_is_gapless_per_user(alice, bob):
    a = append(alice, 3)
    b = append(bob, 1)
    big = updates.append_user_update(alice.id, "test_kind", {}, pts_count=2)
    # A new account starts at pts 1 (never 0, which clients read as "no state").
    assert [e.pts for e in a] == [2, 3, 4]
    assert b[0].pts == 2
    assert big.pts == 6
    assert updates.get_state(alice.id).pts == 6
    assert list(UserUpdateEvent.objects.filter(user=alice).order_by("pts").values_list("pts", flat=True)) == [
        2,
        3,
        4,
        6,
    ]


def test_batched_append_takes_consecutive_pts_per_user_in_order(alice, bob):
    append(alice, 2)
    events = updates.append_user_updates(
        [
            (bob.id, "k", {"n": 0}),
            (alice.id, "k", {"n": 1}),
            (bob.id, "k", {"n": 2}),
            (alice.id, "k", {"n": 3}),
        ]
    )
    assert [(e.user_id, e.pts, e.payload["n"]) for e in events] == [
        (bob.id, 2, 0), (alice.id, 4, 1), (bob.id, 3, 2), (alice.id, 5, 3),
    ]  # fmt: skip
    assert updates.get_state(alice.id).pts == 5 and updates.get_state(bob.id).pts == 3
    stored = UserUpdateEvent.objects.filter(user=alice).order_by("pts")
    assert [(e.pts, e.payload.get("n")) for e in stored][-2:] == [(4, 1), (5, 3)]
    with pytest.raises(LookupError):
        updates.append_user_updates([(alice.id, "k", {}), (424242, "k", {})])


async def test_render_events_calls_a_many_renderer_once_and_keeps_order(alice):
    calls = []

    async def one(event, viewer_id):
        return updates.Rendered(updates=[("one", event.pts)])

    async def many(events, viewer_id):
        calls.append([e.pts for e in events])
        return [updates.Rendered(updates=[("many", e.pts)]) if e.pts != 3 else None for e in events]

    updates.register_update_renderer("test_one", one)
    updates.register_update_renderer("test_many", many, many=many)
    kinds = ["test_many", "test_one", "test_many", "test_many"]
    events = [updates.UserUpdate(alice.id, i + 1, 1, k, {}, datetime.now(UTC)) for i, k in enumerate(kinds)]
    parts = await updates.render_events(events, alice.id)
    assert [p.updates[0] for p in parts] == [("many", 1), ("one", 2), ("many", 4)]
    assert calls == [[1, 3, 4]]


def test_append_for_unknown_user(db):
    with pytest.raises(LookupError):
        updates.append_user_update(424242, "x", {})


def test_difference_shapes(alice, settings):
    assert updates.get_state(alice.id).pts == 1
    assert updates.get_account_difference(alice.id, 1).kind == "empty"
    append(alice, 5)
    diff = updates.get_account_difference(alice.id, 3)
    assert diff.kind == "difference"
    assert [e.pts for e in diff.events] == [4, 5, 6]
    assert diff.state.pts == 6
    page = updates.get_account_difference(alice.id, 1, pts_limit=2)
    assert page.kind == "slice"
    assert [e.pts for e in page.events] == [2, 3]
    assert page.state.pts == 3
    assert updates.get_account_difference(alice.id, 6).kind == "empty"
    # Too far behind, or ahead of the server: start over from the current pts.
    too_long = updates.get_account_difference(alice.id, 1, pts_total_limit=3)
    assert (too_long.kind, too_long.state.pts) == ("too_long", 6)
    assert updates.get_account_difference(alice.id, 10).kind == "too_long"


def test_difference_page_is_capped(alice):
    append(alice, 3)
    assert len(updates.get_account_difference(alice.id, 0, pts_limit=10**9).events) == 3
    assert updates._page_size(10**9) == updates.DIFFERENCE_MAX_PAGE
    assert updates._page_size(None) == updates.DIFFERENCE_PAGE


@pytest.mark.django_db(transaction=True)
async def test_contributor_nudges_make_a_difference(alice):
    nudge = types.UpdateChannelTooLong(channel_id=77)
    seen = []

    async def contributor(user_id, since):
        seen.append((user_id, since))
        return updates.Rendered(updates=[nudge])

    updates.register_difference_contributor(contributor)
    try:
        since = datetime(2026, 1, 1, tzinfo=UTC)
        diff = await updates.do_get_difference(alice.id, 1, since)
        assert diff.kind == "difference"
        assert seen == [(alice.id, since)]
        tl = await tl_convert.difference_to_tl(diff, diff.extra, alice.id)
        assert isinstance(tl, types.updates.Difference)
        assert tl.other_updates == [nudge]
        assert tl.state.pts == 1
    finally:
        updates._contributors.remove(contributor)


@pytest.mark.django_db(transaction=True)
async def test_difference_tl_replays_profile_changes(alice, bob):
    from accounts_app import actions

    await sync_to_async(actions.do_update_profile)(alice.id, first_name="Alicia")
    await sync_to_async(actions.do_update_username)(alice.id, "alicia_x")
    diff = await updates.do_get_difference(alice.id, 1, datetime.now(UTC))
    rendered = [await updates.render_event(e, alice.id) for e in diff.events]
    tl = await tl_convert.difference_to_tl(diff, rendered, alice.id)
    assert isinstance(tl, types.updates.Difference)
    assert [type(u) for u in tl.other_updates] == [types.UpdateUserName, types.UpdateUserName]
    assert tl.other_updates[0].first_name == "Alicia"
    assert tl.other_updates[1].usernames[0].username == "alicia_x"
    assert [u.id for u in tl.users] == [alice.id]
    assert tl.state.pts == 3
    tl.to_bytes()


@pytest.mark.django_db(transaction=True)
async def test_concurrent_appends_stay_gapless(alice):
    await asyncio.gather(*(updates.do_append_user_update(alice.id, "test_kind", {}) for _ in range(20)))
    pts = await sync_to_async(
        lambda: list(UserUpdateEvent.objects.filter(user=alice).order_by("pts").values_list("pts", flat=True))
    )()
    assert pts == list(range(2, 22))


@pytest.mark.django_db(transaction=True)
async def test_push_of_an_event_without_pts_carries_a_filler(alice):
    event = await sync_to_async(updates.append_user_update)(
        alice.id, "user_name", {"user_id": alice.id, "first_name": "A", "last_name": "", "username": None}
    )
    rendered = await updates.render_event(event, alice.id)
    pushed = await tl_convert.push_updates_to_tl(event, rendered, alice.id)
    name, filler = pushed.updates
    assert isinstance(name, types.UpdateUserName)
    assert isinstance(filler, types.UpdateDeleteMessages)
    assert (filler.messages, filler.pts, filler.pts_count) == ([], event.pts, 1)


@pytest.mark.django_db(transaction=True)
async def test_bio_change_tells_other_devices_to_reload_the_profile(alice):
    from accounts_app import actions

    change = await sync_to_async(actions.do_update_profile)(alice.id, about="new bio")
    assert [e.type for e in change.events] == [actions.USER_PROFILE_UPDATE]
    same = await sync_to_async(actions.do_update_profile)(alice.id, about="new bio")
    assert same.events == []  # nothing changed, nothing logged
    rendered = await updates.render_event(change.events[0], alice.id)
    assert rendered.updates == [types.UpdateUser(user_id=alice.id)]
