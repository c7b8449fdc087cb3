"""The pts state page tells an operator whether PostgreSQL, Redis and the update log
agree, and where the log has holes or noop fills."""

import pytest
import redis
from django.conf import settings
from django.db import connection

from channels_app import actions, counters
from channels_app.actions.common import write_noop
from console_app.pts_audit import channel_pts_state

from .conftest import run

CREATOR, ALICE = 801, 802


@pytest.fixture
def group(console):
    cid = run(actions.do_create_channel, CREATOR, "Radio", megagroup=True).channel["id"]
    run(actions.do_invite_to_channel, CREATOR, cid, [ALICE])
    for i in range(5):
        run(actions.do_send_message, ALICE, cid, f"over {i}", 100 + i)
    return cid


def sql(statement, params):
    with connection.cursor() as cur:
        cur.execute(statement, params)


def test_a_healthy_channel_is_consistent(operator_client, group):
    state = channel_pts_state(group)
    assert state.pg_pts == state.log_max_pts == state.redis_pts >= 7
    assert state.gaps == [] and state.problems == []
    page = operator_client.get(f"/admin/channels_app/channel/{group}/pts/").content.decode()
    assert "Consistent" in page
    assert f'<td id="pg-pts">{state.pg_pts}</td>' in page


def test_a_hole_in_the_log_is_shown(operator_client, group):
    top = channel_pts_state(group).log_max_pts
    sql("DELETE FROM channel_update_events WHERE channel_id = %s AND pts = %s", [group, top - 2])
    state = channel_pts_state(group)
    assert state.gaps == [(top - 2, top - 2)]
    page = operator_client.get(f"/admin/channels_app/channel/{group}/pts/").content.decode()
    assert f"pts {top - 2}&ndash;{top - 2} missing" in page and "1 hole(s)" in page


def test_noop_fills_are_counted_and_not_holes(operator_client, group):
    pts = run(counters.next_pts, group, 2)
    run(write_noop, group, pts, 2)
    state = channel_pts_state(group)
    assert state.noop_count == 1 and state.noops == [(pts - 1, pts)]
    assert state.gaps == [] and state.problems == []
    assert (
        '<td id="noop-count">1</td>'
        in operator_client.get(f"/admin/channels_app/channel/{group}/pts/").content.decode()
    )


def test_a_redis_counter_behind_the_log_is_a_problem(operator_client, group):
    client = redis.Redis.from_url(settings.REDIS_URL)
    client.set(counters.pts_key(group), 2)
    client.close()
    state = channel_pts_state(group)
    assert state.redis_pts == 2
    assert any("behind the log" in p for p in state.problems)
    assert (
        "behind the log" in operator_client.get(f"/admin/channels_app/channel/{group}/pts/").content.decode()
    )


def test_a_lost_redis_counter_is_not_a_problem(group):
    client = redis.Redis.from_url(settings.REDIS_URL)
    client.delete(counters.pts_key(group))
    client.close()
    state = channel_pts_state(group)
    assert state.redis_pts is None and state.problems == []


def test_channels_pts_out_of_step_with_the_log(group):
    sql("UPDATE channels SET pts = pts - 1 WHERE id = %s", [group])
    assert any("channels.pts" in p for p in channel_pts_state(group).problems)


def test_unknown_channel_is_404(operator_client, console):
    assert operator_client.get("/admin/channels_app/channel/42/pts/").status_code == 404
