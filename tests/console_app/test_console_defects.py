"""The console as a moderator and an operator meet it: the defects found by using it
(issue 21), each pinned by a test that failed before its fix."""

import pytest
from django.db import connection

from accounts_app.actions import do_create_user
from accounts_app.models import Authorization, User
from channels_app import actions
from channels_app.actions import usernames as channel_usernames
from channels_app.tl_convert import message_to_tl
from edge_app import push as edge_push
from tl import types

from .conftest import run
from .test_moderation import act, edge_events  # noqa: F401 - fixture

MEMBERS = "/admin/console_app/member/"


@pytest.fixture
def people(console):
    owner = do_create_user("99966200001", "Olivia", "Owner", username="olivia_owner")
    alice = do_create_user("99966200002", "Alice", "Liddell", username="alice_in")
    bob = do_create_user("99966200003", "Bob", "Builder")
    return owner, alice, bob


@pytest.fixture
def support(people):
    owner, alice, bob = people
    cid = run(actions.do_create_channel, owner.id, "Acme support desk", megagroup=True).channel["id"]
    run(actions.do_invite_to_channel, owner.id, cid, [alice.id, bob.id])
    run(channel_usernames.do_update_username, owner.id, cid, "acme_support")
    run(actions.do_send_message, alice.id, cid, "my order never arrived", 5)
    return cid


def test_admin_log_page_shows_username_changes(moderator_client, support):
    page = moderator_client.get("/admin/console_app/adminlogevent/", {"channel_id": support})
    assert page.status_code == 200
    text = page.content.decode()
    # in words (issue 37), not the stored value's repr
    assert "change username" in text and "username (none) → @acme_support" in text


def test_console_ban_is_not_the_owners_message(moderator_client, support, people):
    owner, alice, _ = people
    act(moderator_client, MEMBERS, "ban_members", [f"{support}.{alice.id}"], channel_id=support)
    with connection.cursor() as cur:
        cur.execute(
            "SELECT sender_user_id, action FROM channel_messages WHERE channel_id = %s ORDER BY id DESC LIMIT 1",
            [support],
        )
        sender, action = cur.fetchone()
    assert '"chatDeleteUser"' in str(action) or action["_"] == "chatDeleteUser"
    assert sender == 0
    row = {
        "channel_id": support,
        "id": 9,
        "sender_user_id": sender,
        "date": 1,
        "action": {"_": "chatDeleteUser", "user_id": alice.id},
    }
    seen_by_owner = message_to_tl(row, owner.id, broadcast=False)
    assert isinstance(seen_by_owner, types.MessageService)
    assert not seen_by_owner.out and seen_by_owner.from_id is None


def test_members_and_messages_show_names_and_usernames(moderator_client, operator_client, support, people):
    _owner, alice, _bob = people
    members = moderator_client.get(MEMBERS, {"channel_id": support}).content.decode()
    for who in ("Olivia Owner", "@olivia_owner", "Alice Liddell", "@alice_in", "Bob Builder"):
        assert who in members
    # a moderator may not open user pages: names without links; an operator gets links
    assert f"/admin/accounts_app/user/{alice.id}/change/" not in members
    op = operator_client.get(MEMBERS, {"channel_id": support}).content.decode()
    assert f"/admin/accounts_app/user/{alice.id}/change/" in op
    messages = moderator_client.get("/admin/console_app/message/", {"channel_id": support}).content.decode()
    assert "Alice Liddell" in messages
    channels = moderator_client.get("/admin/channels_app/channel/", {"q": "acme"}).content.decode()
    assert "Olivia Owner" in channels


@pytest.mark.parametrize("query", ["acme_support", "@acme_support", "ACME_SUP", "@acme_s", "support desk"])
def test_channel_search_by_bare_username_prefix_and_title(moderator_client, support, query):
    page = moderator_client.get("/admin/channels_app/channel/", {"q": query}).content.decode()
    assert f"/admin/channels_app/channel/{support}/change/" in page


def test_channel_search_with_at_is_username_only(moderator_client, support):
    page = moderator_client.get("/admin/channels_app/channel/", {"q": "@desk"}).content.decode()
    assert f"/admin/channels_app/channel/{support}/change/" not in page


