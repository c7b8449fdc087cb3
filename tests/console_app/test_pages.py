"""What moderators and operators see in the console, and what nobody sees."""

import base64
import datetime as dt
import os
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts_app.models import Authorization, LoginCode, User
from channels_app import actions
from console_app import pagination
from edge_app.models import AuthKeyClient, AuthKeyRecord

from .conftest import run

CREATOR, ALICE, BOB = 501, 502, 503


@pytest.fixture
def group(console):
    change = run(actions.do_create_channel, CREATOR, "Gardeners", megagroup=True)
    cid = change.channel["id"]
    run(actions.do_invite_to_channel, CREATOR, cid, [ALICE, BOB])
    run(actions.do_send_message, ALICE, cid, "tomatoes need sun", 77)
    run(actions.do_send_message, BOB, cid, "basil too", 78)
    return cid


@pytest.fixture
def secrets(console):
    """An authorization whose key bytes must never reach a page."""
    key = os.urandom(256)
    now = dt.datetime.now(dt.UTC)
    user = User.objects.create(phone="99966100001", first_name="Olga")
    AuthKeyRecord.objects.create(auth_key_id=0x1234_5678_9ABC_DEF0, key=key, created=now, dc_id=2)
    AuthKeyClient.objects.create(
        auth_key_id=0x1234_5678_9ABC_DEF0,
        api_id=611335,
        device_model="Pixel 8",
        app_version="11.2 test",
        layer=229,
        first_seen=now,
        last_seen=now,
    )
    auth = Authorization.objects.create(
        perm_auth_key_id=0x1234_5678_9ABC_DEF0, user=user, hash=42, device_model="Pixel 8", app_version="11.2"
    )
    LoginCode.objects.create(
        phone="99966100001", phone_code_hash="h" * 16, code="31337", expires=now + dt.timedelta(minutes=5)
    )
    return key, auth


CHANNEL_PAGES = [
    "/admin/channels_app/channel/",
    "/admin/console_app/member/",
    "/admin/console_app/message/",
    "/admin/console_app/invite/",
    "/admin/console_app/importer/",
    "/admin/console_app/adminlogevent/",
]
OPERATOR_ONLY = [
    "/admin/accounts_app/user/",
    "/admin/accounts_app/authorization/",
    "/admin/accounts_app/logincode/",
    "/admin/edge_app/authkeyrecord/",
    "/admin/edge_app/authkeyclient/",
    "/admin/console_app/updateevent/",
]


def test_moderator_sees_channel_pages_but_not_accounts(moderator_client, group, secrets):
    for url in CHANNEL_PAGES:
        assert moderator_client.get(url).status_code == 200, url
    assert moderator_client.get(f"/admin/channels_app/channel/{group}/change/").status_code == 200
    for url in OPERATOR_ONLY:
        assert moderator_client.get(url).status_code == 403, url
    assert moderator_client.get(f"/admin/channels_app/channel/{group}/pts/").status_code == 403
    index = moderator_client.get("/admin/").content.decode()
    assert "Channels" in index and "Authorizations" not in index and "Login codes" not in index


def test_operator_sees_everything(operator_client, group, secrets):
    _key, auth = secrets
    for url in CHANNEL_PAGES + OPERATOR_ONLY:
        assert operator_client.get(url).status_code == 200, url
    assert operator_client.get(f"/admin/channels_app/channel/{group}/pts/").status_code == 200
    assert operator_client.get(f"/admin/accounts_app/authorization/{auth.id}/change/").status_code == 200
    # operators read the code a user waits for (there is no SMS gateway)
    assert "31337" in operator_client.get("/admin/accounts_app/logincode/").content.decode()


def test_authorizations_show_layer_app_version_and_last_seen(operator_client, secrets):
    page = operator_client.get("/admin/accounts_app/authorization/").content.decode()
    assert "Pixel 8" in page and "11.2" in page
    assert ">229<" in page  # the layer the edge saw in initConnection


