"""The console in a real browser (headless Chromium driven by Selenium) against the real
admin server (daphne) and the real MTProto listener: a moderator logs in, finds a
channel, bans a member, and the member's connected Telethon client is told; a moderator
cannot open authorizations.

Needs Debian's chromium and chromium-driver (``make browser`` installs them); skipped
when they are missing.
"""

from __future__ import annotations

import asyncio
import os

import pytest

from tests.e2e import chromium, harness
from tests.e2e.test_channels import input_user, logged_in, wait_for

pytestmark = pytest.mark.django_db(transaction=True)

MOD_PASSWORD = "moderate-me-123"

if not chromium.available():
    pytest.skip("chromium / chromium-driver are not installed (make browser)", allow_module_level=True)
webdriver = pytest.importorskip("selenium.webdriver")


@pytest.fixture(scope="module")
def admin_server(edge_env, tmp_path_factory):
    """daphne serving the console on the test database (what ``manage.py serve`` runs)."""
    env = dict(os.environ)
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    env.update(edge_env)
    with harness.admin_process(env, tmp_path_factory.mktemp("admin-log") / "daphne.log") as url:
        yield url


@pytest.fixture
async def clients(edge_server):
    """Telethon clients the test made, disconnected after it."""
    made: list = []
    yield made
    for c in made:
        await c.disconnect()


@pytest.fixture
def browser():
    driver = chromium.start()
    yield driver
    driver.quit()


@pytest.fixture
async def moderator(edge_db):
    from asgiref.sync import sync_to_async

    return await sync_to_async(_make_moderator)()


def _make_moderator(group: str = "moderator"):
    from django.contrib.auth.models import Group, User
    from django.core.management import call_command

    call_command("create_staff_groups", stdout=open(os.devnull, "w"))  # noqa: SIM115
    name = f"{group[:3]}{os.getpid()}{harness.free_port()}"
    user = User.objects.create_user(name, f"{name}@example.invalid", MOD_PASSWORD, is_staff=True)
    user.groups.add(Group.objects.get(name=group))
    return name


@pytest.fixture
async def operator(edge_db):
    from asgiref.sync import sync_to_async

    return await sync_to_async(_make_moderator)("operator")


def wait_url(driver, fragment: str) -> None:
    """Block until the browser is on the next page (a click only starts navigation)."""
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, 20).until(
        lambda d: fragment in d.current_url and d.execute_script("return document.readyState") == "complete"
    )


def log_in(driver, base: str, username: str) -> None:
    from selenium.webdriver.common.by import By

    driver.get(f"{base}/admin/login/?next=/admin/")
    driver.find_element(By.NAME, "username").send_keys(username)
    driver.find_element(By.NAME, "password").send_keys(MOD_PASSWORD)
    driver.find_element(By.CSS_SELECTOR, "input[type=submit]").click()
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, 20).until(lambda d: "login" not in d.current_url)
    wait_url(driver, "/admin/")
    assert "telesrv console" in driver.title and "Django administration" not in driver.page_source


def ban_in_browser(driver, base: str, username: str, title: str, channel_id: int, user_id: int) -> str:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    log_in(driver, base, username)
    # find the channel by its title from the channel list's search box
    driver.find_element(By.LINK_TEXT, "Channels").click()
    wait_url(driver, "/admin/channels_app/channel/")
    box = driver.find_element(By.ID, "searchbar")
    box.send_keys(title)
    box.submit()
    wait_url(driver, "q=")
    driver.find_element(By.LINK_TEXT, title).click()
    wait_url(driver, f"/channel/{channel_id}/change/")
    driver.find_element(By.LINK_TEXT, "members").click()
    wait_url(driver, f"/admin/console_app/member/?channel_id={channel_id}")
    driver.find_element(By.CSS_SELECTOR, f'input.action-select[value="{channel_id}.{user_id}"]').click()
    Select(driver.find_element(By.NAME, "action")).select_by_value("ban_members")
    click_and_wait(driver, By.NAME, "index")
    # the confirmation page says what will happen; nothing is done before "Yes"
    assert "cannot rejoin" in driver.find_element(By.ID, "console-confirm").text
    click_and_wait(driver, By.ID, "console-confirm-yes")
    wait_url(driver, "/admin/console_app/member/")
    return driver.find_element(By.CSS_SELECTOR, "ul.messagelist").text


