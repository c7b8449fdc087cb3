"""Accounts with unmodified clients: sign-up, login, profile, usernames, log-out, the
specific login errors, Telethon's and Kurigram's start(), and a layer-224 client."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
from datetime import timedelta

import pytest
from django.utils import timezone

from accounts_app.models import Authorization, LoginCode, User
from tests.e2e import harness

# transaction=True: what the test writes is committed, so the server process sees it
# (and the test database is set up even when only e2e tests run).
pytestmark = pytest.mark.django_db(transaction=True)

SERVER_TROUBLE = re.compile(r"\b(ERROR|CRITICAL)\b|Traceback|no handler for")


class ServerLog:
    """The part of the server log written while a test ran."""

    def __init__(self, server):
        self.server = server
        self.start = len(server.log())

    def new(self) -> str:
        return self.server.log()[self.start :]

    def assert_clean(self) -> None:
        trouble = [line for line in self.new().splitlines() if SERVER_TROUBLE.search(line)]
        assert not trouble, "\n".join(trouble)


async def sign_up_telethon(client, first_name: str, last_name: str = ""):
    """Sign a new test number up. Telethon 1.45's ``sign_up`` refuses to run, so the
    last step is the raw auth.signUp, followed by what Telethon does after any login."""
    from telethon import errors, functions

    phone, code = harness.fresh_phone()
    sent = await client.send_code_request(phone)
    with pytest.raises(errors.PhoneNumberUnoccupiedError):
        await client.sign_in(phone, code=code, phone_code_hash=sent.phone_code_hash)
    assert client._tos is not None and client._tos.text  # the terms came with sign-up-required
    result = await client(
        functions.auth.SignUpRequest(
            phone_number=phone,
            phone_code_hash=sent.phone_code_hash,
            first_name=first_name,
            last_name=last_name,
        )
    )
    await client._on_login(result.user)  # updates.getState + updates.getDifference
    return result.user, phone, code


async def test_telethon_sign_up_login_profile_username_log_out(telethon_client, edge_server, edge_db):
    from telethon import errors, functions, types

    log = ServerLog(edge_server)
    first = await telethon_client("abridged")
    alice, phone, code = await sign_up_telethon(first, "Alice", "Liddell")
    assert alice.is_self and alice.first_name == "Alice"

    me = await first.get_me()
    assert (me.id, me.first_name, me.last_name, me.phone) == (alice.id, "Alice", "Liddell", phone)
    # The operator sees the code in the admin's table (and the log) for this phone.
    assert await LoginCode.objects.filter(phone=phone, code=code).aexists()
    assert f"login code for +{phone}: {code}" in log.new()

    # A second device logs in with Telethon's own start() flow.
    second = await telethon_client("intermediate", connect=False)
    await second.start(phone=phone, code_callback=lambda: code)
    assert (await second.get_me()).id == alice.id
    assert await Authorization.objects.filter(user_id=alice.id).acount() == 2
    devices = [a async for a in Authorization.objects.filter(user_id=alice.id)]
    assert all(a.device_model and a.api_id == harness.API_ID and a.app_version for a in devices)
    assert all(a.ip == "127.0.0.1" for a in devices)

    # Another user with a username, found and watched by Alice.
    other = await telethon_client("full")
    bob, _, _ = await sign_up_telethon(other, "Bob")
    name = f"bob_{bob.id}"
    await other(functions.account.UpdateUsernameRequest(username=name))
    with pytest.raises(errors.UsernameOccupiedError):
        await first(functions.account.UpdateUsernameRequest(username=name.upper()))

    resolved = await first(functions.contacts.ResolveUsernameRequest(username=name.upper()))
    assert resolved.peer == types.PeerUser(user_id=bob.id)
    (seen,) = resolved.users
    assert seen.username == name and seen.first_name == "Bob" and not seen.is_self
    entity = await first.get_entity(f"@{name}")
    assert entity.id == bob.id

    await other(functions.account.UpdateProfileRequest(first_name="Robert", about="builder"))
    input_bob = types.InputUser(user_id=bob.id, access_hash=seen.access_hash)
    (fresh,) = await first(functions.users.GetUsersRequest(id=[input_bob]))
    assert fresh.first_name == "Robert"
    full = await first(functions.users.GetFullUserRequest(id=input_bob))
    assert full.full_user.about == "builder"

    # Log out on the first device: that key stops authorizing, the second keeps working.
    await first(functions.auth.LogOutRequest())
    with pytest.raises(errors.AuthKeyUnregisteredError):
        await first(functions.users.GetUsersRequest(id=[types.InputUserSelf()]))
    assert await first.get_me() is None
    assert (await second.get_me()).id == alice.id
    assert await Authorization.objects.filter(user_id=alice.id).acount() == 1
    log.assert_clean()


async def test_profile_change_reaches_the_other_device_through_get_difference(telethon_client, edge_db):
    from telethon import functions, types

    a1 = await telethon_client("abridged")
    user, phone, code = await sign_up_telethon(a1, "Carol")
    a2 = await telethon_client("abridged", connect=False)
    await a2.start(phone=phone, code_callback=lambda: code)
    state = await a2(functions.updates.GetStateRequest())
    await a1(functions.account.UpdateProfileRequest(last_name="Changed"))
    diff = await a2(functions.updates.GetDifferenceRequest(pts=state.pts, date=state.date, qts=state.qts))
    assert isinstance(diff, types.updates.Difference)
    assert diff.state.pts == state.pts + 1
    assert [(type(u), u.last_name) for u in diff.other_updates] == [(types.UpdateUserName, "Changed")]
    assert [u.id for u in diff.users] == [user.id]


async def test_login_errors(telethon_client, edge_server, edge_db):
    from telethon import errors

    log = ServerLog(edge_server)
    client = await telethon_client("abridged")

    # Unknown phone: signIn says "sign up first" (Telethon raises PhoneNumberUnoccupied).
    phone, code = harness.fresh_phone()
    sent = await client.send_code_request(phone)
    with pytest.raises(errors.PhoneNumberUnoccupiedError):
        await client.sign_in(phone, code=code, phone_code_hash=sent.phone_code_hash)

    # Wrong code, then too many wrong codes.
    phone, code = harness.fresh_phone()
    wrong = "1" * 5 if code != "1" * 5 else "3" * 5
    sent = await client.send_code_request(phone)
    for _ in range(4):
        with pytest.raises(errors.PhoneCodeInvalidError):
            await client.sign_in(phone, code=wrong, phone_code_hash=sent.phone_code_hash)
    with pytest.raises(errors.FloodWaitError) as flood:
        await client.sign_in(phone, code=wrong, phone_code_hash=sent.phone_code_hash)
    assert flood.value.seconds > 60
    with pytest.raises(errors.FloodWaitError):
        await client.sign_in(phone, code=code, phone_code_hash=sent.phone_code_hash)

    # Expired code.
    phone, code = harness.fresh_phone()
    sent = await client.send_code_request(phone)
    await LoginCode.objects.filter(phone_code_hash=sent.phone_code_hash).aupdate(
        expires=timezone.now() - timedelta(seconds=1)
    )
    with pytest.raises(errors.PhoneCodeExpiredError):
        await client.sign_in(phone, code=code, phone_code_hash=sent.phone_code_hash)
    log.assert_clean()


async def test_telethon_start_then_first_screen_calls(telethon_client, edge_server, edge_db):
    """What a Telethon script does first: start(), get_me, dialogs, contacts, state."""
    from telethon import functions, types

    creator = await telethon_client("abridged")
    _, phone, code = await sign_up_telethon(creator, "Dora")
    log = ServerLog(edge_server)
    client = await telethon_client("obfuscated", connect=False)
    await client.start(phone=phone, code_callback=lambda: code)
    assert (await client.get_me()).first_name == "Dora"
    # The only chat: the login code "Telegram" sent to the first device.
    (service,) = await client.get_dialogs()
    assert service.entity.id == 777000 and f"Login code: {code}" in service.message.message
    contacts = await client(functions.contacts.GetContactsRequest(hash=0))
    assert isinstance(contacts, types.contacts.Contacts)
    await client(functions.updates.GetStateRequest())
    await client(functions.account.UpdateStatusRequest(offline=False))
    await client(functions.help.GetAppConfigRequest(hash=0))
    await client(functions.account.GetPasswordRequest())
    await client(functions.langpack.GetLangPackRequest(lang_pack="", lang_code="en"))
    log.assert_clean()


async def test_kurigram_start_non_interactive(kurigram_client, edge_server, edge_db):
    phone, code = harness.fresh_phone()
    user = await User.objects.acreate(phone=phone, first_name="Kuri", last_name="Gram")
    log = ServerLog(edge_server)
    client = await kurigram_client("abridged", connect=False, phone_number=phone, phone_code=code)
    await client.start()
    try:
        me = await client.get_me()
        assert (me.id, me.first_name, me.last_name) == (user.id, "Kuri", "Gram")
        assert me.is_self
    finally:
        await client.stop()
    log.assert_clean()


OLD_TELETHON_LOGIN = r"""
import asyncio, json, sys
from telethon import TelegramClient, functions, types
from telethon.crypto import rsa
from telethon.sessions import MemorySession
from telethon.tl.alltlobjects import LAYER

