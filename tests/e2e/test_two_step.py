"""Two-step verification with unmodified clients: Telethon's edit_2fa and
sign_in(password=...), Kurigram's check_password, wrong passwords and their flood
limit, recovery by e-mail through a real local SMTP server."""

from __future__ import annotations

import pytest

from accounts_app.models import Authorization, TwoStepPassword
from tests.e2e.test_channels import logged_in, make_live_kurigram, make_live_telethon

pytestmark = pytest.mark.django_db(transaction=True)


async def _second_device_sign_in(server, phone: str, code: str, clients: list):
    """A new Telethon device that entered the right code; the password comes next."""
    from telethon import errors

    client = make_live_telethon(server)
    clients.append(client)
    await client.connect()
    sent = await client.send_code_request(phone)
    with pytest.raises(errors.SessionPasswordNeededError):
        await client.sign_in(phone, code=code, phone_code_hash=sent.phone_code_hash)
    return client


async def test_telethon_set_use_change_and_remove_password(edge_server, edge_db, clients):
    from telethon import errors, functions

    alice, a, phone, code = await logged_in(edge_server, "Alice", clients)
    before = await a(functions.account.GetPasswordRequest())
    assert before.has_password is False
    assert await a.edit_2fa(new_password="correct horse", hint="the horse")
    state = await a(functions.account.GetPasswordRequest())
    assert state.has_password and state.hint == "the horse" and len(state.srp_B) == 256
    row = await TwoStepPassword.objects.aget(user_id=alice.id)
    assert b"correct horse" not in bytes(row.verifier)  # only the SRP verifier is stored

    # A second device: the code alone does not log in; a wrong password is refused,
    # the right one logs in.
    b = await _second_device_sign_in(edge_server, phone, code, clients)
    assert not await b.is_user_authorized()
    with pytest.raises(errors.PasswordHashInvalidError):
        await b.sign_in(password="wrong horse")
    me = await b.sign_in(password="correct horse")
    assert me.id == alice.id and (await b.get_me()).id == alice.id

    # Change it (the old password is required), then remove it.
    with pytest.raises(errors.PasswordHashInvalidError):
        await a.edit_2fa(current_password="wrong", new_password="battery staple")
    assert await a.edit_2fa(current_password="correct horse", new_password="battery staple")
    c = await _second_device_sign_in(edge_server, phone, code, clients)
    with pytest.raises(errors.PasswordHashInvalidError):
        await c.sign_in(password="correct horse")
    assert (await c.sign_in(password="battery staple")).id == alice.id
    assert await a.edit_2fa(current_password="battery staple", new_password=None)
    assert (await a(functions.account.GetPasswordRequest())).has_password is False
    d = make_live_telethon(edge_server)
    clients.append(d)
    await d.connect()
    sent = await d.send_code_request(phone)
    assert (await d.sign_in(phone, code=code, phone_code_hash=sent.phone_code_hash)).id == alice.id


async def test_kurigram_check_password_and_flood_limit(edge_server, edge_db, clients):
    from pyrogram.errors import PasswordHashInvalid, SessionPasswordNeeded
    from telethon import errors

    bob, t, phone, code = await logged_in(edge_server, "Bob", clients)
    assert await t.edit_2fa(new_password="kurigram pw", hint="k")
    kg = make_live_kurigram(edge_server, "twostep")
    await kg.connect()
    try:
        sent = await kg.send_code(phone)
        with pytest.raises(SessionPasswordNeeded):
            await kg.sign_in(phone, sent.phone_code_hash, code)
        assert await kg.get_password_hint() == "k"
        with pytest.raises(PasswordHashInvalid):
            await kg.check_password("nope")
        user = await kg.check_password("kurigram pw")
        assert user.id == bob.id
        assert not await Authorization.objects.filter(user_id=bob.id, password_pending=True).aexists()
    finally:
        await kg.disconnect()

    # Five wrong passwords in a row: the account waits (FLOOD_WAIT), even for the right one.
    e = await _second_device_sign_in(edge_server, phone, code, clients)
    for _ in range(4):
        with pytest.raises(errors.PasswordHashInvalidError):
            await e.sign_in(password="guess")
    with pytest.raises(errors.FloodWaitError) as flood:
        await e.sign_in(password="guess")
    assert flood.value.seconds >= 60
    with pytest.raises(errors.FloodWaitError):
        await e.sign_in(password="kurigram pw")


@pytest.fixture
def smtp_server():
    """A real SMTP server on 127.0.0.1 (aiosmtpd): ``(received, port)``, ``received``
    being ``[(recipients, message text)]``."""
    from aiosmtpd.controller import Controller

    from tests.e2e import harness

    received: list = []

    class Handler:
        async def handle_DATA(self, server, session, envelope):
            received.append((list(envelope.rcpt_tos), envelope.content.decode("utf-8", "replace")))
            return "250 OK"

    port = harness.free_port()
    controller = Controller(Handler(), hostname="127.0.0.1", port=port)
    controller.start()
    yield received, port
    controller.stop()


