"""Invite links, join requests and the admin log in the console."""

import pytest
from django.db import connection

from channels_app import actions
from channels_app.actions import invites
from console_app import moderation
from tl.errors import RpcError

from .conftest import run
from .test_moderation import act, admin_log, member

CREATOR, ALICE, BOB, CAROL = 901, 902, 903, 904


@pytest.fixture
def group(console):
    cid = run(actions.do_create_channel, CREATOR, "Choir", megagroup=True).channel["id"]
    run(actions.do_invite_to_channel, CREATOR, cid, [ALICE])
    return cid


@pytest.fixture
def request_link(group):
    """A link that needs approval, and Bob and Carol asking to join through it."""
    inv = run(invites.do_export_invite, CREATOR, group, request_needed=True, title="auditions")
    for uid in (BOB, CAROL):
        with pytest.raises(RpcError, match="INVITE_REQUEST_SENT"):
            run(invites.do_import_invite, uid, inv["hash"])
    return inv


def test_invite_list_and_revoke(moderator_client, group, request_link):
    page = moderator_client.get("/admin/console_app/invite/", {"channel_id": group}).content.decode()
    assert request_link["hash"] in page and "auditions" in page
    key = f"{group}.{request_link['id']}"
    response = act(moderator_client, "/admin/console_app/invite/", "revoke_invites", [key], channel_id=group)
    assert "Revoked 1 invite link(s)." in response.content.decode()
    with connection.cursor() as cur:
        cur.execute(
            "SELECT revoked FROM channel_invites WHERE channel_id = %s AND id = %s",
            [group, request_link["id"]],
        )
        assert cur.fetchone() == (True,)
    assert (0, "invite_revoke", 0) in admin_log(group)
    # the link stops working for everyone
    with pytest.raises(RpcError, match="INVITE_HASH_EXPIRED"):
        run(invites.do_import_invite, 999, request_link["hash"])


def test_join_requests_approve_and_dismiss(moderator_client, group, request_link, console):
    url = "/admin/console_app/importer/"
    page = moderator_client.get(url, {"channel_id": group, "requested": 1}).content.decode()
    assert f"{group}.{BOB}/change/" in page and f"{group}.{CAROL}/change/" in page
    response = act(moderator_client, url, "approve_requests", [f"{group}.{BOB}"], channel_id=group)
    assert "Approved 1 request(s)." in response.content.decode()
    assert member(group, BOB)[0] == "active"
    response = act(moderator_client, url, "dismiss_requests", [f"{group}.{CAROL}"], channel_id=group)
    assert "Dismissed 1 request(s)." in response.content.decode()
    assert member(group, CAROL) is None
    with connection.cursor() as cur:
        cur.execute(
            "SELECT user_id FROM channel_invite_importers WHERE channel_id = %s AND requested", [group]
        )
        assert cur.fetchall() == []
    # Bob joined: the megagroup's members were told through the push path
    assert any(k == "channel.event" for k, _ in console)


def test_admin_log_filters_by_channel_actor_type_and_date(moderator_client, group):
    other = run(actions.do_create_channel, CREATOR, "Band", megagroup=True).channel["id"]
    run(actions.do_invite_to_channel, CREATOR, other, [BOB])
    moderation.ban_member(group, ALICE)
    moderation.ban_member(other, BOB)
    url = "/admin/console_app/adminlogevent/"

    def rows(**params):
        page = moderator_client.get(url, params).content.decode()
        assert "Traceback" not in page
        return page

    kick = 'field-event_type_shown">participant kick<'
    page = rows(channel_id=group)
    assert "operator console" in page and kick in page
    assert f"/admin/console_app/adminlogevent/{group}." in page
    assert f"/admin/console_app/adminlogevent/{other}." not in page
    assert kick in rows(channel_id=group, actor_user_id=0)
    assert kick not in rows(channel_id=group, actor_user_id=CREATOR)
    assert kick in rows(channel_id=group, event_type="participant_kick")
    assert f"adminlogevent/{group}." not in rows(channel_id=group, event_type="invite_revoke")
    assert kick in rows(channel_id=group, since="1d")
    assert f"adminlogevent/{group}." not in rows(channel_id=group, date__lt=1)


def test_message_delete_goes_through_the_domain(moderator_client, group, console):
    sent = run(actions.do_send_message, ALICE, group, "spam spam spam", 5)
    msg_id = sent.events[-1].message["id"]
    url = "/admin/console_app/message/"
    response = act(moderator_client, url, "delete_selected_messages", [f"{group}.{msg_id}"], channel_id=group)
    assert "Deleted 1 message(s)." in response.content.decode()
    with connection.cursor() as cur:
        cur.execute("SELECT deleted FROM channel_messages WHERE channel_id = %s AND id = %s", [group, msg_id])
        assert cur.fetchone() == (True,)
        cur.execute(
            "SELECT actor_user_id, target_user_id FROM channel_admin_log_events"
            " WHERE channel_id = %s AND event_type = 'delete_message'",
            [group],
        )
        assert cur.fetchall() == [(0, ALICE)]  # the operator, on Alice's message
    assert any(
        k == "channel.event"
        and p["event"]["type"] == "delete_messages"
        and p["event"]["message_ids"] == [msg_id]
        for k, p in console
    )
