"""The console as a moderator and an operator meet it (issue 37): media they can open,
service messages and admin-log events in words, names instead of ids, confirmation
before destructive actions, account actions only with ``manage_accounts``, the styled
403 page and the queue of users' reports."""

from __future__ import annotations

import datetime as dt
import hashlib
import io
import re

import pytest
from django.contrib import admin
from django.contrib.admin.models import LogEntry
from django.db import connection
from django.test import RequestFactory
from PIL import Image

from accounts_app.actions import do_create_user
from accounts_app.models import Authorization, User, UserUpdateEvent
from accounts_app.platforms import platform_of
from channels_app import actions
from console_app import moderation
from console_app.admin_log_text import admin_log_text
from console_app.service_text import service_text
from edge_app.models import AuthKeyClient, AuthKeyRecord
from media_app import images, storage
from media_app.models import Document, Photo
from reports_app import actions as reports
from reports_app.models import Report

from .conftest import run, staff
from .test_moderation import act, member

MEMBERS = "/admin/console_app/member/"
MESSAGES = "/admin/console_app/message/"
REPORTS = "/admin/reports_app/report/"
# What must never reach a page: stored internals of photos and rights.
RAW = re.compile(r"access_hash|file_reference|banned_rights: \d|\b\d{8,}\b -> |→ \d{6,}")


@pytest.fixture
def cast(console):
    owner = do_create_user("99966300001", "Olivia", "Owner", username="olivia_37")
    alice = do_create_user("99966300002", "Alice", "Liddell", username="alice_37")
    carol = do_create_user("99966300003", "Carol", "Singer")
    return owner, alice, carol


@pytest.fixture
def club(cast):
    owner, alice, carol = cast
    cid = run(actions.do_create_channel, owner.id, "Garden club", megagroup=True).channel["id"]
    run(actions.do_invite_to_channel, owner.id, cid, [alice.id, carol.id])
    run(actions.do_send_message, alice.id, cid, "buy cheap pills here", 11)
    run(actions.do_send_message, carol.id, cid, "tomatoes are red", 12)
    return cid


def message_id(cid: int, text: str) -> int:
    with connection.cursor() as cur:
        cur.execute("SELECT id FROM channel_messages WHERE channel_id = %s AND message = %s", [cid, text])
        return cur.fetchone()[0]


def stored_photo(owner_id: int) -> Photo:
    buf = io.BytesIO()
    Image.new("RGB", (900, 600), (200, 30, 30)).save(buf, "PNG")
    path = "/tmp/console37-photo.png"
    with open(path, "wb") as f:
        f.write(buf.getvalue())
    sizes, stripped = images.photo_sizes(path)
    stored = []
    for s in sizes:
        sha = hashlib.sha256(s.jpeg).hexdigest()
        storage.put_bytes(sha, s.jpeg)
        stored.append({"type": s.type, "w": s.w, "h": s.h, "size": len(s.jpeg), "sha256": sha})
    return Photo.objects.create(
        id=7_000_001,
        access_hash=1,
        file_reference=b"r",
        owner_id=owner_id,
        date=1,
        sizes=stored,
        stripped=stripped,
    )


# --- words, not internals -------------------------------------------------------------


def test_service_messages_read_as_sentences():
    names = {1: "Alice", 2: "Bob", 3: "Carol"}
    assert service_text({"_": "chatDeleteUser", "user_id": 3}, 1, names) == "Alice removed Carol"
    assert service_text({"_": "chatDeleteUser", "user_id": 3}, 3, names) == "Carol left the group"
    assert service_text({"_": "chatDeleteUser", "user_id": 3}, 0, names) == "Carol was removed from the group"
    assert service_text({"_": "pinMessage"}, 2, names) == "Bob pinned a message"
    assert service_text({"_": "chatEditPhoto", "photo": {}}, 0, names) == "the group photo was changed"
    assert service_text({"_": "chatAddUser", "users": [2, 3]}, 1, names) == "Alice added Bob, Carol"
    assert service_text({"_": "chatAddUser", "users": [2]}, 2, names) == "Bob joined the group"
    assert service_text({"_": "channelCreate", "title": "News"}, 0, names, broadcast=True) == (
        "the channel «News» was created"
    )


