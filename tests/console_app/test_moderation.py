"""Moderation actions go through the domain: the state changes, the channel's admin log
names the operator, and the change is published for the edges to push."""

import json
import re
import time

import pytest
import redis
from django.conf import settings
from django.db import connection

from accounts_app.models import Authorization, User
from channels_app import actions
from edge_app import presence
from edge_app import push as edge_push

from .conftest import run, staff

CREATOR, ALICE, BOB = 701, 702, 703
MEMBERS = "/admin/console_app/member/"


@pytest.fixture
def group(console):
    cid = run(actions.do_create_channel, CREATOR, "Chess club", megagroup=True).channel["id"]
    run(actions.do_invite_to_channel, CREATOR, cid, [ALICE, BOB])
    run(actions.do_send_message, ALICE, cid, "e4", 1)
    return cid


@pytest.fixture
def edge_events(request):
    """What reaches a listener holding the test's users and channel (its presence
    leases written by hand), and the broadcast channel every process hears."""
    client = redis.Redis.from_url(settings.REDIS_URL)
    me = presence.new_listener_id()
    users = [CREATOR, ALICE, BOB]
    if "people" in request.fixturenames:
        users += [u.id for u in request.getfixturevalue("people")]
    channels = [request.getfixturevalue("group")] if "group" in request.fixturenames else []
    client.set(presence.alive_key(me), b"1", px=30_000)
    for u in users:
        client.zadd(presence.user_key(u), {me: 0})
    for c in channels:
        client.zadd(presence.channel_key(c), {me: 0})
    sub = client.pubsub(ignore_subscribe_messages=True)
    sub.ssubscribe(edge_push.channel_name(), presence.listener_channel(me))
    time.sleep(0.1)

    def drain(wait: float = 1.0) -> list[dict]:
        out, deadline = [], time.monotonic() + wait
        while time.monotonic() < deadline:
            msg = sub.get_sharded_message(timeout=0.1)
            if msg:
                out.append(json.loads(msg["data"]))
        return out

    yield drain
    client.delete(presence.alive_key(me))
    for u in users:
        client.zrem(presence.user_key(u), me)
    for c in channels:
        client.zrem(presence.channel_key(c), me)
    sub.close()
    client.close()


def member(cid, uid):
    with connection.cursor() as cur:
        cur.execute(
            "SELECT status, banned_rights FROM channel_members WHERE channel_id = %s AND user_id = %s",
            [cid, uid],
        )
        return cur.fetchone()


def admin_log(cid):
    with connection.cursor() as cur:
        cur.execute(
            "SELECT actor_user_id, event_type, target_user_id FROM channel_admin_log_events WHERE channel_id = %s ORDER BY id",
            [cid],
        )
        return cur.fetchall()


def act(client, url, action, keys, **query):
    """Run an action as the list page does; a destructive one answers its confirmation
    page first, which is then confirmed as its "Yes, I'm sure" button does."""
    full = url + ("?" + "&".join(f"{k}={v}" for k, v in query.items()) if query else "")
    first = client.post(
        full, {"action": action, "_selected_action": keys, "index": 0, "select_across": 0}, follow=True
    )
    page = first.content.decode()
    if 'id="console-confirm-yes"' not in page:
        return first
    # what the confirmation page posts back: its own hidden fields
    again = re.findall(r'name="_selected_action" value="([^"]*)"', page)
    assert sorted(again) == sorted(keys), (again, keys)
    return client.post(full, {"action": action, "_selected_action": again, "post": "yes"}, follow=True)


def test_moderator_bans_a_member_through_the_domain(moderator_client, group, console, edge_events):
    response = act(moderator_client, MEMBERS, "ban_members", [f"{group}.{ALICE}"], channel_id=group)
    assert response.status_code == 200
    assert "Banned 1 member(s)." in response.content.decode()
    status, rights = member(group, ALICE)
    assert status == "kicked" and rights & 1  # view_messages: out, and cannot come back
    assert member(group, BOB)[0] == "active"
    # the admin log names the operator console (actor 0) and the banned user
    assert (0, "participant_kick", ALICE) in admin_log(group)
    # the domain announced it ...
    assert any("participant" in k and p.get("user_id") == ALICE for k, p in console)
    # ... and it left this process for the edges: the megagroup's service message event
    published = edge_events()
    assert any(
        e["kind"] == "channels.event" and e["payload"]["event"]["channel_id"] == group for e in published
    )
    # Django's own log says which staff account it was
    from django.contrib.admin.models import LogEntry

    assert LogEntry.objects.filter(
        user__username="mod", change_message__contains=f"banned user {ALICE}"
    ).exists()