async def _code_in_mail(received: list, to: str, after: int = 0) -> str:
    import re

    from tests.e2e.test_channels import wait_for

    await wait_for(lambda: any(to in rcpt for rcpt, _ in received[after:]), timeout=15)
    text = next(body for rcpt, body in received[after:] if to in rcpt)
    return re.search(r"code: (\d+)", text).group(1)


async def test_recovery_email_confirm_and_recover_over_smtp(
    edge_env, edge_rsa_key, tmp_path, edge_db, smtp_server
):
    from telethon import errors, functions

    from tests.e2e import harness

    received, smtp_port = smtp_server
    server = harness.start_edge(
        {**edge_env, "TELESRV_EMAIL_HOST": "127.0.0.1", "TELESRV_EMAIL_PORT": str(smtp_port)},
        edge_rsa_key,
        tmp_path / "runmtproto-smtp.log",
    )
    clients: list = []
    try:
        alice, a, phone, code = await logged_in(server, "Alice", clients)

        async def email_code(length: int) -> str:
            got = await _code_in_mail(received, "alice@example.com")
            assert len(got) == length
            return got

        assert await a.edit_2fa(
            new_password="pw", hint="", email="alice@example.com", email_code_callback=email_code
        )
        assert (await a(functions.account.GetPasswordRequest())).has_recovery is True

        # Forgot the password on a new device: the code by e-mail logs in and removes it.
        b = await _second_device_sign_in(server, phone, code, clients)
        sent_before = len(received)
        recovery = await b(functions.auth.RequestPasswordRecoveryRequest())
        assert recovery.email_pattern == "a***@example.com"
        mailed = await _code_in_mail(received, "alice@example.com", after=sent_before)
        with pytest.raises(errors.CodeInvalidError):
            await b(functions.auth.RecoverPasswordRequest(code="000000" if mailed != "000000" else "111111"))
        auth = await b(functions.auth.RecoverPasswordRequest(code=mailed))
        assert auth.user.id == alice.id and (await b.get_me()).id == alice.id
        assert (await b(functions.account.GetPasswordRequest())).has_password is False
    finally:
        for c in clients:
            await c.disconnect()
        server.stop()


async def test_channel_ownership_transfer_needs_the_password(edge_server, edge_db, clients):
    from telethon import errors, functions, types
    from telethon.password import compute_check

    from tests.e2e.test_channels import input_user

    alice, a, _, _ = await logged_in(edge_server, "Alice", clients)
    bob, b, _, _ = await logged_in(edge_server, "Bob", clients)
    channel = (
        await a(functions.channels.CreateChannelRequest(title="Owned", about="", broadcast=True))
    ).chats[0]
    await a(functions.channels.InviteToChannelRequest(channel, [input_user(alice, bob)]))
    empty = types.InputCheckPasswordEmpty()

    def transfer(password):
        return functions.messages.EditChatCreatorRequest(
            peer=types.InputPeerChannel(channel.id, channel.access_hash),
            user_id=input_user(alice, bob),
            password=password,
        )

    with pytest.raises(errors.PasswordMissingError):
        await a(transfer(empty))
    assert await a.edit_2fa(new_password="owner pw")
    with pytest.raises(errors.PasswordHashInvalidError):
        await a(transfer(empty))
    with pytest.raises(errors.PasswordHashInvalidError):
        await a(transfer(compute_check(await a(functions.account.GetPasswordRequest()), "not it")))
    # Only the creator may hand the channel over.
    with pytest.raises(errors.ChatAdminRequiredError):
        await b(
            functions.messages.EditChatCreatorRequest(
                peer=await b.get_input_entity(channel.id), user_id=input_user(bob, alice), password=empty
            )
        )

    result = await a(transfer(compute_check(await a(functions.account.GetPasswordRequest()), "owner pw")))
    changed = {
        u.user_id: u.new_participant for u in result.updates if isinstance(u, types.UpdateChannelParticipant)
    }
    assert isinstance(changed[bob.id], types.ChannelParticipantCreator)
    assert isinstance(changed[alice.id], types.ChannelParticipantAdmin)
    bob_part = await b(functions.channels.GetParticipantRequest(channel.id, types.InputPeerSelf()))
    assert isinstance(bob_part.participant, types.ChannelParticipantCreator)
    alice_part = await a(functions.channels.GetParticipantRequest(channel, types.InputPeerSelf()))
    assert isinstance(alice_part.participant, types.ChannelParticipantAdmin)
    assert (await b(functions.channels.GetFullChannelRequest(channel.id))).full_chat.can_delete_channel
    log = await b(
        functions.channels.GetAdminLogRequest(channel=channel.id, q="", max_id=0, min_id=0, limit=10)
    )
    promoted = [
        e.action
        for e in log.events
        if isinstance(e.action, types.ChannelAdminLogEventActionParticipantToggleAdmin)
    ]
    assert {type(p.new_participant) for p in promoted} >= {
        types.ChannelParticipantCreator,
        types.ChannelParticipantAdmin,
    }
    # The old owner can no longer transfer it back.
    with pytest.raises(errors.ChatAdminRequiredError):
        await a(transfer(compute_check(await a(functions.account.GetPasswordRequest()), "owner pw")))