def test_admin_log_names_rights_and_hides_hashes():
    everything = (1 << 26) - 1
    ban = admin_log_text(
        "participant_kick",
        {
            "prev": {"status": "active", "banned_rights": 0},
            "new": {"status": "kicked", "banned_rights": everything},
        },
    )
    assert (
        ban.startswith("banned (removed, cannot rejoin)") and "may no longer: all" in ban and "forever" in ban
    )
    mute = admin_log_text(
        "participant_ban",
        {"prev": {"banned_rights": 0}, "new": {"banned_rights": (1 << 1) | (1 << 2), "banned_until": 0}},
    )
    assert "may no longer: send messages, send media" in mute
    promote = admin_log_text(
        "participant_promote", {"prev": {"role": "member"}, "new": {"role": "admin", "admin_rights": 1 << 3}}
    )
    assert "admin rights given: delete messages" in promote and "role member → admin" in promote
    photo = {"id": 1, "access_hash": 7408123456789, "file_reference": "AAAA", "sizes": []}
    assert admin_log_text("change_photo", {"prev": None, "new": photo}) == "set a photo"
    assert admin_log_text("toggle_slow_mode", {"prev": 0, "new": 30}) == "slow mode off → 30 s"
    for text in (ban, mute, promote):
        assert not RAW.search(text)


def test_admin_log_page_in_words(moderator_client, club, cast):
    _owner, alice, _carol = cast
    moderation.ban_member(club, alice.id)
    page = moderator_client.get("/admin/console_app/adminlogevent/", {"channel_id": club}).content.decode()
    assert "Alice Liddell" in page and "banned (removed, cannot rejoin)" in page
    assert "may no longer: all" in page and "operator console" in page
    assert not RAW.search(page), RAW.search(page)


def test_messages_show_service_text_and_media_previews(moderator_client, club, cast):
    _owner, alice, carol = cast
    moderation.ban_member(club, carol.id)  # "Carol was removed" (by the operator console)
    photo = stored_photo(alice.id)
    from media_app.actions import photo_dict

    mid = message_id(club, "tomatoes are red")
    with connection.cursor() as cur:
        import json

        cur.execute(
            "UPDATE channel_messages SET media = %s WHERE channel_id = %s AND id = %s",
            [json.dumps({"photo": photo_dict(photo), "kind": "photo"}), club, mid],
        )
    page = moderator_client.get(f"/admin/channels_app/channel/{club}/change/").content.decode()
    assert "Carol Singer was removed from the group" in page
    assert "Olivia Owner created the group «Garden club»" in page
    assert "[service:" not in page
    assert "[photo]" in page  # the recent messages mark media
    preview = re.search(r'src="(/admin/console_app/message/media/photo/\d+/\w/)"', page).group(1)
    # the preview is a stored size: a real JPEG, to logged-in staff only
    got = moderator_client.get(preview)
    assert got.status_code == 200 and got["Content-Type"] == "image/jpeg"
    img = Image.open(io.BytesIO(b"".join(got.streaming_content)))
    assert max(img.size) <= 320 and max(img.size) > 40
    full = moderator_client.get(f"/admin/console_app/message/media/photo/{photo.id}/full/")
    assert Image.open(io.BytesIO(b"".join(full.streaming_content))).size == (900, 600)
    from django.test import Client

    anonymous = Client().get(preview)
    assert anonymous.status_code == 302 and "/login/" in anonymous["Location"]
    detail = moderator_client.get(f"{MESSAGES}{club}.{mid}/change/").content.decode()
    assert "open the full image (900x600)" in detail


