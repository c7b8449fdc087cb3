"""What a moderator and an operator see in the console (issue 37), in headless Chromium
against the real admin server and listener, with real Telethon clients putting in the
users, the group, a photo, a voice note, a ban and a report. Each page is checked by
its content: names present, no raw hashes or bitmasks, no 403 where the role may look,
media that loads, a confirmation before anything destructive. Screenshots of every page
are written to the test's temporary directory for a person to look at."""

from __future__ import annotations

import asyncio
import io
import os
import re

import pytest

from tests.e2e import harness
from tests.e2e import test_console as console_fixtures
from tests.e2e.test_channels import input_user, logged_in, wait_for
from tests.e2e.test_console import click_and_wait, log_in, wait_url

# the console's fixtures (skipped with them when chromium is missing)
admin_server = console_fixtures.admin_server
browser = console_fixtures.browser
clients = console_fixtures.clients
moderator = console_fixtures.moderator
operator = console_fixtures.operator

pytestmark = pytest.mark.django_db(transaction=True)

RAW = re.compile(r"access_hash|file_reference|banned_rights|admin_rights: \d|\[service: |\b\d{7,}\s*(->|→)")
WIDTH = 1800


def jpeg(w: int, h: int) -> io.BytesIO:
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (w, h), (30, 120, 200)).save(buf, "JPEG")
    buf.seek(0)
    buf.name = "garden.jpg"
    return buf


def shot(driver, folder, name: str) -> None:
    driver.save_screenshot(str(folder / f"{name}.png"))


def fits_width(driver) -> bool:
    """Nothing runs off the right edge: the page is no wider than the window (a wide
    table scrolls inside its own box)."""
    return driver.execute_script("return document.documentElement.scrollWidth <= window.innerWidth + 1")


def moderator_walk(driver, base: str, username: str, channel_id: int, folder) -> dict:
    from selenium.webdriver.common.by import By

    driver.set_window_size(WIDTH, 1100)
    log_in(driver, base, username)
    seen: dict = {}
    shot(driver, folder, "mod-start")
    seen["header"] = driver.find_element(By.ID, "site-name").text
    th = driver.find_element(By.CSS_SELECTOR, "#console-busiest th.console-num")
    seen["members_th"] = (th.size["width"], th.size["height"], th.text)
    seen["start"] = driver.page_source
    # the channel page: recent messages with media marks, previews that load, sentences
    driver.get(f"{base}/admin/channels_app/channel/{channel_id}/change/")
    wait_url(driver, "/change/")
    shot(driver, folder, "mod-channel")
    seen["channel"] = driver.find_element(By.ID, "console-recent-messages").text
    seen["channel_html"] = driver.page_source
    seen["previews"] = driver.execute_script(
        "return Array.from(document.querySelectorAll('#console-recent-messages img.console-preview'))"
        ".map(i => [i.complete, i.naturalWidth])"
    )
    seen["group_photo"] = driver.execute_script(
        "const i = document.querySelector('.field-photo_shown img.console-preview');"
        "return i ? [i.complete, i.naturalWidth] : null"
    )
    seen["audio"] = driver.execute_script(
        "return Array.from(document.querySelectorAll('audio')).map(a => a.getAttribute('src'))"
    )
    # the photo message's own page, and its full image
    link = driver.find_element(
        By.CSS_SELECTOR, "#console-recent-messages a.console-media-open"
    ).get_attribute("href")
    driver.get(link)
    seen["full_image"] = driver.execute_script(
        "const i = document.querySelector('img'); return i ? [i.naturalWidth, i.naturalHeight] : null"
    )
    # the messages list and the admin log
    for name, path in (
        ("messages", f"/admin/console_app/message/?channel_id={channel_id}"),
        ("admin_log", f"/admin/console_app/adminlogevent/?channel_id={channel_id}"),
        ("members", f"/admin/console_app/member/?channel_id={channel_id}"),
        ("reports", "/admin/reports_app/report/"),
    ):
        driver.get(base + path)
        wait_url(driver, path.split("?")[0])
        shot(driver, folder, f"mod-{name}")
        seen[name] = driver.page_source
        seen[f"{name}_text"] = driver.find_element(By.TAG_NAME, "body").text
        seen[f"{name}_fits"] = fits_width(driver)
    # the report: the message in context, then delete it after the confirmation
    driver.find_element(By.CSS_SELECTOR, "#result_list th.field-id a").click()
    wait_url(driver, "/change/")
    shot(driver, folder, "mod-report")
    seen["report"] = driver.page_source
    click_and_wait(driver, By.ID, "console-report-delete")
    shot(driver, folder, "mod-report-confirm")
    seen["report_confirm"] = driver.find_element(By.ID, "console-confirm").text
    click_and_wait(driver, By.ID, "console-confirm-yes")
    seen["report_done"] = driver.find_element(By.CSS_SELECTOR, "ul.messagelist").text
    # an operator page: the console's own 403 with a way back
    driver.get(f"{base}/admin/accounts_app/user/")
    shot(driver, folder, "mod-403")
    seen["forbidden"] = driver.page_source
    seen["forbidden_back"] = driver.find_element(By.LINK_TEXT, "Back to the start page").get_attribute("href")
    return seen


