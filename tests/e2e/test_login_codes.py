"""Login codes that reach people, with unmodified clients: in-app from the service
user to the account's other device, and by e-mail through a real local SMTP server."""

from __future__ import annotations

import re
import secrets

import pytest

from accounts_app.code_delivery import SERVICE_USER_ID
from accounts_app.models import LoginCode, User
from tests.e2e import harness
from tests.e2e.test_channels import collect, make_live_telethon, wait_for
from tests.e2e.test_two_step import smtp_server  # noqa: F401  (fixture)

pytestmark = pytest.mark.django_db(transaction=True)


def real_phone() -> str:
    """A number outside the test range: its code is random and must be delivered."""
    return "1555" + str(secrets.randbelow(10**7)).zfill(7)


async def _first_login(server, phone: str, clients: list):
    """Log a new device in reading the code from the server's table (as an operator would)."""
    client = make_live_telethon(server)
    clients.append(client)
    await client.connect()
    sent = await client.send_code_request(phone)
    row = await LoginCode.objects.aget(phone_code_hash=sent.phone_code_hash)
    await client.sign_in(phone, code=row.code, phone_code_hash=sent.phone_code_hash)
    return client, sent


async def test_code_arrives_in_app_on_the_other_device(edge_server, edge_db, clients):
    from telethon import events, functions, types

    phone = real_phone()
    await User.objects.acreate(phone=phone, first_name="Alice")
    first, sent_first = await _first_login(edge_server, phone, clients)
    # No other device yet: the code waits for the operator to hand it over (the log
    # delivery), announced as a text - the one kind every app's code screen renders.
    assert isinstance(sent_first.type, types.auth.SentCodeTypeSms) and sent_first.type.length == 5
    inbox: list = []
    first.add_event_handler(collect(inbox, "message"), events.NewMessage(incoming=True))

    second = make_live_telethon(edge_server)
    clients.append(second)
    await second.connect()
    sent = await second.send_code_request(phone)
    assert isinstance(sent.type, types.auth.SentCodeTypeApp)
    assert isinstance(sent.next_type, types.auth.CodeTypeSms)
    await wait_for(lambda: any(m.sender_id == SERVICE_USER_ID for m in inbox))
    message = next(m for m in inbox if m.sender_id == SERVICE_USER_ID)
    code = re.search(r"Login code: (\d+)", message.message).group(1)
    assert code == (await LoginCode.objects.aget(phone_code_hash=sent.phone_code_hash)).code
    sender = await message.get_sender()
    assert sender.first_name == "Telegram"
    # Asking again goes to the configured backend (the log here), not the app.
    resent = await second(functions.auth.ResendCodeRequest(phone, sent.phone_code_hash))
    assert isinstance(resent.type, types.auth.SentCodeTypeSms)
    me = await second.sign_in(phone, code=code, phone_code_hash=sent.phone_code_hash)
    assert me.phone == phone


async def test_code_by_email_over_smtp(edge_env, edge_rsa_key, tmp_path, edge_db, smtp_server):  # noqa: F811
    from telethon import functions, types

    from tests.e2e.test_two_step import _code_in_mail

    received, smtp_port = smtp_server
    server = harness.start_edge(
        {
            **edge_env,
            "TELESRV_EMAIL_HOST": "127.0.0.1",
            "TELESRV_EMAIL_PORT": str(smtp_port),
            "TELESRV_LOGIN_CODE_DELIVERY": "email",
        },
        edge_rsa_key,
        tmp_path / "runmtproto-email.log",
    )
    clients: list = []
    try:
        phone = real_phone()
        await User.objects.acreate(phone=phone, first_name="Erin")
        first, _ = await _first_login(server, phone, clients)
        # Set the login e-mail, confirmed by the mailed code.
        purpose = types.EmailVerifyPurposeLoginChange()
        sent_mail = await first(functions.account.SendVerifyEmailCodeRequest(purpose, "erin@example.org"))
        assert sent_mail.email_pattern == "e***@example.org"
        confirm = await _code_in_mail(received, "erin@example.org")
        verified = await first(
            functions.account.VerifyEmailRequest(purpose, types.EmailVerificationCode(confirm))
        )
        assert verified.email == "erin@example.org"
        await first.log_out()

        # No other session: the code goes by e-mail, and signs in through email_verification.
        device = make_live_telethon(server)
        clients.append(device)
        await device.connect()
        before = len(received)
        sent = await device.send_code_request(phone)
        assert isinstance(sent.type, types.auth.SentCodeTypeEmailCode)
        assert sent.type.email_pattern == "e***@example.org"
        mailed = await _code_in_mail(received, "erin@example.org", after=before)
        auth = await device(
            functions.auth.SignInRequest(
                phone_number=phone,
                phone_code_hash=sent.phone_code_hash,
                email_verification=types.EmailVerificationCode(mailed),
            )
        )
        assert auth.user.phone == phone
    finally:
        for c in clients:
            await c.disconnect()
        server.stop()