def test_documents_download_and_voice_plays(moderator_client, club, cast):
    _, alice, _ = cast
    voice = b"OggS" + b"\0" * 200
    page = b"<html><script>alert(1)</script></html>"
    for doc_id, data, mime, attrs in (
        (7_100_001, voice, "audio/ogg", [{"_": "audio", "voice": True, "duration": 2}]),
        (7_100_002, page, "text/html", [{"_": "filename", "file_name": "evil.html"}]),
    ):
        sha = hashlib.sha256(data).hexdigest()
        storage.put_bytes(sha, data)
        Document.objects.create(
            id=doc_id, access_hash=1, file_reference=b"r", owner_id=alice.id, date=1, mime_type=mime,
            size=len(data), sha256=sha, attributes=attrs,
        )  # fmt: skip
    from console_app.media import media_html

    html = media_html({"document": {"id": 7_100_001, "mime_type": "audio/ogg", "size": 204}, "kind": "voice"})
    assert (
        '<audio controls preload="none" src="/admin/console_app/message/media/document/7100001/full/">'
        in html
    )
    got = moderator_client.get("/admin/console_app/message/media/document/7100001/full/")
    assert got["Content-Type"] == "audio/ogg" and b"".join(got.streaming_content) == voice
    # an uploaded HTML file never renders as a console page
    evil = moderator_client.get("/admin/console_app/message/media/document/7100002/full/")
    assert evil["Content-Type"] == "application/octet-stream"
    assert evil["Content-Disposition"].startswith("attachment") and "evil.html" in evil["Content-Disposition"]
    assert evil["X-Content-Type-Options"] == "nosniff"


# --- names, not ids ---------------------------------------------------------------------


def test_history_and_start_page_name_people(moderator_client, club, cast):
    _, alice, _ = cast
    act(moderator_client, MEMBERS, "ban_members", [f"{club}.{alice.id}"], channel_id=club)
    entry = LogEntry.objects.order_by("-id").first()
    assert "Alice Liddell @alice_37" in entry.change_message
    start = moderator_client.get("/admin/").content.decode()
    assert "banned Alice Liddell @alice_37" in start
    # older entries written with bare ids get the names on display
    LogEntry.objects.filter(id=entry.id).update(change_message=f"banned user {alice.id} (by mod)")
    history = moderator_client.get(f"/admin/channels_app/channel/{club}/history/").content.decode()
    assert "banned Alice Liddell @alice_37" in history


def test_auth_keys_clients_and_account_log_name_the_user(operator_client, cast):
    _, alice, _ = cast
    now = dt.datetime.now(dt.UTC)
    AuthKeyRecord.objects.create(auth_key_id=0x37, key=b"k" * 256, created=now, dc_id=2)
    AuthKeyRecord.objects.create(
        auth_key_id=0x38, key=b"t" * 256, created=now, dc_id=2, perm_auth_key_id=0x37, expires_at=now
    )
    AuthKeyClient.objects.create(
        auth_key_id=0x38, api_id=1, device_model="Pixel 9", system_version="SDK 34", app_version="11",
        layer=229, first_seen=now, last_seen=now,
    )  # fmt: skip
    Authorization.objects.create(perm_auth_key_id=0x37, user=alice, hash=3701, device_model="Pixel 9")
    UserUpdateEvent.objects.create(user=alice, pts=2, type="user_name", payload={})
    keys = operator_client.get("/admin/edge_app/authkeyrecord/").content.decode()
    assert keys.count("Alice Liddell") == 2  # the permanent key and the temporary key bound to it
    clients = operator_client.get("/admin/edge_app/authkeyclient/").content.decode()
    assert "Alice Liddell" in clients and "Pixel 9" in clients
    log = operator_client.get("/admin/accounts_app/userupdateevent/").content.decode()
    assert "Alice Liddell" in log


def test_user_page_sessions_once_platform_last_seen_and_no_form_help(operator_client, cast):
    _, alice, _ = cast
    now = dt.datetime.now(dt.UTC)
    auth = Authorization.objects.create(
        perm_auth_key_id=0x39, user=alice, hash=3901, device_model="x86_64", system_version="6.18.44",
        app_name="app", app_version="1.0",
    )  # fmt: skip
    Authorization.objects.filter(id=auth.id).update(active=now - dt.timedelta(days=3))
    AuthKeyClient.objects.create(
        auth_key_id=0x39, api_id=1, device_model="x86_64", system_version="6.18.44", app_version="1",
        layer=229, first_seen=now, last_seen=now - dt.timedelta(minutes=2),
    )  # fmt: skip
    from media_app.actions import photo_dict

    User.objects.filter(id=alice.id).update(photo=photo_dict(stored_photo(alice.id)))
    page = operator_client.get(f"/admin/accounts_app/user/{alice.id}/change/").content.decode()
    # the profile photo as a picture, not its snapshot
    assert "/admin/console_app/message/media/photo/7000001/" in page and not RAW.search(page)
    headings = re.findall(r'<h2[^>]*class="inline-heading">(.*?)</h2>', page, re.S)
    assert [re.sub(r"\s+", " ", h).strip() for h in headings] == ["Sessions"]
    assert "digits only" not in page
    users = operator_client.get("/admin/accounts_app/user/").content.decode()
    seen = (now - dt.timedelta(minutes=2)).strftime("%Y-%m-%d %H:%M")
    assert seen in users  # the session's last request, not "-" and not the login three days ago
    auths = operator_client.get("/admin/accounts_app/authorization/").content.decode()
    assert "6.18.44</td>" not in auths.split("field-platform_shown")[1][:40]
    assert re.search(r"field-created[^>]*>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d<", auths)  # one date format