def click_and_wait(driver, by, value) -> None:
    """Click what submits a form and wait for the next page to replace this one."""
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait

    old = driver.find_element("tag name", "html")
    driver.find_element(by, value).click()
    WebDriverWait(driver, 30).until(expected_conditions.staleness_of(old))
    WebDriverWait(driver, 20).until(lambda d: d.execute_script("return document.readyState") == "complete")


async def test_moderator_bans_a_member_who_is_told_live(
    edge_server, admin_server, browser, moderator, clients
):
    from telethon import events, functions, types

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bob, b, _, _ = await logged_in(edge_server, "Bob", clients)
    title = f"Console e2e {os.getpid()}"
    created = await a(functions.messages.CreateChatRequest(users=[input_user(alice, bob)], title=title))
    channel = created.updates.chats[1]
    await b.get_dialogs()  # Bob's client knows the channel, as after opening the app

    seen: list = []
    b.add_event_handler(lambda u: seen.append(u), events.Raw())
    seen_by_owner: list = []
    a.add_event_handler(lambda u: seen_by_owner.append(u), events.Raw())

    report = await asyncio.to_thread(
        ban_in_browser, browser, admin_server, moderator, title, channel.id, bob.id
    )
    assert "Banned 1 member(s)." in report

    def told_removed(u) -> bool:
        if isinstance(u, types.UpdateNewChannelMessage):
            action = getattr(u.message, "action", None)
            return isinstance(action, types.MessageActionChatDeleteUser) and action.user_id == bob.id
        if isinstance(u, types.UpdateChannelParticipant):
            return u.user_id == bob.id
        return False

    await wait_for(lambda: any(told_removed(u) for u in seen), timeout=15)
    # The owner is told too, and the kick is not shown as the owner's own doing: the
    # operator console is nobody in the group (no sender, not outgoing).
    await wait_for(lambda: any(told_removed(u) for u in seen_by_owner), timeout=15)
    kick = next(u.message for u in seen_by_owner if told_removed(u) and hasattr(u, "message"))
    assert kick.out is False and kick.from_id is None
    # and the channel is closed to Bob now
    from telethon.errors import ChannelPrivateError

    with pytest.raises(ChannelPrivateError):
        await b(functions.channels.GetFullChannelRequest(types.InputChannel(channel.id, channel.access_hash)))


def look_at_authorizations(driver, base: str, username: str) -> tuple[str, str, str]:
    log_in(driver, base, username)
    index = driver.page_source
    driver.get(f"{base}/admin/accounts_app/authorization/")
    return index, driver.title, driver.page_source


async def test_moderator_cannot_see_authorizations(admin_server, browser, moderator):
    index, title, page = await asyncio.to_thread(look_at_authorizations, browser, admin_server, moderator)
    assert "Channels" in index and "Authorizations" not in index
    assert "Not allowed" in title and "not for your role" in page  # the console's own 403 page
    assert "device model" not in page.lower()  # no column of the authorizations list


# --- issue 21: what a moderator needs first, names, search, admin log, user actions ----


def read_channel_in_browser(driver, base: str, username: str, channel_username: str, title: str) -> dict:
    from selenium.webdriver.common.by import By

    log_in(driver, base, username)
    seen = {"start_title": driver.title, "start": driver.page_source}
    # the start page's search box, with a bare username (no @), then the channel's page
    box = driver.find_element(By.ID, "console-channel-search")
    box.send_keys(channel_username)
    box.submit()
    wait_url(driver, "q=")
    seen["results"] = driver.page_source
    driver.find_element(By.LINK_TEXT, title).click()
    wait_url(driver, "/change/")
    seen["channel"] = driver.page_source
    driver.find_element(By.LINK_TEXT, "admin log").click()
    wait_url(driver, "/admin/console_app/adminlogevent/")
    seen["admin_log_title"], seen["admin_log"] = driver.title, driver.page_source
    driver.back()
    wait_url(driver, "/change/")
    driver.find_element(By.LINK_TEXT, "members").click()
    wait_url(driver, "/admin/console_app/member/")
    seen["members"] = driver.page_source
    return seen