def test_auth_key_bytes_appear_on_no_page(operator_client, group, secrets):
    key, auth = secrets
    forms = [key.hex(), key.hex().upper(), base64.b64encode(key).decode(), repr(key)[2:40]]
    urls = [
        *CHANNEL_PAGES,
        *OPERATOR_ONLY,
        f"/admin/edge_app/authkeyrecord/{0x1234_5678_9ABC_DEF0}/change/",
        f"/admin/edge_app/authkeyclient/{0x1234_5678_9ABC_DEF0}/change/",
        f"/admin/accounts_app/authorization/{auth.id}/change/",
        f"/admin/accounts_app/user/{auth.user_id}/change/",
    ]
    for url in urls:
        response = operator_client.get(url)
        assert response.status_code == 200, url
        page = response.content.decode()
        for form in forms:
            assert form[:32] not in page, url
    # the key id is shown, as hex, so operators can match it with the edge's logs
    assert "123456789abcdef0" in operator_client.get("/admin/edge_app/authkeyrecord/").content.decode()


def test_channel_search_by_id_username_and_title(moderator_client, group):
    other = run(actions.do_create_channel, CREATOR, "Beekeepers", broadcast=True).channel["id"]

    def found(q):
        page = moderator_client.get("/admin/channels_app/channel/", {"q": q}).content.decode()
        return {cid for cid in (group, other) if f"/admin/channels_app/channel/{cid}/change/" in page}

    assert found(str(other)) == {other}
    assert found("garden") == {group}
    assert found("@nobody") == set()


def test_channel_page_shows_type_counts_pts_and_top_message(moderator_client, group):
    page = moderator_client.get(f"/admin/channels_app/channel/{group}/change/").content.decode()
    assert "Gardeners" in page
    ch = run(_load_channel, group)
    assert ch["participants_count"] == 3 and ch["pts"] >= 3
    for value in (str(ch["pts"]), str(ch["top_message_id"])):
        assert f'<div class="readonly">{value}</div>' in page
    assert "access_hash" not in page and str(ch["access_hash"]) not in page
    listing = moderator_client.get("/admin/channels_app/channel/").content.decode()
    assert "supergroup" in listing


async def _load_channel(cid):
    from channels_app.actions.common import load_channel
    from message_core import db

    async with db.connection() as conn:
        return await load_channel(conn, cid)


def test_members_list_filters_by_status_and_role(moderator_client, group):
    base = "/admin/console_app/member/"
    page = moderator_client.get(base, {"channel_id": group}).content.decode()
    for uid in (CREATOR, ALICE, BOB):
        assert f"/admin/console_app/member/{group}.{uid}/change/" in page
    page = moderator_client.get(base, {"channel_id": group, "role": "creator"}).content.decode()
    assert f"{group}.{CREATOR}/change/" in page and f"{group}.{ALICE}/change/" not in page
    page = moderator_client.get(base, {"channel_id": group, "status": "kicked"}).content.decode()
    assert f"{group}.{ALICE}/change/" not in page
    detail = moderator_client.get(f"{base}{group}.{ALICE}/change/")
    assert detail.status_code == 200 and "read inbox max id" in detail.content.decode().lower()
    assert moderator_client.get(f"{base}{group}.999999/change/").status_code == 302  # no such row
    assert moderator_client.get(base, {"channel_id": "x'1"}).status_code in (200, 302)  # refused, not a 500


def test_messages_list_has_service_messages_and_bounded_text_search(moderator_client, group):
    base = "/admin/console_app/message/"
    page = moderator_client.get(base, {"channel_id": group, "kind": "service"}).content.decode()
    assert "created the group «Gardeners»" in page and "service: channelCreate" not in page
    assert "tomatoes" not in page
    page = moderator_client.get(base, {"channel_id": group, "q": "basil"}).content.decode()
    assert "basil too" in page and "tomatoes" not in page
    # without a channel a text search is refused rather than run over every partition
    page = moderator_client.get(base, {"q": "basil"}).content.decode()
    assert "basil too" not in page and "Pick a channel" in page


def _explain(sql, params):
    with connection.cursor() as cur:
        cur.execute("EXPLAIN " + sql, params)
        return "\n".join(r[0] for r in cur.fetchall())


def test_channel_filtered_lists_read_one_partition_and_never_count_the_table(moderator_client, group):
    for url, table in (
        ("/admin/console_app/member/", "channel_members"),
        ("/admin/console_app/message/", "channel_messages"),
        ("/admin/console_app/adminlogevent/", "channel_admin_log_events"),
    ):
        with CaptureQueriesContext(connection) as queries:
            assert moderator_client.get(url, {"channel_id": group}).status_code == 200
        selects = [q["sql"] for q in queries.captured_queries if f'FROM "{table}"' in q["sql"]]
        assert selects, url
        for sql in selects:
            assert "COUNT(*)" not in sql.upper() or "LIMIT" in sql.upper(), sql
            plan = _explain(sql, None) if "%s" not in sql else None
            if plan is not None:
                assert len(set(re.findall(rf"{table}_p(\d+)", plan))) == 1, plan