def test_platform_from_what_the_client_says():
    assert platform_of("6.18.44", "x86_64", "") == "unknown"
    assert platform_of("Linux 6.18.44", "PC", "") == "Linux"
    assert platform_of("SDK 34", "Pixel 7", "") == "Android"
    assert platform_of("Windows 11", "Desktop", "tdesktop") == "Windows"
    assert platform_of("17.4", "iPhone 15", "") == "iOS"
    assert platform_of("14.1", "MacBook Pro", "macos") == "macOS"


# --- confirmation and permissions -----------------------------------------------------------


def test_ban_asks_first_and_says_what_will_happen(moderator_client, club, cast):
    _, alice, _ = cast
    page = moderator_client.post(
        f"{MEMBERS}?channel_id={club}",
        {"action": "ban_members", "_selected_action": [f"{club}.{alice.id}"], "index": 0},
    ).content.decode()
    assert 'id="console-confirm-yes"' in page and "cannot rejoin" in page and "Alice Liddell" in page
    assert member(club, alice.id)[0] == "active"  # nothing happened yet
    moderator_client.post(
        f"{MEMBERS}?channel_id={club}",
        {"action": "ban_members", "_selected_action": [f"{club}.{alice.id}"], "post": "yes"},
    )
    assert member(club, alice.id)[0] == "kicked"


@pytest.mark.parametrize(
    ("url", "action"),
    [
        (MESSAGES, "delete_selected_messages"),
        ("/admin/channels_app/channel/", "delete_channels"),
        ("/admin/accounts_app/user/", "deactivate_accounts"),
        ("/admin/accounts_app/user/", "terminate_all_sessions"),
        ("/admin/accounts_app/user/", "reset_two_step_password"),
        ("/admin/accounts_app/authorization/", "terminate"),
    ],
)
def test_destructive_actions_ask_first(operator_client, club, cast, url, action):
    _, alice, _ = cast
    auth = Authorization.objects.create(perm_auth_key_id=0x40, user=alice, hash=4001, device_model="Phone")
    key = {
        MESSAGES: f"{club}.{message_id(club, 'buy cheap pills here')}",
        "/admin/channels_app/channel/": str(club),
        "/admin/accounts_app/user/": str(alice.id),
        "/admin/accounts_app/authorization/": str(auth.id),
    }[url]
    page = operator_client.post(url, {"action": action, "_selected_action": [key], "index": 0})
    assert page.status_code == 200 and 'id="console-confirm-yes"' in page.content.decode()
    alice.refresh_from_db()
    assert not alice.deleted and Authorization.objects.filter(id=auth.id).exists()
    assert message_id(club, "buy cheap pills here")


# Every console action a moderator may run; every other one must be refused.
MODERATOR_ACTIONS = {
    "delete_channels",
    "ban_members",
    "unban_members",
    "delete_selected_messages",
    "revoke_invites",
    "approve_requests",
    "revoke_links",  # folder links (chatlists_app): the link and the chat invite links it made
    "end_calls",  # a voice chat gone wrong (calls_app): ended as its chat's admins would
    "dismiss_requests",
    "delete_reported_messages",
    "ban_reported_senders",
    "dismiss_reports",
}
ACCOUNT_ACTIONS = {
    "reset_two_step_password",
    "deactivate_accounts",
    "terminate_all_sessions",
    "revoke_usernames",
    "terminate",
}


def _allowed(user) -> dict[str, set[str]]:
    request = RequestFactory().get("/admin/")
    request.user = user
    out = {}
    for model, model_admin in admin.site._registry.items():
        every = {name for _, name, _ in model_admin._get_base_actions()}
        allowed = set(model_admin.get_actions(request)) if model_admin.has_view_permission(request) else set()
        out[model._meta.label] = (every, allowed)
    return out