def test_channel_page_shows_recent_messages_and_members(moderator_client, support):
    page = moderator_client.get(f"/admin/channels_app/channel/{support}/change/").content.decode()
    assert 'id="console-recent-messages"' in page and "my order never arrived" in page
    assert 'id="console-members"' in page and "Bob Builder" in page and "Alice Liddell" in page


def test_operator_deactivates_an_account_through_the_domain(operator_client, people, edge_events):  # noqa: F811
    _, alice, _ = people
    Authorization.objects.create(perm_auth_key_id=9901, user=alice, hash=1, device_model="Phone")
    url = "/admin/accounts_app/user/"
    response = act(operator_client, url, "deactivate_accounts", [str(alice.id)])
    assert "Deactivated 1 account(s)." in response.content.decode()
    alice.refresh_from_db()
    assert alice.deleted and alice.username is None
    assert not Authorization.objects.filter(user=alice).exists()
    published = edge_events()
    # every edge forgets the key's login, and the account's name change is announced
    assert any(
        e["kind"] == "edge.forget_authorization" and e["payload"]["perm_auth_key_id"] == 9901
        for e in published
    )
    from accounts_app.models import UserUpdateEvent

    assert UserUpdateEvent.objects.filter(user=alice, type="user_name").exists()


def test_operator_terminates_all_sessions_and_revokes_a_username(operator_client, people, edge_events):  # noqa: F811
    _, alice, _bob = people
    for key, h in ((9911, 1), (9912, 2)):
        Authorization.objects.create(perm_auth_key_id=key, user=alice, hash=h)
    response = act(operator_client, "/admin/accounts_app/user/", "terminate_all_sessions", [str(alice.id)])
    assert "Terminated 2 session(s) of 1 account(s)." in response.content.decode()
    assert not Authorization.objects.filter(user=alice).exists()
    forgotten = {
        e["payload"]["perm_auth_key_id"] for e in edge_events() if e["kind"] == "edge.forget_authorization"
    }
    assert forgotten == {9911, 9912}

    response = act(operator_client, "/admin/accounts_app/user/", "revoke_usernames", [str(alice.id)])
    assert "Revoked 1 username(s)." in response.content.decode()
    alice.refresh_from_db()
    assert alice.username is None and not alice.deleted
    pushed = [e["payload"] for e in edge_events() if e["kind"] == edge_push.USERS_KIND]
    assert any(alice.id in p["user_ids"] and p["payload"]["type"] == "user_name" for p in pushed)


def test_moderators_cannot_run_account_actions_nor_read_about_them(moderator_client, operator_client, people):
    _, alice, _ = people
    act(moderator_client, "/admin/accounts_app/user/", "deactivate_accounts", [str(alice.id)])
    alice.refresh_from_db()
    assert not alice.deleted
    act(operator_client, "/admin/accounts_app/user/", "revoke_usernames", [str(alice.id)])
    assert "revoked the username" in operator_client.get("/admin/").content.decode()
    assert "revoked the username" not in moderator_client.get("/admin/").content.decode()


def test_console_branding_and_start_page(moderator_client, support):
    page = moderator_client.get("/admin/")
    text = page.content.decode()
    assert "<title>" in text and "telesrv console" in text.split("<title>")[1].split("</title>")[0]
    assert "Django administration" not in text and "Site administration" not in text
    assert 'id="console-channel-search"' in text and 'id="console-busiest"' in text
    assert "Acme support desk" in text and 'id="console-recent-actions"' in text
    root = moderator_client.get("/")
    assert root.status_code == 302 and root["Location"] == "/admin/"


def test_distinct_names_on_the_operator_index(operator_client):
    text = operator_client.get("/admin/").content.decode()
    assert "Telegram users" in text and "Auth key clients" in text
    assert "Client of an auth keys" not in text


def test_user_rows_unknown_to_accounts_still_render(moderator_client, console):
    cid = run(actions.do_create_channel, 123456, "Ghosts", megagroup=True).channel["id"]
    page = moderator_client.get(MEMBERS, {"channel_id": cid}).content.decode()
    assert "user 123456" in page
    assert not User.objects.filter(id=123456).exists()