async def test_moderator_sees_media_sentences_names_and_works_the_report_queue(
    edge_server, admin_server, browser, moderator, clients, tmp_path
):
    from telethon import events, functions, types

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bob, b, _, _ = await logged_in(edge_server, "Bob", clients)
    carol, c, _, _ = await logged_in(edge_server, "Carol", clients)
    tag = f"{os.getpid()}{harness.free_port()}"
    await b(functions.account.UpdateUsernameRequest(username=f"bob_{tag}"))
    title = f"Garden club {tag}"
    created = await a(
        functions.messages.CreateChatRequest(
            users=[input_user(alice, bob), input_user(alice, carol)], title=title
        )
    )
    channel = created.updates.chats[1]
    peer = types.InputPeerChannel(channel.id, channel.access_hash)
    await b.get_dialogs()
    await c.get_dialogs()
    await b.send_file(peer, jpeg(1200, 800), caption="my tomatoes")
    voice = io.BytesIO(b"OggS" + os.urandom(3000))
    voice.name = "voice.ogg"
    await b.send_file(peer, voice, voice_note=True)
    spam = await b.send_message(peer, "buy cheap pills at example.invalid")
    await a(  # Carol may no longer send media
        functions.channels.EditBannedRequest(
            channel=types.InputChannel(channel.id, channel.access_hash),
            participant=types.InputPeerUser(carol.id, input_user(alice, carol).access_hash),
            banned_rights=types.ChatBannedRights(until_date=0, send_media=True),
        )
    )
    group_photo = await a.upload_file(jpeg(640, 640))
    await a(
        functions.channels.EditPhotoRequest(
            channel=types.InputChannel(channel.id, channel.access_hash),
            photo=types.InputChatUploadedPhoto(file=group_photo),
        )
    )
    reported = await a(
        functions.messages.ReportRequest(peer=peer, id=[spam.id], option=b"spam", message="scam")
    )
    assert isinstance(reported, types.ReportResultReported)
    deleted: list = []

    async def on_delete(update):
        deleted.append(update)

    a.add_event_handler(on_delete, events.Raw(types.UpdateDeleteChannelMessages))

    seen = await asyncio.to_thread(moderator_walk, browser, admin_server, moderator, channel.id, tmp_path)

    # header and start page
    assert seen["header"] == "telesrv console moderation and operations"
    width, height, text = seen["members_th"]
    assert text.lower() == "members" and width > height  # one line, not a letter per line
    # the channel page: sentences, names, media marks and previews that loaded
    assert f"Alice created the group «{title}»" in seen["channel"]
    assert "[photo] my tomatoes" in seen["channel"] and re.search(
        r"\[voice( \d+:\d\d)?\]", seen["channel"]
    ), seen["channel"]
    assert seen["previews"] and all(done and w > 40 for done, w in seen["previews"]), seen["previews"]
    assert any("/media/document/" in (src or "") for src in seen["audio"])
    assert "Alice changed the group photo" in seen["channel"]
    assert seen["group_photo"] and seen["group_photo"][0] and seen["group_photo"][1] > 40
    assert "set a photo" in seen["admin_log_text"]
    assert seen["full_image"] == [1200, 800]
    # lists: names, no internals, nothing cut off at 1800 px
    for page in ("messages", "admin_log", "members", "reports"):
        assert "403" not in seen[page][:400] and "Server Error" not in seen[page], page
        assert not RAW.search(seen[f"{page}_text"]), (page, RAW.search(seen[f"{page}_text"]))
        assert seen[f"{page}_fits"], page
    assert f"@bob_{tag}" in seen["members"] and "Carol" in seen["members"]
    assert "may no longer: send media" in seen["admin_log"] and "Carol" in seen["admin_log"]
    assert "Alice" in seen["reports"] and title in seen["reports"] and "spam: scam" in seen["reports"]
    # the report: its message highlighted among its neighbours; deletion asked first, then done live
    assert "console-reported" in seen["report"] and "buy cheap pills" in seen["report"]
    assert "my tomatoes" in seen["report"]
    assert "deleted for every member" in seen["report_confirm"]
    assert (
        f"in «{title}»: Bob @bob_{tag}" in seen["report_confirm"]
        and "buy cheap pills" in seen["report_confirm"]
    )
    assert "Deleted the messages of 1 report(s)." in seen["report_done"]
    await wait_for(lambda: any(spam.id in u.messages for u in deleted), timeout=15)
    # an operator page: the console's styled 403 with the way back
    assert "telesrv console" in seen["forbidden"] and "not for your role" in seen["forbidden"]
    assert seen["forbidden_back"].endswith("/admin/")