def test_every_console_action_walked_with_each_role(console):
    from django.contrib.auth.models import Permission

    moderator = staff("walk_mod", "moderator")
    operator = staff("walk_op", "operator")
    # an operator-like account without manage_accounts: may look at accounts, change none
    viewer = staff("walk_viewer", None)
    viewer.user_permissions.set(
        Permission.objects.filter(content_type__app_label__in=["accounts_app", "edge_app"])
        | Permission.objects.filter(codename="terminate_authorizations")
    )
    everything = set()
    refused_for_moderator = set()
    for label, (every, allowed) in _allowed(moderator).items():
        everything |= every
        assert allowed <= MODERATOR_ACTIONS, (label, allowed)
        refused_for_moderator |= every - allowed
    assert everything >= ACCOUNT_ACTIONS and everything >= MODERATOR_ACTIONS
    assert refused_for_moderator >= ACCOUNT_ACTIONS
    granted = set().union(*(allowed for _, allowed in _allowed(operator).values()))
    assert granted >= ACCOUNT_ACTIONS | MODERATOR_ACTIONS
    viewer_granted = set().union(*(allowed for _, allowed in _allowed(viewer).values()))
    assert not viewer_granted & ACCOUNT_ACTIONS, viewer_granted & ACCOUNT_ACTIONS
    # no Django bulk delete anywhere: rows change only through the domain
    assert "delete_selected" not in granted


ACCOUNT_PAGES = {
    "reset_two_step_password": "/admin/accounts_app/user/",
    "deactivate_accounts": "/admin/accounts_app/user/",
    "terminate_all_sessions": "/admin/accounts_app/user/",
    "revoke_usernames": "/admin/accounts_app/user/",
    "terminate": "/admin/accounts_app/authorization/",
}


def test_a_moderator_posting_an_account_action_is_refused(moderator_client, cast):
    _, alice, _ = cast
    auth = Authorization.objects.create(perm_auth_key_id=0x41, user=alice, hash=4101, device_model="Phone")
    for action, url in ACCOUNT_PAGES.items():
        key = str(auth.id) if action == "terminate" else str(alice.id)
        for extra in ({"index": 0}, {"post": "yes"}):
            response = moderator_client.post(url, {"action": action, "_selected_action": [key], **extra})
            assert response.status_code == 403, (action, extra)
    alice.refresh_from_db()
    assert not alice.deleted and alice.username == "alice_37"
    assert Authorization.objects.filter(id=auth.id).exists()


def test_reset_two_step_needs_manage_accounts(console, cast):
    from django.contrib.auth.models import Permission
    from django.test import Client

    _, alice, _ = cast
    viewer = staff("no_manage", None)
    viewer.user_permissions.set(Permission.objects.filter(content_type__app_label="accounts_app"))
    client = Client()
    client.force_login(viewer)
    response = act(client, "/admin/accounts_app/user/", "reset_two_step_password", [str(alice.id)])
    # the action is not offered, so the post runs nothing (not even its confirmation page)
    assert 'id="console-confirm-yes"' not in response.content.decode()
    assert "reset_two_step_password" not in response.content.decode()
    assert not LogEntry.objects.filter(change_message__icontains="two-step").exists()


def test_moderator_gets_the_console_403_page(moderator_client):
    page = moderator_client.get("/admin/accounts_app/authorization/")
    text = page.content.decode()
    assert page.status_code == 403
    assert "telesrv console" in text and "Back to the start page" in text and 'href="/admin/"' in text


def test_header_and_start_page_markup(moderator_client, club):
    page = moderator_client.get("/admin/").content.decode()
    # a space between the name and the tagline (it read "telesrv consolemoderation ...")
    assert re.search(r'<a href="/admin/">telesrv console</a> <span class="console-tagline">', page)
    assert '<th class="console-num">members</th>' in page


# --- the reports queue ------------------------------------------------------------------------