def test_unban_lets_the_user_rejoin(moderator_client, group):
    act(moderator_client, MEMBERS, "ban_members", [f"{group}.{BOB}"], channel_id=group)
    assert member(group, BOB)[0] == "kicked"
    response = act(moderator_client, MEMBERS, "unban_members", [f"{group}.{BOB}"], channel_id=group)
    assert "Unbanned 1 member(s)." in response.content.decode()
    assert member(group, BOB) == ("left", 0)
    assert [e[1] for e in admin_log(group)][-2:] == ["participant_kick", "participant_unkick"]
    run(actions.do_invite_to_channel, CREATOR, group, [BOB])
    assert member(group, BOB)[0] == "active"


def test_banning_the_creator_is_refused_by_the_domain(moderator_client, group):
    response = act(moderator_client, MEMBERS, "ban_members", [f"{group}.{CREATOR}"], channel_id=group)
    assert "refused by the domain: USER_CREATOR" in response.content.decode()
    assert member(group, CREATOR)[0] == "active"


def test_delete_channel(moderator_client, group, console, edge_events):
    response = act(moderator_client, "/admin/channels_app/channel/", "delete_channels", [str(group)])
    assert "Deleted 1 channel(s)." in response.content.decode()
    with connection.cursor() as cur:
        cur.execute("SELECT deleted FROM channels WHERE id = %s", [group])
        assert cur.fetchone() == (True,)
    # the members' clients are told (channelForbidden) through the edges
    pushed = [e["payload"] for e in edge_events() if e["kind"] == edge_push.USERS_KIND]
    assert any(ALICE in p["user_ids"] and BOB in p["user_ids"] for p in pushed)


def test_a_staff_account_outside_the_groups_cannot_moderate(console, client, group):
    from django.contrib.auth.models import Permission

    viewer = staff("viewer", None)
    viewer.user_permissions.add(
        Permission.objects.get(codename="view_member", content_type__app_label="console_app")
    )
    client.force_login(viewer)
    page = client.get(MEMBERS, {"channel_id": group}).content.decode()
    assert "ban_members" not in page
    act(client, MEMBERS, "ban_members", [f"{group}.{ALICE}"], channel_id=group)
    assert member(group, ALICE)[0] == "active"


def test_selection_keys_are_validated(moderator_client, group):
    response = act(moderator_client, MEMBERS, "ban_members", ["1.2.3", "x"], channel_id=group)
    assert response.status_code == 200 and "Malformed row selection" in response.content.decode()
    assert member(group, ALICE)[0] == "active"


def test_operator_terminates_an_authorization(operator_client, console):
    user = User.objects.create(phone="99966100002", first_name="Ivan")
    auth = Authorization.objects.create(perm_auth_key_id=555, user=user, hash=9001, device_model="Desktop")
    keep = Authorization.objects.create(perm_auth_key_id=556, user=user, hash=9002, device_model="Phone")
    response = act(operator_client, "/admin/accounts_app/authorization/", "terminate", [str(auth.id)])
    assert "Terminated 1 session(s)." in response.content.decode()
    assert list(Authorization.objects.values_list("id", flat=True)) == [keep.id]


def test_moderator_cannot_terminate_authorizations(moderator_client, console):
    user = User.objects.create(phone="99966100003", first_name="Ivan")
    auth = Authorization.objects.create(perm_auth_key_id=557, user=user, hash=9003)
    response = act(moderator_client, "/admin/accounts_app/authorization/", "terminate", [str(auth.id)])
    assert response.status_code == 403
    assert Authorization.objects.filter(id=auth.id).exists()