def test_bounded_count_and_keyset_next_rows(moderator_client, group, monkeypatch):
    run(actions.do_invite_to_channel, CREATOR, group, list(range(600, 612)))
    monkeypatch.setattr(pagination.BoundedPaginator, "cap", 5)
    from console_app.admin import MemberAdmin

    monkeypatch.setattr(MemberAdmin, "list_per_page", 4)
    base = "/admin/console_app/member/"
    page = moderator_client.get(base, {"channel_id": group}).content.decode()
    assert "more than 5 rows match" in page
    # the first four by user id: 501, 502, 503, 600; the link continues after 600
    assert f"{group}.600/change/" in page and f"{group}.601/change/" not in page
    assert "user_id__gt=600" in page
    page = moderator_client.get(base, {"channel_id": group, "user_id__gt": 600}).content.decode()
    assert f"{group}.601/change/" in page and f"{group}.600/change/" not in page
    # across channels the key is not unique: no keyset link is offered
    assert "user_id__gt" not in moderator_client.get(base).content.decode()


def test_channel_pages_link_only_what_the_viewer_may_open(moderator_client, operator_client, group):
    url = f"/admin/channels_app/channel/{group}/change/"
    mod = moderator_client.get(url).content.decode()
    op = operator_client.get(url).content.decode()
    assert f"/admin/console_app/member/?channel_id={group}" in mod
    assert f"/admin/console_app/adminlogevent/?channel_id={group}" in mod
    assert "/admin/console_app/updateevent/" not in mod and f"/channel/{group}/pts/" not in mod
    assert f"/admin/console_app/updateevent/?channel_id={group}" in op and f"/channel/{group}/pts/" in op
    listing = moderator_client.get("/admin/console_app/member/", {"channel_id": group}).content.decode()
    assert f"/admin/console_app/message/?channel_id={group}" not in listing  # list rows: no link column
    detail = moderator_client.get(f"/admin/console_app/member/{group}.{ALICE}/change/").content.decode()
    assert f"/admin/console_app/message/?channel_id={group}" in detail


def test_user_page_lists_sessions_and_last_seen(operator_client, secrets):
    _key, auth = secrets
    page = operator_client.get(f"/admin/accounts_app/user/{auth.user_id}/change/").content.decode()
    assert "Pixel 8" in page and "11.2" in page
    assert "Last seen" in operator_client.get("/admin/accounts_app/user/").content.decode()


def test_channel_page_shows_a_forums_topics_and_the_discussion_link(moderator_client, group):
    from channels_app.actions import discussion, settings, topics

    run(settings.do_toggle_forum, CREATOR, group, True)
    first = run(topics.do_create_topic, CREATOR, group, "Seeds", None, None, 1)
    second = run(topics.do_create_topic, CREATOR, group, "Pests", None, None, 2)
    closed_id = second.events[0].message["id"]
    run(topics.do_edit_topic, CREATOR, group, closed_id, closed=True)
    run(topics.do_pin_topic, CREATOR, group, first.events[0].message["id"], True)
    news = run(actions.do_create_channel, CREATOR, "Garden news", broadcast=True).channel["id"]
    run(discussion.do_set_discussion_group, CREATOR, news, group)

    page = moderator_client.get(f"/admin/channels_app/channel/{group}/change/").content.decode()
    topics = page[page.index('id="console-topics"') :]
    assert topics.index("Seeds") < topics.index("Pests")  # the pinned topic first
    row = topics[topics.index("Pests") : topics.index("</tr>", topics.index("Pests"))]
    assert "closed" in row
    assert "comments of" in page and f"/admin/channels_app/channel/{news}/change/" in page
    broadcast = moderator_client.get(f"/admin/channels_app/channel/{news}/change/").content.decode()
    assert "comments go to" in broadcast and f"/admin/channels_app/channel/{group}/change/" in broadcast
    assert 'id="console-topics"' not in broadcast