async def test_moderator_finds_a_channel_by_bare_username_and_reads_it_with_names(
    edge_server, admin_server, browser, moderator, clients
):
    from telethon import functions

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bob, b, _, _ = await logged_in(edge_server, "Bob", clients)
    tag = f"{os.getpid()}{harness.free_port()}"
    bob_name = f"bob_{tag}"
    await b(functions.account.UpdateUsernameRequest(username=bob_name))
    title = f"Support desk {tag}"
    created = await a(functions.messages.CreateChatRequest(users=[input_user(alice, bob)], title=title))
    channel = created.updates.chats[1]
    channel_username = f"acme_support_{tag}"
    await a(functions.channels.UpdateUsernameRequest(channel=channel, username=channel_username))
    await b.get_dialogs()
    from telethon import types

    await b.send_message(types.InputPeerChannel(channel.id, channel.access_hash), "where is my order")

    seen = await asyncio.to_thread(
        read_channel_in_browser, browser, admin_server, moderator, channel_username, title
    )
    assert "telesrv console" in seen["start_title"]
    assert 'id="console-busiest"' in seen["start"] and 'id="console-recent-actions"' in seen["start"]
    assert f"/admin/channels_app/channel/{channel.id}/change/" in seen["results"]
    # the channel's page: its recent messages and members inline, with who they are
    assert "where is my order" in seen["channel"]
    assert "Bob" in seen["channel"] and f"@{bob_name}" in seen["channel"]
    # the admin log renders (it answered 500 on change_username events)
    assert "Server Error" not in seen["admin_log"] and "change username" in seen["admin_log"]
    assert channel_username in seen["admin_log"]
    # members: names and usernames beside the ids, no link to user pages for a moderator
    assert "Alice" in seen["members"] and f"@{bob_name}" in seen["members"]
    assert f"/admin/accounts_app/user/{bob.id}/change/" not in seen["members"]


def run_user_actions_in_browser(driver, base: str, username: str, user_id: int, phone: str) -> list[str]:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    log_in(driver, base, username)
    reports = []
    for action in ("revoke_usernames", "deactivate_accounts"):
        driver.get(f"{base}/admin/accounts_app/user/?q={phone}")
        wait_url(driver, "/admin/accounts_app/user/")
        page = driver.page_source
        assert 'name="_save"' not in page
        driver.find_element(By.CSS_SELECTOR, f'input.action-select[value="{user_id}"]').click()
        Select(driver.find_element(By.NAME, "action")).select_by_value(action)
        click_and_wait(driver, By.NAME, "index")
        click_and_wait(driver, By.ID, "console-confirm-yes")
        wait_url(driver, "/admin/accounts_app/user/")
        reports.append(driver.find_element(By.CSS_SELECTOR, "ul.messagelist").text)
    # the user's own page is read-only
    driver.get(f"{base}/admin/accounts_app/user/{user_id}/change/")
    wait_url(driver, f"/user/{user_id}/")
    reports.append(driver.page_source)
    return reports


async def test_operator_revokes_a_username_and_deactivates_an_account_live(
    edge_server, admin_server, browser, operator, clients
):
    from telethon import errors, events, functions, types

    bob, b, phone, _ = await logged_in(edge_server, "Bob", clients)
    name = f"bob_{os.getpid()}{harness.free_port()}"
    await b(functions.account.UpdateUsernameRequest(username=name))
    seen: list = []
    b.add_event_handler(lambda u: seen.append(u), events.Raw())

    revoked, deactivated, page = await asyncio.to_thread(
        run_user_actions_in_browser, browser, admin_server, operator, bob.id, phone
    )
    assert "Revoked 1 username(s)." in revoked
    assert "Deactivated 1 account(s)." in deactivated
    assert 'name="_save"' not in page and "deletelink" not in page
    # Bob's device was told its username is gone ...
    await wait_for(
        lambda: any(
            isinstance(u, types.UpdateUserName) and u.user_id == bob.id and not u.usernames for u in seen
        ),
        timeout=15,
    )
    # ... and is logged out now
    with pytest.raises(errors.AuthKeyUnregisteredError):
        await b(functions.users.GetFullUserRequest(types.InputUserSelf()))