def test_report_queue_shows_the_message_in_context_and_deletes_it(moderator_client, club, cast):
    _owner, _alice, carol = cast
    spam = message_id(club, "buy cheap pills here")
    run(reports.do_report_messages, carol.id, "messages.report", "channel", club, [spam], "spam", "again!")
    queue = moderator_client.get(REPORTS).content.decode()
    assert "Carol Singer" in queue and "Garden club" in queue and "spam: again!" in queue
    assert "buy cheap pills here" in queue
    report = Report.objects.get()
    detail = moderator_client.get(f"{REPORTS}{report.id}/change/").content.decode()
    assert "console-reported" in detail and "tomatoes are red" in detail  # the message and its neighbours
    assert 'id="console-report-delete"' in detail
    response = act(moderator_client, REPORTS, "delete_reported_messages", [str(report.id)])
    assert "Deleted the messages of 1 report(s)." in response.content.decode()
    report.refresh_from_db()
    assert report.status == "resolved" and report.outcome == f"deleted messages {spam}"
    with connection.cursor() as cur:
        cur.execute("SELECT deleted FROM channel_messages WHERE channel_id = %s AND id = %s", [club, spam])
        assert cur.fetchone()[0] is True
        cur.execute(
            "SELECT event_type FROM channel_admin_log_events WHERE channel_id = %s AND actor_user_id = 0",
            [club],
        )
        assert ("delete_message",) in cur.fetchall()
    assert LogEntry.objects.filter(
        change_message__startswith=f"report {report.id}: deleted messages"
    ).exists()
    assert "Carol Singer" not in moderator_client.get(REPORTS).content.decode()  # no longer in the queue


def test_report_queue_bans_the_sender_or_dismisses(moderator_client, club, cast):
    _owner, alice, carol = cast
    spam = message_id(club, "buy cheap pills here")
    run(reports.do_report_messages, carol.id, "channels.reportSpam", "channel", club, [spam], "spam")
    run(
        reports.do_report_peer,
        alice.id,
        "account.reportPeer",
        "user",
        carol.id,
        "fake",
        subject_user_id=carol.id,
    )
    first, second = Report.objects.order_by("id")
    act(moderator_client, REPORTS, "ban_reported_senders", [str(first.id)])
    assert member(club, alice.id)[0] == "kicked"
    first.refresh_from_db()
    assert first.status == "resolved" and "Alice Liddell" in first.outcome
    act(moderator_client, REPORTS, "dismiss_reports", [str(second.id)])
    second.refresh_from_db()
    assert second.status == "dismissed" and second.handled_by == "mod"


def test_repeated_reports_do_not_pile_up(console, club, cast):
    _, _, carol = cast
    for _ in range(3):
        run(reports.do_report_messages, carol.id, "messages.report", "channel", club, [5, 4], "spam")
    assert Report.objects.count() == 1 and Report.objects.get().message_ids == [4, 5]
    run(reports.do_report_messages, carol.id, "messages.report", "channel", club, [6], "bogus-reason")
    assert Report.objects.order_by("-id").first().reason == "other"


def test_report_rows_never_reach_a_moderator_without_the_permission(console, club, cast):
    from django.test import Client

    plain = staff("plain_staff", None)
    client = Client()
    client.force_login(plain)
    assert client.get(REPORTS).status_code == 403
    assert User.objects.count() >= 3


def test_private_report_shows_the_reporters_own_copy_in_context(moderator_client, cast):
    from private_app.actions import do_send_private_message
    from private_app.models import MessageBox

    _, alice, carol = cast
    run(do_send_private_message, alice.id, carol.id, "hi Carol", 21)
    run(do_send_private_message, alice.id, carol.id, "send me your password", 22)
    run(do_send_private_message, carol.id, alice.id, "no", 23)
    bad = MessageBox.objects.get(owner_id=carol.id, message__message="send me your password").box_id
    run(reports.do_report_messages, carol.id, "messages.report", "user", alice.id, [bad], "personal_details")
    report = Report.objects.get()
    queue = moderator_client.get(REPORTS).content.decode()
    assert "private chat with" in queue and "Alice Liddell" in queue and "send me your password" in queue
    detail = moderator_client.get(f"{REPORTS}{report.id}/change/").content.decode()
    assert "console-reported" in detail and "hi Carol" in detail and ">no " in detail
    # a private report has nothing to delete or ban in a channel: dismissing is the answer here
    assert 'id="console-report-dismiss"' in detail and 'id="console-report-delete"' not in detail