def operator_walk(driver, base: str, username: str, user_id: int, folder) -> dict:
    from selenium.webdriver.common.by import By

    driver.set_window_size(WIDTH, 1100)
    log_in(driver, base, username)
    seen: dict = {}
    pages = {
        "users": "/admin/accounts_app/user/",
        "user": f"/admin/accounts_app/user/{user_id}/change/",
        "authorizations": "/admin/accounts_app/authorization/",
        "auth_keys": "/admin/edge_app/authkeyrecord/",
        "auth_key_clients": "/admin/edge_app/authkeyclient/",
        "account_log": "/admin/accounts_app/userupdateevent/",
        "login_codes": "/admin/accounts_app/logincode/",
        "history": "/admin/",
    }
    for name, path in pages.items():
        driver.get(base + path)
        wait_url(driver, path)
        shot(driver, folder, f"op-{name}")
        seen[name] = driver.page_source
        seen[f"{name}_fits"] = fits_width(driver)
    driver.get(base + pages["user"])
    seen["sessions_headings"] = [h.text for h in driver.find_elements(By.CSS_SELECTOR, "h2.inline-heading")]
    driver.get(base + pages["authorizations"])
    seen["platforms"] = [td.text for td in driver.find_elements(By.CSS_SELECTOR, "td.field-platform_shown")]
    driver.get(base + pages["users"])
    seen["last_seen"] = [td.text for td in driver.find_elements(By.CSS_SELECTOR, "td.field-last_seen_shown")]
    return seen


async def test_operator_pages_name_people_and_show_one_date_format(
    edge_server, admin_server, browser, operator, clients, tmp_path
):
    from telethon import functions

    from accounts_app.actions import do_create_user

    # The tables are emptied between tests but the listener's Redis state is not: the
    # user ids the previous test used (and their queued pushes) are skipped.
    for n in range(5):
        do_create_user(f"99966377{os.getpid() % 1000:03d}{n}", f"Filler {n}")
    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    await a(functions.account.UpdateProfileRequest(about="gardener"))
    await a.get_me()

    seen = await asyncio.to_thread(operator_walk, browser, admin_server, operator, alice.id, tmp_path)

    for name in (
        "users",
        "user",
        "authorizations",
        "auth_keys",
        "auth_key_clients",
        "account_log",
        "login_codes",
    ):
        assert "not for your role" not in seen[name] and "Server Error" not in seen[name], name
        assert seen[f"{name}_fits"], name
    for name in ("auth_keys", "auth_key_clients", "account_log", "authorizations"):
        assert "Alice" in seen[name], name  # who it is, not a bare id
    assert seen["sessions_headings"] == ["SESSIONS"] or [h.lower() for h in seen["sessions_headings"]] == [
        "sessions"
    ]
    assert "digits only" not in seen["user"]
    # Telethon says system_version "<kernel release>": no platform in it, so none is made up
    assert seen["platforms"] and not any(re.fullmatch(r"[\d.]+", p) for p in seen["platforms"])
    assert seen["last_seen"] and all(v != "-" for v in seen["last_seen"][:1])
    # one date format everywhere: 2026-12-05 08:13:03
    assert not re.search(r"\b(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\. \d", seen["authorizations"])
    assert re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", seen["authorizations"])