host, port, pem, phone, code = sys.argv[1], int(sys.argv[2]), open(sys.argv[3]).read(), sys.argv[4], sys.argv[5]
rsa.add_key(pem, old=False)

async def main():
    session = MemorySession()
    session.set_dc(2, host, port)
    client = TelegramClient(session, 611335, "d524b414d21f4d37f08684c1df41ac9c",
                            receive_updates=False, connection_retries=1, auto_reconnect=False)
    await client.start(phone=phone, code_callback=lambda: code)
    me = await client.get_me()
    full = await client(functions.users.GetFullUserRequest(id=types.InputUserSelf()))
    print(json.dumps({"layer": LAYER, "id": me.id, "first_name": me.first_name, "about": full.full_user.about}))
    await client.disconnect()

asyncio.run(main())
"""


async def test_telethon_1_43_signs_in(old_telethon_python, edge_server, edge_db, tmp_path):
    phone, code = harness.fresh_phone()
    user = await User.objects.acreate(phone=phone, first_name="Old", about="layer 224")
    pem = tmp_path / "server.pub"
    pem.write_bytes(edge_server.public_pem)
    script = tmp_path / "old_login.py"
    script.write_text(OLD_TELETHON_LOGIN)
    proc = await asyncio.create_subprocess_exec(
        str(old_telethon_python),
        str(script),
        edge_server.host,
        str(edge_server.port),
        str(pem),
        phone,
        code,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), 90)
    assert proc.returncode == 0, err.decode()[-3000:]
    answer = json.loads(out.decode().strip().splitlines()[-1])
    assert answer == {"layer": 224, "id": user.id, "first_name": "Old", "about": "layer 224"}


async def test_profile_change_is_pushed_live_to_the_other_session(telethon_client, edge_server, edge_db):
    """A second device that listens for updates sees the name change at once, and its
    pts stays in step with the server (no gap, so no getDifference round trip)."""
    from telethon import events, functions, types

    first = await telethon_client("abridged")
    user, phone, code = await sign_up_telethon(first, "Eve")
    listener = await telethon_client("abridged", connect=False, receive_updates=True)
    got: asyncio.Queue = asyncio.Queue()

    @listener.on(events.Raw(types.UpdateUserName))
    async def on_name(update):
        await got.put(update)

    await listener.start(phone=phone, code_callback=lambda: code)
    before = await listener(functions.updates.GetStateRequest())
    await first(functions.account.UpdateProfileRequest(first_name="Evelyn"))
    update = await asyncio.wait_for(got.get(), 10)
    assert (update.user_id, update.first_name) == (user.id, "Evelyn")
    after = await listener(functions.updates.GetStateRequest())
    assert after.pts == before.pts + 1
    # The push carried the event's pts: the client's state moved without a gap.
    await asyncio.sleep(0.2)
    assert listener._message_box.session_state()[0]["pts"] == after.pts
    assert not listener._message_box.possible_gaps and not listener._message_box.getting_diff_for


async def test_contacts_see_a_name_change_live(telethon_client, edge_server, edge_db):
    from telethon import events, functions, types

    alice_client = await telethon_client("abridged")
    alice, alice_phone, _ = await sign_up_telethon(alice_client, "Alice")
    bob_client = await telethon_client("abridged", connect=False, receive_updates=True)
    _, bob_phone, bob_code = await sign_up_telethon(await telethon_client("abridged"), "Bob")
    got: asyncio.Queue = asyncio.Queue()

    @bob_client.on(events.Raw(types.UpdateUserName))
    async def on_name(update):
        await got.put(update)

    await bob_client.start(phone=bob_phone, code_callback=lambda: bob_code)
    imported = await bob_client(
        functions.contacts.ImportContactsRequest(
            contacts=[types.InputPhoneContact(client_id=1, phone=alice_phone, first_name="Al", last_name="")]
        )
    )
    assert [i.user_id for i in imported.imported] == [alice.id]
    await alice_client(functions.account.UpdateProfileRequest(first_name="Alicia"))
    update = await asyncio.wait_for(got.get(), 10)
    assert (update.user_id, update.first_name) == (alice.id, "Alicia")


async def test_kurigram_signs_up_a_new_number_and_accepts_the_terms(
    kurigram_client, edge_server, edge_db, monkeypatch
):
    """Kurigram asks for the name on a terminal; the prompt is answered here."""
    import pyrogram.client

    answers = {"Enter first name: ": "Neu", "Enter last name (empty to skip): ": "Ling"}
    prompts = []

    async def fake_input(prompt="", *args, **kwargs):
        prompts.append(prompt)
        return answers[prompt]

    monkeypatch.setattr(pyrogram.client, "ainput", fake_input)
    phone, code = harness.fresh_phone()
    log = ServerLog(edge_server)
    client = await kurigram_client("intermediate", connect=False, phone_number=phone, phone_code=code)
    await client.start()
    try:
        me = await client.get_me()
        assert (me.first_name, me.last_name, me.is_self) == ("Neu", "Ling", True)
    finally:
        await client.stop()
    assert prompts == list(answers)
    assert await User.objects.filter(phone=phone, first_name="Neu").aexists()
    log.assert_clean()


async def test_contacts_see_going_online_live(telethon_client, edge_db):
    from telethon import events, functions, types

    alice_client = await telethon_client("abridged")
    alice, alice_phone, _ = await sign_up_telethon(alice_client, "Alice")
    _, bob_phone, bob_code = await sign_up_telethon(await telethon_client("abridged"), "Bob")
    bob_client = await telethon_client("abridged", connect=False, receive_updates=True)
    got: asyncio.Queue = asyncio.Queue()

    @bob_client.on(events.Raw(types.UpdateUserStatus))
    async def on_status(update):
        await got.put(update)

    await bob_client.start(phone=bob_phone, code_callback=lambda: bob_code)
    await bob_client(
        functions.contacts.ImportContactsRequest(
            contacts=[types.InputPhoneContact(client_id=1, phone=alice_phone, first_name="Al", last_name="")]
        )
    )
    await alice_client(functions.account.UpdateStatusRequest(offline=False))
    update = await asyncio.wait_for(got.get(), 10)
    assert update.user_id == alice.id and isinstance(update.status, types.UserStatusOnline)
    await alice_client(functions.account.UpdateStatusRequest(offline=True))
    update = await asyncio.wait_for(got.get(), 10)
    assert isinstance(update.status, types.UserStatusOffline)


def first_screen_requests():
    """What Telegram Desktop asks on start-up and its first screen (docs/startup-calls.md),
    as Telethon requests of the same layer."""
    from telethon import functions as f
    from telethon import types as t

    return [
        f.help.GetAppConfigRequest(hash=0),
        f.help.GetCountriesListRequest(lang_code="en", hash=0),
        f.help.GetTermsOfServiceUpdateRequest(),
        f.help.GetPromoDataRequest(),
        f.help.GetInviteTextRequest(),
        f.help.GetPeerColorsRequest(hash=0),
        f.help.GetPeerProfileColorsRequest(hash=0),
        f.help.GetTimezonesListRequest(hash=0),
        f.help.GetAppUpdateRequest(source=""),
        f.langpack.GetLangPackRequest(lang_pack="tdesktop", lang_code="en"),
        f.langpack.GetStringsRequest(lang_pack="tdesktop", lang_code="en", keys=["lng_intro"]),
        f.langpack.GetDifferenceRequest(lang_pack="tdesktop", lang_code="en", from_version=0),
        f.langpack.GetLanguagesRequest(lang_pack="tdesktop"),
        f.langpack.GetLanguageRequest(lang_pack="tdesktop", lang_code="en"),
        f.account.GetNotifySettingsRequest(peer=t.InputNotifyUsers()),
        f.account.GetNotifySettingsRequest(peer=t.InputNotifyBroadcasts()),
        f.account.GetContentSettingsRequest(),
        f.account.GetGlobalPrivacySettingsRequest(),
        f.account.GetPrivacyRequest(key=t.InputPrivacyKeyPhoneNumber()),
        f.account.GetPrivacyRequest(key=t.InputPrivacyKeyStatusTimestamp()),
        f.account.GetAuthorizationsRequest(),
        f.account.GetWallPapersRequest(hash=0),
        f.account.GetThemesRequest(format="tdesktop", hash=0),
        f.account.GetDefaultEmojiStatusesRequest(hash=0),
        f.account.GetRecentEmojiStatusesRequest(hash=0),
        f.account.GetContactSignUpNotificationRequest(),
        f.account.GetSavedRingtonesRequest(hash=0),
        f.account.GetPasswordRequest(),
        f.account.GetDefaultProfilePhotoEmojisRequest(hash=0),
        f.account.GetReactionsNotifySettingsRequest(),
        f.users.GetRequirementsToContactRequest(id=[t.InputUserSelf()]),
        f.users.GetFullUserRequest(id=t.InputUserSelf()),
        f.messages.GetDialogFiltersRequest(),
        f.messages.GetSuggestedDialogFiltersRequest(),
        f.messages.GetAvailableReactionsRequest(hash=0),
        f.messages.GetAvailableEffectsRequest(hash=0),
        f.messages.GetStickerSetRequest(stickerset=t.InputStickerSetAnimatedEmoji(), hash=0),
        f.messages.GetAllStickersRequest(hash=0),
        f.messages.GetEmojiStickersRequest(hash=0),
        f.messages.GetStickersRequest(emoticon="👍", hash=0),
        f.messages.GetFeaturedStickersRequest(hash=0),
        f.messages.GetFeaturedEmojiStickersRequest(hash=0),
        f.messages.GetRecentStickersRequest(hash=0),
        f.messages.GetFavedStickersRequest(hash=0),
        f.messages.GetSavedGifsRequest(hash=0),
        f.messages.GetEmojiGroupsRequest(hash=0),
        f.messages.GetEmojiKeywordsDifferenceRequest(lang_code="en", from_version=0),
        f.messages.GetAttachMenuBotsRequest(hash=0),
        f.messages.GetQuickRepliesRequest(hash=0),
        f.messages.GetDefaultHistoryTTLRequest(),
        f.messages.GetPinnedDialogsRequest(folder_id=0),
        f.contacts.GetContactsRequest(hash=0),
        f.contacts.GetStatusesRequest(),
        f.contacts.GetTopPeersRequest(offset=0, limit=20, hash=0, correspondents=True),
        f.contacts.GetBlockedRequest(offset=0, limit=50),
        f.contacts.GetBirthdaysRequest(),
        f.stories.GetAllStoriesRequest(),
        f.photos.GetUserPhotosRequest(user_id=t.InputUserSelf(), offset=0, max_id=0, limit=10),
        f.updates.GetStateRequest(),
    ]


async def test_first_screen_calls_all_answer(telethon_client, edge_server, edge_db):
    """Each call gets a result Telethon can parse, and the server logs no trouble."""
    client = await telethon_client("abridged")
    await sign_up_telethon(client, "Screen")
    log = ServerLog(edge_server)
    for request in first_screen_requests():
        result = await client(request)
        assert result is not None, type(request).__name__
    log.assert_clean()
